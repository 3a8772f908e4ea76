// Router CSR page: identification, per-input event counters and the routing tables.
//
// Offsets come from the generated contract package and every register is decoded by
// comparing against its full offset, so a contract change that moves registers needs
// no edit here. Only the valid bit and port field of RT_CTRL are stored; reserved bits
// read as zero. Registers of inputs the router does not have decode as unknown.
module rcube_cfg #(
  parameter int unsigned NPORTS = 8
) (
  input  logic                                                                  clk_i,
  input  logic                                                                  rst_ni,
  // configuration port
  input  logic                                                                  cfg_req_valid_i,
  input  logic                                                                  cfg_req_write_i,
  input  logic [11:0]                                                           cfg_req_addr_i,
  input  logic [31:0]                                                           cfg_req_wdata_i,
  output logic                                                                  cfg_rsp_valid_o,
  output logic [31:0]                                                           cfg_rsp_rdata_o,
  // counter events, one bit per input
  input  logic [NPORTS-1:0]                                                     drop_inc_i,
  input  logic [NPORTS-1:0]                                                     eep_inc_i,
  // routing tables, [input][entry]
  output logic [NPORTS-1:0][fasthsl_pkg::ROUTE_ENTRIES-1:0]                     entry_valid_o,
  output fasthsl_pkg::route_bounds_t [NPORTS-1:0][fasthsl_pkg::ROUTE_ENTRIES-1:0] entry_bounds_o,
  output logic [NPORTS-1:0][fasthsl_pkg::ROUTE_ENTRIES-1:0][2:0]                entry_port_o
);
  import fasthsl_pkg::*;

  localparam int unsigned NEntries = NPORTS * ROUTE_ENTRIES;

  // Address of each register in the 12-bit page.
  function automatic logic [11:0] reg_addr(logic [15:0] base, int unsigned stride,
                                           int unsigned idx);
    return 12'(32'(base) + stride * idx);
  endfunction

  logic rd_req, wr_req;
  assign rd_req = cfg_req_valid_i && !cfg_req_write_i;
  assign wr_req = cfg_req_valid_i && cfg_req_write_i;

  // ---- routing tables ----
  logic [NPORTS-1:0][ROUTE_ENTRIES-1:0]      valid_q, valid_d;
  route_bounds_t [NPORTS-1:0][ROUTE_ENTRIES-1:0] bounds_q, bounds_d;
  logic [NPORTS-1:0][ROUTE_ENTRIES-1:0][2:0] port_q, port_d;

  route_ctrl_t wr_ctrl;
  assign wr_ctrl = route_ctrl_t'(cfg_req_wdata_i);
  logic unused_ctrl_rsvd;
  assign unused_ctrl_rsvd = ^wr_ctrl.rsvd3;

  always_comb begin
    valid_d  = valid_q;
    bounds_d = bounds_q;
    port_d   = port_q;
    for (int unsigned p = 0; p < NPORTS; p++) begin
      for (int unsigned e = 0; e < ROUTE_ENTRIES; e++) begin
        if (wr_req && (cfg_req_addr_i ==
                       reg_addr(RT_BOUNDS_OFFSET, RT_BOUNDS_STRIDE, p * ROUTE_ENTRIES + e))) begin
          bounds_d[p][e] = route_bounds_t'(cfg_req_wdata_i);
        end
        if (wr_req && (cfg_req_addr_i ==
                       reg_addr(RT_CTRL_OFFSET, RT_CTRL_STRIDE, p * ROUTE_ENTRIES + e))) begin
          valid_d[p][e] = wr_ctrl.valid;
          port_d[p][e]  = wr_ctrl.port;
        end
      end
    end
  end

  assign entry_valid_o  = valid_q;
  assign entry_bounds_o = bounds_q;
  assign entry_port_o   = port_q;

  // ---- counters ----
  logic [NPORTS-1:0][31:0] drop_cnt_q, drop_cnt_d, eep_cnt_q, eep_cnt_d;
  always_comb begin
    for (int unsigned i = 0; i < NPORTS; i++) begin
      drop_cnt_d[i] = drop_cnt_q[i] + 32'(drop_inc_i[i]);
      eep_cnt_d[i]  = eep_cnt_q[i] + 32'(eep_inc_i[i]);
    end
  end

  // ---- read mux ----
  logic [31:0] rdata;
  always_comb begin
    rdata = 32'hFFFF_FFFF;
    if (cfg_req_addr_i == reg_addr(RT_ID_OFFSET, 0, 0))    rdata = ID_MAGIC;
    if (cfg_req_addr_i == reg_addr(RT_PORTS_OFFSET, 0, 0)) rdata = 32'(NPORTS);
    for (int unsigned i = 0; i < NPORTS; i++) begin
      if (i < RT_DROP_COUNT && cfg_req_addr_i == reg_addr(RT_DROP_OFFSET, RT_DROP_STRIDE, i)) begin
        rdata = drop_cnt_q[i];
      end
      if (i < RT_EEP_COUNT && cfg_req_addr_i == reg_addr(RT_EEP_OFFSET, RT_EEP_STRIDE, i)) begin
        rdata = eep_cnt_q[i];
      end
    end
    for (int unsigned p = 0; p < NPORTS; p++) begin
      for (int unsigned e = 0; e < ROUTE_ENTRIES; e++) begin
        if (cfg_req_addr_i ==
            reg_addr(RT_BOUNDS_OFFSET, RT_BOUNDS_STRIDE, p * ROUTE_ENTRIES + e)) begin
          rdata = bounds_q[p][e];
        end
        if (cfg_req_addr_i ==
            reg_addr(RT_CTRL_OFFSET, RT_CTRL_STRIDE, p * ROUTE_ENTRIES + e)) begin
          rdata = route_ctrl_t'{valid: valid_q[p][e], rsvd3: '0, port: port_q[p][e]};
        end
      end
    end
  end

  logic        rsp_valid_q;
  logic [31:0] rsp_rdata_q;
  assign cfg_rsp_valid_o = rsp_valid_q;
  assign cfg_rsp_rdata_o = rsp_rdata_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q     <= '0;
      bounds_q    <= '0;
      port_q      <= '0;
      drop_cnt_q  <= '0;
      eep_cnt_q   <= '0;
      rsp_valid_q <= 1'b0;
      rsp_rdata_q <= '0;
    end else begin
      valid_q     <= valid_d;
      bounds_q    <= bounds_d;
      port_q      <= port_d;
      drop_cnt_q  <= drop_cnt_d;
      eep_cnt_q   <= eep_cnt_d;
      rsp_valid_q <= rd_req;
      if (rd_req) rsp_rdata_q <= rdata;
    end
  end

  // The table index space of the contract must cover every input of this router.
  if (NEntries > RT_BOUNDS_COUNT || NEntries > RT_CTRL_COUNT) begin : gen_table_check
    $error("rcube_cfg: NPORTS * ROUTE_ENTRIES exceeds the contract's table registers");
  end

endmodule
