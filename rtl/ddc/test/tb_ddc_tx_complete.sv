// Checks ddc_tx_complete: status words written in record order to base + 32*slot + 24
// (ring wrap), data {0, DONE | err, msg_id}, strobe FF; a good record is written only after
// its message's msg_done, an error record needs none (errors alone all complete); the
// done/err/irq pulses and cons_o follow each accepted write; random record, msg_done and
// write-ready timing; a ring reset with a write pending completes that write without an
// event and restarts at slot 0. A msg_done with msg_err (message cut by a DMA read error)
// completes its good record with DMA_RD (and the err pulse), random messages cut.
// SENDER_WAIT records (cpl_wait): a model network answers each sent message after a
// random delay with ACK, NACK, NACK_REJECT or nothing, plus stray answers; the record
// completes OK / RETRY_EXHAUSTED / REJECTED / RETRY_EXHAUSTED, never before its answer
// (or, unanswered, before the timeout), still in record order; a 2-entry table makes
// records wait for a free entry. A read-error cut of a waiting message ends it at once
// (DMA_RD). Every good unicast record gets seq = next per dest[5:0] and a lag bounded by the
// live waiting records of that dest; broadcasts 0.
// Retransmission (REL_RETRIES 2): each record has an answer script per attempt; a NACK or
// silence brings a retransmission request (named by context, ring slot, dest, msg_id, seq,
// lag, attempt) that the model TX path serves after a random delay, now and then cut by a
// read error or refused on its re-read (EXHAUSTED); results follow the script, never more
// than the budget of retransmissions, counters (retx, timeouts) match the model.
// Messages finish in any order (TX_QUANTUM: other contexts' messages overtake a long one):
// msg_done names a random unfinished good record by its slot (rec_o, sampled when it was
// queued); records still complete in record order, each only after its own msg_done.
// A record is queued the cycle after its take, so its msg_done comes two cycles after the
// take at the earliest (in the NIC the message's first packet is cut a cycle after it).
module tb_ddc_tx_complete;
  import fasthsl_pkg::*;

  logic        clk = 1'b0;
  logic        rst_n = 1'b0;
  logic        run = 1'b0;
  logic        flush = 1'b0, drain = 1'b0;
  logic [63:0] lme_base = 64'h0000_0007_0000_0000;
  logic [15:0] lme_size = 16'd5;
  logic        cpl_valid = 1'b0, cpl_ready, cpl_irq = 1'b0;
  desc_err_e   cpl_err = DESC_ERR_OK;
  logic [31:0] cpl_msg_id = '0;
  logic        msg_done = 1'b0, msg_err = 1'b0, msg_retx = 1'b0;
  logic [3:0]  msg_ridx = '0;
  logic [4:0]  msg_rec = '0, rec_o;
  int          rec_of[int];   // good_idx -> its record slot
  bit          done_g[int];   // good_idx -> its msg_done came
  int          dpick = -1;    // the good record msg_done names this cycle
  logic        cpl_unicast = 1'b1;
  logic [7:0]  seq_o;
  logic [3:0]  lag_o;
  logic [3:0]  retries = '0;
  logic        retx_valid, retx_ready = 1'b0, retx_ctx, retx_o;
  logic [3:0]  retx_idx, retx_lag;
  logic [15:0] retx_slot, retx_dest;
  logic [31:0] retx_msg_id;
  logic [7:0]  retx_seq;
  logic [1:0]  retx_attempt;
  logic        rfail_valid = 1'b0;
  logic [3:0]  rfail_idx = '0;
  logic [4:0]  timeouts_o;
  int          next_seq[64];
  int          push_n = 0;                      // records queued since the last ring reset
  int          g_tries[int], g_fin[int], g_slot[int], g_seq[int], g_lag[int];
  int          msg2g[int];                      // msg_id -> good_idx (wait records)
  int          n_retx_ev = 0, n_timeouts_ev = 0, m_retx = 0, m_timeouts = 0;
  int          rt_cut = 0, rt_fail = 0, p_rtbad = 0;
  typedef struct {
    longint at;
    int     idx, g;
    bit     cut, refuse;
  } rt_t;
  rt_t         rt_q[$];
  bit          cut[int];      // good_idx -> its msg_done came with msg_err
  int          p_cut = 0, cuts = 0;
  logic        wr_valid, wr_ready = 1'b0;
  logic [63:0] wr_addr, wr_data;
  logic [7:0]  wr_strb;
  logic [15:0] cons;
  logic        done, err, irq, idle;
  logic        irq_ctx;   // one context: always 0
  logic        cpl_wait = 1'b0;
  logic [15:0] cpl_dest = '0;
  logic        ans_valid = 1'b0, ans_nack = 1'b0, ans_reject = 1'b0;
  logic [15:0] ans_src = '0;
  logic [31:0] ans_msg_id = '0;
  localparam logic [15:0] Timeout = 16'd3;   // ticks of 2^REL_TICK_LOG2 cycles: >= 513 cycles
  int          p_wait = 0, p_stray = 0;
  typedef struct {
    longint at;
    logic [15:0] src;
    logic [31:0] msg_id;
    logic [1:0]  kind;   // 0 ACK, 1 NACK, 2 NACK_REJECT
  } ans_t;
  ans_t        answers[$];
  longint      sent_at[int], ans_at[int];   // good_idx -> cycle
  int          waited = 0, w_ok = 0, w_exh = 0, w_rej = 0, w_silent = 0;

  always #5 clk = ~clk;

  ddc_tx_complete #(
    .CplDepth(4),
    .RelEntries(2)
  ) dut (
    .clk_i       (clk),
    .rst_ni      (rst_n),
    .flush_i     (flush),
    .drain_i     (drain),
    .ctx_reset_i (1'b0),
    .lme_base_i  (lme_base),
    .lme_size_i  (lme_size),
    .cpl_valid_i (cpl_valid),
    .cpl_ready_o (cpl_ready),
    .cpl_ctx_i   (1'b0),
    .cpl_err_i   (cpl_err),
    .cpl_msg_id_i(cpl_msg_id),
    .cpl_irq_i   (cpl_irq),
    .cpl_dest_i  (cpl_dest),
    .cpl_wait_i  (cpl_wait),
    .cpl_unicast_i(cpl_unicast),
    .seq_o       (seq_o),
    .lag_o       (lag_o),
    .rec_o       (rec_o[1:0]),
    .rel_timeout_i(Timeout),
    .retries_max_i(retries),
    .retx_valid_o(retx_valid),
    .retx_ready_i(retx_ready),
    .retx_idx_o  (retx_idx),
    .retx_ctx_o  (retx_ctx),
    .retx_slot_o (retx_slot),
    .retx_dest_o (retx_dest),
    .retx_msg_id_o(retx_msg_id),
    .retx_seq_o  (retx_seq),
    .retx_lag_o  (retx_lag),
    .retx_attempt_o(retx_attempt),
    .rfail_valid_i(rfail_valid),
    .rfail_idx_i (rfail_idx),
    .timeouts_o  (timeouts_o),
    .retx_o      (retx_o),
    .ans_valid_i (ans_valid),
    .ans_src_i   (ans_src),
    .ans_msg_id_i(ans_msg_id),
    .ans_nack_i  (ans_nack),
    .ans_reject_i(ans_reject),
    .msg_done_i  (msg_done),
    .msg_err_i   (msg_err),
    .msg_retx_i  (msg_retx),
    .msg_ridx_i  (msg_ridx),
    .msg_rec_i   (msg_rec[1:0]),
    .wr_valid_o  (wr_valid),
    .wr_ready_i  (wr_ready),
    .wr_addr_o   (wr_addr),
    .wr_data_o   (wr_data),
    .wr_strb_o   (wr_strb),
    .cons_o      (cons),
    .done_o      (done),
    .err_o       (err),
    .irq_o       (irq),
    .irq_ctx_o   (irq_ctx),
    .idle_o      (idle)
  );

  typedef struct packed {
    logic [7:0]  err;
    logic [31:0] msg_id;
    logic        irq;
    logic [31:0] good_idx;   // index among good records (0-based), for msg_done matching
    logic        wait_ans;
    logic [15:0] dest;
    logic [3:0][1:0] kinds;  // per attempt: 0 ACK, 1 NACK, 2 NACK_REJECT, 3 no answer
    logic        unicast;
  } rec_t;
  rec_t   by_good[int];

  rec_t   to_send[$];
  rec_t   pushed[$];
  int     errors = 0;
  longint cycle = 0;
  longint taken_at[int];   // good_idx -> the cycle its record was taken
  int     good_made = 0, good_pushed = 0, dones_sent = 0, written = 0;
  int     p_rec = 100, p_done = 100, p_wr = 100;
  bit     pulse_exp = 0, err_exp = 0, irq_exp = 0;
  bit     stale_exp = 0;
  int     cons_exp = 0;
  logic [63:0] stale_addr, stale_data;
  rec_t   m_r;

  task automatic fail(string m);
    $display("FAIL @%0d: %s", cycle, m);
    errors++;
    if (errors > 10) $fatal(1, "tb_ddc_tx_complete: too many errors");
  endtask

  // One context: every completion event names context 0.
  always @(posedge clk) if (irq_ctx) fail("completion event names a context other than 0");

  // A pushed good record whose message has not finished: the oldest or a random one.
  function automatic int pick_done();
    int c[$];
    c.delete();   // the local queue is not fresh on each call in Verilator 5.006
    for (int g = dones_sent; g < good_pushed; g++) begin
      if (!done_g.exists(g) && cycle >= taken_at[g] + 2) c.push_back(g);
    end
    if (c.size() == 0) return -1;
    if ($urandom_range(0, 1) == 0) return c[0];
    return c[$urandom_range(0, c.size() - 1)];
  endfunction

  task automatic add(int bad_pct);
    rec_t r;
    r.err = ($urandom_range(0, 99) < bad_pct) ? 8'($urandom_range(1, 3)) : 8'h00;
    r.msg_id = $urandom();
    r.irq = ($urandom_range(0, 1) != 0);
    r.good_idx = 32'(good_made);
    r.unicast = ($urandom_range(0, 9) != 0);
    r.wait_ans = r.unicast && ($urandom_range(0, 99) < p_wait);
    // dests 0..3 and their aliases 64..67 (numbered together: dest[5:0])
    r.dest = 16'($urandom_range(0, 3) + 64 * $urandom_range(0, 1));
    for (int a = 0; a < 4; a++) r.kinds[a] = 2'($urandom_range(0, 3));
    if (r.err == 0) good_made++;
    to_send.push_back(r);
  endtask

  always begin
    @(negedge clk);
    cpl_valid = !drain && (to_send.size() != 0) && ($urandom_range(0, 99) < p_rec);
    if (to_send.size() != 0) begin
      cpl_err = desc_err_e'(to_send[0].err); cpl_msg_id = to_send[0].msg_id; cpl_irq = to_send[0].irq;
      cpl_wait = to_send[0].wait_ans; cpl_dest = to_send[0].dest;
      cpl_unicast = to_send[0].unicast;
    end
    // At most one answer per cycle: the first one due, else now and then a stray one.
    ans_valid = 1'b0;
    foreach (answers[i]) begin
      if (answers[i].at <= cycle) begin
        ans_valid  = 1'b1;
        ans_src    = answers[i].src;
        ans_msg_id = answers[i].msg_id;
        ans_nack   = (answers[i].kind != 2'd0);
        ans_reject = (answers[i].kind == 2'd2);
        answers.delete(i);
        break;
      end
    end
    if (!ans_valid && $urandom_range(0, 99) < p_stray) begin
      ans_valid  = 1'b1;
      ans_src    = 16'($urandom_range(0, 3));
      ans_msg_id = $urandom();
      ans_nack   = ($urandom_range(0, 1) != 0);
      ans_reject = ($urandom_range(0, 1) != 0);
    end
    // The packetizer finishes good messages in order, only after their record exists; a
    // retransmission due goes first (one message leaves at a time).
    msg_retx = 1'b0; rfail_valid = 1'b0;
    retx_ready = !drain && ($urandom_range(0, 99) < 70);
    if (!drain && rt_q.size() != 0 && rt_q[0].at <= cycle && rt_q[0].refuse) begin
      rfail_valid = 1'b1; rfail_idx = 4'(rt_q[0].idx);
    end
    if (!drain && rt_q.size() != 0 && rt_q[0].at <= cycle && !rt_q[0].refuse) begin
      msg_done = 1'b1; msg_retx = 1'b1; msg_ridx = 4'(rt_q[0].idx);
      msg_err  = rt_q[0].cut;
    end else begin
      dpick    = pick_done();
      msg_done = !drain && (dpick >= 0) && ($urandom_range(0, 99) < p_done);
      msg_err  = msg_done && ($urandom_range(0, 99) < p_cut);
      if (msg_done) msg_rec = 5'(rec_of[dpick]);
    end
    wr_ready = ($urandom_range(0, 99) < p_wr);
    #4;
    if (run) begin
      if (done !== pulse_exp || err !== (pulse_exp && err_exp) || irq !== (pulse_exp && irq_exp)) begin
        fail($sformatf("pulses %b%b%b want %b%b%b", done, err, irq, pulse_exp, pulse_exp && err_exp, pulse_exp && irq_exp));
      end
      if (done && int'(cons) != cons_exp) fail($sformatf("cons %0d want %0d", cons, cons_exp));
      pulse_exp = 0;
      n_retx_ev += int'(retx_o);
      n_timeouts_ev += int'(timeouts_o);
      if (cpl_valid && cpl_ready) begin
        m_r = to_send.pop_front();
        pushed.push_back(m_r);
        if (m_r.err == 0) begin
          int g = int'(m_r.good_idx), d = int'(m_r.dest[5:0]), live = 0;
          good_pushed++;
          taken_at[g] = cycle;
          by_good[g] = m_r;
          // seq: next of dest[5:0] (unicast only); lag: the live waiting entries of dest[5:0]
          // (pushed records not yet written; the one being written may already be freed)
          foreach (pushed[i]) begin
            if (i < pushed.size() - 1 && pushed[i].err == 0 && pushed[i].wait_ans &&
                int'(pushed[i].dest[5:0]) == d) live++;
          end
          if (!m_r.unicast) begin
            if (seq_o !== 8'h0 || lag_o !== 4'h0) fail("broadcast with seq/lag");
          end else begin
            if (int'(seq_o) != next_seq[d] % 256) fail($sformatf("seq %0d, want %0d", seq_o, next_seq[d] % 256));
            if (int'(lag_o) > live || int'(lag_o) < live - int'(wr_valid))
              fail($sformatf("lag %0d, %0d live entries of dest %0d", lag_o, live, d));
            next_seq[d]++;
          end
          g_seq[g] = int'(seq_o); g_lag[g] = int'(lag_o);
          g_tries[g] = 0; g_fin[g] = -1;
          if (m_r.wait_ans) msg2g[int'(m_r.msg_id)] = g;
        end
        if (m_r.err == 0) rec_of[int'(m_r.good_idx)] = int'(rec_o[1:0]);
        g_slot[int'(m_r.good_idx)] = push_n % int'(lme_size);
        push_n++;
      end
      if (rfail_valid) begin
        g_fin[rt_q[0].g] = int'(DESC_ERR_RETRY_EXHAUSTED);
        rt_fail++;
        void'(rt_q.pop_front());
      end
      if (msg_done && msg_retx) begin
        int g = rt_q[0].g;
        m_r = by_good[g];
        sent_at[g] = cycle;
        if (msg_err) begin
          g_fin[g] = int'(DESC_ERR_RETRY_EXHAUSTED);
          rt_cut++;
        end else begin
          // this attempt's answer, per the script
          int k = int'(m_r.kinds[g_tries[g]]);
          if (k == 0) g_fin[g] = 0;
          else if (k == 2) g_fin[g] = int'(DESC_ERR_REJECTED);
          else if (g_tries[g] == int'(retries)) g_fin[g] = int'(DESC_ERR_RETRY_EXHAUSTED);
          if (k == 3) m_timeouts++;
          if (k != 3) begin
            ans_t a;
            a.at = cycle + longint'($urandom_range(1, 400));
            a.src = m_r.dest; a.msg_id = m_r.msg_id; a.kind = 2'(k);
            ans_at[g] = a.at;
            answers.push_back(a);
          end
        end
        void'(rt_q.pop_front());
      end else if (msg_done) begin
        cut[dpick] = msg_err;
        sent_at[dpick] = cycle;
        m_r = by_good[dpick];
        if (m_r.wait_ans && !msg_err) begin
          int k = int'(m_r.kinds[0]);
          if (k == 0) g_fin[dpick] = 0;
          else if (k == 2) g_fin[dpick] = int'(DESC_ERR_REJECTED);
          else if (retries == 0) g_fin[dpick] = int'(DESC_ERR_RETRY_EXHAUSTED);
          if (k == 3) m_timeouts++;
        end
        if (m_r.wait_ans && m_r.kinds[0] != 3) begin
          ans_t a;
          a.at = cycle + longint'($urandom_range(1, 400));   // within the timeout
          a.src = m_r.dest; a.msg_id = m_r.msg_id; a.kind = m_r.kinds[0];
          ans_at[dpick] = a.at;
          answers.push_back(a);
        end
        done_g[dpick] = 1'b1;
        while (done_g.exists(dones_sent)) dones_sent++;
      end
      if (retx_valid && retx_ready) begin
        if (!msg2g.exists(int'(retx_msg_id))) fail("retransmission of an unknown message");
        else begin
          rt_t t;
          int g = msg2g[int'(retx_msg_id)];
          m_r = by_good[g];
          m_retx++;
          if (g_fin[g] != -1) fail("retransmission of a message with a result");
          if (g_tries[g] >= int'(retries)) fail("more retransmissions than REL_RETRIES");
          g_tries[g]++;
          if (m_r.kinds[g_tries[g] - 1] == 3 &&
              cycle < sent_at[g] + longint'((Timeout - 1) * 256 + 1)) fail("retransmission before the timeout");
          if (m_r.kinds[g_tries[g] - 1] == 1 && cycle <= ans_at[g]) fail("retransmission before the NACK");
          if (retx_dest !== m_r.dest || int'(retx_seq) != g_seq[g] || int'(retx_lag) != g_lag[g] ||
              int'(retx_attempt) != g_tries[g] % 4 || int'(retx_slot) != g_slot[g] || retx_ctx !== 1'b0)
            fail($sformatf("retransmission request fields: dest %0d seq %0d lag %0d att %0d slot %0d",
                           retx_dest, retx_seq, retx_lag, retx_attempt, retx_slot));
          t.at = cycle + longint'($urandom_range(1, 200)); t.idx = int'(retx_idx); t.g = g;
          t.refuse = ($urandom_range(0, 99) < p_rtbad);
          t.cut = !t.refuse && ($urandom_range(0, 99) < p_rtbad);
          rt_q.push_back(t);
          rt_q.sort(x) with (x.at);
        end
      end
      if (wr_valid && wr_ready) begin
        if (wr_strb !== 8'hFF) fail("strobe");
        if (flush) begin
          if (pushed.size() != 0) void'(pushed.pop_front());
        end else if (stale_exp) begin
          if (wr_addr !== stale_addr || wr_data !== stale_data) fail("pending write changed by the reset");
          stale_exp = 0;
        end else if (pushed.size() == 0) begin
          fail("write with no record");
        end else begin
          m_r = pushed.pop_front();
          if (m_r.err == 0 && m_r.wait_ans && !cut[int'(m_r.good_idx)] &&
              g_tries[int'(m_r.good_idx)] == 0) begin
            waited++;
            if (m_r.kinds[0] == 3) begin
              if (cycle < sent_at[int'(m_r.good_idx)] + longint'((Timeout - 1) * 256 + 1))
                fail("unanswered message completed before its timeout");
            end else if (cycle <= ans_at[int'(m_r.good_idx)]) begin
              fail("waiting message completed before its answer");
            end
          end
          if (m_r.err == 0 && cut.exists(int'(m_r.good_idx)) && cut[int'(m_r.good_idx)]) begin
            m_r.err = 8'(DESC_ERR_DMA_RD);
            cuts++;
          end else if (m_r.err == 0 && m_r.wait_ans) begin
            int g = int'(m_r.good_idx);
            if (g_fin[g] == -1) fail("message completed before its result was due");
            m_r.err = 8'(g_fin[g]);
            if (g_fin[g] == 0) w_ok++;
            else if (g_fin[g] == int'(DESC_ERR_REJECTED)) w_rej++;
            else w_exh++;
            if (g_tries[g] == 0 && m_r.kinds[0] == 3) w_silent++;
            msg2g.delete(int'(m_r.msg_id));
          end
          if (wr_addr !== lme_base + 64'(32 * (written % int'(lme_size))) + 64'd24) fail($sformatf("addr %h", wr_addr));
          if (wr_data !== {16'h0, 16'h8000 | {8'h0, m_r.err}, m_r.msg_id}) fail($sformatf("data %h", wr_data));
          if (m_r.err == 0 && !done_g.exists(int'(m_r.good_idx))) fail($sformatf("good record %0d (slot %0d) written before its msg_done", m_r.good_idx, rec_of[int'(m_r.good_idx)]));
          written++;
          cons_exp = written % int'(lme_size);
          pulse_exp = 1; err_exp = (m_r.err != 0); irq_exp = m_r.irq;
        end
      end
      if (flush) begin
        stale_exp  = wr_valid && !wr_ready;
        stale_addr = wr_addr;
        stale_data = wr_data;
      end
    end
    @(posedge clk);
    cycle++;
  end

  task automatic wait_done(int limit);
    int t = 0;
    while ((to_send.size() != 0 || pushed.size() != 0 || wr_valid) && t < limit) begin
      @(negedge clk);
      t++;
    end
    if (t >= limit) fail($sformatf("timeout: %0d to send, %0d pushed", to_send.size(), pushed.size()));
    repeat (5) @(negedge clk);
    if (int'(cons) != written % int'(lme_size)) fail("final cons");
  endtask

  initial begin
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    run = 1'b1;

    // Error records alone: no msg_done needed.
    for (int i = 0; i < 12; i++) add(100);
    p_done = 0;
    wait_done(1000);

    // Random mixes.
    p_done = 30; p_rec = 60; p_wr = 50;
    for (int i = 0; i < 400; i++) add(30);
    wait_done(100000);
    p_done = 100; p_rec = 100; p_wr = 100;
    for (int i = 0; i < 100; i++) add(20);
    wait_done(100000);
    // Messages cut by read errors, mixed with good and bad records.
    p_cut = 40; p_done = 50; p_rec = 70; p_wr = 60;
    for (int i = 0; i < 300; i++) add(25);
    wait_done(100000);
    p_cut = 0; p_done = 100; p_rec = 100; p_wr = 100;
    if (cuts < 20) fail($sformatf("only %0d cut messages completed", cuts));
    $display("%0d status writes", written);

    // SENDER_WAIT: answered, unanswered, stray answers, cut and bad records mixed.
    p_wait = 70; p_stray = 5; p_cut = 10; p_done = 60; p_rec = 70; p_wr = 70;
    for (int i = 0; i < 600; i++) add(15);
    wait_done(2000000);
    p_wait = 100; p_cut = 0; p_done = 100; p_rec = 100; p_wr = 100;
    for (int i = 0; i < 100; i++) add(0);
    wait_done(2000000);
    $display("%0d waited: %0d OK, %0d EXHAUSTED (%0d unanswered), %0d REJECTED", waited, w_ok,
             w_exh, w_silent, w_rej);
    if (w_ok < 50 || w_exh < 100 || w_silent < 40 || w_rej < 40) fail("too few waited results");
    if (n_timeouts_ev != m_timeouts) fail($sformatf("timeouts %0d, model %0d", n_timeouts_ev, m_timeouts));

    // Retransmissions: REL_RETRIES 2, answer scripts per attempt, some retransmissions cut
    // by a read error or refused on the re-read.
    retries = 4'd2; p_rtbad = 10;
    n_retx_ev = 0; m_retx = 0; n_timeouts_ev = 0; m_timeouts = 0;
    w_ok = 0; w_exh = 0; w_rej = 0;
    p_wait = 80; p_stray = 5; p_cut = 5; p_done = 60; p_rec = 70; p_wr = 70;
    for (int i = 0; i < 600; i++) add(10);
    wait_done(4000000);
    $display("retransmission: %0d retransmissions (%0d cut, %0d refused), %0d timeouts; %0d OK, %0d EXHAUSTED, %0d REJECTED",
             m_retx, rt_cut, rt_fail, m_timeouts, w_ok, w_exh, w_rej);
    if (n_retx_ev != m_retx) fail($sformatf("retx events %0d, model %0d", n_retx_ev, m_retx));
    if (n_timeouts_ev != m_timeouts) fail($sformatf("timeouts %0d, model %0d", n_timeouts_ev, m_timeouts));
    if (m_retx < 200 || rt_cut < 5 || rt_fail < 5 || w_ok < 100 || w_exh < 50 || w_rej < 50)
      fail("too few retransmission cases");
    retries = 4'd0; p_rtbad = 0;
    p_stray = 0;

    // Ring reset with a write held by the host.
    for (int k = 0; k < 10; k++) begin
      p_done = 50; p_rec = 80; p_wr = (k % 2 == 0) ? 0 : 30;
      for (int i = 0; i < 6; i++) add(30);
      repeat ($urandom_range(1, 30)) @(negedge clk);
      @(negedge clk);
      flush = 1'b1; drain = 1'b1;
      lme_size = 16'(3 + k);
      @(negedge clk);
      flush = 1'b0;
      to_send.delete(); pushed.delete(); answers.delete(); rt_q.delete(); msg2g.delete();
      written = 0; good_made = 0; good_pushed = 0; dones_sent = 0; push_n = 0;
      rec_of.delete(); done_g.delete(); taken_at.delete();
      while (!idle) @(negedge clk);
      drain = 1'b0;
      p_wr = 60;
      repeat (10) @(negedge clk);
      if (stale_exp) fail("pending write never completed");
      if (cons != 0) fail("cons not reset");
      for (int i = 0; i < 8; i++) add(30);
      wait_done(10000);
    end

    if (errors != 0) $fatal(1, "tb_ddc_tx_complete: %0d errors", errors);
    $display("tb_ddc_tx_complete: PASS");
    $finish;
  end
endmodule
