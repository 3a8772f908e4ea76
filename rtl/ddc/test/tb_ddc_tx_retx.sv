// Checks ddc_tx_retx: random retransmission requests (4 contexts, random slots) against a
// model host ring. Each request is taken only when idle and not draining; its read goes to
// lme_base[ctx] + 32*slot; the four response beats (with random gaps) become the descriptor
// offered to the read engine (local, {key, word 1}, len, dest, flags, msg_id, inline) with
// the request's seq, lag, attempt and entry index, and its checks' code: RETRY_EXHAUSTED
// exactly when the slot names another dest or msg_id, or a broadcast, otherwise the
// model's (ddc_tb_desc_err.svh: lengths, address range, DEST_RANGE, inline length against
// INLINE_RING_MAX); nothing is offered twice. Random read and
// descriptor back-pressure. A flush in any state returns it to idle with nothing offered,
// and a request made while draining waits.
module tb_ddc_tx_retx;
  import fasthsl_pkg::*;

  localparam int unsigned NumCtx = 4;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic                    flush = 1'b0, drain = 1'b0;
  logic [NumCtx-1:0][63:0] lme_base;
  logic                    req_valid = 1'b0, req_ready;
  logic [3:0]              req_idx = '0, req_lag = '0;
  logic [1:0]              req_ctx = '0, req_att = '0;
  logic [15:0]             req_slot = '0, req_dest = '0;
  logic [31:0]             req_msg_id = '0;
  logic [7:0]              req_seq = '0;
  logic                    rd_valid, rd_ready = 1'b0;
  logic [63:0]             rd_addr;
  logic                    rsp_valid = 1'b0;
  logic [63:0]             rsp_data = '0;
  logic                    desc_valid, desc_ready = 1'b0, desc_inline, idle;
  desc_err_e               desc_err;
  logic [15:0]             dest_lo = 16'd100, dest_hi = 16'd60000;
  logic [63:0]             desc_local;
  logic [79:0]             desc_remote;
  logic [31:0]             desc_len, desc_msg_id;
  logic [15:0]             desc_dest;
  logic [7:0]              desc_flags, desc_seq;
  logic [3:0]              desc_lag, desc_ridx;
  logic [1:0]              desc_att;

  ddc_tx_retx #(
    .NumCtx(NumCtx)
  ) dut (
    .clk_i         (clk),
    .rst_ni        (rst_n),
    .flush_i       (flush),
    .drain_i       (drain),
    .lme_base_i    (lme_base),
    .dest_lo_i     (dest_lo),
    .dest_hi_i     (dest_hi),
    .req_valid_i   (req_valid),
    .req_ready_o   (req_ready),
    .req_idx_i     (req_idx),
    .req_ctx_i     (req_ctx),
    .req_slot_i    (req_slot),
    .req_dest_i    (req_dest),
    .req_msg_id_i  (req_msg_id),
    .req_seq_i     (req_seq),
    .req_lag_i     (req_lag),
    .req_attempt_i (req_att),
    .rd_valid_o    (rd_valid),
    .rd_ready_i    (rd_ready),
    .rd_addr_o     (rd_addr),
    .rsp_valid_i   (rsp_valid),
    .rsp_data_i    (rsp_data),
    .desc_valid_o  (desc_valid),
    .desc_ready_i  (desc_ready),
    .desc_local_o  (desc_local),
    .desc_remote_o (desc_remote),
    .desc_len_o    (desc_len),
    .desc_dest_o   (desc_dest),
    .desc_flags_o  (desc_flags),
    .desc_msg_id_o (desc_msg_id),
    .desc_inline_o (desc_inline),
    .desc_seq_o    (desc_seq),
    .desc_lag_o    (desc_lag),
    .desc_attempt_o(desc_att),
    .desc_ridx_o   (desc_ridx),
    .desc_err_o    (desc_err),
    .idle_o        (idle)
  );

`include "ddc_tb_check.svh"
`include "ddc_tb_desc_err.svh"

  // The request in progress, as the model sees it.
  typedef struct {
    int          idx, ctx, slot, lag, att;
    logic [15:0] dest;
    logic [31:0] msg_id;
    logic [7:0]  seq;
    logic [3:0][63:0] w;   // the slot's contents
    bit          bad;
  } req_t;

  req_t   cur, next_req;
  bit     busy = 0;        // a request taken and not yet delivered (or flushed)
  bit     read_sent = 0;
  int     beats_due = 0;   // response beats still to send
  int     n_done = 0, n_bad = 0, n_flush = 0;
  int     n_code[256];
  int     p_flush = 0;

  function automatic req_t new_req();
    req_t r;
    lme_desc_w2_t w2;
    lme_desc_w3_t w3;
    r.idx = $urandom_range(0, 15); r.ctx = $urandom_range(0, NumCtx - 1);
    r.slot = $urandom_range(0, 1023); r.lag = $urandom_range(0, 15); r.att = $urandom_range(0, 3);
    r.dest = 16'($urandom()); r.msg_id = $urandom(); r.seq = 8'($urandom());
    w2 = '{flags: 16'($urandom()) & ~16'(1 << DESC_FLAG_BCAST_BIT), dest: r.dest,
           len: $urandom_range(1, 70000)};
    w3 = '{key: 16'($urandom()), status: 16'h0, msg_id: r.msg_id};
    r.bad = 0;
    case ($urandom_range(0, 5))
      0: begin w2.dest = w2.dest ^ 16'(1 << $urandom_range(0, 15)); r.bad = 1; end
      1: begin w3.msg_id = w3.msg_id ^ (32'h1 << $urandom_range(0, 31)); r.bad = 1; end
      2: begin w2.flags[DESC_FLAG_BCAST_BIT] = 1'b1; r.bad = 1; end
      default: ;
    endcase
    // Word 1: mostly a remote address the checks take (dctx in bits 50:48), sometimes not.
    r.w = {w3, w2, ($urandom_range(0, 9) == 0) ? {$urandom(), $urandom()}
                                               : {13'h0, 51'({$urandom(), $urandom()})},
           {$urandom(), $urandom()}};
    return r;
  endfunction

  initial begin
    for (int k = 0; k < NumCtx; k++) lme_base[k] = {$urandom(), $urandom()} & ~64'h1F;
  end

  // Host and read engine models: inputs change at the falling edge, checked before the
  // rising one.
  longint cycle = 0;
  always begin
    @(negedge clk);
    flush = ($urandom_range(0, 999) < p_flush);
    rd_ready = ($urandom_range(0, 99) < 60);
    desc_ready = ($urandom_range(0, 99) < 50);
    rsp_valid = (beats_due > 0) && ($urandom_range(0, 99) < 70);
    if (rsp_valid) rsp_data = cur.w[4 - beats_due];
    if (!req_valid || req_ready) begin
      req_t r = new_req();
      req_valid = ($urandom_range(0, 99) < 40);
      if (req_valid) begin
        req_idx = 4'(r.idx); req_ctx = 2'(r.ctx); req_slot = 16'(r.slot); req_lag = 4'(r.lag);
        req_att = 2'(r.att); req_dest = r.dest; req_msg_id = r.msg_id; req_seq = r.seq;
        next_req = r;   // the slot contents the host answers with, once it is taken
      end
    end
    #4;
    if (rst_n) begin
      if (drain && req_ready) `CHECK(0, "request ready while draining")
      if (busy && req_ready) `CHECK(0, "request ready while busy")
      if (req_valid && req_ready && !flush) begin
        busy = 1; read_sent = 0; cur = next_req;
      end
      if (rd_valid) begin
        `CHECK(busy && !read_sent, "read without a request, or twice")
        `CHECK(rd_addr == lme_base[cur.ctx] + 64'(32 * cur.slot),
               $sformatf("read address %h", rd_addr))
        if (rd_ready && !flush) begin
          read_sent = 1;
          beats_due = LME_DESC_WORDS;
        end
      end
      if (rsp_valid && !flush) beats_due--;
      if (desc_valid) begin
        lme_desc_w2_t w2 = cur.w[2];
        lme_desc_w3_t w3 = cur.w[3];
        `CHECK(busy && read_sent && beats_due == 0, "descriptor before its read completed")
        `CHECK(desc_local == cur.w[0] && desc_remote == {w3.key, cur.w[1]} &&
               desc_len == w2.len && desc_dest == w2.dest && desc_flags == w2.flags[7:0] &&
               desc_msg_id == w3.msg_id && desc_inline == w2.flags[DESC_FLAG_INLINE_BIT],
               "descriptor fields")
        `CHECK(int'(desc_seq) == int'(cur.seq) && int'(desc_lag) == cur.lag &&
               int'(desc_att) == cur.att && int'(desc_ridx) == cur.idx, "seq/lag/attempt/entry")
        begin
          logic [7:0] want;
          want = tb_desc_err(w2.len, cur.w[1], w2.dest, w2.flags[7:0],
                             w2.flags[DESC_FLAG_INLINE_BIT], 1'b0, cur.bad, dest_lo, dest_hi);
          `CHECK(8'(desc_err) == want, $sformatf("desc_err %0d, want %0d", desc_err, want))
        end
        if (desc_ready && !flush) begin
          busy = 0;
          n_done++;
          n_code[8'(desc_err)]++;
          n_bad += int'(cur.bad);
        end
      end
      if (flush) begin
        // A read already taken still answers; in the NIC those beats are dropped upstream.
        busy = 0; read_sent = 0; beats_due = 0;
        n_flush++;
      end
    end
    @(posedge clk);
    cycle++;
    if (rst_n) begin
      #1 `CHECK(idle == !busy, $sformatf("idle %0b, busy %0b", idle, busy))
    end
  end

  initial begin
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    repeat (3000) @(negedge clk);
    // while draining, requests wait
    drain = 1'b1;
    repeat (300) @(negedge clk);
    drain = 1'b0;
    p_flush = 15;
    repeat (6000) @(negedge clk);
    p_flush = 0;
    repeat (500) @(negedge clk);
    $display("%0d descriptors (%0d bad), %0d flushes", n_done, n_bad, n_flush);
    $display("codes: ok %0d, retry_exhausted %0d, addr_range %0d, bad_dest %0d, inline_len %0d",
             n_code[DESC_ERR_OK], n_code[DESC_ERR_RETRY_EXHAUSTED], n_code[DESC_ERR_ADDR_RANGE],
             n_code[DESC_ERR_BAD_DEST], n_code[DESC_ERR_INLINE_LEN]);
    `CHECK(n_done > 300 && n_bad > 50 && n_flush > 30, "too little exercised")
    `CHECK(n_code[DESC_ERR_OK] > 20 && n_code[DESC_ERR_ADDR_RANGE] > 5 &&
           n_code[DESC_ERR_BAD_DEST] > 5 && n_code[DESC_ERR_INLINE_LEN] > 5,
           "too few of some check codes")
    tb_verdict();
    $finish;
  end

endmodule
