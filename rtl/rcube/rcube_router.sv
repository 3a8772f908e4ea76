// RCUBE-style wormhole router: NPORTS inputs and outputs, interval routing per input,
// round-robin allocation per output, credit flow control on every link.
//
// Datapath: in_flit_i -> input buffer (route looked up on entry) -> crossbar ->
// output register -> out_flit_o. A head flit entering in cycle t leaves in cycle t+2
// when its output is free and has a credit. Both link outputs (out_flit_o,
// in_credit_o) come straight from flops, so routers can be chained with a registered
// link and no combinational path between them.
module rcube_router #(
  parameter int unsigned NPORTS    = 8,
  parameter int unsigned BUF_DEPTH = 16   // flits per input buffer
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  fasthsl_link_pkg::link_flit_t [NPORTS-1:0] in_flit_i,
  output logic [NPORTS-1:0]                         in_credit_o,
  output fasthsl_link_pkg::link_flit_t [NPORTS-1:0] out_flit_o,
  input  logic [NPORTS-1:0]                         out_credit_i,
  // configuration port: router CSR page (offsets from fasthsl_pkg RT_*), 32-bit registers
  input  logic        cfg_req_valid_i,
  input  logic        cfg_req_write_i,
  input  logic [11:0] cfg_req_addr_i,   // byte offset, 4-aligned
  input  logic [31:0] cfg_req_wdata_i,
  output logic        cfg_rsp_valid_o,  // pulses exactly one cycle after each READ request
  output logic [31:0] cfg_rsp_rdata_o
);
  import fasthsl_pkg::*;
  import fasthsl_link_pkg::*;

  if (NPORTS < 2 || NPORTS > ROUTER_PORTS) begin : gen_nports_check
    $error("rcube_router: NPORTS must be 2..ROUTER_PORTS");
  end
  if (BUF_DEPTH < 1) begin : gen_depth_check
    $error("rcube_router: BUF_DEPTH must be at least 1");
  end

  // ---- configuration ----
  logic [NPORTS-1:0]                                drop_inc, eep_inc;
  logic [NPORTS-1:0][ROUTE_ENTRIES-1:0]             entry_valid;
  route_bounds_t [NPORTS-1:0][ROUTE_ENTRIES-1:0]    entry_bounds;
  logic [NPORTS-1:0][ROUTE_ENTRIES-1:0][2:0]        entry_port;

  rcube_cfg #(
    .NPORTS(NPORTS)
  ) u_cfg (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .cfg_req_valid_i(cfg_req_valid_i),
    .cfg_req_write_i(cfg_req_write_i),
    .cfg_req_addr_i (cfg_req_addr_i),
    .cfg_req_wdata_i(cfg_req_wdata_i),
    .cfg_rsp_valid_o(cfg_rsp_valid_o),
    .cfg_rsp_rdata_o(cfg_rsp_rdata_o),
    .drop_inc_i     (drop_inc),
    .eep_inc_i      (eep_inc),
    .entry_valid_o  (entry_valid),
    .entry_bounds_o (entry_bounds),
    .entry_port_o   (entry_port)
  );

  // ---- inputs ----
  // in_req[i][o]: input i's buffer head wants output o; out_req is the transpose.
  link_flit_t [NPORTS-1:0]              head_flit;
  logic       [NPORTS-1:0][NPORTS-1:0]  in_req, out_req, out_gnt;
  logic       [NPORTS-1:0]              in_pop;

  for (genvar i = 0; i < NPORTS; i++) begin : gen_in
    rcube_input_port #(
      .NPORTS   (NPORTS),
      .BUF_DEPTH(BUF_DEPTH)
    ) u_in (
      .clk_i         (clk_i),
      .rst_ni        (rst_ni),
      .in_flit_i     (in_flit_i[i]),
      .in_credit_o   (in_credit_o[i]),
      .entry_valid_i (entry_valid[i]),
      .entry_bounds_i(entry_bounds[i]),
      .entry_port_i  (entry_port[i]),
      .head_flit_o   (head_flit[i]),
      .req_o         (in_req[i]),
      .pop_i         (in_pop[i]),
      .drop_o        (drop_inc[i]),
      .eep_o         (eep_inc[i])
    );
  end

  // ---- crossbar control ----
  // in_req rows are one-hot or zero; rows without a request are skipped (no logic
  // change: their column bits stay zero), so a simulator does not move every bit of
  // the matrix each cycle.
  always_comb begin
    out_req = '0;
    for (int unsigned i = 0; i < NPORTS; i++) begin
      if (in_req[i] != '0) begin
        for (int unsigned o = 0; o < NPORTS; o++) begin
          out_req[o][i] = in_req[i][o];
        end
      end
    end
  end

  // An input's head is wanted by one output only, so at most one output grants it:
  // in_pop is the OR of the grant rows.
  always_comb begin
    in_pop = '0;
    for (int unsigned o = 0; o < NPORTS; o++) begin
      in_pop = in_pop | out_gnt[o];
    end
  end

  // ---- outputs ----
  for (genvar o = 0; o < NPORTS; o++) begin : gen_out
    rcube_output_port #(
      .NPORTS(NPORTS)
    ) u_out (
      .clk_i     (clk_i),
      .rst_ni    (rst_ni),
      .req_i     (out_req[o]),
      .flit_i    (head_flit),
      .gnt_o     (out_gnt[o]),
      .out_flit_o(out_flit_o[o]),
      .credit_i  (out_credit_i[o])
    );
  end

endmodule
