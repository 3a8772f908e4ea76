// Formal harness for ddc_csr: writes to read-only registers change nothing (bounded).
//
// Two copies of ddc_csr see the same inputs, except that copy B never sees the writes
// to read-only offsets (the contract's "ro" registers, from formal_csr_spec.svh): they
// become idle cycles. Every read must then be answered the same by both, except for the
// three registers that report the rejected access (ERR_STATUS, INT_STATUS.ERROR,
// CNT_CSR_ERR). So such a write changes no register, counter or ring index, and neither
// do they disturb any later behaviour visible on the bus.
// Every input of ddc_csr must be connected to both copies here: an input left open
// would be free in each copy separately.
module formal_ddc_csr_ro
  import fasthsl_pkg::*;
(
  input logic        clk_i,
  input logic        rst_ni,
  input logic        req_valid_i,
  input logic        req_write_i,
  input logic [11:0] req_addr_i,
  input logic [31:0] req_wdata_i,
  input logic [15:0] lme_cons_i,
  input logic [15:0] lmr_prod_i,
  input logic [36:0] ev_i,
  input logic [1:0]  ans_drop_i,
  input logic        rel_retx_i,
  input logic [4:0]  rel_timeouts_i,
  input logic        win_hit_i,
  input logic        win_wr_ok_i,
  input logic [31:0] win_rdata_i
);
`include "formal_csr_spec.svh"

  logic [15:0] addr;
  logic        ro_write;
  assign addr = {4'h0, req_addr_i};
  always_comb begin
    ro_write = 1'b0;
    for (int unsigned i = 0; i < NUM_RO; i++) begin
      if (req_valid_i && req_write_i && addr == RO_OFFSET[i]) ro_write = 1'b1;
    end
  end

  logic [1:0]       rsp_valid;
  logic [1:0][31:0] rsp_rdata;

  for (genvar c = 0; c < 2; c++) begin : g_copy
    ddc_csr dut (
      .clk_i              (clk_i),
      .rst_ni             (rst_ni),
      .csr_req_valid_i    (req_valid_i && !(c == 1 && ro_write)),
      .csr_req_write_i    (req_write_i),
      .csr_req_addr_i     (req_addr_i),
      .csr_req_wdata_i    (req_wdata_i),
      .csr_rsp_valid_o    (rsp_valid[c]),
      .csr_rsp_rdata_o    (rsp_rdata[c]),
      .lme_cons_i         (lme_cons_i),
      .lmr_prod_i         (lmr_prod_i),
      .tx_desc_done_i     (ev_i[0]),
      .tx_desc_err_i      (ev_i[1]),
      .tx_desc_irq_i      (ev_i[2]),
      .tx_pkt_sent_i      (ev_i[3]),
      .rx_pkt_i           (ev_i[4]),
      .rx_msg_i           (ev_i[5]),
      .rx_msg_irq_i       (ev_i[6]),
      .rx_drop_crc_i      (ev_i[7]),
      .rx_drop_dest_i     (ev_i[8]),
      .rx_drop_malformed_i(ev_i[9]),
      .rx_drop_window_i   (ev_i[10]),
      .push_free_i        (ev_i[11]),
      .push_accept_i      (ev_i[12]),
      .push_reject_i      (ev_i[13]),
      .dma_rd_err_i       (ev_i[14]),
      .rx_msg_expired_i   (ev_i[15]),
      .rx_track_full_i    (ev_i[16]),
      .ack_tx_i           (ev_i[17]),
      .nack_tx_i          (ev_i[18]),
      .ack_rx_i           (ev_i[19]),
      .nack_rx_i          (ev_i[20]),
      .ans_drop_i         (ans_drop_i),
      .rel_retx_i         (rel_retx_i),
      .rel_timeouts_i     (rel_timeouts_i),
      .rx_drop_ctx_i      (ev_i[21]),
      .rx_dup_i           (ev_i[33]),
      .rx_seq_evict_i     (ev_i[34]),
      .rx_early_nack_i    (ev_i[35]),
      .rx_lmr_full_i      (ev_i[36]),
      .ctx_csr_err_i      (ev_i[25:22]),
      .tx_desc_irq_ctx_i  (ev_i[28:26]),
      .rx_msg_irq_ctx_i   (ev_i[31:29]),
      // ddc_rx_window's register answers: the same for both copies (its registers are
      // not ddc_csr's to protect)
      .win_hit_i          (win_hit_i),
      .win_wr_ok_i        (win_wr_ok_i),
      .win_rdata_i        (win_rdata_i),
      .win_reject_i       (ev_i[32])
    );
  end

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  // Reset only at the start (as in formal_ddc_csr_rw: solver time).
  // begin/end: a bare `else` after an assume would be its fail action, not the if's
  always_comb begin
    if (init_q) begin
      assume (!rst_ni);
    end else begin
      assume (rst_ni);
    end
  end

  logic        cmp_q, ro_seen_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cmp_q     <= 1'b0;
      ro_seen_q <= 1'b0;
    end else begin
      ro_seen_q <= ro_seen_q || ro_write;
      cmp_q <= req_valid_i && !req_write_i && addr != ERR_STATUS_OFFSET &&
               addr != INT_STATUS_OFFSET && addr != CNT_CSR_ERR_OFFSET;
    end
  end

  always_comb begin
    if (!init_q && rst_ni) begin
      assert (rsp_valid[0] == rsp_valid[1]);
      if (cmp_q) assert (rsp_rdata[0] == rsp_rdata[1]);
      cover (cmp_q && ro_seen_q && rsp_rdata[0] != '0);
    end
  end
endmodule
