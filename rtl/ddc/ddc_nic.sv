// PCI-DDC network interface: DDSLRP remote write over the FastHSL link.
//
//   ddc_csr         register file, interrupt, counters
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
module ddc_nic (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // CSR bus (BAR0 page 0, 32-bit registers); at most one request per cycle, always accepted
  input  logic                         csr_req_valid_i,
  input  logic                         csr_req_write_i,
  input  logic [11:0]                  csr_req_addr_i,
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

  // configuration
  logic        enable;
  logic [15:0] node_id, mtu, dest_lo, dest_hi;
  logic [63:0] lme_base, lmr_base, rxwin_base, rxwin_size;
  logic [15:0] lme_size, lme_prod, lme_cons;
  logic [15:0] lmr_size, lmr_cons, lmr_prod;
  logic        lme_reset, lmr_reset;
  // push window
  logic             push_valid, push_take, push_release, push_free;
  logic             push_accept, push_reject;
  logic [15:0]      push_slot;
  logic [63:0]      push_local, push_remote, push_w2;
  logic [31:0]      push_msg_id;
  logic [6:0][63:0] push_data;
  // events
  logic        tx_desc_done, tx_desc_err, tx_desc_irq, tx_pkt_sent, dma_rd_err;
  logic        rx_pkt, rx_msg, rx_msg_irq;
  logic        rx_drop_crc, rx_drop_dest, rx_drop_malformed, rx_drop_window;
  logic        rx_msg_expired, rx_track_full;
  // reliability (docs/RELIABILITY.md)
  logic        ack_off, ack_sent, nack_sent;
  logic [1:0]  ans_drop;
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
    .csr_req_valid_i    (csr_req_valid_i),
    .csr_req_write_i    (csr_req_write_i),
    .csr_req_addr_i     (csr_req_addr_i),
    .csr_req_wdata_i    (csr_req_wdata_i),
    .csr_rsp_valid_o    (csr_rsp_valid_o),
    .csr_rsp_rdata_o    (csr_rsp_rdata_o),
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
    .tx_desc_done_i     (tx_desc_done),
    .tx_desc_err_i      (tx_desc_err),
    .tx_desc_irq_i      (tx_desc_irq),
    .tx_pkt_sent_i      (tx_pkt_sent),
    .rx_pkt_i           (rx_pkt),
    .rx_msg_i           (rx_msg),
    .rx_msg_irq_i       (rx_msg_irq),
    .rx_drop_crc_i      (rx_drop_crc),
    .rx_drop_dest_i     (rx_drop_dest),
    .rx_drop_malformed_i(rx_drop_malformed),
    .rx_drop_window_i   (rx_drop_window),
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
    .win_hit_i          (win_hit),
    .win_wr_ok_i        (win_wr_ok),
    .win_rdata_i        (win_rdata),
    .win_reject_i       (win_reject),
    .irq_o              (irq_o)
  );

  ddc_push u_push (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .csr_req_valid_i(csr_req_valid_i),
    .csr_req_write_i(csr_req_write_i),
    .csr_req_addr_i (csr_req_addr_i),
    .csr_req_wdata_i(csr_req_wdata_i),
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
    .csr_req_valid_i(csr_req_valid_i),
    .csr_req_write_i(csr_req_write_i),
    .csr_req_addr_i (csr_req_addr_i),
    .csr_req_wdata_i(csr_req_wdata_i),
    .csr_hit_o      (win_hit),
    .csr_wr_ok_o    (win_wr_ok),
    .csr_rdata_o    (win_rdata),
    .pkt_ptype_i    (rx_pkt_ptype),
    .pkt_src_i      (rx_pkt_src),
    .pkt_key_i      (rx_pkt_key),
    .pkt_addr_i     (rx_pkt_addr),
    .pkt_len_i      (rx_pkt_len),
    .pkt_ctx_i      (3'd0),  // packets carry no destination context yet
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

  ddc_tx u_tx (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .enable_i          (enable),
    .node_id_i         (node_id),
    .mtu_i             (mtu),
    .dest_lo_i         (dest_lo),
    .dest_hi_i         (dest_hi),
    .lme_base_i        (lme_base),
    .lme_size_i        (lme_size),
    .lme_prod_i        (lme_prod),
    .lme_reset_i       (lme_reset),
    .lme_cons_o        (lme_cons),
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
  logic [1:0]  rx_wr_side, wr_done_side;
  logic        rx_wr_done;

  ddc_rx #(
    .RX_BUF_FLITS(RxBufFlits)
  ) u_rx (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .enable_i          (enable),
    .node_id_i         (node_id),
    .rxwin_base_i      (rxwin_base),
    .rxwin_size_i      (rxwin_size),
    .lmr_base_i        (lmr_base),
    .lmr_size_i        (lmr_size),
    .lmr_cons_i        (lmr_cons),
    .lmr_reset_i       (lmr_reset),
    .lmr_prod_o        (lmr_prod),
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
    .drop_crc_o        (rx_drop_crc),
    .drop_dest_o       (rx_drop_dest),
    .drop_malformed_o  (rx_drop_malformed),
    .drop_window_o     (rx_drop_window),
    .msg_expired_o     (rx_msg_expired),
    .track_full_o      (rx_track_full),
    .ack_off_i         (ack_off),
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
  assign unused_rx_ans = ^{rx_ans_src, rx_ans_msg_id, rx_ans_cause};

  // ---- DMA write port ----
  logic unused_tx_wr_done;

  ddc_dma_wr_mux #(
    .SIDE_W(2)
  ) u_wr_mux (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .tx_valid_i    (tx_wr_valid),
    .tx_ready_o    (tx_wr_ready),
    .tx_addr_i     (tx_wr_addr),
    .tx_data_i     (tx_wr_data),
    .tx_strb_i     (tx_wr_strb),
    .tx_side_i     (2'b00),
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
