// Config-port helpers shared by the rcube_router testbenches: register addresses of the
// router's CSR page (fasthsl_pkg offsets and strides), a write, and the routing table the
// unicast tests use. Included inside a testbench module after rcube_tb_link.svh (clk);
// needs `logic cfg_valid, cfg_write`, `logic [11:0] cfg_addr`, `logic [31:0] cfg_wdata`
// driving the router's cfg_req_* inputs.

  function automatic logic [11:0] bounds_addr(int i, int e);
    return 12'(32'(RT_BOUNDS_OFFSET) + (i * ROUTE_ENTRIES + e) * RT_BOUNDS_STRIDE);
  endfunction
  function automatic logic [11:0] ctrl_addr(int i, int e);
    return 12'(32'(RT_CTRL_OFFSET) + (i * ROUTE_ENTRIES + e) * RT_CTRL_STRIDE);
  endfunction
  function automatic logic [11:0] drop_addr(int i);
    return 12'(32'(RT_DROP_OFFSET) + i * RT_DROP_STRIDE);
  endfunction
  function automatic logic [11:0] eep_addr(int i);
    return 12'(32'(RT_EEP_OFFSET) + i * RT_EEP_STRIDE);
  endfunction
  function automatic logic [11:0] tmo_addr(int i);
    return 12'(32'(RT_TMO_OFFSET) + i * RT_TMO_STRIDE);
  endfunction
  function automatic logic [11:0] bc_mask_addr(int i);
    return 12'(32'(RT_BC_MASK_OFFSET) + i * RT_BC_MASK_STRIDE);
  endfunction
  function automatic logic [11:0] bc_bounds_addr(int i, int o);
    return 12'(32'(RT_BC_BOUNDS_OFFSET) + (i * ROUTER_PORTS + o) * RT_BC_BOUNDS_STRIDE);
  endfunction

  // One write, one cycle (inputs change at falling edges).
  task automatic cfg_wr(logic [11:0] a, logic [31:0] d);
    cfg_valid = 1'b1; cfg_write = 1'b1; cfg_addr = a; cfg_wdata = d;
    @(negedge clk);
    cfg_valid = 1'b0; cfg_write = 1'b0;
  endtask

  // Input i: entry e covers [100e, 100e+99] and goes to output (e + i + rot) % NP; entries
  // past the last port are invalid.
  task automatic program_input(int i, int rot);
    for (int e = 0; e < ROUTE_ENTRIES; e++) begin
      cfg_wr(bounds_addr(i, e), {16'(e * 100 + 99), 16'(e * 100)});
      cfg_wr(ctrl_addr(i, e), {(e < NP), 28'h0, 3'((e + i + rot) % NP)});
    end
  endtask
