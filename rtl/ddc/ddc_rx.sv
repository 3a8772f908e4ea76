// NIC receive path (DDSLRP: no per-message state; every packet carries its own target).
//
//   rx_flit_i -> [reg] -> ingress (checks, verdict) -> flit buffer + verdict queue
//             -> egress (payload writes, LMR entry) -> [2-entry out buffer] -> DMA write
//             -> egress events -> ddc_ack_gen -> answer flits (ans_*, to the TX link)
//
// Reliability (docs/RELIABILITY.md): a completed unicast message is answered with an ACK,
// one the tracker gave up with a NACK, and the reject_* input (for the receive-window /
// key check, tied off until that check drives it) with a NACK_REJECT; REL_CTRL.ACK_OFF
// (ack_off_i) silences all three. Answers that arrive here for this node's own messages
// leave on rx_ans_* for the sender side. With REL_CTRL.DEDUP (dedup_i) the egress drops
// duplicate packets by (src, seq) (ddc_rx_seq_window, remembered seq_hold_i ticks) and
// answers a duplicate's last packet with the ACK again. With REL_CTRL.EARLY_NACK
// (early_nack_i) a deterministically routed message whose last packet arrives with bytes
// missing is NACKed at once (early_nack_o). A message of context 1..7 completing while
// its LMR ring is full gets no entry and a NACK instead of its ACK (lmr_full_o).
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
  output logic                         track_full_o,
  output logic                         lmr_full_o,     // a context 1..7 entry dropped
  // reliability
  input  logic                         ack_off_i,
  input  logic                         dedup_i,
  input  logic                         early_nack_i,
  output logic                         early_nack_o,   // an early NACK asked for
  input  logic [20:0]                  seq_hold_i,
  output logic                         dup_o,          // a duplicate packet dropped
  output logic                         seq_evict_o,
  input  logic                         reject_valid_i,
  input  logic [15:0]                  reject_src_i,
  input  logic [31:0]                  reject_msg_id_i,
  input  logic [7:0]                   reject_cause_i,
  output logic                         ans_valid_o,    // answer flits for the TX link
  input  logic                         ans_ready_i,
  output logic [63:0]                  ans_data_o,
  output logic                         ans_last_o,
  output logic                         rx_ans_valid_o, // an answer for one of our messages
  output logic [3:0]                   rx_ans_ptype_o,
  output logic [15:0]                  rx_ans_src_o,
  output logic [31:0]                  rx_ans_msg_id_o,
  output logic [7:0]                   rx_ans_cause_o,
  output logic                         ack_sent_o,
  output logic                         nack_sent_o,
  output logic [1:0]                   ans_drop_o,
  // receive window table (ddc_rx_window): header fields under check, its verdict, and
  // refusals (window or table) with the refused packet's fields still on pkt_*
  output logic [3:0]                   pkt_ptype_o,
  output logic [15:0]                  pkt_src_o,
  output logic [2:0]                   pkt_dctx_o,
  output logic [15:0]                  pkt_key_o,
  output logic [47:0]                  pkt_addr_o,
  output logic [15:0]                  pkt_len_o,
  output logic [31:0]                  pkt_msg_id_o,
  input  fasthsl_pkg::win_rej_e        win_rej_i,
  output logic                         reject_o,
  output fasthsl_pkg::win_rej_e        reject_reason_o
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
    .pkt_ptype_o     (pkt_ptype_o),
    .pkt_src_o       (pkt_src_o),
    .pkt_dctx_o      (pkt_dctx_o),
    .pkt_key_o       (pkt_key_o),
    .pkt_addr_o      (pkt_addr_o),
    .pkt_len_o       (pkt_len_o),
    .pkt_msg_id_o    (pkt_msg_id_o),
    .win_rej_i       (win_rej_i),
    .reject_o        (reject_o),
    .reject_reason_o (reject_reason_o),
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

  // Block RAM (fifo_sync's REG_READ) behind a head register: the egress's every header
  // field leaves a flip-flop, not the RAM's slow read (docs/SYNTH.md)
  fifo_sync_oreg #(
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
  logic        eg_ack_valid, eg_nack_valid, eg_early_nack;
  logic [15:0] eg_ack_src, eg_nack_src;
  logic [31:0] eg_ack_msg_id, eg_nack_msg_id;

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
    .trk_overrun_o (trk_overrun),
    .lmr_full_o    (lmr_full_o),
    .early_nack_i  (early_nack_i),
    .early_nack_o  (eg_early_nack),
    .dedup_i       (dedup_i),
    .seq_hold_i    (seq_hold_i),
    .dup_o         (dup_o),
    .seq_evict_o   (seq_evict_o),
    .ans_valid_o   (rx_ans_valid_o),
    .ans_ptype_o   (rx_ans_ptype_o),
    .ans_src_o     (rx_ans_src_o),
    .ans_msg_id_o  (rx_ans_msg_id_o),
    .ans_cause_o   (rx_ans_cause_o),
    .ack_valid_o   (eg_ack_valid),
    .ack_src_o     (eg_ack_src),
    .ack_msg_id_o  (eg_ack_msg_id),
    .nack_valid_o  (eg_nack_valid),
    .nack_src_o    (eg_nack_src),
    .nack_msg_id_o (eg_nack_msg_id)
  );

  // Counted as asked for (like the NACK itself, silenced by ACK_OFF); one that finds the
  // queue full is counted in ans_drop_o as well.
  assign early_nack_o = eg_early_nack && !ack_off_i;

  // A message completes at most every ~6 cycles (8-byte streaming) while its ACK takes 4
  // link cycles, so 16 answers cover a reverse link shared with data for a while; an
  // answer that finds its queue full is dropped and counted (the sender retries).
  ddc_ack_gen #(
    .QDEPTH(16)
  ) u_ack_gen (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .node_id_i     (node_id_i),
    .cpl_valid_i   (eg_ack_valid && !ack_off_i),
    .cpl_src_i     (eg_ack_src),
    .cpl_msg_id_i  (eg_ack_msg_id),
    .nack_valid_i  (eg_nack_valid && !ack_off_i),
    .nack_src_i    (eg_nack_src),
    .nack_msg_id_i (eg_nack_msg_id),
    .reject_valid_i(reject_valid_i && !ack_off_i),
    .reject_src_i  (reject_src_i),
    .reject_msg_i  (reject_msg_id_i),
    .reject_cause_i(reject_cause_i),
    .out_valid_o   (ans_valid_o),
    .out_ready_i   (ans_ready_i),
    .out_data_o    (ans_data_o),
    .out_last_o    (ans_last_o),
    .ack_sent_o    (ack_sent_o),
    .nack_sent_o   (nack_sent_o),
    .drops_o       (ans_drop_o)
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
