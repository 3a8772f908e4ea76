// PCI-DDC network interface: DDSLRP remote write over the FastHSL link.
//
//   ddc_csr         register file (page 0), interrupt, counters; context 0's rings
//   ddc_ctx_csr     context pages: rings and doorbells of contexts 1..CTX_COUNT-1
//   ddc_push        push window: a descriptor (and inline payload) written through MMIO
//   ddc_tx          LME ring -> DMA reads -> packets -> descriptor status write-back
//   ddc_rx          packets -> checks -> payload writes + LMR entries; ACK/NACK answers
//                   (ddc_ack_gen), sent by ddc_tx between its packets
//   ddc_rx_window   receive window table (keys, ranges, permissions), its log and counters
//   ddc_dma_wr_mux  TX status and RX writes onto the one DMA write port
//
// The RX buffer is 255 flits, not two worst-case packets (266): the link peers
// (rcube_output_port, the TX packetizer) count credits in 8 bits, so 255 is the most a
// receiver may announce. It still holds one whole packet while the next streams in, and
// the egress drains at link rate, so the link is not throttled while the DMA port keeps up.
//
// CSR pages (BAR0 offset bits 15:12): page 0 is ddc_csr; context n's page is page
// CTX_PAGE_BASE/4K + n. Context 0's page reaches page 0's ring registers (the same
// offsets: they are context 0's), and its ID; every other context page is ddc_ctx_csr's.
// Page 1 (the router's on a card) and pages past the last context are undefined here.
module ddc_nic (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // CSR bus (BAR0 offset, 32-bit registers); at most one request per cycle, always accepted
  input  logic                         csr_req_valid_i,
  input  logic                         csr_req_write_i,
  input  logic [15:0]                  csr_req_addr_i,
  input  logic [31:0]                  csr_req_wdata_i,
  output logic                         csr_rsp_valid_o,
  output logic [31:0]                  csr_rsp_rdata_o,
  // DMA read master (used by TX only)
  output logic                         dma_rd_req_valid_o,
  input  logic                         dma_rd_req_ready_i,
  output logic [63:0]                  dma_rd_req_addr_o,
  output logic [5:0]                   dma_rd_req_beats_o,
  output logic [7:0]                   dma_rd_req_tag_o,
  input  logic                         dma_rd_rsp_valid_i,
  output logic                         dma_rd_rsp_ready_o,
  input  logic [63:0]                  dma_rd_rsp_data_i,
  input  logic [7:0]                   dma_rd_rsp_tag_i,
  input  logic                         dma_rd_rsp_last_i,
  input  logic                         dma_rd_rsp_err_i,   // host refused the read (UR/CA)
  // DMA write master: one 8-byte-aligned word per beat with byte strobes; posted, in order
  output logic                         dma_wr_valid_o,
  input  logic                         dma_wr_ready_i,
  output logic [63:0]                  dma_wr_addr_o,
  output logic [63:0]                  dma_wr_data_o,
  output logic [7:0]                   dma_wr_strb_o,
  // interrupt (level): |(INT_STATUS & INT_MASK)
  output logic                         irq_o,
  // network link to the local router
  output fasthsl_link_pkg::link_flit_t tx_flit_o,
  input  logic                         tx_credit_i,
  input  fasthsl_link_pkg::link_flit_t rx_flit_i,
  output logic                         rx_credit_o
);
  localparam int unsigned RxBufFlits = 255;
  localparam int unsigned NumCtx     = fasthsl_pkg::CTX_COUNT;
  localparam logic [3:0]  CtxPage0   = 4'(fasthsl_pkg::CTX_PAGE_BASE >> 12);

  // ---- CSR request register, page decoded ----
  // Every block takes the request from here, a cycle after it arrives: the bridge's
  // registers sit by the PCIe block, far from the NIC, and the page decode and the push
  // window's length compares behind them were the placed node's worst path (docs/
  // SYNTH.md, session 33). So a read is answered two cycles after it arrives. Every
  // block sees the same delayed request, so their relative order (the doorbell and the
  // push window's trigger in one write) is unchanged.
  logic [3:0]  page, req_ctx;
  logic [11:0] page_off;
  logic        ctx0_ring, to_csr, to_ctx, to_page0;
  assign page     = csr_req_addr_i[15:12];
  assign page_off = csr_req_addr_i[11:0];
  // Page 1 and pages past the last context give a req_ctx >= CTX_COUNT: undefined there.
  assign req_ctx  = page - CtxPage0;
  always_comb begin
    unique case ({4'h0, page_off})
      fasthsl_pkg::CTX_LME_BASE_LO_OFFSET, fasthsl_pkg::CTX_LME_BASE_HI_OFFSET,
      fasthsl_pkg::CTX_LME_SIZE_OFFSET, fasthsl_pkg::CTX_LME_PROD_OFFSET,
      fasthsl_pkg::CTX_LME_CONS_OFFSET, fasthsl_pkg::CTX_LMR_BASE_LO_OFFSET,
      fasthsl_pkg::CTX_LMR_BASE_HI_OFFSET, fasthsl_pkg::CTX_LMR_SIZE_OFFSET,
      fasthsl_pkg::CTX_LMR_PROD_OFFSET, fasthsl_pkg::CTX_LMR_CONS_OFFSET:
        ctx0_ring = (page == CtxPage0);
      default: ctx0_ring = 1'b0;
    endcase
  end
  assign to_csr   = csr_req_valid_i && ((page == 4'h0) || ctx0_ring);
  assign to_ctx   = csr_req_valid_i && !to_csr;
  assign to_page0 = csr_req_valid_i && (page == 4'h0);

  logic        rq_csr_q, rq_ctx_q, rq_page0_q, rq_write_q;
  logic [3:0]  rq_ctx_id_q;
  logic [11:0] rq_off_q;
  logic [31:0] rq_wdata_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rq_csr_q   <= 1'b0;
      rq_ctx_q   <= 1'b0;
      rq_page0_q <= 1'b0;
    end else begin
      rq_csr_q   <= to_csr;
      rq_ctx_q   <= to_ctx;
      rq_page0_q <= to_page0;
    end
  end
  // The rest only matters with a valid: no reset.
  always_ff @(posedge clk_i) begin
    if (csr_req_valid_i) begin
      rq_write_q  <= csr_req_write_i;
      rq_ctx_id_q <= req_ctx;
      rq_off_q    <= page_off;
      rq_wdata_q  <= csr_req_wdata_i;
    end
  end

  logic        csr_rsp_valid, ctx_rsp_valid;
  logic [31:0] csr_rsp_rdata, ctx_rsp_rdata;
  // Both answer exactly one cycle after their own (registered) reads only.
  assign csr_rsp_valid_o = csr_rsp_valid || ctx_rsp_valid;
  assign csr_rsp_rdata_o = csr_rsp_valid ? csr_rsp_rdata : ctx_rsp_rdata;

  // configuration
  logic        enable;
  logic [15:0] node_id, mtu, dest_lo, dest_hi;
  logic [63:0] lme_base, lmr_base, rxwin_base, rxwin_size;
  logic [15:0] lme_size, lme_prod, lme_cons;
  logic [15:0] lmr_size, lmr_cons, lmr_prod;
  logic        lme_reset, lmr_reset;
  // every context's rings: index 0 from ddc_csr, the others from ddc_ctx_csr
  logic [NumCtx-1:0][63:0] cx_lme_base, cx_lmr_base, all_lme_base, all_lmr_base;
  logic [NumCtx-1:0][15:0] cx_lme_size, cx_lme_prod, cx_lmr_size, cx_lmr_cons;
  logic [NumCtx-1:0][15:0] all_lme_size, all_lme_prod, all_lmr_size, all_lmr_cons;
  logic [NumCtx-1:0][15:0] all_lme_cons, all_lmr_prod;
  logic [NumCtx-1:0]       cx_lme_reset, cx_lmr_reset, cx_rx_en, all_lmr_reset;
  logic [3:0]              ctx_csr_err;
  // push window
  logic             push_valid, push_take, push_release, push_free;
  logic             push_accept, push_reject;
  logic [15:0]      push_slot;
  logic [63:0]      push_local, push_w2;
  logic [79:0]      push_remote;   // {key, descriptor word 1}
  logic [31:0]      push_msg_id;
  logic [6:0][63:0] push_data;
  // events
  logic        tx_desc_done, tx_desc_err, tx_desc_irq, tx_pkt_sent, dma_rd_err;
  logic        rx_pkt, rx_msg, rx_msg_irq;
  logic [2:0]  tx_desc_irq_ctx, rx_msg_irq_ctx;
  logic        rx_drop_crc, rx_drop_dest, rx_drop_malformed, rx_drop_window, rx_drop_ctx;
  logic        rx_msg_expired, rx_track_full;
  // reliability (docs/RELIABILITY.md)
  logic        ack_off, ack_sent, nack_sent;
  logic        sender_wait;
  logic [15:0] rel_timeout;
  logic [3:0]  rel_retries;
  logic [4:0]  tx_quantum;
  logic        rel_retx;
  logic [4:0]  rel_timeouts;
  logic [1:0]  ans_drop;
  // receiver duplicates (REL_CTRL.DEDUP): a source is remembered for the sender's whole
  // retry budget plus one timeout, REL_TIMEOUT * (REL_RETRIES + 2) ticks, from this card's
  // own registers (the driver configures all cards alike). Registered: it changes only
  // with configuration, and the multiplier stays off the receive path.
  logic        dedup, rx_dup, rx_seq_evict;
  logic        early_nack, rx_early_nack, rx_lmr_full;   // REL_CTRL.EARLY_NACK, contexts 1..7
  // Operands at their own widths (16 x 5 -> 21): declared 21 bits wide, Yosys mapped the
  // product to three 18x18 multipliers once it read the node's hierarchy (SYNTH.md).
  logic [20:0] seq_hold_q, seq_hold;
  logic [15:0] seq_timeout;
  logic [4:0]  seq_tries;
  assign seq_timeout = (rel_timeout == '0) ? 16'd1 : rel_timeout;   // 0 acts as 1
  assign seq_tries   = 5'(rel_retries) + 5'd2;
  assign seq_hold    = 21'(seq_timeout) * 21'(seq_tries);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) seq_hold_q <= '0;
    else         seq_hold_q <= seq_hold;
  end
  logic        ans_valid, ans_ready, ans_last;
  logic [63:0] ans_data;
  logic        rx_ans_valid;
  logic [3:0]  rx_ans_ptype;
  logic [15:0] rx_ans_src;
  logic [31:0] rx_ans_msg_id;
  logic [7:0]  rx_ans_cause;
  // receive window table
  logic        win_hit, win_wr_ok, win_reject;
  logic [31:0] win_rdata;
  logic [3:0]  rx_pkt_ptype;
  logic [15:0] rx_pkt_src, rx_pkt_key, rx_pkt_len;
  logic [2:0]  rx_pkt_dctx;
  logic [47:0] rx_pkt_addr;
  logic [31:0] rx_pkt_msg_id;
  fasthsl_pkg::win_rej_e win_rej, rx_reject_reason;
  logic        rx_reject;
  // A refused unicast packet is answered with NACK_REJECT (its sender completes the
  // message with REJECTED); broadcasts are never answered.
  logic        reject_valid;
  logic [15:0] reject_src;
  logic [31:0] reject_msg_id;
  logic [7:0]  reject_cause;
  assign reject_valid  = rx_reject && rx_pkt_ptype != fasthsl_pkg::PTYPE_BCAST;
  assign reject_src    = rx_pkt_src;
  assign reject_msg_id = rx_pkt_msg_id;
  assign reject_cause  = 8'(rx_reject_reason);

  ddc_csr u_csr (
    .clk_i              (clk_i),
    .rst_ni             (rst_ni),
    .csr_req_valid_i    (rq_csr_q),
    .csr_req_write_i    (rq_write_q),
    .csr_req_addr_i     (rq_off_q),
    .csr_req_wdata_i    (rq_wdata_q),
    .csr_rsp_valid_o    (csr_rsp_valid),
    .csr_rsp_rdata_o    (csr_rsp_rdata),
    .enable_o           (enable),
    .node_id_o          (node_id),
    .mtu_o              (mtu),
    .dest_lo_o          (dest_lo),
    .dest_hi_o          (dest_hi),
    .lme_base_o         (lme_base),
    .lme_size_o         (lme_size),
    .lme_prod_o         (lme_prod),
    .lme_reset_o        (lme_reset),
    .lme_cons_i         (lme_cons),
    .lmr_base_o         (lmr_base),
    .lmr_size_o         (lmr_size),
    .lmr_cons_o         (lmr_cons),
    .lmr_reset_o        (lmr_reset),
    .lmr_prod_i         (lmr_prod),
    .rxwin_base_o       (rxwin_base),
    .rxwin_size_o       (rxwin_size),
    .ack_off_o          (ack_off),
    .sender_wait_o      (sender_wait),
    .rel_timeout_o      (rel_timeout),
    .dedup_o            (dedup),
    .early_nack_o       (early_nack),
    .rel_retries_o      (rel_retries),
    .tx_quantum_o       (tx_quantum),
    .tx_desc_done_i     (tx_desc_done),
    .tx_desc_err_i      (tx_desc_err),
    .tx_desc_irq_i      (tx_desc_irq),
    .tx_desc_irq_ctx_i  (tx_desc_irq_ctx),
    .tx_pkt_sent_i      (tx_pkt_sent),
    .rx_pkt_i           (rx_pkt),
    .rx_msg_i           (rx_msg),
    .rx_msg_irq_i       (rx_msg_irq),
    .rx_msg_irq_ctx_i   (rx_msg_irq_ctx),
    .rx_drop_crc_i      (rx_drop_crc),
    .rx_drop_dest_i     (rx_drop_dest),
    .rx_drop_malformed_i(rx_drop_malformed),
    .rx_drop_window_i   (rx_drop_window),
    .rx_drop_ctx_i      (rx_drop_ctx),
    .rx_dup_i           (rx_dup),
    .rx_seq_evict_i     (rx_seq_evict),
    .rx_early_nack_i    (rx_early_nack),
    .rx_lmr_full_i      (rx_lmr_full),
    .push_free_i        (push_free),
    .push_accept_i      (push_accept),
    .push_reject_i      (push_reject),
    .dma_rd_err_i       (dma_rd_err),
    .rx_msg_expired_i   (rx_msg_expired),
    .rx_track_full_i    (rx_track_full),
    .ack_tx_i           (ack_sent),
    .nack_tx_i          (nack_sent),
    .ack_rx_i           (rx_ans_valid && rx_ans_ptype == fasthsl_pkg::PTYPE_ACK),
    .nack_rx_i          (rx_ans_valid && rx_ans_ptype != fasthsl_pkg::PTYPE_ACK),
    .ans_drop_i         (ans_drop),
    .rel_retx_i         (rel_retx),
    .rel_timeouts_i     (rel_timeouts),
    .win_hit_i          (win_hit),
    .win_wr_ok_i        (win_wr_ok),
    .win_rdata_i        (win_rdata),
    .win_reject_i       (win_reject),
    .ctx_csr_err_i      (ctx_csr_err),
    .irq_o              (irq_o)
  );

  ddc_ctx_csr u_ctx_csr (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .tx_reset_i (lme_reset),
    .req_valid_i(rq_ctx_q),
    .req_write_i(rq_write_q),
    .req_ctx_i  (rq_ctx_id_q),
    .req_addr_i (rq_off_q),
    .req_wdata_i(rq_wdata_q),
    .rsp_valid_o(ctx_rsp_valid),
    .rsp_rdata_o(ctx_rsp_rdata),
    .lme_base_o (cx_lme_base),
    .lme_size_o (cx_lme_size),
    .lme_prod_o (cx_lme_prod),
    .lme_reset_o(cx_lme_reset),
    .lme_cons_i (all_lme_cons),
    .lmr_base_o (cx_lmr_base),
    .lmr_size_o (cx_lmr_size),
    .lmr_cons_o (cx_lmr_cons),
    .lmr_reset_o(cx_lmr_reset),
    .lmr_prod_i (all_lmr_prod),
    .rx_en_o    (cx_rx_en),
    .err_o      (ctx_csr_err)
  );

  always_comb begin
    all_lme_base  = cx_lme_base;
    all_lme_size  = cx_lme_size;
    all_lme_prod  = cx_lme_prod;
    all_lmr_base  = cx_lmr_base;
    all_lmr_size  = cx_lmr_size;
    all_lmr_cons  = cx_lmr_cons;
    all_lmr_reset = cx_lmr_reset;
    all_lme_base[0]  = lme_base;
    all_lme_size[0]  = lme_size;
    all_lme_prod[0]  = lme_prod;
    all_lmr_base[0]  = lmr_base;
    all_lmr_size[0]  = lmr_size;
    all_lmr_cons[0]  = lmr_cons;
    all_lmr_reset[0] = lmr_reset;
  end
  // Context 0's rings are ddc_csr's: ddc_ctx_csr's index 0 is never written.
  logic unused_cx0;
  assign unused_cx0 = ^{cx_lme_reset[0], cx_rx_en[0]};
  assign lme_cons = all_lme_cons[0];
  assign lmr_prod = all_lmr_prod[0];

  // The push window is page 0's (context 0's).
  ddc_push u_push (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .csr_req_valid_i(rq_page0_q),
    .csr_req_write_i(rq_write_q),
    .csr_req_addr_i (rq_off_q),
    .csr_req_wdata_i(rq_wdata_q),
    .lme_size_i     (lme_size),
    .lme_prod_i     (lme_prod),
    .flush_i        (lme_reset),
    .push_valid_o   (push_valid),
    .push_slot_o    (push_slot),
    .push_local_o   (push_local),
    .push_remote_o  (push_remote),
    .push_w2_o      (push_w2),
    .push_msg_id_o  (push_msg_id),
    .push_take_i    (push_take),
    .push_data_o    (push_data),
    .push_release_i (push_release),
    .free_o         (push_free),
    .accept_o       (push_accept),
    .reject_o       (push_reject)
  );

  ddc_rx_window u_rx_window (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .csr_req_valid_i(rq_page0_q),   // page 0: the driver's, not a context's
    .csr_req_write_i(rq_write_q),
    .csr_req_addr_i (rq_off_q),
    .csr_req_wdata_i(rq_wdata_q),
    .csr_hit_o      (win_hit),
    .csr_wr_ok_o    (win_wr_ok),
    .csr_rdata_o    (win_rdata),
    .pkt_ptype_i    (rx_pkt_ptype),
    .pkt_src_i      (rx_pkt_src),
    .pkt_key_i      (rx_pkt_key),
    .pkt_addr_i     (rx_pkt_addr),
    .pkt_len_i      (rx_pkt_len),
    .pkt_ctx_i      (rx_pkt_dctx),
    .pkt_msg_id_i   (rx_pkt_msg_id),
    .rej_o          (win_rej),
    .reject_i       (rx_reject),
    .reject_reason_i(rx_reject_reason),
    .win_reject_o   (win_reject)
  );

  // ---- transmit ----
  logic        tx_wr_valid, tx_wr_ready;
  logic [63:0] tx_wr_addr, tx_wr_data;
  logic [7:0]  tx_wr_strb;

  ddc_tx #(
    .NumCtx(NumCtx)
  ) u_tx (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .enable_i          (enable),
    .node_id_i         (node_id),
    .mtu_i             (mtu),
    .dest_lo_i         (dest_lo),
    .dest_hi_i         (dest_hi),
    .tx_quantum_i      (tx_quantum),
    .lme_base_i        (all_lme_base),
    .lme_size_i        (all_lme_size),
    .lme_prod_i        (all_lme_prod),
    .lme_reset_i       (lme_reset),
    .ctx_reset_i       ({cx_lme_reset[NumCtx-1:1], 1'b0}),
    .lme_cons_o        (all_lme_cons),
    .push_valid_i      (push_valid),
    .push_slot_i       (push_slot),
    .push_local_i      (push_local),
    .push_remote_i     (push_remote),
    .push_w2_i         (push_w2),
    .push_msg_id_i     (push_msg_id),
    .push_take_o       (push_take),
    .push_data_i       (push_data),
    .push_release_o    (push_release),
    .desc_done_o       (tx_desc_done),
    .desc_err_o        (tx_desc_err),
    .desc_irq_o        (tx_desc_irq),
    .desc_irq_ctx_o    (tx_desc_irq_ctx),
    .pkt_sent_o        (tx_pkt_sent),
    .dma_rd_req_valid_o(dma_rd_req_valid_o),
    .dma_rd_req_ready_i(dma_rd_req_ready_i),
    .dma_rd_req_addr_o (dma_rd_req_addr_o),
    .dma_rd_req_beats_o(dma_rd_req_beats_o),
    .dma_rd_req_tag_o  (dma_rd_req_tag_o),
    .dma_rd_rsp_valid_i(dma_rd_rsp_valid_i),
    .dma_rd_rsp_ready_o(dma_rd_rsp_ready_o),
    .dma_rd_rsp_data_i (dma_rd_rsp_data_i),
    .dma_rd_rsp_tag_i  (dma_rd_rsp_tag_i),
    .dma_rd_rsp_last_i (dma_rd_rsp_last_i),
    .dma_rd_rsp_err_i  (dma_rd_rsp_err_i),
    .dma_rd_err_o      (dma_rd_err),
    .dma_wr_valid_o    (tx_wr_valid),
    .dma_wr_ready_i    (tx_wr_ready),
    .dma_wr_addr_o     (tx_wr_addr),
    .dma_wr_data_o     (tx_wr_data),
    .dma_wr_strb_o     (tx_wr_strb),
    .sender_wait_i     (sender_wait),
    .rel_timeout_i     (rel_timeout),
    .rel_retries_i     (rel_retries),
    .rel_retx_o        (rel_retx),
    .rel_timeouts_o    (rel_timeouts),
    .rel_ans_valid_i   (rx_ans_valid),
    .rel_ans_src_i     (rx_ans_src),
    .rel_ans_msg_id_i  (rx_ans_msg_id),
    .rel_ans_nack_i    (rx_ans_ptype != fasthsl_pkg::PTYPE_ACK),
    .rel_ans_reject_i  (rx_ans_ptype == fasthsl_pkg::PTYPE_NACK_REJECT),
    .ans_valid_i       (ans_valid),
    .ans_ready_o       (ans_ready),
    .ans_data_i        (ans_data),
    .ans_last_i        (ans_last),
    .tx_flit_o         (tx_flit_o),
    .tx_credit_i       (tx_credit_i)
  );

  // ---- receive ----
  logic        rx_wr_valid, rx_wr_ready;
  logic [63:0] rx_wr_addr, rx_wr_data;
  logic [7:0]  rx_wr_strb;
  localparam int unsigned SideW = 2 + $clog2(NumCtx);
  logic [SideW-1:0] rx_wr_side, wr_done_side;
  logic        rx_wr_done;

  ddc_rx #(
    .RX_BUF_FLITS(RxBufFlits),
    .NumCtx      (NumCtx)
  ) u_rx (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .enable_i          (enable),
    .node_id_i         (node_id),
    .rxwin_base_i      (rxwin_base),
    .rxwin_size_i      (rxwin_size),
    // Context 0 always receives (page 0's rule: an unconfigured ring waits); the others
    // only with an LMR ring.
    .ctx_rx_en_i       ({cx_rx_en[NumCtx-1:1], 1'b1}),
    .lmr_base_i        (all_lmr_base),
    .lmr_size_i        (all_lmr_size),
    .lmr_cons_i        (all_lmr_cons),
    .lmr_reset_i       (all_lmr_reset),
    .lmr_prod_o        (all_lmr_prod),
    .rx_flit_i         (rx_flit_i),
    .rx_credit_o       (rx_credit_o),
    .dma_wr_valid_o    (rx_wr_valid),
    .dma_wr_ready_i    (rx_wr_ready),
    .dma_wr_addr_o     (rx_wr_addr),
    .dma_wr_data_o     (rx_wr_data),
    .dma_wr_strb_o     (rx_wr_strb),
    .dma_wr_side_o     (rx_wr_side),
    .dma_wr_done_i     (rx_wr_done),
    .dma_wr_done_side_i(wr_done_side),
    .pkt_o             (rx_pkt),
    .msg_o             (rx_msg),
    .msg_irq_o         (rx_msg_irq),
    .msg_irq_ctx_o     (rx_msg_irq_ctx),
    .drop_crc_o        (rx_drop_crc),
    .drop_dest_o       (rx_drop_dest),
    .drop_malformed_o  (rx_drop_malformed),
    .drop_window_o     (rx_drop_window),
    .drop_ctx_o        (rx_drop_ctx),
    .msg_expired_o     (rx_msg_expired),
    .track_full_o      (rx_track_full),
    .ack_off_i         (ack_off),
    .dedup_i           (dedup),
    .early_nack_i      (early_nack),
    .early_nack_o      (rx_early_nack),
    .lmr_full_o        (rx_lmr_full),
    .seq_hold_i        (seq_hold_q),
    .dup_o             (rx_dup),
    .seq_evict_o       (rx_seq_evict),
    .reject_valid_i    (reject_valid),
    .reject_src_i      (reject_src),
    .reject_msg_id_i   (reject_msg_id),
    .reject_cause_i    (reject_cause),
    .ans_valid_o       (ans_valid),
    .ans_ready_i       (ans_ready),
    .ans_data_o        (ans_data),
    .ans_last_o        (ans_last),
    .rx_ans_valid_o    (rx_ans_valid),
    .rx_ans_ptype_o    (rx_ans_ptype),
    .rx_ans_src_o      (rx_ans_src),
    .rx_ans_msg_id_o   (rx_ans_msg_id),
    .rx_ans_cause_o    (rx_ans_cause),
    .ack_sent_o        (ack_sent),
    .nack_sent_o       (nack_sent),
    .ans_drop_o        (ans_drop),
    .pkt_ptype_o       (rx_pkt_ptype),
    .pkt_src_o         (rx_pkt_src),
    .pkt_dctx_o        (rx_pkt_dctx),
    .pkt_key_o         (rx_pkt_key),
    .pkt_addr_o        (rx_pkt_addr),
    .pkt_len_o         (rx_pkt_len),
    .pkt_msg_id_o      (rx_pkt_msg_id),
    .win_rej_i         (win_rej),
    .reject_o          (rx_reject),
    .reject_reason_o   (rx_reject_reason)
  );

  // The sender side does not use the answers yet (only counts them, above).
  logic unused_rx_ans;
  assign unused_rx_ans = ^rx_ans_cause;

  // ---- DMA write port ----
  logic unused_tx_wr_done;

  ddc_dma_wr_mux #(
    .SIDE_W(SideW)
  ) u_wr_mux (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .tx_valid_i    (tx_wr_valid),
    .tx_ready_o    (tx_wr_ready),
    .tx_addr_i     (tx_wr_addr),
    .tx_data_i     (tx_wr_data),
    .tx_strb_i     (tx_wr_strb),
    .tx_side_i     ('0),
    .tx_done_o     (unused_tx_wr_done),
    .rx_valid_i    (rx_wr_valid),
    .rx_ready_o    (rx_wr_ready),
    .rx_addr_i     (rx_wr_addr),
    .rx_data_i     (rx_wr_data),
    .rx_strb_i     (rx_wr_strb),
    .rx_side_i     (rx_wr_side),
    .rx_done_o     (rx_wr_done),
    .done_side_o   (wr_done_side),
    .dma_wr_valid_o(dma_wr_valid_o),
    .dma_wr_ready_i(dma_wr_ready_i),
    .dma_wr_addr_o (dma_wr_addr_o),
    .dma_wr_data_o (dma_wr_data_o),
    .dma_wr_strb_o (dma_wr_strb_o)
  );

endmodule
