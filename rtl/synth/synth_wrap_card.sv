// Place-and-route top for fasthsl_card (NIC + 8-port router): the core's ports go
// through synth_io_shift, so the design needs five package pins. Synthesis only.
module synth_wrap_card #(
  // fasthsl_card's router options; synth.py sets them per block
  parameter bit ROUTER_VOQ       = 1'b1,
  parameter bit ROUTER_REG_AVAIL = 1'b0,
  parameter bit ROUTER_REG_POP   = 1'b0,
  parameter bit ROUTER_ALLOC_PIPE = 1'b0,
  parameter bit ROUTER_ALLOC_SPEC = 1'b0
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic sin_i,
  input  logic load_i,
  output logic sout_o
);
  import fasthsl_link_pkg::*;

  localparam int unsigned NLinks = 7;
  localparam int unsigned FlitW  = $bits(link_flit_t);
  localparam int unsigned InW    = (2 + 16 + 32) + 1 + (1 + 64 + 8 + 1 + 1) + 1
                                   + NLinks * FlitW + NLinks;
  localparam int unsigned OutW   = (1 + 32) + (1 + 64 + 6 + 8) + 1 + (1 + 64 + 64 + 8) + 1
                                   + NLinks + NLinks * FlitW;

  logic                    csr_req_valid, csr_req_write, csr_rsp_valid;
  logic [15:0]             csr_req_addr;
  logic [31:0]             csr_req_wdata, csr_rsp_rdata;
  logic                    dma_rd_req_valid, dma_rd_req_ready;
  logic [63:0]             dma_rd_req_addr;
  logic [5:0]              dma_rd_req_beats;
  logic [7:0]              dma_rd_req_tag;
  logic                    dma_rd_rsp_valid, dma_rd_rsp_ready, dma_rd_rsp_last, dma_rd_rsp_err;
  logic [63:0]             dma_rd_rsp_data;
  logic [7:0]              dma_rd_rsp_tag;
  logic                    dma_wr_valid, dma_wr_ready;
  logic [63:0]             dma_wr_addr, dma_wr_data;
  logic [7:0]              dma_wr_strb;
  logic                    irq;
  link_flit_t [NLinks:1]   link_in_flit, link_out_flit;
  logic [NLinks:1]         link_in_credit, link_out_credit;
  logic [InW-1:0]          core_in;
  logic [OutW-1:0]         core_out;

  assign {csr_req_valid, csr_req_write, csr_req_addr, csr_req_wdata, dma_rd_req_ready,
          dma_rd_rsp_valid, dma_rd_rsp_data, dma_rd_rsp_tag, dma_rd_rsp_last, dma_rd_rsp_err,
          dma_wr_ready,
          link_in_flit, link_out_credit} = core_in;
  assign core_out = {csr_rsp_valid, csr_rsp_rdata, dma_rd_req_valid, dma_rd_req_addr,
                     dma_rd_req_beats, dma_rd_req_tag, dma_rd_rsp_ready, dma_wr_valid,
                     dma_wr_addr, dma_wr_data, dma_wr_strb, irq, link_in_credit,
                     link_out_flit};

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

  fasthsl_card #(
    .ROUTER_VOQ      (ROUTER_VOQ),
    .ROUTER_REG_AVAIL(ROUTER_REG_AVAIL),
    .ROUTER_REG_POP  (ROUTER_REG_POP),
    .ROUTER_ALLOC_PIPE(ROUTER_ALLOC_PIPE),
    .ROUTER_ALLOC_SPEC(ROUTER_ALLOC_SPEC)
  ) u_core (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .csr_req_valid_i   (csr_req_valid),
    .csr_req_write_i   (csr_req_write),
    .csr_req_addr_i    (csr_req_addr),
    .csr_req_wdata_i   (csr_req_wdata),
    .csr_rsp_valid_o   (csr_rsp_valid),
    .csr_rsp_rdata_o   (csr_rsp_rdata),
    .dma_rd_req_valid_o(dma_rd_req_valid),
    .dma_rd_req_ready_i(dma_rd_req_ready),
    .dma_rd_req_addr_o (dma_rd_req_addr),
    .dma_rd_req_beats_o(dma_rd_req_beats),
    .dma_rd_req_tag_o  (dma_rd_req_tag),
    .dma_rd_rsp_valid_i(dma_rd_rsp_valid),
    .dma_rd_rsp_ready_o(dma_rd_rsp_ready),
    .dma_rd_rsp_data_i (dma_rd_rsp_data),
    .dma_rd_rsp_tag_i  (dma_rd_rsp_tag),
    .dma_rd_rsp_last_i (dma_rd_rsp_last),
    .dma_rd_rsp_err_i  (dma_rd_rsp_err),
    .dma_wr_valid_o    (dma_wr_valid),
    .dma_wr_ready_i    (dma_wr_ready),
    .dma_wr_addr_o     (dma_wr_addr),
    .dma_wr_data_o     (dma_wr_data),
    .dma_wr_strb_o     (dma_wr_strb),
    .irq_o             (irq),
    .link_in_flit_i    (link_in_flit),
    .link_in_credit_o  (link_in_credit),
    .link_out_flit_o   (link_out_flit),
    .link_out_credit_i (link_out_credit)
  );

endmodule
