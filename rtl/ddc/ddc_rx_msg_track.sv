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
// path together with what the egress does with the verdict (docs/SYNTH.md). The egress
// holds the packet's fields on pkt_*_i from its payload cycles on (lk_valid_i), so the
// verdict is computed from them and the table as it will be in the next cycle (the ages
// a tick moves on) and registered; pkt_valid_i then only applies it. This needs a cycle
// of lk_valid_i without pkt_valid_i right before each pkt_valid_i (the egress's payload
// takes at least one), asserted below; the outputs are those of the same decision made
// in the trailer cycle.
module ddc_rx_msg_track #(
  parameter int unsigned ENTRIES   = 16,
  parameter int unsigned TICK_LOG2 = 12,
  parameter int unsigned AGE_MAX   = 3
) (
  input  logic        clk_i,
  input  logic        rst_ni,
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
  // have no reset: they are read only behind vld_q. Writing the table entry by entry
  // (rather than a whole next-state copy per cycle) also keeps the 64-entry table from
  // dominating the simulator's time.
  logic [ENTRIES-1:0] vld_q;
  logic [15:0]        src_q [ENTRIES];
  logic [31:0]        mid_q [ENTRIES];
  logic [31:0]        cnt_q [ENTRIES];
  logic [ENTRIES-1:0] tkn_q;            // total known: the last packet was counted
  logic [31:0]        tot_q [ENTRIES];
  logic [AgeW-1:0]    age_q [ENTRIES];
  logic [1:0]         att_q [ENTRIES];  // the attempt being counted
  logic [TICK_LOG2-1:0] tick_q;
  logic                 tick;

  assign tick = (tick_q == '1);

  // Lookup and victim choice, against the ages of the next cycle (the decision's).
  logic               hit, hit_old, have_free, have_old;
  logic [IdxW-1:0]    hit_idx, free_idx, old_idx;
  always_comb begin
    logic old_next;
    old_next  = 1'b0;
    hit       = 1'b0;
    hit_idx   = '0;
    have_free = 1'b0;
    free_idx  = '0;
    have_old  = 1'b0;
    old_idx   = '0;
    hit_old   = 1'b0;
    // Only a tracked packet needs the match: the simulator then skips the 64-way
    // compare on every other cycle. (Not gated by pkt_valid_i: that would put the
    // trailer's arrival back in front of the lookup; vd_ok_q marks what is usable.)
    if (lk_valid_i && !(pkt_first_i && pkt_last_i)) begin
      for (int unsigned i = 0; i < ENTRIES; i++) begin
        old_next = (age_q[i] == AgeW'(AGE_MAX)) ||
                   (tick && age_q[i] == AgeW'(AGE_MAX - 1));
        if (vld_q[i] && src_q[i] == pkt_src_i && mid_q[i] == pkt_msg_id_i && !hit) begin
          hit     = 1'b1;
          hit_idx = IdxW'(i);
          hit_old = old_next;
        end
        if (!vld_q[i] && !have_free) begin
          have_free = 1'b1;
          free_idx  = IdxW'(i);
        end
        if (vld_q[i] && old_next && !have_old) begin
          have_old = 1'b1;
          old_idx  = IdxW'(i);
        end
      end
    end
  end

  // The packet's contribution, whichever entry it lands in.
  logic        single, track, alloc, gap_miss;
  logic [IdxW-1:0] idx;
  logic [31:0] cnt_cur, tot_cur, cnt_new, tot_new, pkt_end;
  logic        tkn_cur, tkn_new, live;
  always_comb begin
    live    = hit && !hit_old && (att_q[hit_idx] == pkt_attempt_i);
    single  = pkt_first_i && pkt_last_i;
    // A last packet with nothing counted before it cannot complete a multi-packet message.
    gap_miss = pkt_gap_free_i && pkt_last_i && !hit;
    alloc   = !hit && !gap_miss && (have_free || have_old);
    track   = !single && (hit || alloc);
    idx     = hit ? hit_idx : (have_free ? free_idx : old_idx);
    cnt_cur = live ? cnt_q[hit_idx] : '0;
    tot_cur = live ? tot_q[hit_idx] : '0;
    tkn_cur = live && tkn_q[hit_idx];
    pkt_end = pkt_offset_i + 32'(pkt_len_i);
    cnt_new = cnt_cur + 32'(pkt_len_i);
    tkn_new = tkn_cur || pkt_last_i;
    tot_new = pkt_last_i ? pkt_end : tot_cur;
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
    logic [15:0]     victim_src;
    logic [31:0]     victim_msg_id;
    logic [31:0]     cnt_new;
    logic [31:0]     tot_new;
    logic            tkn_new;
  } verdict_t;
  verdict_t vd, vd_q;
  logic     vd_ok_q;   // vd_q was computed in the previous cycle, for these fields

  always_comb begin
    vd = '{
      track:         track,
      idx:           idx,
      complete:      1'b0,
      total:         pkt_end,
      overrun:       1'b0,
      gap:           1'b0,
      full:          !single && !hit && !gap_miss && !have_free && !have_old,
      expire:        !single && (hit ? hit_old : (!gap_miss && !have_free && have_old)),
      victim:        !single && !hit && !gap_miss && !have_free && have_old,
      victim_src:    src_q[old_idx],
      victim_msg_id: mid_q[old_idx],
      cnt_new:       cnt_new,
      tot_new:       tot_new,
      tkn_new:       tkn_new
    };
    if (single) begin
      vd.complete = 1'b1;
    end else if (track) begin
      vd.total    = tot_new;
      vd.complete = tkn_new && (cnt_new == tot_new);
      // Also bytes beyond the end a packet already declared: counted twice somewhere.
      vd.overrun  = (tkn_new && cnt_new > tot_new) || (tkn_cur && pkt_end > tot_cur);
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
  assign victim_src_o    = vd_q.victim_src;
  assign victim_msg_id_o = vd_q.victim_msg_id;

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
      tkn_q   <= '0;
      tick_q  <= '0;
      vd_ok_q <= 1'b0;
      for (int unsigned i = 0; i < ENTRIES; i++) age_q[i] <= '0;
    end else begin
      vd_ok_q <= lk_valid_i && !pkt_valid_i;
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
        tkn_q[upd_idx] <= vd_q.tkn_new;
        age_q[upd_idx] <= '0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (upd) begin
      src_q[upd_idx] <= pkt_src_i;
      mid_q[upd_idx] <= pkt_msg_id_i;
      cnt_q[upd_idx] <= vd_q.cnt_new;
      tot_q[upd_idx] <= vd_q.tot_new;
      att_q[upd_idx] <= pkt_attempt_i;
    end
  end

`ifndef SYNTHESIS
  // The verdict applied is the one computed a cycle before, from the same fields.
  logic [15:0] lk_src_q;
  logic [31:0] lk_msg_id_q;
  always_ff @(posedge clk_i) begin
    lk_src_q    <= pkt_src_i;
    lk_msg_id_q <= pkt_msg_id_i;
  end
  a_verdict_ready: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                    pkt_valid_i |-> vd_ok_q);
  // The ages were those of the decision's cycle: an entry taken as expired is at
  // AGE_MAX now, one counted on or allocated is not.
  logic upd_old;
  assign upd_old = vld_q[upd_idx] && (age_q[upd_idx] == AgeW'(AGE_MAX));
  a_verdict_age: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                  upd |-> (vd_q.expire == upd_old));
  a_verdict_fields: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                     pkt_valid_i |-> (lk_src_q == pkt_src_i &&
                                                      lk_msg_id_q == pkt_msg_id_i));
`endif

endmodule
