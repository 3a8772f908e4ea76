// RX message completion by counting bytes, not by packet order.
//
// DDSLRP wrote a message's LMR entry when its last packet arrived, whatever happened to
// the packets before it, so a message that lost a middle packet was reported complete
// with a hole. Here a message is complete when the bytes of its accepted packets add up
// to its length, which only the last packet tells (offset + len); packets may arrive in
// any order (adaptive routing).
//
// A one-packet message (first and last) needs no state. A multi-packet message holds an
// entry keyed by (src, msg_id) from its first accepted packet to its completing one. The
// table is small and associative: a message that never completes (a packet lost, and no
// retransmission) must not hold its entry for ever, so an entry untouched for
// AGE_MAX..AGE_MAX+1 ticks of 2**TICK_LOG2 cycles may be taken by a new message
// (expire_o). A packet whose key matches an entry that old starts it again from zero
// (expire_o too): (src, msg_id) keys are unique only while the sender's msg_id sequence
// runs on (a driver restarted at msg_id 0 must not add to a dead message's count). When
// no entry is free or expired, the packet is not tracked (full_o): its message cannot
// complete, is lost, and is counted; the hardware keeps running.
//
// A running count above the length (a packet counted twice) frees the entry without
// completing: never report a message whose bytes cannot be trusted (overrun_o).
//
// Retransmission (docs/RELIABILITY.md): every packet carries its message's attempt
// (mod 4), and each entry keeps the attempt it counts. A packet of the same key with
// another attempt restarts the count from zero with that attempt: a retransmission
// resends every packet, so counting only one attempt's packets counts each byte once. A
// straggler of an older attempt can then only delay completion (it restarts the count,
// and the sender's next attempt completes it), never complete a message wrongly.
//
// Early give-up (REL_CTRL.EARLY_NACK, docs/RELIABILITY.md): on a deterministic route a
// message's packets arrive in order, so when its last packet leaves the count short the
// missing bytes were lost. With pkt_gap_free_i the tracker then reports the gap (gap_o)
// and frees the entry at once instead of letting it age: the retransmission (attempt + 1)
// would restart it anyway, and a free entry is one fewer victim later. Such a last packet
// that matches no entry takes none (no victim, no full count): there is nothing to wait
// for. Adaptive messages (their packets may overtake each other) keep the entry.
//
// Decision in the packet's trailer cycle (pkt_valid_i), without a stall cycle, but not
// computed there: the 64-way lookup, the count and the verdict made the NIC's longest
// path together with what the egress does with the verdict (docs/SYNTH.md). It takes
// three steps, one cycle each at least:
//   1. key (key_valid_i, as the egress pops header 2), two cycles: the 64-way match of
//      (src, msg_id) is registered; in the next cycle the hit and the first free entry
//      are picked from it and registered, and the hit's count, total and attempt are
//      read from a memory (block or distributed RAM: no 64-way mux of their 67 bits, no
//      per-entry registers). The key comes straight out of the receive buffer's block
//      RAM: its 64 compares, the hit pick and the memory's address in one cycle made the
//      NIC's longest routed path (docs/SYNTH.md);
//   2. lookup (lk_valid_i, the egress's last payload cycle and its trailer's, the
//      packet's fields held on pkt_*_i): the ages (a pending tick included) and the
//      count give the verdict for the next cycle, registered. A lookup in the cycle
//      right after a tracked key (a one-flit payload) comes before step 1's second
//      cycle has finished and gives no verdict;
//   3. apply (pkt_valid_i, only while verdict_ready_o): the verdict goes out and the
//      table is written.
// verdict_ready_o is a register: the egress holds the trailer while it is low, which
// costs a cycle only to a one-flit packet of a multi-packet message (one-packet
// messages need no entry and have no second key cycle). The table is written only in
// step 3, and the egress's next key comes at least two cycles later (three more header
// cycles), so step 1's match and read stay true until the packet's own step 3; only the
// ages move, and step 2 reads them. Asserted below: every pkt_valid_i has its key and a
// lookup in the cycle right before it.
module ddc_rx_msg_track #(
  parameter int unsigned ENTRIES   = 16,
  parameter int unsigned TICK_LOG2 = 12,
  parameter int unsigned AGE_MAX   = 3
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // the next packet's msg_id (header 2, not yet held on pkt_msg_id_i); its source,
  // first and last are already on pkt_src_i, pkt_first_i and pkt_last_i
  input  logic        key_valid_i,
  input  logic [31:0] key_msg_id_i,
  // the next packet's fields are on pkt_*_i and stay until its pkt_valid_i
  input  logic        lk_valid_i,
  // one accepted packet, in its trailer cycle
  input  logic        pkt_valid_i,
  input  logic [15:0] pkt_src_i,
  input  logic [31:0] pkt_msg_id_i,
  input  logic        pkt_first_i,
  input  logic        pkt_last_i,
  input  logic [15:0] pkt_len_i,
  input  logic [31:0] pkt_offset_i,
  input  logic [1:0]  pkt_attempt_i,
  input  logic        pkt_gap_free_i,   // in order: a short count at `last` is a loss
  // the verdict of the packet on pkt_*_i is ready: pkt_valid_i may come
  output logic        verdict_ready_o,
  // verdict for that packet
  output logic        complete_o,
  output logic [31:0] total_o,
  output logic        gap_o,            // with pkt_gap_free_i: last packet, bytes missing
  // one-cycle event pulses
  output logic        full_o,
  output logic        expire_o,
  output logic        overrun_o,
  // with expire_o when a new message took an aged entry: the message given up (its
  // sender is told with a NACK; a key restarting its own aged entry is not given up)
  output logic        victim_o,
  output logic [15:0] victim_src_o,
  output logic [31:0] victim_msg_id_o
);
  localparam int unsigned IdxW = $clog2(ENTRIES);
  localparam int unsigned AgeW = $clog2(AGE_MAX + 1);

  // Each entry is written only by the packet that lands in it, and the payload fields
  // have no reset: they are read only behind vld_q. Only the key and the age, which
  // every lookup compares, are registers; the count lives in a memory read by index.
  typedef struct packed {
    logic [31:0] cnt;
    logic [31:0] tot;
    logic [1:0]  att;   // the attempt being counted
    logic        tkn;   // total known: the last packet was counted
  } ent_t;
  localparam int unsigned EntW = $bits(ent_t);

  logic [ENTRIES-1:0] vld_q;
  logic [15:0]        src_q [ENTRIES];
  logic [31:0]        mid_q [ENTRIES];
  // Packed: in the simulator, each element of an unpacked array gets a delayed-write
  // slot of its own, and the 64 that the tick loop writes were committed every cycle.
  logic [ENTRIES-1:0][AgeW-1:0] age_q;
  // Distributed RAM: in block RAM, ent_rd_q became the block's own output latch, whose
  // 5.6 ns clock-to-output started the count's adder and the verdict (docs/SYNTH.md).
  (* ram_style = "distributed" *) logic [EntW-1:0] ent_mem [ENTRIES];
  logic [TICK_LOG2-1:0] tick_q;
  logic                 tick;

  assign tick = (tick_q == '1);

  // Step 1, first cycle: the key's match. Only a packet that may be tracked needs it: the
  // simulator skips the 64-way compare on every other cycle.
  logic               single;    // a one-packet message: complete alone, never tracked
  logic               key_track;
  logic [ENTRIES-1:0] m_match, match_q;
  logic               pick_q;    // match_q is the last cycle's key's: step 1's second cycle
  assign single    = pkt_first_i && pkt_last_i;
  assign key_track = key_valid_i && !single;
  always_comb begin
    m_match = '0;
    if (key_track) begin
      for (int unsigned i = 0; i < ENTRIES; i++) begin
        m_match[i] = vld_q[i] && src_q[i] == pkt_src_i && mid_q[i] == key_msg_id_i;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (key_track) match_q <= m_match;
  end

  // Step 1, second cycle: the hit and the first free entry, as trees (lowest_set; as
  // first-match loops, 64-entry picks mapped to chains of 20-odd LUT levels,
  // docs/SYNTH.md). The free map is that of the key's cycle: the table is not written
  // between a key and its packet's apply.
  logic               m_hit, m_free;
  logic [IdxW-1:0]    m_hit_idx, m_free_idx;
  lowest_set #(.N(ENTRIES)) u_hit_pick  (.v_i(match_q), .found_o(m_hit),  .idx_o(m_hit_idx));
  lowest_set #(.N(ENTRIES)) u_free_pick (.v_i(~vld_q),  .found_o(m_free), .idx_o(m_free_idx));

  logic            hit_q, have_free_q, key_ok_q;
  logic [IdxW-1:0] hit_idx_q, free_idx_q;
  ent_t            ent;
  logic [EntW-1:0] ent_rd_q;
  assign ent = ent_t'(ent_rd_q);

  // The hit's age, kept beside its index and aged with it, so step 2 reads a register
  // instead of a 64-way mux behind hit_idx_q (the age, the count's adder and the compares
  // behind it made the node's routed critical path, docs/SYNTH.md). The hit entry stays
  // valid, and its age is written by nothing but the ticks, until its packet's apply.
  logic [AgeW-1:0] hit_age_q, hit_age;
  assign hit_age = pick_q ? age_q[m_hit_idx] : hit_age_q;
  always_ff @(posedge clk_i) begin
    hit_age_q <= (tick && hit_age != AgeW'(AGE_MAX)) ? hit_age + 1'b1 : hit_age;
  end

  always_ff @(posedge clk_i) begin
    if (pick_q) begin
      hit_q       <= m_hit;
      hit_idx_q   <= m_hit_idx;
      have_free_q <= m_free;
      free_idx_q  <= m_free_idx;
      ent_rd_q    <= ent_mem[m_hit_idx];
    end
  end

  // Step 2: the victim choice and the hit's age, against the ages of the next cycle
  // (the decision's).
  logic               hit_old, have_old;
  logic [IdxW-1:0]    old_idx;
  logic [ENTRIES-1:0] old_next, old_vld;
  always_comb begin
    old_next = '0;
    if (lk_valid_i && !single) begin
      for (int unsigned i = 0; i < ENTRIES; i++) begin
        old_next[i] = (age_q[i] == AgeW'(AGE_MAX)) ||
                      (tick && age_q[i] == AgeW'(AGE_MAX - 1));
      end
    end
    old_vld = old_next & vld_q;
  end
  // The hit's own age, not through old_next: that waits for the lookup's late valid (a
  // gate only for the simulator), and the verdict is used only after a lookup anyway.
  assign hit_old = (hit_age_q == AgeW'(AGE_MAX)) ||
                   (tick && hit_age_q == AgeW'(AGE_MAX - 1));
  lowest_set #(.N(ENTRIES)) u_old_pick (.v_i(old_vld), .found_o(have_old), .idx_o(old_idx));

  // The packet's contribution, whichever entry it lands in.
  logic        track, alloc, gap_miss;
  logic [IdxW-1:0] idx;
  logic [31:0] tot_cur, cnt_new, tot_new, pkt_end, cnt_live;
  logic        tkn_cur, tkn_new, live, done_new, over_new;
  // The count and its compares for both outcomes of the age and attempt checks, beside
  // them rather than behind them; `live` only chooses. With the packet: cnt_live against
  // the total it declares (pkt_end, a last packet) or the one known (ent.tot).
  // A packet counted alone (no live entry) ends its message exactly when it starts at 0,
  // and past it when offset + length wraps (its count, the length, is then above the end).
  logic        live_eq_end, live_gt_end, live_eq_tot, live_gt_tot, end_gt_tot;
  logic        own_eq_end, own_gt_end;
  always_comb begin
    {own_gt_end, pkt_end} = 33'(pkt_offset_i) + 33'(pkt_len_i);
    own_eq_end  = (pkt_offset_i == '0);
    cnt_live    = ent.cnt + 32'(pkt_len_i);
    live_eq_end = (cnt_live == pkt_end);
    live_gt_end = (cnt_live > pkt_end);
    live_eq_tot = (cnt_live == ent.tot);
    live_gt_tot = (cnt_live > ent.tot);
    end_gt_tot  = (pkt_end > ent.tot);
  end
  always_comb begin
    live    = hit_q && !hit_old && (ent.att == pkt_attempt_i);
    // A last packet with nothing counted before it cannot complete a multi-packet message.
    gap_miss = pkt_gap_free_i && pkt_last_i && !hit_q;
    alloc   = !hit_q && !gap_miss && (have_free_q || have_old);
    track   = !single && (hit_q || alloc);
    idx     = hit_q ? hit_idx_q : (have_free_q ? free_idx_q : old_idx);
    tot_cur = live ? ent.tot : '0;
    tkn_cur = live && ent.tkn;
    cnt_new = live ? cnt_live : 32'(pkt_len_i);
    tkn_new = tkn_cur || pkt_last_i;
    tot_new = pkt_last_i ? pkt_end : tot_cur;
    // tkn_new && cnt_new == tot_new, and the overrun test below, by cases.
    if (pkt_last_i) begin
      done_new = live ? live_eq_end : own_eq_end;
      over_new = live ? live_gt_end : own_gt_end;
    end else begin
      done_new = tkn_cur && live_eq_tot;
      over_new = tkn_cur && live_gt_tot;
    end
  end

  // The verdict, for the packet on pkt_*_i if it comes in the next cycle.
  typedef struct packed {
    logic            track;
    logic [IdxW-1:0] idx;
    logic            complete;
    logic [31:0]     total;
    logic            overrun;
    logic            gap;
    logic            full;
    logic            expire;
    logic            victim;
    logic [31:0]     cnt_new;
    logic [31:0]     tot_new;
    logic            tkn_new;
  } verdict_t;
  verdict_t vd, vd_q;
  logic     vd_ok_q;   // vd_q was computed in the previous cycle, after this key's step 1
  assign verdict_ready_o = vd_ok_q;

  always_comb begin
    vd = '{
      track:         track,
      idx:           idx,
      complete:      1'b0,
      total:         pkt_end,
      overrun:       1'b0,
      gap:           1'b0,
      full:          !single && !hit_q && !gap_miss && !have_free_q && !have_old,
      expire:        !single && (hit_q ? hit_old : (!gap_miss && !have_free_q && have_old)),
      victim:        !single && !hit_q && !gap_miss && !have_free_q && have_old,
      cnt_new:       cnt_new,
      tot_new:       tot_new,
      tkn_new:       tkn_new
    };
    if (single) begin
      vd.complete = 1'b1;
    end else if (track) begin
      vd.total    = tot_new;
      vd.complete = done_new;
      // Also bytes beyond the end a packet already declared: counted twice somewhere.
      vd.overrun  = over_new || (tkn_cur && end_gt_tot);
      if (vd.overrun) vd.complete = 1'b0;
      vd.gap      = pkt_gap_free_i && pkt_last_i && !vd.complete && !vd.overrun;
    end else if (gap_miss) begin
      vd.gap      = 1'b1;
    end
  end

  logic apply;
  assign apply           = pkt_valid_i && vd_ok_q;
  assign complete_o      = apply && vd_q.complete;
  assign total_o         = vd_q.total;
  assign overrun_o       = apply && vd_q.overrun;
  assign gap_o           = apply && vd_q.gap;
  assign full_o          = apply && vd_q.full;
  assign expire_o        = apply && vd_q.expire;
  assign victim_o        = apply && vd_q.victim;
  // The victim's key is read in the apply cycle, behind the verdict's index register (a
  // victim's index is the old pick's): read in step 2, behind the old pick, the 48-bit
  // 64-way read put a net of over a thousand loads at the end of the age compares and the
  // pick, on the NIC's routed critical path (docs/SYNTH.md). The entry is not written
  // between the two: the table is written only in an apply, this one's at its end.
  // It reads a copy of the keys in distributed RAM, written with them: read from the
  // registers, the 48-bit 64-way multiplexer was a third of this module (2,300 LUT4).
  (* ram_style = "distributed" *) logic [47:0] key_mem [ENTRIES];
  assign {victim_src_o, victim_msg_id_o} = key_mem[vd_q.idx];

  logic            upd;
  logic [IdxW-1:0] upd_idx;
  assign upd     = apply && vd_q.track;
  assign upd_idx = vd_q.idx;

  always_ff @(posedge clk_i) begin
    vd_q <= vd;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      vld_q   <= '0;
      tick_q  <= '0;
      vd_ok_q <= 1'b0;
      key_ok_q <= 1'b0;
      pick_q  <= 1'b0;
      age_q   <= '0;
    end else begin
      vd_ok_q <= lk_valid_i && !pkt_valid_i && key_ok_q && !pick_q;
      pick_q  <= key_track;
      // A key stays looked up until its packet is applied (or the next key).
      if (key_valid_i)      key_ok_q <= 1'b1;
      else if (pkt_valid_i) key_ok_q <= 1'b0;
      // The divider runs only while a message is tracked: an idle NIC is then a fixed
      // point, which the simulator skips.
      tick_q <= (|vld_q) ? tick_q + 1'b1 : '0;
      if (tick) begin
        for (int unsigned i = 0; i < ENTRIES; i++) begin
          if (vld_q[i] && age_q[i] != AgeW'(AGE_MAX)) age_q[i] <= age_q[i] + 1'b1;
        end
      end
      if (upd) begin
        vld_q[upd_idx] <= !(vd_q.complete || vd_q.overrun || vd_q.gap);
        age_q[upd_idx] <= '0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (upd) begin
      src_q[upd_idx]   <= pkt_src_i;
      mid_q[upd_idx]   <= pkt_msg_id_i;
      key_mem[upd_idx] <= {pkt_src_i, pkt_msg_id_i};
      ent_mem[upd_idx] <= EntW'(ent_t'{cnt: vd_q.cnt_new, tot: vd_q.tot_new,
                                       att: pkt_attempt_i, tkn: vd_q.tkn_new});
    end
  end

`ifndef SYNTHESIS
  // The verdict applied is the one computed a cycle before, from the same fields, after
  // a step 1 of the same key.
  logic [15:0] lk_src_q, key_src_q;  // key_src_q: pkt_src_i as the key was matched
  logic [31:0] lk_msg_id_q, key_msg_id_q;
  always_ff @(posedge clk_i) begin
    lk_src_q    <= pkt_src_i;
    lk_msg_id_q <= pkt_msg_id_i;
    if (key_valid_i) begin
      key_src_q    <= pkt_src_i;
      key_msg_id_q <= key_msg_id_i;
    end
  end
  a_verdict_ready: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                    pkt_valid_i |-> vd_ok_q);
  a_verdict_key: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                  pkt_valid_i |-> (key_src_q == pkt_src_i &&
                                                   key_msg_id_q == pkt_msg_id_i));
  // Step 1's match and read hold until the apply: no key comes between a lookup and it.
  a_key_lookup: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                 key_valid_i |-> !lk_valid_i);
  // The hit's age register is the entry's age wherever a lookup reads it.
  logic [AgeW-1:0] hit_entry_age;
  assign hit_entry_age = age_q[hit_idx_q];
  a_hit_age: assert property (@(posedge clk_i) disable iff (!rst_ni)
                              (lk_valid_i && key_ok_q && !pick_q && hit_q &&
                               !single) |-> hit_age_q == hit_entry_age);
  // The ages were those of the decision's cycle: an entry taken as expired is at
  // AGE_MAX now, one counted on or allocated is not.
  logic upd_old;
  assign upd_old = vld_q[upd_idx] && (age_q[upd_idx] == AgeW'(AGE_MAX));
  a_verdict_age: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                  upd |-> (vd_q.expire == upd_old));
  // The victim's key read at the apply is the one the old pick saw a cycle before.
  logic [15:0] old_src_q;
  logic [31:0] old_msg_id_q;
  always_ff @(posedge clk_i) begin
    old_src_q    <= src_q[old_idx];
    old_msg_id_q <= mid_q[old_idx];
  end
  a_victim_key: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                 victim_o |-> (victim_src_o == old_src_q &&
                                               victim_msg_id_o == old_msg_id_q));
  a_verdict_fields: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                     pkt_valid_i |-> (lk_src_q == pkt_src_i &&
                                                      lk_msg_id_q == pkt_msg_id_i));
`endif

endmodule
