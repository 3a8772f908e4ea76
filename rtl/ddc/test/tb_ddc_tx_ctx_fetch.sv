// Testbench for ddc_tx_ctx_fetch: descriptor fetch from 8 LME rings, round robin.
//
// Host model: each context has its own ring in memory; DMA read requests are taken with
// random ready and answered in order after a random latency with random gaps. A random
// driver posts descriptors on random contexts (never more than the ring holds), pushes
// some of context 0's through the push window, and resets idle contexts' rings. The
// consumer takes descriptors with random ready. Checked: every context's descriptors come
// out exactly once, in its ring order, with its context tag and the content of its slot
// (a pushed one with the window's content and desc_pushed); read addresses name the
// right slot of the right ring. Fairness: with every ring holding a backlog before the
// NIC is enabled, the output visits the contexts strictly in turn.
// Segments (TX_QUANTUM q): a unicast, non-inline descriptor longer than 2^q comes as takes
// of [off, off + 2^q) in order, then the rest, final on the last; the consumer names a
// record, seq and lag at the first take and the later segments carry them back; now and
// then the consumer refuses a first segment (a bad descriptor: desc_end at once) and the
// context goes on with its next descriptor. Quantum 0 gives whole messages only. The
// fairness pass with long messages visits the contexts strictly in turn per segment (a
// context with a descriptor stored waits for at most one take of each other one, checked
// throughout, and in that pass the wait reaches exactly NumCtx - 1). A
// context whose ring was empty while another filled the store gets its first descriptor
// out after at most one segment of each other context (a slot is kept free for it).
// The offer comes from two registers (pick, offer): never in the two cycles right after
// a take, and with the consumer always ready takes do come every third cycle.
// Every offer carries its descriptor's check code (ddc_tx_desc_check on the stored fields,
// against ddc_tb_desc_err.svh), the same for each segment.
// Same keys: with msg_ids and dests drawn from a handful of values, no message's first
// segment is taken while another context's message with the same dest and msg_id is open
// (the receiver counts bytes per (source, msg_id)), and every descriptor still comes out.
// Pushes beside reads: while the other contexts keep reads in flight, a pushed descriptor
// enters once the reads already issued have answered (it is not starved by their backlog).
module tb_ddc_tx_ctx_fetch;
  import fasthsl_pkg::*;

  localparam int unsigned NumCtx    = CTX_COUNT;
  localparam int unsigned DescDepth = 16;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic                     flush = 1'b0, drain = 1'b0, enable = 1'b0;
  logic [NumCtx-1:0]        ctx_reset = '0;
  logic [NumCtx-1:0][63:0]  lme_base;
  logic [NumCtx-1:0][15:0]  lme_size = '0, lme_prod = '0;
  logic                     push_valid = 1'b0, push_take;
  logic [15:0]              push_slot = '0;
  logic [63:0]              push_local = '0, push_w2 = '0;
  logic [79:0]              push_remote = '0;
  logic [31:0]              push_msg_id = '0;
  logic                     req_valid, req_ready = 1'b0;
  logic [63:0]              req_addr;
  logic                     rsp_valid = 1'b0;
  logic [63:0]              rsp_data = '0;
  logic                     desc_valid, desc_ready = 1'b0;
  logic [2:0]               desc_ctx;
  logic [63:0]              desc_local;
  logic [79:0]              desc_remote;
  logic [31:0]              desc_msg_id;
  logic [15:0]              desc_dest;
  logic [7:0]               desc_flags;
  logic                     desc_inline, desc_pushed, idle;
  desc_err_e                desc_err;
  logic [15:0]              dest_lo = 16'h0100, dest_hi = 16'hF000;
  logic [4:0]               tx_quantum = '0;
  logic [24:0]              desc_off, desc_seg_len;
  logic                     desc_final, desc_end;
  logic [7:0]               desc_seq, take_seq = '0;
  logic [3:0]               desc_lag, take_lag = '0;
  logic [4:0]               desc_rec, take_rec = '0;
  logic                     refuse = 1'b0;   // the consumer refuses this first segment
  int                       refuse_pct = 0;

  ddc_tx_ctx_fetch #(
    .DescDepth(DescDepth),
    .NumCtx   (NumCtx)
  ) dut (
    .clk_i        (clk),
    .rst_ni       (rst_n),
    .flush_i      (flush),
    .drain_i      (drain),
    .ctx_reset_i  (ctx_reset),
    .enable_i     (enable),
    .tx_quantum_i (tx_quantum),
    .dest_lo_i    (dest_lo),
    .dest_hi_i    (dest_hi),
    .lme_base_i   (lme_base),
    .lme_size_i   (lme_size),
    .lme_prod_i   (lme_prod),
    .push_valid_i (push_valid),
    .push_slot_i  (push_slot),
    .push_local_i (push_local),
    .push_remote_i(push_remote),
    .push_w2_i    (push_w2),
    .push_msg_id_i(push_msg_id),
    .push_take_o  (push_take),
    .req_valid_o  (req_valid),
    .req_ready_i  (req_ready),
    .req_addr_o   (req_addr),
    .rsp_valid_i  (rsp_valid),
    .rsp_data_i   (rsp_data),
    .desc_valid_o (desc_valid),
    .desc_ready_i (desc_ready),
    .desc_ctx_o   (desc_ctx),
    .desc_local_o (desc_local),
    .desc_remote_o(desc_remote),
    .desc_dest_o  (desc_dest),
    .desc_flags_o (desc_flags),
    .desc_msg_id_o(desc_msg_id),
    .desc_inline_o(desc_inline),
    .desc_pushed_o(desc_pushed),
    .desc_err_o   (desc_err),
    .desc_off_o   (desc_off),
    .desc_seg_len_o(desc_seg_len),
    .desc_final_o (desc_final),
    .desc_seq_o   (desc_seq),
    .desc_lag_o   (desc_lag),
    .desc_rec_o   (desc_rec),
    .desc_end_i   (desc_end),
    .take_seq_i   (take_seq),
    .take_lag_i   (take_lag),
    .take_rec_i   (take_rec),
    .idle_o       (idle)
  );

`include "ddc_tb_check.svh"
`include "ddc_tb_desc_err.svh"

  always_comb begin
    for (int k = 0; k < NumCtx; k++) lme_base[k] = 64'h1000_0000 + 64'(k) * 64'h1_0000;
  end

  // ---- host memory and the descriptors expected per context ----
  typedef struct packed {
    logic [63:0] w0, w1, w2, w3;
    logic        pushed;
  } desc_t;

  logic [63:0] mem[logic [63:0]];
  desc_t       exp_q[NumCtx][$];
  int          posted[NumCtx], taken[NumCtx];
  int          seq = 0;
  int          ctx_trace[$];   // contexts in output order (one entry per take)
  int          max_len = 3000;
  bit          few_keys = 1'b0;
  int          clash_waits = 0;
  int          exp_off[NumCtx];
  logic [16:0] numbers[NumCtx];  // {seq, lag, rec} named at the first take
  int          segs = 0, cut_descs = 0, refused = 0;
  int          n_err_code[2];   // offers whose descriptor passes / fails its checks
  int          passes[NumCtx], max_passes = 0;
  int          max_push_wait = 0;

  function automatic desc_t make_desc(int ctx, int force_len);
    desc_t d;
    d.w0 = {8'(ctx), 24'($urandom()), 32'(seq)};
    // Word 1: mostly an address the checks take, so that every code comes out.
    d.w1 = ($urandom_range(0, 3) == 0) ? {$urandom(), $urandom()}
                                       : {13'h0, 51'({$urandom(), $urandom()})};
    d.w2 = {8'($urandom() & 32'h0000_00FE), 8'($urandom()), 16'($urandom()),
            32'($urandom_range(1, max_len))};
    d.w3 = {32'h0, 32'(seq)};
    d.pushed = 1'b0;
    if (few_keys) begin
      d.w3[31:0]  = 32'($urandom_range(0, 3));
      d.w2[47:32] = 16'($urandom_range(0, 1));
    end
    // A unicast message of this length, not inline: cut whenever it is longer than 2^q.
    if (force_len > 0) begin
      d.w2[48 + DESC_FLAG_BCAST_BIT]  = 1'b0;
      d.w2[48 + DESC_FLAG_INLINE_BIT] = 1'b0;
      d.w2[31:0] = 32'(force_len);
    end
    seq++;
    return d;
  endfunction

  // Posts one descriptor on context k (the caller checks there is room); maybe pushed.
  task automatic post(int k, bit try_push, int force_len = 0);
    desc_t       d = make_desc(k, force_len);
    logic [63:0] a = lme_base[k] + 64'(32 * int'(lme_prod[k]));
    mem[a] = d.w0; mem[a + 8] = d.w1; mem[a + 16] = d.w2; mem[a + 24] = d.w3;
    if (try_push && k == 0 && !push_valid) begin
      // The window's copy differs from the ring's, so the output shows which was used.
      d.w0 = ~d.w0;
      d.w3 = {32'h0, 32'h8000_0000 | 32'(seq - 1)};
      d.pushed = 1'b1;
      push_slot   = lme_prod[0];
      push_local  = d.w0;
      push_remote = {d.w3[63:48], d.w1};
      push_w2     = d.w2;
      push_msg_id = d.w3[31:0];
      push_valid  = 1'b1;
    end
    exp_q[k].push_back(d);
    posted[k]++;
    lme_prod[k] = (lme_prod[k] + 16'd1 == lme_size[k]) ? '0 : lme_prod[k] + 16'd1;
  endtask

  function automatic int outstanding(int k);
    return posted[k] - taken[k];
  endfunction

  // ---- DMA read model: in order, random latency and gaps ----
  typedef struct {
    logic [63:0] addr;
    longint      due;
  } rd_t;
  rd_t    rdq[$];
  longint cycle = 0;
  int     ready_pct = 70, gap_pct = 20, cons_pct = 70;
  int     beat = 0;

  // The offer is built in two registered steps (off the NIC's critical path): the pick is
  // refilled the cycle after a take, from the state the take left, and the offer the cycle
  // after that, so no offer stands in the two cycles right after one. The closest takes
  // are three cycles apart, and they get that close (checked at the end).
  bit     took_q = 1'b0, took_qq = 1'b0;
  longint last_take = -1, min_take_gap = 0;
  always @(posedge clk) begin
    took_q  <= desc_valid && desc_ready;
    took_qq <= took_q;
    if (took_q || took_qq)
      `CHECK(!desc_valid, "an offer in the two cycles after a take: not registered")
    if (desc_valid && desc_ready) begin
      if (last_take >= 0 && (min_take_gap == 0 || cycle - last_take < min_take_gap))
        min_take_gap = cycle - last_take;
      last_take = cycle;
    end
  end

  always @(posedge clk) begin
    cycle <= cycle + 1;
    if (push_valid && push_take) push_valid <= 1'b0;
    if (req_valid && req_ready) begin
      rd_t r;
      bit  ok = 1'b0;
      for (int k = 0; k < NumCtx; k++) begin
        if (req_addr >= lme_base[k] && req_addr < lme_base[k] + 64'(32 * int'(lme_size[k])) &&
            req_addr[4:0] == 5'd0) ok = 1'b1;
      end
      `CHECK(ok, $sformatf("read %h is no slot of a configured ring", req_addr))
      r.addr = req_addr;
      r.due  = cycle + $urandom_range(2, 40);
      rdq.push_back(r);
    end
    if (desc_valid && desc_ready) begin
      int    k = int'(desc_ctx);
      desc_t e;
      ctx_trace.push_back(k);
      // Round robin: a context with a descriptor stored waits at most one take of each
      // other context.
      for (int j = 0; j < NumCtx; j++) begin
        if (j == k || dut.cnt_q[j] == '0 || few_keys) begin
          passes[j] = 0;
        end else begin
          passes[j]++;
          if (passes[j] > max_passes) max_passes = passes[j];
          `CHECK(passes[j] < NumCtx, $sformatf("context %0d passed over %0d times", j, passes[j]))
        end
      end
      if (exp_q[k].size() == 0) begin
        `CHECK(0, $sformatf("context %0d: descriptor %h nobody posted", k, desc_msg_id))
      end else begin
        int len = int'(exp_q[k][0].w2[31:0]);
        bit cuts = tx_quantum != 0 && !exp_q[k][0].w2[48 + DESC_FLAG_BCAST_BIT] &&
                   !exp_q[k][0].w2[48 + DESC_FLAG_INLINE_BIT];
        int q = (tx_quantum == 0) ? 0 : (1 << tx_quantum);
        int want_len = (cuts && len - exp_off[k] > q) ? q : len - exp_off[k];
        e = exp_q[k][0];
        // A segment's addresses are its first byte's.
        `CHECK(desc_local == e.w0 + 64'(exp_off[k]) &&
               desc_remote == {e.w3[63:48], e.w1[63:48], e.w1[47:0] + 48'(exp_off[k])} &&
               desc_msg_id == e.w3[31:0] &&
               desc_dest == e.w2[47:32] &&
               desc_flags == e.w2[55:48] && desc_inline == e.w2[48 + DESC_FLAG_INLINE_BIT] &&
               desc_pushed == e.pushed,
               $sformatf("context %0d: got msg %h pushed %0b, expected msg %h pushed %0b", k,
                         desc_msg_id, desc_pushed, e.w3[31:0], e.pushed))
        begin
          logic [7:0] want_err;
          want_err = tb_desc_err(e.w2[31:0], e.w1, e.w2[47:32], e.w2[55:48],
                                 e.w2[48 + DESC_FLAG_INLINE_BIT], e.pushed, 1'b0, dest_lo, dest_hi);
          `CHECK(8'(desc_err) == want_err, $sformatf("context %0d msg %h: check code %0d, want %0d",
                                                     k, desc_msg_id, desc_err, want_err))
          n_err_code[want_err != 0]++;
        end
        `CHECK(int'(desc_off) == exp_off[k] && int'(desc_seg_len) == want_len &&
               desc_final == (exp_off[k] + want_len == len),
               $sformatf("context %0d msg %h (len %0d, q %0d): segment [%0d +%0d] final %0b, want [%0d +%0d]",
                         k, desc_msg_id, len, q, desc_off, desc_seg_len, desc_final,
                         exp_off[k], want_len))
        if (exp_off[k] == 0) begin
          for (int j = 0; j < NumCtx; j++) begin
            if (j != k && exp_off[j] != 0 && exp_q[j][0].w2[47:32] == desc_dest &&
                exp_q[j][0].w3[31:0] == desc_msg_id)
              `CHECK(0, $sformatf("context %0d starts dest %0d msg %0d while context %0d's is open",
                                  k, desc_dest, desc_msg_id, j))
          end
        end
        if (exp_off[k] != 0) begin
          `CHECK({desc_seq, desc_lag, desc_rec} == numbers[k],
                 $sformatf("context %0d: later segment with numbers %h, first had %h", k,
                           {desc_seq, desc_lag, desc_rec}, numbers[k]))
        end else begin
          numbers[k] = {take_seq, take_lag, take_rec};
        end
        segs++;
        if (desc_end) begin
          if (exp_off[k] == 0 && !desc_final) refused++;
          if (exp_off[k] != 0) cut_descs++;
          void'(exp_q[k].pop_front());
          exp_off[k] = 0;
          taken[k]++;
        end else begin
          exp_off[k] += want_len;
        end
      end
    end
  end

  // The consumer: a take ends the descriptor on its final segment, or when it refuses a
  // first segment (as the read engine does with a bad descriptor).
  always_comb desc_end = desc_valid && desc_ready && (desc_final || (refuse && desc_off == '0));

  // Response beats, driven between edges.
  always @(negedge clk) begin
    req_ready  <= $urandom_range(0, 99) < ready_pct;
    desc_ready <= $urandom_range(0, 99) < cons_pct;
    refuse     <= $urandom_range(0, 99) < refuse_pct;
    take_seq   <= 8'($urandom());
    take_lag   <= 4'($urandom());
    take_rec   <= 5'($urandom());
    rsp_valid  <= 1'b0;
    if (rdq.size() != 0 && rdq[0].due <= cycle && $urandom_range(0, 99) >= gap_pct) begin
      logic [63:0] a = rdq[0].addr + 64'(8 * beat);
      rsp_valid <= 1'b1;
      rsp_data  <= mem.exists(a) ? mem[a] : 64'hDEAD_BEEF_DEAD_BEEF;
      beat = beat + 1;
      if (beat == 4) begin
        beat = 0;
        void'(rdq.pop_front());
      end
    end
  end

  int quanta[4] = '{8, 0, 6, 10};
  function automatic bit exp_off_all_zero();
    for (int k = 0; k < NumCtx; k++) if (exp_off[k] != 0) return 1'b0;
    return 1'b1;
  endfunction

  task automatic wait_drained(string what);
    int t = 0;
    bit busy = 1'b1;
    while (busy && t < 200000) begin
      @(negedge clk);
      t++;
      busy = rdq.size() != 0 || push_valid || !idle;
      for (int k = 0; k < NumCtx; k++) if (exp_q[k].size() != 0) busy = 1'b1;
    end
    `CHECK(!busy, $sformatf("%s: not drained", what))
    for (int k = 0; k < NumCtx; k++) begin
      `CHECK(exp_q[k].size() == 0, $sformatf("%s: context %0d: %0d descriptors never came",
                                             what, k, exp_q[k].size()))
    end
  endtask

  initial begin
    for (int k = 0; k < NumCtx; k++) begin
      posted[k]  = 0;
      taken[k]   = 0;
      exp_off[k] = 0;
      passes[k]  = 0;
    end
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    @(negedge clk);

    // ---- fairness: every ring holds a backlog before the NIC starts ----
    // Sizes come with a ring reset, as the CSR blocks write them (ddc_csr, ddc_ctx_csr).
    for (int k = 0; k < NumCtx; k++) lme_size[k] = 16'd16;
    flush = 1'b1;
    drain = 1'b1;
    @(negedge clk);
    flush = 1'b0;
    drain = 1'b0;
    for (int n = 0; n < 12; n++) for (int k = 0; k < NumCtx; k++) post(k, 1'b0);
    ready_pct = 100; gap_pct = 0; cons_pct = 100;
    @(negedge clk);
    enable = 1'b1;
    wait_drained("fairness");
    `CHECK(ctx_trace.size() == 12 * NumCtx, $sformatf("fairness: %0d descriptors", ctx_trace.size()))
    for (int i = 1; i < ctx_trace.size(); i++) begin
      `CHECK(ctx_trace[i] == (ctx_trace[i - 1] + 1) % NumCtx,
             $sformatf("fairness: output %0d from context %0d after context %0d", i,
                       ctx_trace[i], ctx_trace[i - 1]))
    end

    // ---- fairness per segment: long messages on every ring, quantum 64 bytes ----
    enable = 1'b0;
    tx_quantum = 5'd6;
    max_len = 400;
    ctx_trace.delete();
    for (int n = 0; n < 6; n++) for (int k = 0; k < NumCtx; k++) begin
      post(k, 1'b0, 300);
    end
    // The store fills (two descriptors per context) before the first take.
    cons_pct = 0;
    @(negedge clk);
    enable = 1'b1;
    repeat (300) @(negedge clk);
    cons_pct = 100;
    wait_drained("segment fairness");
    `CHECK(max_passes == NumCtx - 1, $sformatf("segment fairness: a context waited at most %0d takes",
                                               max_passes))
    `CHECK(cut_descs == 6 * NumCtx, $sformatf("segment fairness: %0d descriptors cut", cut_descs))

    // ---- a context's first descriptor behind another's backlog of long messages ----
    ctx_trace.delete();
    cons_pct = 20;
    for (int n = 0; n < 15; n++) begin
      post(1, 1'b0, 4000);
      post(3, 1'b0, 4000);
    end
    repeat (150) @(negedge clk);   // the store would fill with contexts 1 and 3's
    begin
      int t0 = ctx_trace.size(), at = -1;
      post(2, 1'b0);
      while (taken[2] == posted[2] - 1 && at < 0) begin
        @(negedge clk);
        for (int i = t0; i < ctx_trace.size(); i++) if (ctx_trace[i] == 2 && at < 0) at = i - t0;
      end
      // Not behind a whole long message of context 1 or 3 (63 segments): only behind the
      // segments taken while its descriptor was read.
      `CHECK(at >= 0 && at <= 20, $sformatf("context 2 waited %0d takes behind the backlog of contexts 1 and 3", at))
    end
    wait_drained("backlog");

    // ---- same keys: few msg_ids and dests, long messages, quantum 64 ----
    few_keys = 1'b1;
    cons_pct = 80;
    refuse_pct = 0;
    for (int n = 0; n < 8; n++) for (int k = 0; k < NumCtx; k++) post(k, 1'b0, $urandom_range(100, 500));
    wait_drained("same keys");
    few_keys = 1'b0;

    // ---- a pushed descriptor beside the other contexts' reads ----
    // Contexts 1 to 7 keep their rings full and reads are taken at once, so some are
    // always in flight; a push waits only for those already issued (at most 40 cycles of
    // latency and 4 beats), not for the others' backlogs.
    ready_pct = 100; gap_pct = 0; cons_pct = 100;
    for (int n = 0; n < 20; n++) begin
      int waited = 0;
      for (int k = 1; k < NumCtx; k++) begin
        while (outstanding(k) < int'(lme_size[k]) - 1) post(k, 1'b0);
      end
      post(0, 1'b1);
      while (push_valid && waited < 2000) begin
        @(negedge clk);
        waited++;
        for (int k = 1; k < NumCtx; k++) begin
          if (outstanding(k) < int'(lme_size[k]) - 1) post(k, 1'b0);
        end
      end
      `CHECK(waited <= 50, $sformatf("push %0d waited %0d cycles beside the reads", n, waited))
      if (waited > max_push_wait) max_push_wait = waited;
    end
    wait_drained("push beside reads");
    $display("a push beside 7 contexts' reads waited at most %0d cycles", max_push_wait);

    // ---- random posting, pushes on context 0, resets of idle contexts ----
    ready_pct = 70; gap_pct = 20; cons_pct = 70;
    max_len = 3000;
    refuse_pct = 10;
    for (int n = 0; n < 6000; n++) begin
      int k = $urandom_range(0, NumCtx - 1);
      @(negedge clk);
      if ($urandom_range(0, 3) == 0) begin
        if (outstanding(k) < int'(lme_size[k]) - 1) post(k, $urandom_range(0, 2) == 0);
      end else if ($urandom_range(0, 199) == 0 && outstanding(k) == 0 &&
                   !(k == 0 && push_valid)) begin
        // An idle context resets its ring, maybe to another size (ddc_ctx_csr's rule:
        // only while nothing of it is outstanding).
        lme_size[k]  = 16'($urandom_range(2, 16));
        lme_prod[k]  = '0;
        ctx_reset[k] = 1'b1;
        @(negedge clk);
        ctx_reset[k] = 1'b0;
      end
      if (n % 1500 == 0 && exp_off_all_zero()) tx_quantum = 5'(quanta[(n / 1500) % 4]);
      if (n % 1500 == 0) begin
        ready_pct = $urandom_range(20, 100);
        gap_pct   = $urandom_range(0, 60);
        cons_pct  = $urandom_range(10, 100);
      end
    end
    wait_drained("random");

    begin
      int total = 0;
      for (int k = 0; k < NumCtx; k++) total += taken[k];
      $display("%0d descriptors from %0d contexts, %0d takes, %0d cut into segments, %0d refused",
               total, NumCtx, segs, cut_descs, refused);
      `CHECK(cut_descs > 200 && refused > 10, "too few segmented or refused descriptors")
      $display("%0d offers of descriptors that pass their checks, %0d that fail them",
               n_err_code[0], n_err_code[1]);
      `CHECK(n_err_code[0] > 100 && n_err_code[1] > 100, "too few good or bad descriptors")
      $display("closest takes: %0d cycles apart", min_take_gap);
      `CHECK(min_take_gap == 3, "takes closer or further apart than every third cycle")
    end
    if (errors == 0) $display("PASS tb_ddc_tx_ctx_fetch");
    else $fatal(1, "tb_ddc_tx_ctx_fetch: %0d errors", errors);
    $finish;
  end

endmodule
