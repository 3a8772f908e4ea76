// PCI-DDC network interface: DDSLRP remote write over the FastHSL link.
//
//   ddc_csr         register file, interrupt, counters
//   ddc_push        push window: a descriptor (and inline payload) written through MMIO
//   ddc_tx          LME ring -> DMA reads -> packets -> descriptor status write-back
//   ddc_rx          packets -> checks -> payload writes + LMR entries
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
  logic        rx_drop_crc, rx_drop_dest, rx_drop_malformed, rx_drop_window, rx_drop_ctx;
  logic        rx_msg_expired, rx_track_full;

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
    .rx_drop_ctx_i      (rx_drop_ctx),
    .push_free_i        (push_free),
    .push_accept_i      (push_accept),
    .push_reject_i      (push_reject),
    .dma_rd_err_i       (dma_rd_err),
    .rx_msg_expired_i   (rx_msg_expired),
    .rx_track_full_i    (rx_track_full),
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
    // Only context 0 (page 0's LMR ring) receives until the context pages are decoded.
    .ctx_rx_en_i       (fasthsl_pkg::CTX_COUNT'(1)),
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
    .drop_ctx_o        (rx_drop_ctx),
    .msg_expired_o     (rx_msg_expired),
    .track_full_o      (rx_track_full)
  );

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
