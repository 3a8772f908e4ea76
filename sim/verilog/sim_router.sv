// Simulation top for one RCUBE router (8 ports) with flat ports, so the C++ shim can
// copy plain integers in and out without knowing the link struct layout.
//
// Per-port link signals become one bit per port in a byte-wide mask (valid, last, err,
// credits) plus one 64-bit data word per port.
//
// The configuration request is registered here (one extra cycle on a port that sits
// behind ~60 cycles of modeled PCIe anyway). That keeps the router's large register
// decode off the top-level inputs, so the simulator evaluates it once per cycle
// instead of once per input change: it is most of the router's evaluation cost.
//
// VOQ picks the router's input organisation (0: one FIFO per input, 1: virtual output
// queues with iSLIP), BUF_DEPTH the flits per input buffer, REG_AVAIL / REG_POP /
// ALLOC_PIPE / ALLOC_SPEC the VOQ router's pipeline options. build.rs verilates this top
// once per combination the traffic benchmark offers, so it compares them in one binary.
module sim_router #(
  parameter bit          VOQ       = 1'b1,
  parameter int unsigned BUF_DEPTH = 16,
  parameter int unsigned ITERS     = 1,
  parameter bit          GRANT_ALL = 1'b0,
  // the VOQ router's pipeline options (rcube_router; all three: a 5-cycle hop)
  parameter bit          REG_AVAIL  = 1'b0,
  parameter bit          REG_POP    = 1'b0,
  parameter bit          ALLOC_PIPE = 1'b0,
  parameter bit          ALLOC_SPEC = 1'b0   // the three-stage allocator instead of iSLIP
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // router inputs (flits from the neighbours) and their credit returns
  input  logic [7:0]  in_valid_i,
  input  logic [7:0]  in_last_i,
  input  logic [7:0]  in_err_i,
  input  logic [63:0] in_data_i [8],
  output logic [7:0]  in_credit_o,
  // router outputs (flits to the neighbours) and the credits they return
  output logic [7:0]  out_valid_o,
  output logic [7:0]  out_last_o,
  output logic [7:0]  out_err_o,
  output logic [63:0] out_data_o [8],
  input  logic [7:0]  out_credit_i,
  // configuration port (router CSR page)
  input  logic        cfg_req_valid_i,
  input  logic        cfg_req_write_i,
  input  logic [11:0] cfg_req_addr_i,
  input  logic [31:0] cfg_req_wdata_i,
  output logic        cfg_rsp_valid_o,
  output logic [31:0] cfg_rsp_rdata_o
);
  import fasthsl_link_pkg::*;

  localparam int unsigned NPorts = 8;

  link_flit_t [NPorts-1:0] in_flit, out_flit;

  logic        cfg_valid_q, cfg_write_q;
  logic [11:0] cfg_addr_q;
  logic [31:0] cfg_wdata_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cfg_valid_q <= 1'b0;
      cfg_write_q <= 1'b0;
      cfg_addr_q  <= '0;
      cfg_wdata_q <= '0;
    end else begin
      cfg_valid_q <= cfg_req_valid_i;
      cfg_write_q <= cfg_req_write_i;
      cfg_addr_q  <= cfg_req_addr_i;
      cfg_wdata_q <= cfg_req_wdata_i;
    end
  end

  // One continuous assignment per port and field: Verilator turns these into constant
  // shifts of the packed link arrays, where a loop over a struct assignment makes it
  // build each element in a temporary first.
  for (genvar p = 0; p < NPorts; p++) begin : gen_port
    assign in_flit[p]     = '{valid: in_valid_i[p], last: in_last_i[p], err: in_err_i[p],
                              data: in_data_i[p]};
    assign out_valid_o[p] = out_flit[p].valid;
    assign out_last_o[p]  = out_flit[p].last;
    assign out_err_o[p]   = out_flit[p].err;
    assign out_data_o[p]  = out_flit[p].data;
  end

  rcube_router #(
    .NPORTS   (NPorts),
    .BUF_DEPTH(BUF_DEPTH),
    .ITERS    (ITERS),
    .GRANT_ALL(GRANT_ALL),
    .VOQ      (VOQ),
    .REG_AVAIL (REG_AVAIL),
    .REG_POP   (REG_POP),
    .ALLOC_PIPE(ALLOC_PIPE),
    .ALLOC_SPEC(ALLOC_SPEC)
  ) u_router (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .in_flit_i      (in_flit),
    .in_credit_o    (in_credit_o),
    .out_flit_o     (out_flit),
    .out_credit_i   (out_credit_i),
    .cfg_req_valid_i(cfg_valid_q),
    .cfg_req_write_i(cfg_write_q),
    .cfg_req_addr_i (cfg_addr_q),
    .cfg_req_wdata_i(cfg_wdata_q),
    .cfg_rsp_valid_o(cfg_rsp_valid_o),
    .cfg_rsp_rdata_o(cfg_rsp_rdata_o)
  );

endmodule
