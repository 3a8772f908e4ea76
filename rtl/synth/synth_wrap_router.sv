// Place-and-route top for rcube_router (8 ports, 16-flit buffers): the core's ports
// go through synth_io_shift, so the design needs five package pins. Synthesis only.
module synth_wrap_router #(
  parameter bit VOQ       = 1'b1,  // router organisation (rcube_router VOQ); synth.py sets it per block
  parameter bit REG_AVAIL = 1'b0,  // rcube_router REG_AVAIL
  parameter bit REG_POP   = 1'b0,  // rcube_router REG_POP
  parameter bit ALLOC_PIPE = 1'b0, // rcube_router ALLOC_PIPE
  parameter bit ALLOC_SPEC = 1'b0  // rcube_router ALLOC_SPEC
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic sin_i,
  input  logic load_i,
  output logic sout_o
);
  import fasthsl_link_pkg::*;

  localparam int unsigned NPorts = 8;
  localparam int unsigned InW    = NPorts * $bits(link_flit_t) + NPorts + 2 + 12 + 32;
  localparam int unsigned OutW   = NPorts + NPorts * $bits(link_flit_t) + 1 + 32;

  link_flit_t [NPorts-1:0] in_flit, out_flit;
  logic [NPorts-1:0]       in_credit, out_credit;
  logic                    cfg_req_valid, cfg_req_write, cfg_rsp_valid;
  logic [11:0]             cfg_req_addr;
  logic [31:0]             cfg_req_wdata, cfg_rsp_rdata;
  logic [InW-1:0]          core_in;
  logic [OutW-1:0]         core_out;

  assign {in_flit, out_credit, cfg_req_valid, cfg_req_write, cfg_req_addr,
          cfg_req_wdata} = core_in;
  assign core_out = {in_credit, out_flit, cfg_rsp_valid, cfg_rsp_rdata};

  synth_io_shift #(
    .IN_W (InW),
    .OUT_W(OutW)
  ) u_io (
    .clk_i     (clk_i),
    .sin_i     (sin_i),
    .load_i    (load_i),
    .sout_o    (sout_o),
    .core_in_o (core_in),
    .core_out_i(core_out)
  );

  rcube_router #(
    .NPORTS   (NPorts),
    .BUF_DEPTH(16),
    .VOQ      (VOQ),
    .REG_AVAIL(REG_AVAIL),
    .REG_POP  (REG_POP),
    .ALLOC_PIPE(ALLOC_PIPE),
    .ALLOC_SPEC(ALLOC_SPEC)
  ) u_core (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .in_flit_i      (in_flit),
    .in_credit_o    (in_credit),
    .out_flit_o     (out_flit),
    .out_credit_i   (out_credit),
    .cfg_req_valid_i(cfg_req_valid),
    .cfg_req_write_i(cfg_req_write),
    .cfg_req_addr_i (cfg_req_addr),
    .cfg_req_wdata_i(cfg_req_wdata),
    .cfg_rsp_valid_o(cfg_rsp_valid),
    .cfg_rsp_rdata_o(cfg_rsp_rdata)
  );

endmodule
