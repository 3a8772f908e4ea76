// Self-checking test of ddc_tx_rel_table: directed cases (ACK ends OK without a
// retransmission; silence gives exactly retries_max retransmissions, each after the
// timeout, then EXHAUSTED; a reject NACK ends REJECTED at once; another NACK retransmits
// at once; an ACK that arrives while a retransmission is leaving is kept until its sent
// report; an ACK matching nothing is a stray; timeouts of several entries in one tick are
// counted exactly (timeouts_o); a full table refuses alloc; a flush forgets
// everything), then random traffic: a TX path that reports sent after random delays, a
// network that ACKs, NACKs, rejects, answers late or not at all, and a host that takes
// results with back-pressure. Every message must end exactly once, with a result that the
// answers it got justify, after at most retries_max retransmissions. A transmission the
// TX path could not complete (sent_fail_i, or fail_* for a refused re-read) ends the entry
// at once, EXHAUSTED unless a kept ACK/reject says otherwise. Retransmission requests name
// the entry's dest, seq and retries spent; the lag port counts live entries of a dest.
module tb_ddc_tx_rel_table;
  localparam int unsigned Entries  = 4;
  localparam int unsigned TickLog2 = 2;
  localparam int unsigned IdxW     = $clog2(Entries);
  localparam int unsigned Timeout  = 5;
  localparam int unsigned Retries  = 2;
  localparam int unsigned TickCyc  = 1 << TickLog2;

  localparam logic [1:0] ResOk        = 2'd0;
  localparam logic [1:0] ResExhausted = 2'd1;
  localparam logic [1:0] ResRejected  = 2'd2;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic            flush = 1'b0;
  logic            alloc_valid = 1'b0, alloc_ready;
  logic [15:0]     alloc_dest = '0, alloc_seq = '0, alloc_tag = '0;
  logic [IdxW-1:0] alloc_idx;
  logic            sent_valid = 1'b0;
  logic [IdxW-1:0] sent_idx = '0, fail_idx = '0;
  logic            sent_fail = 1'b0, fail_valid = 1'b0;
  logic [15:0]     retx_dest, retx_seq;
  logic [3:0]      retx_tries, lag;
  logic [5:0]      lag_dest = '0;
  logic            ans_valid = 1'b0, ans_nack = 1'b0, ans_reject = 1'b0;
  logic [15:0]     ans_src = '0, ans_seq = '0;
  logic            retx_valid, retx_ready = 1'b0;
  logic [IdxW-1:0] retx_idx;
  logic [15:0]     retx_tag;
  logic            done_valid, done_ready = 1'b0;
  logic [IdxW-1:0] done_idx;
  logic [15:0]     done_tag;
  logic [1:0]      done_res;
  logic [IdxW:0]   timeouts;
  logic            retx_ev, stray;

  ddc_tx_rel_table #(
    .ENTRIES  (Entries),
    .TICK_LOG2(TickLog2)
  ) dut (
    .clk_i        (clk),
    .rst_ni       (rst_n),
    .flush_i      (flush),
    .timeout_i    (16'(Timeout)),
    .retries_max_i(4'(Retries)),
    .alloc_valid_i(alloc_valid),
    .alloc_ready_o(alloc_ready),
    .alloc_dest_i (alloc_dest),
    .alloc_seq_i  (alloc_seq),
    .alloc_tag_i  (alloc_tag),
    .alloc_idx_o  (alloc_idx),
    .sent_valid_i (sent_valid),
    .sent_idx_i   (sent_idx),
    .sent_fail_i  (sent_fail),
    .fail_valid_i (fail_valid),
    .fail_idx_i   (fail_idx),
    .ans_valid_i  (ans_valid),
    .ans_src_i    (ans_src),
    .ans_seq_i    (ans_seq),
    .ans_nack_i   (ans_nack),
    .ans_reject_i (ans_reject),
    .retx_valid_o (retx_valid),
    .retx_ready_i (retx_ready),
    .retx_idx_o   (retx_idx),
    .retx_tag_o   (retx_tag),
    .retx_dest_o  (retx_dest),
    .retx_seq_o   (retx_seq),
    .retx_tries_o (retx_tries),
    .lag_dest_i   (lag_dest),
    .lag_o        (lag),
    .done_sel_en_i(1'b0),
    .done_sel_i   ('0),
    .done_valid_o (done_valid),
    .done_ready_i (done_ready),
    .done_idx_o   (done_idx),
    .done_tag_o   (done_tag),
    .done_res_o   (done_res),
    .timeouts_o   (timeouts),
    .retx_o       (retx_ev),
    .stray_o      (stray)
  );

`include "ddc_tb_check.svh"

  int n_timeouts = 0, n_retx_ev = 0, n_stray = 0, max_timeouts = 0;
  always @(posedge clk) begin
    n_timeouts += int'(timeouts);
    if (int'(timeouts) > max_timeouts) max_timeouts = int'(timeouts);
    n_retx_ev  += int'(retx_ev);
    n_stray    += int'(stray);
  end

  // ---- directed helpers (inputs change at falling edges) ----
  task automatic do_alloc(input int d, input int s, input int t, output int idx);
    `CHECK(alloc_ready, "alloc not ready")
    alloc_valid = 1'b1; alloc_dest = 16'(d); alloc_seq = 16'(s); alloc_tag = 16'(t);
    #1 idx = int'(alloc_idx);
    @(negedge clk);
    alloc_valid = 1'b0;
  endtask

  task automatic do_sent(input int idx);
    sent_valid = 1'b1; sent_idx = IdxW'(idx);
    @(negedge clk);
    sent_valid = 1'b0;
  endtask

  task automatic do_ans(input int d, input int s, input bit nack, input bit rej);
    ans_valid = 1'b1; ans_src = 16'(d); ans_seq = 16'(s); ans_nack = nack; ans_reject = rej;
    @(negedge clk);
    ans_valid = 1'b0; ans_nack = 1'b0; ans_reject = 1'b0;
  endtask

  // Waits up to n cycles for a result, takes it.
  task automatic wait_done(input int n, output bit got, output int tag, output int res,
                           output int cyc);
    got = 0;
    done_ready = 1'b1;
    for (cyc = 0; cyc < n; cyc++) begin
      #1;
      if (done_valid) begin
        got = 1; tag = int'(done_tag); res = int'(done_res);
        @(negedge clk);
        break;
      end
      @(negedge clk);
    end
    done_ready = 1'b0;
  endtask

  // Waits up to n cycles for a retransmission request, takes it.
  task automatic wait_retx(input int n, output bit got, output int idx, output int cyc);
    got = 0;
    retx_ready = 1'b1;
    for (cyc = 0; cyc < n; cyc++) begin
      #1;
      if (retx_valid) begin
        got = 1; idx = int'(retx_idx);
        @(negedge clk);
        break;
      end
      @(negedge clk);
    end
    retx_ready = 1'b0;
  endtask

  task automatic idle(input int n);
    repeat (n) @(negedge clk);
  endtask

  // ---- random traffic model ----
  localparam int unsigned NMsg = 3000;

  typedef struct {
    bit live;
    bit in_tx;       // the TX path holds it: a sent report is owed
    int tx_delay;    // cycles until that report
    int dest, seq, tag;
    int retx;        // retransmissions granted
    bit got_ack, got_reject, got_nack;
    bit failed;      // a transmission was reported failed
  } slot_t;

  slot_t slot [Entries];

  typedef struct {
    int at, dest, seq;
    bit nack, rej;
  } ans_t;

  ans_t pend_ans[$];

  function automatic void push_ans(int at, int dest, int seq, bit nack, bit rej);
    ans_t a;
    a.at = at; a.dest = dest; a.seq = seq; a.nack = nack; a.rej = rej;
    pend_ans.push_back(a);
  endfunction

  int now = 0;
  int allocated = 0, finished = 0;
  int res_count[3] = '{0, 0, 0};

  initial begin
    bit got;
    int idx, idx2, tag, res, cyc, t0, seq_n;

    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    @(negedge clk);

    // 1. ACK: OK, no retransmission.
    do_alloc(3, 100, 7, idx);
    do_sent(idx);
    idle(3);
    do_ans(3, 100, 0, 0);
    wait_done(4, got, tag, res, cyc);
    `CHECK(got && tag == 7 && res == ResOk, "ACK did not end OK")
    `CHECK(n_retx_ev == 0 && n_timeouts == 0, "ACK case retransmitted")

    // 2. Silence: Retries retransmissions, each a timeout after its sent report, then
    // EXHAUSTED.
    do_alloc(2, 101, 8, idx);
    t0 = $time / 10;
    do_sent(idx);
    for (int r = 0; r < Retries; r++) begin
      wait_retx(Timeout * TickCyc + 4, got, idx2, cyc);
      `CHECK(got && idx2 == idx, "no retransmission after a timeout")
      `CHECK(cyc >= (Timeout - 1) * TickCyc, $sformatf("retransmission too early: %0d", cyc))
      idle(5);
      do_sent(idx);
    end
    wait_done(Timeout * TickCyc + 4, got, tag, res, cyc);
    `CHECK(got && tag == 8 && res == ResExhausted, "silence did not end EXHAUSTED")
    `CHECK(n_timeouts == Retries + 1, $sformatf("timeouts %0d", n_timeouts))
    `CHECK(n_retx_ev == Retries, $sformatf("retransmissions %0d", n_retx_ev))

    // 3. Reject NACK: REJECTED at once, no retransmission.
    n_retx_ev = 0; n_timeouts = 0;
    do_alloc(1, 102, 9, idx);
    do_sent(idx);
    do_ans(1, 102, 1, 1);
    wait_done(3, got, tag, res, cyc);
    `CHECK(got && tag == 9 && res == ResRejected, "reject NACK did not end REJECTED")
    `CHECK(n_retx_ev == 0, "reject NACK retransmitted")

    // 4. Other NACK: retransmission at once; then an ACK arriving while it is leaving is
    // kept until the sent report.
    do_alloc(1, 103, 10, idx);
    do_sent(idx);
    do_ans(1, 103, 1, 0);
    wait_retx(3, got, idx2, cyc);
    `CHECK(got && idx2 == idx, "NACK did not retransmit at once")
    do_ans(1, 103, 0, 0);
    wait_done(Timeout * TickCyc * 2, got, tag, res, cyc);
    `CHECK(!got, "ACK during a retransmission ended the entry before its sent report")
    do_sent(idx);
    wait_done(3, got, tag, res, cyc);
    `CHECK(got && tag == 10 && res == ResOk, "kept ACK not applied at the sent report")

    // 5. An ACK matching nothing is a stray (the message above is already done).
    n_stray = 0;
    do_ans(1, 103, 0, 0);
    idle(2);
    `CHECK(n_stray == 1, "stray ACK not counted")
    wait_done(3, got, tag, res, cyc);
    `CHECK(!got, "stray ACK produced a result")

    // 6a. A transmission cut by a read error ends EXHAUSTED at once, without waiting.
    n_retx_ev = 0;
    do_alloc(5, 104, 11, idx);
    sent_fail = 1'b1;
    do_sent(idx);
    sent_fail = 1'b0;
    wait_done(2, got, tag, res, cyc);
    `CHECK(got && tag == 11 && res == ResExhausted, "sent_fail did not end EXHAUSTED at once")
    // 6b. A refused re-read (fail port) ends EXHAUSTED; the request named the entry.
    do_alloc(6, 105, 12, idx);
    do_sent(idx);
    do_ans(6, 105, 1, 0);
    // The answer acts a cycle after it arrives (its compares are registered) and the
    // request is the pick of the cycle before (a register): two cycles after the NACK.
    #1 `CHECK(!retx_valid, "retransmission request in the cycle after the NACK")
    @(negedge clk);
    #1 `CHECK(!retx_valid, "retransmission request in the NACK's second cycle")
    @(negedge clk);
    #1 `CHECK(retx_valid && retx_dest == 16'd6 && retx_seq == 16'd105 && retx_tries == 4'd1,
              "retransmission request fields")
    wait_retx(3, got, idx2, cyc);
    `CHECK(got && idx2 == idx, "NACK did not retransmit")
    fail_valid = 1'b1; fail_idx = IdxW'(idx);
    @(negedge clk);
    fail_valid = 1'b0;
    wait_done(2, got, tag, res, cyc);
    `CHECK(got && tag == 12 && res == ResExhausted, "refused re-read did not end EXHAUSTED")
    // 6c. ... unless an ACK to the earlier copy came during it: OK.
    do_alloc(6, 106, 13, idx);
    do_sent(idx);
    do_ans(6, 106, 1, 0);
    wait_retx(3, got, idx2, cyc);
    do_ans(6, 106, 0, 0);
    fail_valid = 1'b1; fail_idx = IdxW'(idx);
    @(negedge clk);
    fail_valid = 1'b0;
    wait_done(2, got, tag, res, cyc);
    `CHECK(got && tag == 13 && res == ResOk, "refused re-read lost a kept ACK")
    // 6d. lag: live entries per dest[5:0] (64 aliases 0).
    do_alloc(64, 300, 0, idx);
    do_alloc(0, 301, 0, idx);
    do_alloc(1, 302, 0, idx);
    lag_dest = 6'd0;
    #1 `CHECK(lag == 4'd2, $sformatf("lag of dest 0: %0d", lag))
    lag_dest = 6'd1;
    #1 `CHECK(lag == 4'd1, $sformatf("lag of dest 1: %0d", lag))
    lag_dest = 6'd2;
    #1 `CHECK(lag == 4'd0, $sformatf("lag of dest 2: %0d", lag))
    @(negedge clk);
    flush = 1'b1;
    @(negedge clk);
    flush = 1'b0;
    #1 `CHECK(lag == 4'd0, "lag after flush")
    @(negedge clk);

    // 5b. Several timeouts in one tick, counted exactly: every entry sent within a few
    // cycles, then silence; each times out once, most of them (or all) on the same tick.
    begin
      int ids[Entries];
      n_timeouts = 0; max_timeouts = 0;
      for (int i = 0; i < Entries; i++) do_alloc(i, 300 + i, 30 + i, ids[i]);
      for (int i = 0; i < Entries; i++) do_sent(ids[i]);
      idle((Timeout + 2) * TickCyc);
      `CHECK(n_timeouts == Entries, $sformatf("%0d timeouts of %0d entries", n_timeouts, Entries))
      `CHECK(max_timeouts >= 2, $sformatf("at most %0d timeouts in a cycle", max_timeouts))
      flush = 1'b1;
      @(negedge clk);
      flush = 1'b0;
      @(negedge clk);
    end

    // 6. Full table refuses alloc; flush frees everything and reports nothing.
    for (int i = 0; i < Entries; i++) do_alloc(i, 200 + i, 20 + i, idx);
    #1 `CHECK(!alloc_ready, "full table accepts alloc")
    @(negedge clk);
    flush = 1'b1;
    @(negedge clk);
    flush = 1'b0;
    #1 `CHECK(alloc_ready, "flush did not free the table")
    wait_done(Timeout * TickCyc * 4, got, tag, res, cyc);
    `CHECK(!got, "flushed entry reported a result")
    @(negedge clk);

    // 7. Random traffic.
    n_retx_ev = 0;
    seq_n = 1000;
    for (int i = 0; i < Entries; i++) slot[i].live = 0;
    while (finished < NMsg) begin
      // Inputs for this cycle.
      alloc_valid = 1'b0; sent_valid = 1'b0; ans_valid = 1'b0; fail_valid = 1'b0;
      sent_fail   = ($urandom_range(0, 29) == 0);
      lag_dest    = 6'($urandom_range(0, 3));
      retx_ready  = ($urandom_range(0, 3) != 0);
      done_ready  = ($urandom_range(0, 3) != 0);
      if (allocated < NMsg && $urandom_range(0, 2) == 0) begin
        alloc_valid = 1'b1;
        alloc_dest  = 16'($urandom_range(0, 3));
        alloc_seq   = 16'(seq_n);
        alloc_tag   = 16'(allocated);
      end
      // One sent report: the TX path holds at most one message leaving at a time per slot.
      for (int i = 0; i < Entries; i++) begin
        if (slot[i].live && slot[i].in_tx && slot[i].tx_delay == 0 && !sent_valid) begin
          sent_valid = 1'b1; sent_idx = IdxW'(i);
        end
      end
      // A retransmission refused before it left (another entry than the sent one).
      for (int i = 0; i < Entries; i++) begin
        if (slot[i].live && slot[i].in_tx && slot[i].tx_delay == 0 && slot[i].retx > 0 &&
            !(sent_valid && sent_idx == IdxW'(i)) && !fail_valid &&
            $urandom_range(0, 9) == 0) begin
          fail_valid = 1'b1; fail_idx = IdxW'(i);
        end
      end
      if (pend_ans.size() > 0 && pend_ans[0].at <= now) begin
        ans_valid  = 1'b1;
        ans_src    = 16'(pend_ans[0].dest);
        ans_seq    = 16'(pend_ans[0].seq);
        ans_nack   = pend_ans[0].nack;
        ans_reject = pend_ans[0].rej;
      end
      #1;
      // Observe and update the model at this cycle's edge.
      begin
        int want_lag = 0;
        for (int i = 0; i < Entries; i++) begin
          if (slot[i].live && slot[i].dest % 64 == int'(lag_dest)) want_lag++;
        end
        `CHECK(int'(lag) == want_lag, $sformatf("lag %0d, want %0d", lag, want_lag))
      end
      if (alloc_valid && alloc_ready) begin
        idx = int'(alloc_idx);
        `CHECK(!slot[idx].live, "alloc gave a live entry")
        slot[idx].live = 1; slot[idx].in_tx = 1; slot[idx].tx_delay = $urandom_range(0, 30);
        slot[idx].dest = int'(alloc_dest); slot[idx].seq = seq_n; slot[idx].tag = allocated;
        slot[idx].retx = 0; slot[idx].got_ack = 0; slot[idx].got_reject = 0;
        slot[idx].got_nack = 0; slot[idx].failed = 0;
        allocated++;
        seq_n++;
      end
      if (fail_valid) begin
        idx = int'(fail_idx);
        slot[idx].in_tx = 0;
        slot[idx].failed = 1;
      end
      if (sent_valid && sent_fail) begin
        idx = int'(sent_idx);
        slot[idx].in_tx = 0;
        slot[idx].failed = 1;
      end else if (sent_valid) begin
        idx = int'(sent_idx);
        slot[idx].in_tx = 0;
        // The network's answer to this copy: ACK, late ACK, NACK, reject or nothing.
        case ($urandom_range(0, 9))
          0, 1, 2, 3: push_ans(now + $urandom_range(2, 15), slot[idx].dest, slot[idx].seq, 0, 0);
          4:          push_ans(now + $urandom_range(20, 60), slot[idx].dest, slot[idx].seq, 0, 0);
          5:          push_ans(now + $urandom_range(2, 15), slot[idx].dest, slot[idx].seq, 1, 0);
          6:          push_ans(now + $urandom_range(2, 15), slot[idx].dest, slot[idx].seq, 1, 1);
          default: ;
        endcase
        pend_ans.sort(a) with (a.at);
      end
      if (ans_valid) begin
        // Whether it matched is the DUT's to say (stray_o); the model records what each
        // live slot was told, which bounds the results it may give.
        for (int i = 0; i < Entries; i++) begin
          if (slot[i].live && slot[i].dest == int'(ans_src) && slot[i].seq == int'(ans_seq)) begin
            if (!ans_nack)       slot[i].got_ack = 1;
            else if (ans_reject) slot[i].got_reject = 1;
            else                 slot[i].got_nack = 1;
          end
        end
        void'(pend_ans.pop_front());
      end
      if (retx_valid && retx_ready) begin
        idx = int'(retx_idx);
        `CHECK(slot[idx].live && !slot[idx].in_tx, "retransmission of an entry the TX path holds")
        `CHECK(int'(retx_tag) == slot[idx].tag, "retransmission tag")
        `CHECK(int'(retx_dest) == slot[idx].dest && int'(retx_seq) == slot[idx].seq &&
               int'(retx_tries) == slot[idx].retx + 1, "retransmission dest/seq/tries")
        slot[idx].in_tx    = 1;
        slot[idx].tx_delay = $urandom_range(0, 30);
        slot[idx].retx++;
        `CHECK(slot[idx].retx <= Retries, "more retransmissions than allowed")
      end
      if (done_valid && done_ready) begin
        idx = int'(done_idx);
        `CHECK(slot[idx].live, "result for a free entry")
        `CHECK(!slot[idx].in_tx, "result while the TX path still holds the entry")
        `CHECK(int'(done_tag) == slot[idx].tag, "result tag")
        case (done_res)
          ResOk:        `CHECK(slot[idx].got_ack, "OK without an ACK")
          ResRejected:  `CHECK(slot[idx].got_reject, "REJECTED without a reject NACK")
          ResExhausted: `CHECK(slot[idx].retx == Retries || slot[idx].failed,
                               "EXHAUSTED before the budget was spent")
          default:      `CHECK(0, "bad result code")
        endcase
        res_count[done_res]++;
        slot[idx].live = 0;
        finished++;
      end
      for (int i = 0; i < Entries; i++) begin
        if (slot[i].live && slot[i].in_tx && slot[i].tx_delay > 0) slot[i].tx_delay--;
      end
      @(negedge clk);
      now++;
      if (now > NMsg * 2000) begin
        `CHECK(0, $sformatf("hang: %0d of %0d messages ended", finished, allocated))
        break;
      end
    end
    alloc_valid = 1'b0; sent_valid = 1'b0; ans_valid = 1'b0; fail_valid = 1'b0;
    `CHECK(res_count[0] > NMsg / 4 && res_count[1] > 10 && res_count[2] > 10,
           $sformatf("result mix too thin: ok %0d exhausted %0d rejected %0d",
                     res_count[0], res_count[1], res_count[2]))
    $display("random: %0d messages, ok %0d exhausted %0d rejected %0d, %0d retransmissions, %0d strays, %0d cycles",
             finished, res_count[0], res_count[1], res_count[2], n_retx_ev, n_stray, now);

    tb_verdict();
    $finish;
  end

endmodule
