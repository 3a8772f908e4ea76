// Self-checking test of ddc_rx_seq_window (small: 6-bit numbers, window 8, 4 slots, so
// numbers wrap many times). Directed: new/duplicate, out-of-order completion moving the
// base, the sender's low-water mark moving it (a given-up number below it is a
// duplicate; also a jump of nearly half the number space), numbers behind the base, first
// contact, wrapping, a slot forgotten after
// its idle time, a slot taken over by another source (evict), flush; the runtime hold:
// remembered for hold - 1 tick periods, forgotten after hold, kept alive by lookups,
// raised and dropped to 0 at run time, a stamp never wrapping into youth (a 6-bit clock
// of ticks, idle for twice its range), and the divider stopping once every slot is gone. Random: 4 sources,
// each a model sender that keeps the sender's rule (never a message outstanding more
// than WIN - 1 below the one it sends; its lowest outstanding number in every copy) and
// sends copies of its outstanding messages in any order, delivers some, gives others up
// (retries exhausted), and late copies of finished messages (younger than half the
// number space less the window: the lifetime the module's doc asks for).
// Checked: a copy of a delivered message is always a duplicate (never delivered twice),
// a copy of an outstanding message not yet delivered is never one (never lost).
// Driven as the egress drives it: the source's slot read ahead, the lookup a cycle later,
// a completion 2-4 cycles after its lookup; the module's own assertions check its slot
// register against the table every cycle (a register missing the sweep's or a touch's
// write fails them: tried).
module tb_ddc_rx_seq_window;
  localparam int unsigned Slots = 4;
  localparam int unsigned SeqW  = 6;
  localparam int unsigned Win   = 8;
  localparam int          M     = 1 << SeqW;
  localparam int unsigned TickLog2 = 8;
  localparam int unsigned HoldW    = 6;
  localparam int unsigned Tick     = 1 << TickLog2;
  localparam int unsigned AgeMax   = 3;     // the hold of the directed and random parts

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic            flush = 1'b0;
  logic [15:0]     src = '0;
  logic [SeqW-1:0] lk_seq = '0;
  localparam int unsigned LagW = $clog2(Win);
  logic [LagW-1:0] lk_lag = '0;   // seq - low
  logic            sel = 1'b0, lk_valid = 1'b0;
  logic            lk_dup, ins_valid = 1'b0, evict;
  logic [HoldW-1:0] hold = HoldW'(AgeMax);
  logic            touch = 1'b1;   // lookups touch (0: the hold tests peek without touching)

  ddc_rx_seq_window #(
    .SLOTS(Slots),
    .SEQ_W    (SeqW),
    .WIN      (Win),
    .TICK_LOG2(TickLog2),
    .HOLD_W   (HoldW)
  ) dut (
    .clk_i      (clk),
    .rst_ni     (rst_n),
    .flush_i    (flush),
    .hold_i     (hold),
    .sel_i      (sel),
    .src_i      (src),
    .lk_valid_i (lk_valid),
    .lk_touch_i (touch),
    .lk_seq_i   (lk_seq),
    .lk_lag_i   (lk_lag),
    .lk_dup_o   (lk_dup),
    .ins_valid_i(ins_valid),
    .evict_o    (evict)
  );

`include "ddc_tb_check.svh"

  int n_evict = 0;
  always @(posedge clk) n_evict += int'(evict);

  // As the egress drives it: the source's slot read ahead (a header-1 cycle), then the
  // lookup (the header-2 cycle), which keeps its numbers for a completion.
  task automatic select(input int s);
    @(negedge clk);
    src = 16'(s);
    sel = 1'b1;
    @(negedge clk);
    sel = 1'b0;
  endtask

  task automatic look(input int s, input int n, input int low, output bit d);
    select(s);
    lk_valid = 1'b1;
    lk_seq   = SeqW'(n);
    // the header carries low as seq - low, below Win by the sender's rule
    `CHECK((n - low + M) % M < Win, $sformatf("test bug: low %0d too far below %0d", low, n))
    lk_lag   = LagW'((n - low + M) % M);
    #1;
    d = lk_dup;
    @(negedge clk);
    lk_valid = 1'b0;
  endtask

  // CHECK that each (source, number) of a list is a duplicate (want 1) or new (want 0).
  // lows[i]: the low-water mark the copy of ns[i] carries
  task automatic expect_dup(input int s, input int ns[$], input int lows[$], input bit want,
                            input string what);
    bit d;
    foreach (ns[i]) begin
      look(s, ns[i] % M, lows[i] % M, d);
      `CHECK(d == want, $sformatf("%s: src %0d number %0d dup %0b", what, s, ns[i], d))
    end
  endtask

  // A completion: its lookup (touching nothing: the insert stamps the slot anyway, and the
  // hold tests must not see an extra touch), a payload cycle, then the trailer's insert.
  // gap: cycles from lookup to insert (at least 2, the interface's rule).
  task automatic ins(int s, int n, int low, int gap = 2);
    bit d, t;
    t = touch;
    touch = 1'b0;
    look(s, n, low, d);
    touch = t;
    complete(gap);
  endtask

  // The insert of the message just looked up, gap cycles after its lookup (the egress:
  // header 2, a payload flit or more, the trailer: 2 or more).
  task automatic complete(int gap);
    repeat (gap - 1) @(negedge clk);
    ins_valid = 1'b1;
    @(negedge clk);
    ins_valid = 1'b0;
  endtask

  // random model: per source
  // Per source and message number (modulo 256, far more than the live span):
  // 0 none, 1 outstanding, 2 outstanding and delivered, 3 finished delivered,
  // 4 finished never delivered.
  localparam int R = 256;
  int  nxt[Slots];
  int  st[Slots][R];
  int  lo_issue[Slots][R];   // the sender's lowest outstanding number when it was issued
  int  n_dup = 0, n_new = 0, n_late = 0, n_abandon = 0, n_issue = 0;

  function automatic int min_out(int s);
    for (int n = nxt[s] - int'(Win); n < nxt[s]; n++) begin
      if (n >= 0 && st[s][n % R] inside {1, 2}) return n;
    end
    return nxt[s];
  endfunction

  // A random message of source s among the last `span` numbers in one of the states.
  function automatic int pick(int s, int span, int a, int b);
    int c[$];
    c.delete();   // (a local queue kept its contents between calls in this simulator)
    for (int n = nxt[s] - span; n < nxt[s]; n++) begin
      if (n >= 0 && (st[s][n % R] == a || st[s][n % R] == b)) c.push_back(n);
    end
    if (c.size() == 0) return -1;
    return c[$urandom_range(0, c.size() - 1)];
  endfunction

  initial begin
    repeat (2) @(negedge clk);
    rst_n = 1'b1;
    @(negedge clk);

    // ---- directed (source 1, then 5 which shares its slot) ----
    expect_dup(1, '{0}, '{0}, 0, "unknown source: new");
    ins(1, 10, 3);                       // first contact: base = its low, 3
    expect_dup(1, '{10}, '{3}, 1, "completed: duplicate");
    expect_dup(1, '{3, 9}, '{3, 3}, 0, "rest of the window: new");
    expect_dup(1, '{11}, '{4}, 0, "low moves up: new");
    expect_dup(1, '{2, 3 - 8 + M}, '{2, 3 - 8 + M}, 1, "behind the base: duplicate");
    for (int n = 3; n < 10; n++) ins(1, n, 3);   // fills the holes: base moves to 11
    expect_dup(1, '{3, 9, 10}, '{3, 3, 3}, 1, "behind base after filling");
    expect_dup(1, '{11, 18}, '{11, 11}, 0, "window above base: new");
    ins(1, 13, 11);                      // out of order: base stays 11
    expect_dup(1, '{13}, '{11}, 1, "out of order completion");
    expect_dup(1, '{11, 12}, '{11, 11}, 0, "out of order completion");
    ins(1, 11, 11);
    ins(1, 12, 11);                      // 11, 12, 13 complete: base 14
    expect_dup(1, '{12, 13}, '{11, 11}, 1, "base moved past 13");
    expect_dup(1, '{14}, '{14}, 0, "base moved past 13");
    // the sender gave 14..19 up: its low says 20; a late copy of 15 is a duplicate
    expect_dup(1, '{20}, '{20}, 0, "low-water jump: new");
    ins(1, 20, 20);
    expect_dup(1, '{15, 19}, '{15, 15}, 1, "given up below the low-water mark: duplicate");
    expect_dup(1, '{21, 28}, '{21, 21}, 0, "after the jump: new");
    // wrap: numbers beyond 2^SeqW
    for (int n = 21; n < 21 + 2 * M; n++) ins(1, n % M, n % M);
    expect_dup(1, '{21 + 2 * M - 1}, '{21 + 2 * M - 8}, 1, "after wrapping twice");
    expect_dup(1, '{21 + 2 * M}, '{21 + 2 * M - 7}, 0, "after wrapping twice");
    // idle past the age limit: forgotten, the next packet starts it at its low
    select(15);
    repeat ((1 << TickLog2) * (AgeMax + 1) + 10) @(negedge clk);
    expect_dup(1, '{21 + 2 * M - 1}, '{21 + 2 * M - 8}, 0, "forgotten after its idle time");
    ins(1, 40, 40);
    expect_dup(1, '{40}, '{40}, 1, "restarted at its low");
    // another source in the same slot takes it over (counted); the first is forgotten
    ins(1 + Slots, 7, 7);
    @(negedge clk);
    `CHECK(n_evict == 1, $sformatf("evictions %0d", n_evict))
    expect_dup(1 + Slots, '{7}, '{7}, 1, "slot taken over");
    expect_dup(1, '{40}, '{40}, 0, "slot taken over");
    // a long low-water jump, nearly half the number space (base 8, low 8 + M/2 - 2): the
    // packet is more than the window above base, yet new (the window moves up to its low)
    expect_dup(1 + Slots, '{M / 2 + 11}, '{M / 2 + 6}, 0, "long low-water jump: new");
    ins(1 + Slots, M / 2 + 11, M / 2 + 6);
    expect_dup(1 + Slots, '{M / 2 + 11}, '{M / 2 + 6}, 1, "long low-water jump, completed");
    expect_dup(1 + Slots, '{20}, '{15}, 1, "given up before the long jump: duplicate");
    // flush forgets everything
    @(negedge clk);
    flush = 1'b1;
    @(negedge clk);
    flush = 1'b0;
    expect_dup(1 + Slots, '{7}, '{7}, 0, "flushed");

    // ---- runtime hold ----
    // idle for hold - 1 tick periods: remembered; one more period: forgotten
    touch = 1'b0;
    hold = HoldW'(5);
    ins(2, 9, 9);
    repeat (4 * Tick - 2) @(negedge clk);
    expect_dup(2, '{9}, '{9}, 1, "hold 5: remembered after 4 tick periods");
    repeat (Tick + 2) @(negedge clk);
    expect_dup(2, '{9}, '{9}, 0, "hold 5: forgotten after 5 tick periods");
    // lookups of a live source keep it: 20 periods, touched every 3
    ins(2, 9, 9);
    for (int i = 0; i < 7; i++) begin
      repeat (3 * Tick) @(negedge clk);
      expect_dup(2, '{9}, '{9}, 1, "hold 5: kept alive by lookups");
      touch = 1'b1;
      expect_dup(2, '{9}, '{9}, 1, "hold 5: a touching lookup");
      touch = 1'b0;
    end
    // raised at run time: the same idle time that forgot it before keeps it now
    hold = HoldW'(40);
    repeat (10 * Tick) @(negedge clk);
    expect_dup(2, '{9}, '{9}, 1, "hold raised to 40: remembered after 10 periods");
    // dropped to 0: forgotten at once, from the cycle after the change (the window
    // registers its hold); back to 40 in the next cycle. With hold 0 the sweep clears the
    // slot it visits: the check that the slot is still there needs the sweep elsewhere
    // in the cycle hold 0 holds (the sweep moves one slot per cycle).
    select(2);
    while (int'(dut.sweep_q) == 1) @(negedge clk);
    hold = '0;
    @(negedge clk);
    lk_valid = 1'b1;
    lk_seq   = SeqW'(9);
    lk_lag   = '0;
    hold = HoldW'(40);
    #1;
    `CHECK(!lk_dup, "hold 0: nothing remembered")
    @(negedge clk);
    #1;
    `CHECK(lk_dup, "hold back to 40 (not yet swept)")
    @(negedge clk);
    lk_valid = 1'b0;
    // the largest hold, idle for twice the stamp clock's range: the sweep must clear the
    // slot before its stamp wraps and looks young again
    hold = HoldW'((1 << HoldW) - 2);
    ins(3, 12, 12);
    repeat (2 * (1 << HoldW) * Tick + 7 * Tick) @(negedge clk);
    expect_dup(3, '{12}, '{12}, 0, "idle past the stamp clock's range: forgotten");
    expect_dup(2, '{9}, '{9}, 0, "idle past the stamp clock's range: forgotten");
    // every slot gone: the divider and the stamp clock stand still
    begin
      logic [TickLog2-1:0] div0;
      logic [HoldW-1:0]    now0;
      div0 = dut.div_q;
      now0 = dut.now_q;
      repeat (3 * Tick) @(negedge clk);
      `CHECK(dut.div_q == div0 && dut.now_q == now0, "idle window: divider still running")
    end
    hold = HoldW'(AgeMax);
    touch = 1'b1;

    // ---- random ----
    for (int s = 0; s < Slots; s++) nxt[s] = $urandom_range(0, 1000);
    for (int step = 0; step < 200000; step++) begin
      int s, a, n;
      bit d;
      s = $urandom_range(0, Slots - 1);
      a = $urandom_range(0, 99);
      @(negedge clk);
      if (a < 25) begin
        // issue the next message, if the sender's rule allows it
        if (nxt[s] - min_out(s) <= int'(Win) - 1) begin
          st[s][nxt[s] % R] = 1;
          lo_issue[s][nxt[s] % R] = min_out(s);
          nxt[s]++;
          n_issue++;
        end
      end else if (a < 70) begin
        // a copy of an outstanding message arrives
        n = pick(s, int'(Win), 1, 2);
        if (n >= 0) begin
          look(s, n % M, min_out(s) % M, d);
          if (st[s][n % R] == 2) begin
            `CHECK(d, $sformatf("src %0d msg %0d: delivered, copy not a duplicate", s, n))
            n_dup++;
          end else begin
            `CHECK(!d, $sformatf("src %0d msg %0d: never delivered, copy called a duplicate",
                                 s, n))
            if (!d) begin
              st[s][n % R] = 2;
              n_new++;
              complete($urandom_range(2, 4));
            end
          end
        end
      end else if (a < 80) begin
        // a late copy of a finished message, younger than 2^(SEQ_W-1) - WIN numbers
        n = pick(s, M / 2 - int'(Win), 3, 4);
        if (n >= 0) begin
          look(s, n % M, lo_issue[s][n % R] % M, d);
          n_late++;
          if (st[s][n % R] == 3) begin
            `CHECK(d, $sformatf("src %0d msg %0d: late copy of a delivered message", s, n))
          end else if (!d) begin
            // given up by its sender and never delivered: may land once, late
            st[s][n % R] = 3;
            complete($urandom_range(2, 4));
          end
        end
      end else if (a < 97) begin
        // the sender gets its ACK (delivered) and finishes
        n = pick(s, int'(Win), 2, 2);
        if (n >= 0) st[s][n % R] = 3;
      end else begin
        // retries exhausted: finished without delivery
        n = pick(s, int'(Win), 1, 1);
        if (n >= 0) begin
          st[s][n % R] = 4;
          n_abandon++;
        end
      end
      // numbers that left the span are forgotten
      if (nxt[s] >= R / 2) st[s][(nxt[s] - R / 2) % R] = 0;
    end
    $display("random: %0d messages, %0d delivered, %0d duplicate copies, %0d late copies, %0d abandoned",
             n_issue, n_new, n_dup, n_late, n_abandon);
    `CHECK(n_new > 1000 && n_dup > 1000 && n_abandon > 100, "random mix too thin")
    `CHECK(n_evict == 1, "evictions in the random run (sources have their own slots)")
    if (errors != 0) $fatal(1, "tb_ddc_rx_seq_window: %0d errors", errors);
    $display("tb_ddc_rx_seq_window: PASS");
    $finish;
  end
endmodule
