// Receiver duplicate detection by per-source sequence numbers (docs/RELIABILITY.md,
// "Duplicates: sequence numbers"): the replacement for ddc_rx_dup_filter's time-limited
// memory, which cannot hold the thousands of keys a fast sender completes within its
// retry budget. Instantiated in ddc_rx_egress (REL_CTRL.DEDUP).
//
// The sender's part: it numbers its messages to each destination contiguously (modulo
// 2^SEQ_W), never sends number s while a message below s - (WIN - 1) to that destination
// is outstanding (neither acknowledged nor given up), and carries in every packet its
// lowest outstanding number `low` (as s - low < WIN: a few header bits). Everything
// below `low` is final at the sender.
//
// Here, per source: `base`, the lowest number not known final, and `seen`, bit i set when
// base + i completed. For a packet of message s with low: the effective base is low if
// low is ahead of base (within half the number space), else base; d = s - base':
//   - d < WIN: a duplicate if that number completed, else new;
//   - behind base' (d in the upper half): a duplicate: complete already, or given up by
//     its sender (its result is final there; delivering it now would be wrong);
//   - otherwise: new. This cannot happen: the packet carries its low as the lag s - low,
//     below WIN, so s is inside the window of base' = low, and base' = base only when low
//     is at or behind base.
// A completion sets its bit, and base moves past the completed numbers at the bottom.
//
// Two assumptions make the modular comparisons right (RELIABILITY.md has the numbers):
//   - a source's state is fresh: a slot untouched (no lookup with touch, no completion)
//     for hold_i ticks of 2^TICK_LOG2 cycles ((hold_i-1)*2^TICK_LOG2+1..hold_i*2^TICK_LOG2
//     cycles) is forgotten, and the next packet starts it at its own low. Otherwise a long outage (a cut during which the
//     sender gave up more than 2^(SEQ_W-1) messages) would leave base so far behind that
//     new numbers look old;
//   - a copy lives in the network less than that idle time, or a copy arriving at a
//     forgotten slot would be taken for new; and less than the time its sender takes
//     to number 2^(SEQ_W-1) - WIN further messages to the same destination, or it would
//     look ahead of the window instead of behind it.
// Sources are kept in SLOTS slots indexed by the low bits of the source id and tagged
// with the whole id; another id taking a slot over is counted (evict_o).
//
// hold_i is a runtime input because it must outlast the sender's retry budget, which is
// configuration (ddc_nic: REL_TIMEOUT * (REL_RETRIES + 2)); 0 forgets at once (nothing is
// ever a duplicate). A change counts from the cycle after it (the window registers it).
// Each slot keeps the tick count of its last touch, not an age counter
// (one compare per looked-up slot instead of 64 wide incrementers); a sweep visits one
// slot per cycle and clears the slots idle for hold_i ticks, so a stamp never falls
// 2^HOLD_W ticks behind (where it would look young again): hold_i must stay below
// 2^HOLD_W - 1, and a tick must last at least SLOTS cycles. The tick divider, the clock
// of stamps and the sweep stop while no slot is valid, so an idle receiver is a fixed
// point (the simulator skips it).
//
// The packet's slot is read ahead (sel_i, the egress's header-1 cycle) into a register
// that follows every write to it, so a lookup or a completion reads no table: read in the
// completion's cycle, the slot's 64-way read from the source register (nets of ~390
// loads) through the completion's arithmetic into the table's write was the NIC's routed
// worst path (docs/SYNTH.md). A completion's new base and bitmap are worked out ahead too,
// once for a fresh slot and once for the kept one, in two registered steps (the insert of
// the lookup's number in the lookup's cycle, the lowest gap in the next); the completion
// picks one by whether the slot is still live, and is written a cycle later. The
// interface rule: src_i holds from sel_i to the cycle after the completion; a lookup
// (lk_valid_i) comes at least one cycle after sel_i; a completion (ins_valid_i, of the
// last lookup's message) at least two cycles after its lookup; neither a read-ahead nor
// a lookup comes in the cycle after a completion. The lookup itself is combinational on
// the registered slot.
module ddc_rx_seq_window #(
  parameter int unsigned SLOTS     = 64,
  parameter int unsigned SEQ_W     = 8,
  parameter int unsigned WIN       = 16,
  parameter int unsigned TICK_LOG2 = 8,
  parameter int unsigned HOLD_W    = 21,
  localparam int unsigned SlotW    = $clog2(SLOTS)
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              flush_i,     // forget every source (a receiver reset)
  input  logic [HOLD_W-1:0] hold_i,      // ticks a source is remembered after its last touch

  input  logic              sel_i,       // read the slot of src_i (the packet's header-1 cycle)
  input  logic [15:0]       src_i,       // the packet's source: held from sel_i to its completion
  input  logic              lk_valid_i,  // a lookup: its insert is worked out for the completion
  input  logic              lk_touch_i,  // ... and the packet was accepted: source alive
  input  logic [SEQ_W-1:0]  lk_seq_i,
  // seq - low: how far the sender's lowest outstanding number is behind (the header's lag;
  // below WIN by the sender's rule, so it fits in log2(WIN) bits)
  input  logic [$clog2(WIN)-1:0] lk_lag_i,
  output logic              lk_dup_o,

  input  logic              ins_valid_i, // the last lookup's message completed
  output logic              evict_o      // pulse: a completion took another live source's slot
);
  localparam int unsigned WinW = $clog2(WIN);
  localparam logic [SEQ_W-1:0] Half = SEQ_W'(2 ** (SEQ_W - 1));

  typedef struct packed {
    logic              vld;
    logic [15:0]       src;
    logic [SEQ_W-1:0]  base;
    logic [WIN-1:0]    seen;
    logic [HOLD_W-1:0] stamp;   // now_q at the last touch
  } slot_t;

  // Each slot is written only where it changes (insert, touch, sweep, flush), and the
  // payload fields have no reset: they are read only behind vld_q. A whole next-state
  // copy of the 64 slots per cycle would dominate the simulator's time.
  logic [SLOTS-1:0]  vld_q;
  logic [15:0]       src_q   [SLOTS];
  logic [SEQ_W-1:0]  base_q  [SLOTS];
  logic [WIN-1:0]    seen_q  [SLOTS];
  logic [HOLD_W-1:0] stamp_q [SLOTS];

  logic [TICK_LOG2-1:0] div_q;
  logic [HOLD_W-1:0]    now_q;
  logic [SlotW-1:0]     sweep_q;
  logic                 any_vld, tick;

  assign any_vld = |vld_q;
  assign tick    = any_vld && (div_q == '1);

  function automatic logic live(logic vld, logic [HOLD_W-1:0] stamp, logic [HOLD_W-1:0] now,
                                logic [HOLD_W-1:0] hold);
    return vld && ((now - stamp) < hold);
  endfunction

  // ---- the packet's slot, read ahead ----
  logic [SlotW-1:0] si;
  slot_t            tbl, cur_q, cur_d;   // tbl: the table's entry at si
  assign si  = SlotW'(src_i);
  assign tbl = '{vld: vld_q[si], src: src_q[si], base: base_q[si], seen: seen_q[si],
                 stamp: stamp_q[si]};

  // The slot as this packet finds it: unknown (forgotten, never seen, or another source's).
  // Whether it is live and the packet's source's are registers, worked out from the slot
  // register's next value: the liveness compare (two carry chains) into the stamp table's
  // write enable was the NIC's routed worst path (docs/SYNTH.md, session 48). hold_q is
  // the hold of the cycle before, for every use, so the two never disagree.
  logic [HOLD_W-1:0] hold_q, now_d;
  logic              cur_live_q, cur_same_q, cur_fresh;
  assign cur_fresh = !cur_live_q || !cur_same_q;

  // ---- lookup ----
  // view() for the packet's own low = seq - lag, with lag < WIN: from a base moved up to
  // low the packet is at lag, inside the window, so a fresh slot has no duplicate and a
  // moved one has its number's bit at lag + (low - base) = seq - base of the stored bitmap
  // (no wrap: both terms are below half the space). So the stored base's difference
  // decides: inside the window, the stored bit; beyond it, a duplicate unless the slot
  // moved (not moved, low is at or behind base, so seq is behind the window, since it is
  // less than WIN above low). That takes the subtraction of low (behind the RX buffer's
  // block-RAM read) and the slide out of the compare's chain, the NIC's deepest path into
  // the duplicate verdict (docs/SYNTH.md); the simulation checks every lookup against
  // view().
  logic [SEQ_W-1:0] lk_d_base, lk_adv;
  logic             lk_moved;
  always_comb begin
    lk_d_base = lk_seq_i - cur_q.base;
    lk_adv    = lk_seq_i - (cur_q.base + SEQ_W'(lk_lag_i));   // low - base
    lk_moved  = lk_adv != '0 && lk_adv < Half;
    if (cur_fresh)                     lk_dup_o = 1'b0;
    else if (lk_d_base < SEQ_W'(WIN))  lk_dup_o = cur_q.seen[lk_d_base[WinW-1:0]];
    else                               lk_dup_o = !lk_moved;
  end

  // ---- completion, worked out ahead ----
  // The new base and bitmap are computed for both cases a completion can meet, the slot
  // kept (live, same source) or started fresh, in two registered steps: in the lookup
  // cycle the insert of the lookup's number into the registered slot (mid_of), in the
  // cycle after it the completed numbers at the bottom (the lowest gap). In one cycle
  // after the lookup, the two made the NIC's deepest logic (docs/SYNTH.md). Only liveness
  // can change before the completion (the stamp clock, a sweep, a flush); base and bitmap
  // change only with a completion or a read-ahead, which the interface rule keeps out of
  // those cycles.
  logic [SEQ_W-1:0] keep_base_q, fresh_base_q;
  logic [WIN-1:0]   keep_seen_q, fresh_seen_q;

  // mid(): view() and the insert of s in one step, from seq - base and low - base side by
  // side (low = seq - lag, whose difference from seq is a register: in a row, the
  // differences were the NIC's deepest path, docs/SYNTH.md). From low, s is at the lag;
  // from base (low at or behind it), s is in the window or behind it, never ahead.
  function automatic logic [SEQ_W+WIN-1:0] mid_of(logic fresh, logic [SEQ_W-1:0] base,
                                                  logic [WIN-1:0] seen, logic [SEQ_W-1:0] seq,
                                                  logic [WinW-1:0] lag);
    logic [SEQ_W-1:0] adv, d_base, m_base;
    logic             moved, from_low, behind;
    logic [WinW-1:0]  pos;   // s in the window, when not behind
    logic [WIN-1:0]   m_seen;
    adv      = seq - (base + SEQ_W'(lag));   // low - base
    moved    = !fresh && adv != '0 && adv < Half;
    from_low = fresh || moved;   // the effective base is low
    d_base   = seq - base;
    pos      = from_low ? lag : d_base[WinW-1:0];
    // Behind the window: final already, nothing to record.
    behind   = !from_low && d_base >= Half;
    m_base   = from_low ? seq - SEQ_W'(lag) : base;
    m_seen   = fresh ? '0 : (!moved ? seen : (adv >= SEQ_W'(WIN)) ? '0 : (seen >> adv));
    if (!behind) m_seen[pos] = 1'b1;
    return {m_base, m_seen};
  endfunction

  // The completed numbers at the bottom end at the lowest gap, found as a tree: counted
  // by a loop they were a chain of WIN compares, the NIC's deepest logic (docs/SYNTH.md).
  logic [1:0][SEQ_W-1:0] m_base, n_base;   // [1]: fresh, [0]: kept
  logic [1:0][WIN-1:0]   m_seen, n_seen;
  for (genvar f = 0; f < 2; f++) begin : gen_next
    logic            gap_found;
    logic [WinW-1:0] gap_idx;
    logic [WinW:0]   ones;   // completed numbers at the bottom, after the insert
    logic [SEQ_W-1:0] mid_base_q;
    logic [WIN-1:0]   mid_seen_q;
    always_ff @(posedge clk_i) begin
      if (lk_valid_i) begin
        {mid_base_q, mid_seen_q} <= mid_of(f == 1, cur_q.base, cur_q.seen, lk_seq_i, lk_lag_i);
      end
    end
    assign m_base[f] = mid_base_q;
    assign m_seen[f] = mid_seen_q;
    lowest_set #(.N(WIN)) u_gap (.v_i(~m_seen[f]), .found_o(gap_found), .idx_o(gap_idx));
    always_comb begin
      ones      = gap_found ? {1'b0, gap_idx} : (WinW + 1)'(WIN);
      n_base[f] = m_base[f] + SEQ_W'(ones);
      n_seen[f] = gap_found ? (m_seen[f] >> gap_idx) : '0;
    end
  end

  // The completion is written in the cycle after ins_valid_i, from registers: the
  // egress's trailer-cycle decision (tracker verdict, ring room, dedup) then ends at a
  // flip-flop instead of fanning out into the table's write enables and the slot
  // register, which was the NIC's routed worst path once the block RAM's read had a
  // register (docs/SYNTH.md, session 49). src_i still holds in that cycle, and no
  // read-ahead or lookup comes in it (the egress's next header 1 is two cycles on).
  logic             ins_q;
  logic [SEQ_W-1:0] ins_base_q;
  logic [WIN-1:0]   ins_seen_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) ins_q <= 1'b0;
    else         ins_q <= ins_valid_i && !flush_i;
  end
  always_ff @(posedge clk_i) begin
    if (ins_valid_i) begin
      ins_base_q <= cur_fresh ? fresh_base_q : keep_base_q;
      ins_seen_q <= cur_fresh ? fresh_seen_q : keep_seen_q;
    end
  end

  // A live source's slot stays young (its lost-ACK retransmissions must stay duplicates);
  // a forgotten one is not started by a mere lookup. The sweep and a touch never meet on
  // one slot (one needs it idle, the other live); an insert overrides both.
  logic sw_clear, lk_keep;
  assign sw_clear = vld_q[sweep_q] && !live(1'b1, stamp_q[sweep_q], now_q, hold_q);
  assign lk_keep  = lk_valid_i && lk_touch_i && cur_live_q && cur_same_q;

  // The slot register takes every write the table takes at its index, in the same order.
  always_comb begin
    cur_d = cur_q;
    if (sel_i) cur_d = tbl;
    if (lk_keep) cur_d.stamp = now_q;
    if (ins_q) cur_d = '{vld: 1'b1, src: src_i, base: ins_base_q, seen: ins_seen_q,
                         stamp: now_q};
    if (flush_i) cur_d.vld = 1'b0;
    else if (sw_clear && sweep_q == si && !ins_q) cur_d.vld = 1'b0;
  end

  assign now_d = tick ? now_q + 1'b1 : now_q;

  // live(cur_d.vld, cur_d.stamp, now_d, hold_i), with the stamp's compare only where the
  // stamp is an old one: a slot stamped now (touched or inserted) is a cycle old next
  // cycle, live when the hold exceeds that. The events' priority is cur_d's, written a
  // second time on purpose: taking cur_d.vld instead (cb2755c) puts the end of the slot
  // register's chain in front of this flop, +306 LUT4 and 42.9 -> 41.8 MHz placed
  // (docs/SYNTH.md, session 50). The assertion against live(cur_d) checks the copy.
  logic young_live, cur_live_d;
  always_comb begin
    young_live = tick ? (hold_i > HOLD_W'(1)) : (hold_i != '0);
    cur_live_d = sel_i ? live(tbl.vld, tbl.stamp, now_d, hold_i)
                       : live(cur_q.vld, cur_q.stamp, now_d, hold_i);
    if (lk_keep) cur_live_d = (sel_i ? tbl.vld : cur_q.vld) && young_live;
    if (ins_q)   cur_live_d = young_live;
    if (flush_i) cur_live_d = 1'b0;
    else if (sw_clear && sweep_q == si && !ins_q) cur_live_d = 1'b0;
  end

  // src_i holds from sel_i on, so comparing it with the register's next value gives the
  // compare of the next cycle wherever it is used (lookups and completions).
  always_ff @(posedge clk_i) begin
    cur_q        <= cur_d;
    cur_live_q   <= cur_live_d;
    cur_same_q   <= cur_d.src == src_i;
    hold_q       <= hold_i;
    keep_base_q  <= n_base[0];
    keep_seen_q  <= n_seen[0];
    fresh_base_q <= n_base[1];
    fresh_seen_q <= n_seen[1];
  end

  logic evict_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      vld_q   <= '0;
      div_q   <= '0;
      now_q   <= '0;
      sweep_q <= '0;
      evict_q <= 1'b0;
    end else begin
      if (flush_i) begin
        vld_q <= '0;
      end else begin
        if (sw_clear)    vld_q[sweep_q] <= 1'b0;
        if (ins_q)       vld_q[si] <= 1'b1;
      end
      if (any_vld) begin
        div_q   <= div_q + 1'b1;
        sweep_q <= (sweep_q == SlotW'(SLOTS - 1)) ? '0 : sweep_q + 1'b1;
      end
      now_q   <= now_d;
      evict_q <= ins_valid_i && !flush_i && !cur_same_q && cur_live_q;
    end
  end

  always_ff @(posedge clk_i) begin
    if (lk_keep) stamp_q[si] <= now_q;
    if (ins_q) begin
      src_q[si]   <= src_i;
      base_q[si]  <= ins_base_q;
      seen_q[si]  <= ins_seen_q;
      stamp_q[si] <= now_q;
    end
  end

  assign evict_o = evict_q;

`ifndef SYNTHESIS
  // From a read-ahead on, while src_i holds, the slot register is the table's entry at
  // src_i; lookups and completions come only then, and a completion only two cycles or
  // more after its lookup.
  logic        cached_q;
  logic [15:0] csrc_q;
  logic        held;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cached_q <= 1'b0;
      csrc_q   <= '0;
    end else if (sel_i) begin
      cached_q <= 1'b1;
      csrc_q   <= src_i;
    end
  end
  assign held = cached_q && src_i == csrc_q && !sel_i;

  // The reference lookup: the window of `s`'s slot as a packet with `low` sees it, fresh if
  // unknown, moved up to low if low is ahead; the lookup must give its verdict.
  function automatic slot_t view(slot_t s, logic [15:0] src, logic [SEQ_W-1:0] low,
                                 logic [HOLD_W-1:0] now, logic [HOLD_W-1:0] hold);
    slot_t            r = s;
    logic [SEQ_W-1:0] adv;
    if (!live(s.vld, s.stamp, now, hold) || s.src != src) begin
      r.vld  = 1'b1;
      r.src  = src;
      r.base = low;
      r.seen = '0;
    end else begin
      adv = low - s.base;
      if (adv != '0 && adv < Half) begin
        r.base = low;
        r.seen = (adv >= SEQ_W'(WIN)) ? '0 : (s.seen >> adv);
      end
    end
    r.stamp = now;
    return r;
  endfunction
  slot_t            ref_lk;
  logic [SEQ_W-1:0] ref_d;
  logic             ref_dup, unused_ref;
  always_comb begin
    ref_lk  = view(cur_q, src_i, lk_seq_i - SEQ_W'(lk_lag_i), now_q, hold_q);
    ref_d   = lk_seq_i - ref_lk.base;
    ref_dup = (ref_d < SEQ_W'(WIN)) ? ref_lk.seen[ref_d[WinW-1:0]] : (ref_d >= Half);
  end
  assign unused_ref = ^{ref_lk.vld, ref_lk.src, ref_lk.stamp};
  logic [1:0]       prep_q;   // cycles since the lookup, saturating at 2 (0: none kept)
  logic [SEQ_W-1:0] lk_base_q;
  logic [WIN-1:0]   lk_seen_q;
  always_ff @(posedge clk_i) begin
    if (lk_valid_i) begin
      lk_base_q <= cur_q.base;
      lk_seen_q <= cur_q.seen;
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      prep_q <= '0;
    end else if (sel_i || ins_valid_i) begin
      prep_q <= '0;
    end else if (lk_valid_i) begin
      prep_q <= 2'd1;
    end else if (prep_q == 2'd1) begin
      prep_q <= 2'd2;
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin : a_slot
    if (rst_ni) begin
      assert (!held || (cur_q.vld == tbl.vld && (!cur_q.vld || cur_q == tbl)))
        else $error("ddc_rx_seq_window: slot register differs from the table");
      assert (!lk_valid_i || lk_dup_o == ref_dup)
        else $error("ddc_rx_seq_window: lookup differs from view()");
      // The registered liveness and source compare, against the compares they replace
      // (a held slot was read ahead a cycle or more before).
      assert (!held || (cur_live_q == live(cur_q.vld, cur_q.stamp, now_q, hold_q) &&
                        cur_same_q == (cur_q.src == src_i)))
        else $error("ddc_rx_seq_window: registered liveness or source compare is stale");
      assert (!(lk_valid_i || ins_valid_i || ins_q) || held)
        else $error("ddc_rx_seq_window: lookup or completion without a read-ahead of src_i");
      assert (cur_live_d == live(cur_d.vld, cur_d.stamp, now_d, hold_i))
        else $error("ddc_rx_seq_window: cur_live_d is not the next slot's liveness");
      assert (!(ins_q && lk_valid_i))
        else $error("ddc_rx_seq_window: lookup in the cycle a completion is written");
      assert (!ins_valid_i || prep_q == 2'd2)
        else $error("ddc_rx_seq_window: completion less than two cycles after its lookup");
      // The insert was worked out in the lookup cycle from the slot's base and bitmap:
      // they must still be the same in the cycle after it.
      assert (prep_q != 2'd1 || (cur_q.base == lk_base_q && cur_q.seen == lk_seen_q))
        else $error("ddc_rx_seq_window: base or bitmap moved in the cycle after a lookup");
    end
  end
`endif

endmodule
