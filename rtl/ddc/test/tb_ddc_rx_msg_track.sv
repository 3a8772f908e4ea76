// Self-checking test of ddc_rx_msg_track: directed cases (a one-packet message completes
// alone; a multi-packet message completes on its last missing packet whatever the order,
// with its full length; a message missing a packet never completes; a packet counted
// twice frees the entry without completing (overrun); a full table refuses new messages
// (full) until an idle entry has aged out, which a new message then takes (expire)), then
// random traffic: batches of messages from several sources, packets shuffled across the
// batch, some messages missing a packet, against a reference that knows which packet
// completes which message. Attempts: a partial attempt 0, then a whole attempt 1
// completes exactly once with the right length; a straggler of attempt 0 after that
// completes nothing; one in the middle of an attempt only delays it to the next attempt.
// Early give-up (pkt_gap_free_i): a last packet that leaves its message short reports
// the gap and frees the entry (the retransmission then completes on its own bytes); a
// lone last packet takes no entry, even from a full table; then random in-order traffic,
// messages interleaved packet by packet, some losing a packet (the last one too): every
// message whose last packet arrives short reports exactly one gap, only messages that
// lost their last packet ever hold an entry long enough to become a victim.
// The verdict is computed ahead: the key is matched first (key_valid_i, two cycles), the
// verdict a cycle before the packet (lk_valid_i), which comes only with verdict_ready_o,
// as the egress's trailer does. A lookup right after a tracked key (a one-flit payload)
// gives no verdict: the packet then waits exactly one cycle, and never otherwise (checked
// on every packet). A directed case puts an ageing tick in the deciding lookup's cycle, so
// an entry one tick short of AGE_MAX there must be found expired; the random traffic puts
// idle cycles between key and lookup and sometimes looks up for two cycles, as the egress
// does while a payload or its trailer is still on its way.
module tb_ddc_rx_msg_track;
  localparam int unsigned Entries  = 16;
  localparam int unsigned TickLog2 = 6;
  localparam int unsigned AgeMax   = 3;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic        kv = 1'b0, lk = 1'b0, pv = 1'b0, first = 1'b0, last = 1'b0;
  bit          vary = 1'b0;   // random gaps between the steps of a packet
  logic [15:0] src = '0, len = '0;
  logic [31:0] mid = '0, off = '0;
  logic [1:0]  att = '0;
  logic        gf = 1'b0;   // pkt_gap_free_i
  logic        gap;
  logic        rdy;         // verdict_ready_o
  int          n_waits = 0; // packets that waited for their verdict
  bit          gp;          // gap seen with the last packet
  logic        complete, full, expire, overrun;
  logic [31:0] total;
  logic        victim;
  logic [15:0] victim_src;
  logic [31:0] victim_mid;
  bit          vi;          // victim seen with the last packet, and its key
  int          vs, vm;

  ddc_rx_msg_track #(
    .ENTRIES  (Entries),
    .TICK_LOG2(TickLog2),
    .AGE_MAX  (AgeMax)
  ) dut (
    .clk_i       (clk),
    .rst_ni      (rst_n),
    .key_valid_i (kv),
    .key_msg_id_i(mid),
    .lk_valid_i  (lk),
    .pkt_valid_i (pv),
    .pkt_src_i   (src),
    .pkt_msg_id_i(mid),
    .pkt_first_i (first),
    .pkt_last_i  (last),
    .pkt_len_i   (len),
    .pkt_offset_i(off),
    .pkt_attempt_i(att),
    .pkt_gap_free_i(gf),
    .verdict_ready_o(rdy),
    .complete_o  (complete),
    .total_o     (total),
    .gap_o       (gap),
    .full_o      (full),
    .expire_o    (expire),
    .overrun_o   (overrun),
    .victim_o    (victim),
    .victim_src_o(victim_src),
    .victim_msg_id_o(victim_mid)
  );

`include "ddc_tb_check.svh"

  // Presents one packet as the egress does (inputs change at falling edges): its fields
  // with key_valid_i for a cycle, then lk_valid_i for a cycle, then lk_valid_i and
  // pkt_valid_i for one more once verdict_ready_o is high; returns the verdict seen in that
  // last cycle. With `vary`, up to three idle cycles after the key and a second lookup
  // cycle, at random.
  task automatic pkt(input int s, input int m, input int o, input int l, input bit f,
                     input bit la, output bit c, output int t, output bit fu,
                     output bit ex, output bit ov);
    int gap_cycles, waited;
    bit second;
    kv = 1'b1; src = 16'(s); mid = 32'(m); off = 32'(o); len = 16'(l); first = f; last = la;
    @(negedge clk);
    kv = 1'b0;
    gap_cycles = vary ? $urandom_range(0, 3) : 0;
    repeat (gap_cycles) @(negedge clk);
    lk = 1'b1;
    @(negedge clk);
    second = vary && $urandom_range(0, 1) == 1;
    if (second) @(negedge clk);
    waited = 0;
    while (!rdy && waited < 4) begin
      waited++;
      @(negedge clk);
    end
    // Only a lookup right after a tracked key waits, and for one cycle.
    `CHECK(waited == ((gap_cycles == 0 && !second && !(f && la)) ? 1 : 0),
           "the verdict is ready one cycle late only after a lookup right behind a tracked key")
    if (waited != 0) n_waits++;
    pv = 1'b1;
    #1;
    c = complete; t = int'(total); fu = full; ex = expire; ov = overrun;
    vi = victim; vs = int'(victim_src); vm = int'(victim_mid); gp = gap;
    @(negedge clk);
    pv = 1'b0;
    lk = 1'b0;
  endtask

  // Entry 0 is one tick short of AGE_MAX and the tick comes two cycles from now (a
  // multi-packet message's packet presented now has its deciding lookup then: its key's
  // match takes two cycles).
  function automatic bit entry0_ticks_next();
    return dut.vld_q[0] && dut.age_q[0] == 2'(AgeMax - 1) && dut.tick_q == '1 - 2'd2;
  endfunction

  task automatic idle(input int n);
    repeat (n) @(negedge clk);
  endtask

  bit c, fu, ex, ov;
  int t;

  // Random traffic.
  typedef struct {
    int s, m, o, l;
    bit f, la;
    int msg;  // index in the batch
  } pkt_t;
  pkt_t q[$];
  int   left[8];     // packets of each batch message still to come
  bit   dropped[8];
  int   mlen[8];
  int   next_mid[4];
  int   n_done = 0, n_lost = 0, n_single = 0;

  initial begin
    idle(2);
    rst_n = 1'b1;
    idle(1);

    // The verdict is decided a cycle ahead: an entry one tick short of AGE_MAX in that
    // cycle is AGE_MAX in the packet's own, so its last packet finds it expired (the
    // count restarts) and completes nothing, exactly as a decision made in that cycle.
    pkt(9, 90, 0, 8, 1, 0, c, t, fu, ex, ov);
    `CHECK(!c && !fu && !ex, "first of two packets takes an entry")
    // (The lowest free entry takes it: entry 0. A bounded wait, so that a table that
    // allocates elsewhere fails here instead of waiting for ever.)
    for (int n = 0; n < (AgeMax + 2) << TickLog2 && !entry0_ticks_next(); n++) begin
      @(negedge clk);
    end
    `CHECK(entry0_ticks_next(),
           "the first message took entry 0, one tick short of AGE_MAX before its last packet")
    pkt(9, 90, 8, 8, 0, 1, c, t, fu, ex, ov);
    `CHECK(!c && ex, "a tick in the decision cycle ages the entry out: expired, not complete")
    pkt(9, 90, 0, 8, 1, 0, c, t, fu, ex, ov);
    `CHECK(c && t == 16 && !ex, "the restarted count completes with the first packet again")

    // One-packet message.
    pkt(1, 10, 0, 40, 1, 1, c, t, fu, ex, ov);
    `CHECK(c && t == 40 && !fu && !ex && !ov, "single packet completes alone")

    // Three packets, out of order: 100..199 last, then 0..99, then 200 is not there.
    pkt(2, 20, 200, 56, 0, 1, c, t, fu, ex, ov);
    `CHECK(!c, "last packet first does not complete")
    pkt(2, 20, 0, 100, 1, 0, c, t, fu, ex, ov);
    `CHECK(!c, "two of three do not complete")
    // Same msg id from another source is another message.
    pkt(3, 20, 100, 100, 0, 0, c, t, fu, ex, ov);
    `CHECK(!c, "other source's packet does not count")
    pkt(2, 20, 100, 100, 0, 0, c, t, fu, ex, ov);
    `CHECK(c && t == 256, $sformatf("missing middle packet completes the message (%0d)", t))
    // The entry is free again: the same (src, msg) starts from zero.
    pkt(2, 20, 100, 100, 0, 0, c, t, fu, ex, ov);
    `CHECK(!c, "entry freed on completion")

    // In-order message that loses its middle packet: never complete.
    pkt(4, 30, 0, 64, 1, 0, c, t, fu, ex, ov);
    pkt(4, 30, 128, 64, 0, 1, c, t, fu, ex, ov);
    `CHECK(!c && !ov, "message missing a middle packet is not complete")

    // A packet counted twice: overrun, entry freed, nothing completes.
    pkt(5, 40, 0, 64, 1, 0, c, t, fu, ex, ov);
    pkt(5, 40, 0, 64, 1, 0, c, t, fu, ex, ov);
    pkt(5, 40, 64, 64, 0, 1, c, t, fu, ex, ov);
    `CHECK(!c && ov, "duplicate packet: overrun, not complete")
    pkt(5, 40, 64, 64, 0, 1, c, t, fu, ex, ov);
    `CHECK(!c && !ov, "after an overrun the message starts again")
    // A last packet alone whose offset + length wraps 32 bits ends past its own end.
    pkt(8, 50, -8, 16, 0, 1, c, t, fu, ex, ov);
    `CHECK(!c && ov, "a packet whose end wraps: overrun, not complete")

    // Fill the table: entries in use now: (2,20), (3,20), (4,30), (5,40) and the rest.
    for (int i = 0; i < int'(Entries) - 4; i++) begin
      pkt(6, 100 + i, 0, 8, 1, 0, c, t, fu, ex, ov);
      `CHECK(!fu && !ex, "free entries are used first")
    end
    pkt(7, 1, 0, 8, 1, 0, c, t, fu, ex, ov);
    `CHECK(fu && !ex && !c, "full table refuses a new message")
    // Single packets need no entry.
    pkt(7, 2, 0, 8, 1, 1, c, t, fu, ex, ov);
    `CHECK(c && !fu, "single packet completes with the table full")
    // A tracked message keeps going with the table full.
    pkt(6, 100, 8, 8, 0, 1, c, t, fu, ex, ov);
    `CHECK(c && t == 16 && !fu, "tracked message completes with the table full")
    // Refill that slot, then let everything age out but keep one entry busy.
    pkt(6, 200, 0, 8, 1, 0, c, t, fu, ex, ov);
    for (int k = 0; k < int'(AgeMax) + 2; k++) begin
      idle(1 << TickLog2);
      pkt(6, 200, 8 * (k + 1), 8, 0, 0, c, t, fu, ex, ov);
    end
    pkt(7, 3, 0, 8, 1, 0, c, t, fu, ex, ov);
    `CHECK(ex && !fu, "an idle entry is taken by a new message")
    // The oldest-index aged entry is (2, 20), started above and never completed.
    `CHECK(vi && vs == 2 && vm == 20, $sformatf("victim reported: %0b %0d/%0d", vi, vs, vm))
    pkt(7, 3, 8, 8, 0, 1, c, t, fu, ex, ov);
    `CHECK(c && t == 16, "message in a reclaimed entry completes")
    pkt(6, 200, 8 * (AgeMax + 3), 8, 0, 1, c, t, fu, ex, ov);
    `CHECK(c && t == 8 * (AgeMax + 4), "busy entry was not taken")
    // Let the stale ones age out before the random phase.
    idle((AgeMax + 2) << TickLog2);
    // (4, 30) is one of them, 64 of 192 bytes counted, its last seen: the same key
    // again (a restarted sender) starts from zero instead of completing on 64 more bytes.
    pkt(4, 30, 64, 64, 0, 0, c, t, fu, ex, ov);
    `CHECK(!c && ex && !ov && !vi, "a key matching an aged entry starts it again (no victim)")
    pkt(4, 30, 0, 64, 1, 0, c, t, fu, ex, ov);
    `CHECK(!c && !ex, "restarted entry counts only its own bytes")
    pkt(4, 30, 128, 64, 0, 1, c, t, fu, ex, ov);
    `CHECK(c && t == 192 && !ex, "restarted message completes")
    idle((AgeMax + 2) << TickLog2);

    // Retransmission: (9, 50), 3 packets of 64 bytes. Attempt 0 loses its middle packet.
    att = 2'd0;
    pkt(9, 50, 0, 64, 1, 0, c, t, fu, ex, ov);
    pkt(9, 50, 128, 64, 0, 1, c, t, fu, ex, ov);
    `CHECK(!c && !ov, "attempt 0 without its middle packet is not complete")
    // Attempt 1 resends all three: counted from zero, completes once, on its own bytes.
    att = 2'd1;
    pkt(9, 50, 128, 64, 0, 1, c, t, fu, ex, ov);
    `CHECK(!c && !ov && !ex, "attempt 1's last packet restarts the count (no expiry)")
    pkt(9, 50, 0, 64, 1, 0, c, t, fu, ex, ov);
    `CHECK(!c && !ov, "attempt 1: two of three")
    pkt(9, 50, 64, 64, 0, 0, c, t, fu, ex, ov);
    `CHECK(c && t == 192 && !ov, $sformatf("attempt 1 completes with its length (%0d)", t))
    // The lost middle packet of attempt 0 arrives late: nothing completes again.
    att = 2'd0;
    pkt(9, 50, 64, 64, 0, 0, c, t, fu, ex, ov);
    `CHECK(!c && !ov, "straggler of attempt 0 after completion completes nothing")
    // Another message: a straggler of attempt 0 in the middle of attempt 1 restarts the
    // count, so attempt 1 does not complete (only delayed); attempt 2 then does, once.
    att = 2'd1;
    pkt(9, 51, 0, 64, 1, 0, c, t, fu, ex, ov);
    att = 2'd0;
    pkt(9, 51, 64, 64, 0, 0, c, t, fu, ex, ov);
    `CHECK(!c, "straggler in the middle of attempt 1")
    att = 2'd1;
    pkt(9, 51, 64, 64, 0, 0, c, t, fu, ex, ov);
    pkt(9, 51, 128, 64, 0, 1, c, t, fu, ex, ov);
    `CHECK(!c && !ov, "attempt 1 interrupted by a straggler: not complete (never wrongly)")
    att = 2'd2;
    pkt(9, 51, 0, 64, 1, 0, c, t, fu, ex, ov);
    pkt(9, 51, 128, 64, 0, 1, c, t, fu, ex, ov);
    `CHECK(!c, "attempt 2: two of three")
    pkt(9, 51, 64, 64, 0, 0, c, t, fu, ex, ov);
    `CHECK(c && t == 192, "attempt 2 completes")
    att = 2'd0;
    idle((AgeMax + 2) << TickLog2);

    // Random: batches of up to 4 messages, 1..8 packets each, packets shuffled across
    // the batch; a quarter of the multi-packet messages lose one packet.
    for (int i = 0; i < 4; i++) next_mid[i] = 1000 * i;
    vary = 1'b1;
    for (int b = 0; b < 3000; b++) begin
      int nm;
      nm = 1 + $urandom_range(3);
      q.delete();
      for (int m = 0; m < nm; m++) begin
        int s, np, mtu, id, drop_at;
        s   = $urandom_range(3);
        id  = next_mid[s];
        next_mid[s] = next_mid[s] + 1;
        mtu = 8 * (1 + $urandom_range(15));
        mlen[m] = 1 + $urandom_range(8 * mtu - 1);
        np = (mlen[m] + mtu - 1) / mtu;
        dropped[m] = (np > 1) && ($urandom_range(3) == 0);
        drop_at = dropped[m] ? $urandom_range(np - 1) : -1;
        left[m] = dropped[m] ? np - 1 : np;
        if (np == 1) n_single++;
        for (int p = 0; p < np; p++) begin
          pkt_t k;
          k.s = s; k.m = id; k.o = p * mtu;
          k.l = (p == np - 1) ? mlen[m] - p * mtu : mtu;
          k.f = (p == 0); k.la = (p == np - 1); k.msg = m;
          if (p != drop_at) q.push_back(k);
        end
      end
      q.shuffle();
      foreach (q[i]) begin
        bit want;
        left[q[i].msg]--;
        want = !dropped[q[i].msg] && left[q[i].msg] == 0;
        pkt(q[i].s, q[i].m, q[i].o, q[i].l, q[i].f, q[i].la, c, t, fu, ex, ov);
        `CHECK(c == want, $sformatf("batch %0d src %0d msg %0d off %0d: complete %0b, want %0b",
                                    b, q[i].s, q[i].m, q[i].o, c, want))
        `CHECK(!c || t == mlen[q[i].msg], $sformatf("total %0d, want %0d", t, mlen[q[i].msg]))
        `CHECK(!fu && !ov, "no full table, no overrun in the random phase")
        if (c) n_done++;
        if ($urandom_range(3) == 0) idle(1 + $urandom_range(3));
      end
      for (int m = 0; m < nm; m++) if (dropped[m]) n_lost++;
    end
    $display("random: %0d messages completed (%0d single-packet), %0d lost", n_done,
             n_single, n_lost);
    `CHECK(n_done > 3000 && n_lost > 500, "random phase exercised both outcomes")

    // ---- early give-up ----
    // From an empty table (earlier phases leave aged entries of unfinished messages).
    rst_n = 1'b0;
    idle(1);
    rst_n = 1'b1;
    idle(1);
    gf = 1'b1;
    // (11, 70): 3 packets in order, the middle one lost: the last reports the gap.
    pkt(11, 70, 0, 64, 1, 0, c, t, fu, ex, ov);
    `CHECK(!gp, "gap before the last packet")
    pkt(11, 70, 128, 64, 0, 1, c, t, fu, ex, ov);
    `CHECK(gp && !c && !ov && !ex, "short last packet reports the gap")
    // The retransmission (attempt 1) counts from zero in a fresh entry and completes.
    att = 2'd1;
    pkt(11, 70, 0, 64, 1, 0, c, t, fu, ex, ov);
    `CHECK(!c && !gp && !ex, "retransmission's first packet")
    pkt(11, 70, 64, 64, 0, 0, c, t, fu, ex, ov);
    pkt(11, 70, 128, 64, 0, 1, c, t, fu, ex, ov);
    `CHECK(c && t == 192 && !gp && !ov, $sformatf("retransmission completes (%0d)", t))
    att = 2'd0;
    // A whole message completes as before, no gap.
    pkt(11, 71, 0, 64, 1, 0, c, t, fu, ex, ov);
    pkt(11, 71, 64, 8, 0, 1, c, t, fu, ex, ov);
    `CHECK(c && t == 72 && !gp, "whole message: complete, no gap")
    // One-packet messages never report a gap.
    pkt(11, 72, 0, 8, 1, 1, c, t, fu, ex, ov);
    `CHECK(c && !gp, "single packet: no gap")
    // Freed on the gap: the table fills with exactly ENTRIES new messages after it.
    for (int i = 0; i < int'(Entries); i++) begin
      pkt(12, 300 + i, 0, 8, 1, 0, c, t, fu, ex, ov);
      `CHECK(!fu && !ex, $sformatf("entry %0d free after the gaps", i))
    end
    // A last packet with nothing counted before it takes no entry: no full, no victim.
    pkt(13, 5, 64, 8, 0, 1, c, t, fu, ex, ov);
    `CHECK(gp && !fu && !ex && !vi && !c, "lone short last packet with the table full")
    gf = 1'b0;
    pkt(13, 6, 64, 8, 0, 1, c, t, fu, ex, ov);
    `CHECK(!gp && fu && !c, "without gap_free it needs an entry")
    gf = 1'b1;
    for (int i = 0; i < int'(Entries); i++) begin
      pkt(12, 300 + i, 8, 8, 0, 1, c, t, fu, ex, ov);
      `CHECK(c && t == 16 && !gp, "the table's messages complete")
    end
    // Its checks assume a message's packets come well within the age limit: with the
    // random gaps, two packets of one message 132 cycles apart found the entry expired.
    vary = 1'b0;
    // Random, in order: batches of up to 4 messages interleaved packet by packet (each
    // message's own packets in order), a third of the multi-packet ones losing a packet.
    begin
      int  n_gap = 0, n_want_gap = 0, n_ok = 0, n_lastlost = 0;
      bit  lastlost[int];     // keys (src << 16 | msg) whose last packet was lost
      pkt_t mq[8][$];
      bit  short_[8];
      for (int b = 0; b < 2000; b++) begin
        int nm;
        nm = 1 + $urandom_range(3);
        for (int m = 0; m < nm; m++) begin
          int s, np, mtu, id, drop_at;
          mq[m].delete();
          s   = $urandom_range(3);
          id  = next_mid[s];
          next_mid[s] = next_mid[s] + 1;
          mtu = 8 * (1 + $urandom_range(15));
          mlen[m] = 1 + $urandom_range(8 * mtu - 1);
          np = (mlen[m] + mtu - 1) / mtu;
          drop_at = ((np > 1) && ($urandom_range(2) == 0)) ? $urandom_range(np - 1) : -1;
          short_[m] = (drop_at >= 0);
          if (drop_at == np - 1) begin
            lastlost[(s << 16) | (id & 16'hFFFF)] = 1'b1;
            n_lastlost++;
          end else if (drop_at >= 0) begin
            n_want_gap++;
          end
          for (int p = 0; p < np; p++) begin
            pkt_t k;
            k.s = s; k.m = id; k.o = p * mtu;
            k.l = (p == np - 1) ? mlen[m] - p * mtu : mtu;
            k.f = (p == 0); k.la = (p == np - 1); k.msg = m;
            if (p != drop_at) mq[m].push_back(k);
          end
        end
        // Interleave: pick a message with packets left, send its next one.
        forever begin
          int live[$];
          int m;
          pkt_t k;
          live.delete();   // a static in this initial block: not fresh per iteration
          for (int i = 0; i < nm; i++) if (mq[i].size() != 0) live.push_back(i);
          if (live.size() == 0) break;
          m = live[$urandom_range(live.size() - 1)];
          k = mq[m].pop_front();
          pkt(k.s, k.m, k.o, k.l, k.f, k.la, c, t, fu, ex, ov);
          `CHECK(!fu && !ov, "in-order random: no full table, no overrun")
          `CHECK(c == (k.la && !short_[m]), $sformatf("in-order: src %0d msg %0d off %0d complete %0b",
                                                      k.s, k.m, k.o, c))
          `CHECK(gp == (k.la && short_[m]),
                 $sformatf("in-order: src %0d msg %0d off %0d gap %0b", k.s, k.m, k.o, gp))
          `CHECK(!c || t == mlen[m], "in-order: total")
          if (vi) begin
            `CHECK(lastlost.exists((vs << 16) | (vm & 16'hFFFF)),
                   $sformatf("victim %0d/%0d did not lose its last packet", vs, vm))
          end
          if (gp) n_gap++;
          if (c) n_ok++;
          if ($urandom_range(7) == 0) idle(1 + $urandom_range(40));
        end
      end
      $display("in order: %0d complete, %0d gaps (%0d expected), %0d lost their last packet",
               n_ok, n_gap, n_want_gap, n_lastlost);
      `CHECK(n_gap == n_want_gap && n_gap > 300 && n_lastlost > 100, "in-order gaps")
    end
    gf = 1'b0;
    $display("%0d packets waited a cycle for their verdict", n_waits);
    `CHECK(n_waits > 100, "the one-cycle wait after a key was exercised")

    tb_verdict();
    $finish;
  end
endmodule
