// NIC receive path (DDSLRP: no per-message state; every packet carries its own target).
//
//   rx_flit_i -> [reg] -> ingress (checks, verdict) -> flit buffer + verdict queue
//             -> egress (payload writes, LMR entry) -> [2-entry out buffer] -> DMA write
//
// The flit buffer holds RX_BUF_FLITS flits, two of the longest packets by default, so one
// packet is written to host memory while the next arrives. Credits: one pulse per buffer
// slot freed (link_credit_return).
module ddc_rx
  import fasthsl_pkg::*;
#(
  parameter int unsigned MAX_FLITS    = (7 + MTU_MAX + 7) / 8 + 4,
  parameter int unsigned RX_BUF_FLITS = 2 * MAX_FLITS,
  parameter int unsigned NumCtx       = 1,   // contexts with an LMR ring here
  localparam int unsigned SideW       = 2 + ((NumCtx > 1) ? $clog2(NumCtx) : 1)
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // configuration and LMR ring
  input  logic                         enable_i,
  input  logic [15:0]                  node_id_i,
  input  logic [63:0]                  rxwin_base_i,
  input  logic [63:0]                  rxwin_size_i,
  input  logic [fasthsl_pkg::CTX_COUNT-1:0] ctx_rx_en_i,
  input  logic [NumCtx-1:0][63:0]      lmr_base_i,
  input  logic [NumCtx-1:0][15:0]      lmr_size_i,
  input  logic [NumCtx-1:0][15:0]      lmr_cons_i,
  input  logic [NumCtx-1:0]            lmr_reset_i,
  output logic [NumCtx-1:0][15:0]      lmr_prod_o,
  // link
  input  fasthsl_link_pkg::link_flit_t rx_flit_i,
  output logic                         rx_credit_o,
  // host writes; side = {context, irq_remote, lmr_commit}, returned with dma_wr_done_i
  output logic                         dma_wr_valid_o,
  input  logic                         dma_wr_ready_i,
  output logic [63:0]                  dma_wr_addr_o,
  output logic [63:0]                  dma_wr_data_o,
  output logic [7:0]                   dma_wr_strb_o,
  output logic [SideW-1:0]             dma_wr_side_o,
  input  logic                         dma_wr_done_i,
  input  logic [SideW-1:0]             dma_wr_done_side_i,
  // one-cycle event pulses
  output logic                         pkt_o,
  output logic                         msg_o,
  output logic                         msg_irq_o,
  output logic [SideW-3:0]             msg_irq_ctx_o,   // its context
  output logic                         drop_crc_o,
  output logic                         drop_dest_o,
  output logic                         drop_malformed_o,
  output logic                         drop_window_o,
  output logic                         drop_ctx_o,
  output logic                         msg_expired_o,
  output logic                         track_full_o
);
  localparam int unsigned CreditW = $clog2(RX_BUF_FLITS + 1);

  // A flit register in front of the checks keeps the CRC off the link wires.
  fasthsl_link_pkg::link_flit_t flit_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) flit_q <= fasthsl_link_pkg::LINK_FLIT_IDLE;
    else         flit_q <= rx_flit_i;
  end

  logic        in_push, in_eop, in_vrd_push, in_vrd_accept;
  logic [63:0] in_data;

  ddc_rx_ingress #(
    .MAX_FLITS(MAX_FLITS)
  ) u_ingress (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .enable_i        (enable_i),
    .node_id_i       (node_id_i),
    .rxwin_base_i    (rxwin_base_i),
    .rxwin_size_i    (rxwin_size_i),
    .ctx_rx_en_i     (ctx_rx_en_i),
    .flit_i          (flit_q),
    .buf_push_o      (in_push),
    .buf_eop_o       (in_eop),
    .buf_data_o      (in_data),
    .vrd_push_o      (in_vrd_push),
    .vrd_accept_o    (in_vrd_accept),
    .drop_crc_o      (drop_crc_o),
    .drop_dest_o     (drop_dest_o),
    .drop_malformed_o(drop_malformed_o),
    .drop_window_o   (drop_window_o),
    .drop_ctx_o      (drop_ctx_o)
  );

  // ---- flit buffer and verdict queue ----
  // Every packet has at least one flit in the buffer until its verdict is popped, so the
  // verdict queue never holds more entries than the buffer holds flits.
  logic               buf_ready, buf_valid, buf_pop, buf_eop;
  logic [63:0]        buf_data;
  logic [CreditW-1:0] unused_buf_count;
  logic               vrd_ready, vrd_valid, vrd_pop, vrd_accept;
  logic [CreditW-1:0] unused_vrd_count;

  fifo_sync #(
    .WIDTH(65),
    .DEPTH(RX_BUF_FLITS)
  ) u_buf (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (in_push),
    .in_ready_o (buf_ready),
    .in_data_i  ({in_eop, in_data}),
    .out_valid_o(buf_valid),
    .out_ready_i(buf_pop),
    .out_data_o ({buf_eop, buf_data}),
    .count_o    (unused_buf_count)
  );

  fifo_sync #(
    .WIDTH(1),
    .DEPTH(RX_BUF_FLITS)
  ) u_vrd (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (in_vrd_push),
    .in_ready_o (vrd_ready),
    .in_data_i  (in_vrd_accept),
    .out_valid_o(vrd_valid),
    .out_ready_i(vrd_pop),
    .out_data_o (vrd_accept),
    .count_o    (unused_vrd_count)
  );

  // ---- egress ----
  logic        trk_expire, trk_overrun;
  assign msg_expired_o = trk_expire || trk_overrun;
  logic        wr_valid, wr_ready;
  logic [63:0] wr_addr, wr_data;
  logic [7:0]  wr_strb;
  logic [SideW-1:0] wr_side;

  ddc_rx_egress #(
    .NumCtx(NumCtx)
  ) u_egress (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .lmr_base_i    (lmr_base_i),
    .lmr_size_i    (lmr_size_i),
    .lmr_cons_i    (lmr_cons_i),
    .lmr_reset_i   (lmr_reset_i),
    .lmr_prod_o    (lmr_prod_o),
    .buf_valid_i   (buf_valid),
    .buf_eop_i     (buf_eop),
    .buf_data_i    (buf_data),
    .buf_pop_o     (buf_pop),
    .vrd_valid_i   (vrd_valid),
    .vrd_accept_i  (vrd_accept),
    .vrd_pop_o     (vrd_pop),
    .wr_valid_o    (wr_valid),
    .wr_ready_i    (wr_ready),
    .wr_addr_o     (wr_addr),
    .wr_data_o     (wr_data),
    .wr_strb_o     (wr_strb),
    .wr_side_o     (wr_side),
    .wr_done_i     (dma_wr_done_i),
    .wr_done_side_i(dma_wr_done_side_i),
    .pkt_o         (pkt_o),
    .msg_o         (msg_o),
    .msg_irq_o     (msg_irq_o),
    .msg_irq_ctx_o (msg_irq_ctx_o),
    .trk_full_o    (track_full_o),
    .trk_expire_o  (trk_expire),
    .trk_overrun_o (trk_overrun)
  );

  // Registers the write port so the buffer-read-to-strobe logic ends here.
  logic [1:0] unused_out_count;
  fifo_sync #(
    .WIDTH(SideW + 64 + 64 + 8),
    .DEPTH(2)
  ) u_out (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (wr_valid),
    .in_ready_o (wr_ready),
    .in_data_i  ({wr_side, wr_addr, wr_data, wr_strb}),
    .out_valid_o(dma_wr_valid_o),
    .out_ready_i(dma_wr_ready_i),
    .out_data_o ({dma_wr_side_o, dma_wr_addr_o, dma_wr_data_o, dma_wr_strb_o}),
    .count_o    (unused_out_count)
  );

  link_credit_return #(
    .DEPTH(RX_BUF_FLITS)
  ) u_credit_return (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .slot_freed_i(buf_pop),
    .credit_o    (rx_credit_o)
  );

  logic unused_ready;
  assign unused_ready = ^{buf_ready, vrd_ready};

`ifndef SYNTHESIS
  // Credits guarantee room; a flit reaching a full buffer is lost, which is a sender bug.
  // No reset qualifier needed: nothing is pushed while in reset.
  a_no_overflow: assert property (@(posedge clk_i) in_push |-> buf_ready)
    else $error("ddc_rx: flit arrived with the buffer full (credit violation)");
  a_vrd_no_overflow: assert property (@(posedge clk_i) in_vrd_push |-> vrd_ready);
`endif

endmodule
