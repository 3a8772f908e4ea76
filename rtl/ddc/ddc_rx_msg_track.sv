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
// Decision in the packet's trailer cycle (pkt_valid_i): complete_o and total_o are
// combinational from the table, so the egress decides without a stall cycle.
module ddc_rx_msg_track #(
  parameter int unsigned ENTRIES   = 16,
  parameter int unsigned TICK_LOG2 = 12,
  parameter int unsigned AGE_MAX   = 3
) (
  input  logic        clk_i,
  input  logic        rst_ni,
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

  // Lookup and victim choice.
  logic               hit, hit_old, have_free, have_old;
  logic [IdxW-1:0]    hit_idx, free_idx, old_idx;
  always_comb begin
    hit       = 1'b0;
    hit_idx   = '0;
    have_free = 1'b0;
    free_idx  = '0;
    have_old  = 1'b0;
    old_idx   = '0;
    hit_old   = 1'b0;
    // Only a tracked packet needs the match: the simulator then skips the 64-way
    // compare on every other cycle.
    if (pkt_valid_i && !(pkt_first_i && pkt_last_i)) begin
      for (int unsigned i = 0; i < ENTRIES; i++) begin
        if (vld_q[i] && src_q[i] == pkt_src_i && mid_q[i] == pkt_msg_id_i && !hit) begin
          hit     = 1'b1;
          hit_idx = IdxW'(i);
          hit_old = (age_q[i] == AgeW'(AGE_MAX));
        end
        if (!vld_q[i] && !have_free) begin
          have_free = 1'b1;
          free_idx  = IdxW'(i);
        end
        if (vld_q[i] && age_q[i] == AgeW'(AGE_MAX) && !have_old) begin
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
    track   = pkt_valid_i && !single && (hit || alloc);
    idx     = hit ? hit_idx : (have_free ? free_idx : old_idx);
    cnt_cur = live ? cnt_q[hit_idx] : '0;
    tot_cur = live ? tot_q[hit_idx] : '0;
    tkn_cur = live && tkn_q[hit_idx];
    pkt_end = pkt_offset_i + 32'(pkt_len_i);
    cnt_new = cnt_cur + 32'(pkt_len_i);
    tkn_new = tkn_cur || pkt_last_i;
    tot_new = pkt_last_i ? pkt_end : tot_cur;
  end

  always_comb begin
    complete_o = 1'b0;
    total_o    = pkt_end;
    overrun_o  = 1'b0;
    gap_o      = 1'b0;
    if (pkt_valid_i) begin
      if (single) begin
        complete_o = 1'b1;
      end else if (track) begin
        total_o    = tot_new;
        complete_o = tkn_new && (cnt_new == tot_new);
        // Also bytes beyond the end a packet already declared: counted twice somewhere.
        overrun_o  = (tkn_new && cnt_new > tot_new) || (tkn_cur && pkt_end > tot_cur);
        if (overrun_o) complete_o = 1'b0;
        gap_o      = pkt_gap_free_i && pkt_last_i && !complete_o && !overrun_o;
      end else if (gap_miss) begin
        gap_o      = 1'b1;
      end
    end
  end

  assign full_o   = pkt_valid_i && !single && !hit && !gap_miss && !have_free && !have_old;
  assign expire_o = pkt_valid_i && !single && (hit ? hit_old : (!gap_miss && !have_free && have_old));
  assign victim_o        = pkt_valid_i && !single && !hit && !gap_miss && !have_free && have_old;
  assign victim_src_o    = src_q[old_idx];
  assign victim_msg_id_o = mid_q[old_idx];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      vld_q  <= '0;
      tkn_q  <= '0;
      tick_q <= '0;
      for (int unsigned i = 0; i < ENTRIES; i++) age_q[i] <= '0;
    end else begin
      // The divider runs only while a message is tracked: an idle NIC is then a fixed
      // point, which the simulator skips.
      tick_q <= (|vld_q) ? tick_q + 1'b1 : '0;
      if (tick) begin
        for (int unsigned i = 0; i < ENTRIES; i++) begin
          if (vld_q[i] && age_q[i] != AgeW'(AGE_MAX)) age_q[i] <= age_q[i] + 1'b1;
        end
      end
      if (track) begin
        vld_q[idx] <= !(complete_o || overrun_o || gap_o);
        tkn_q[idx] <= tkn_new;
        age_q[idx] <= '0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (track) begin
      src_q[idx] <= pkt_src_i;
      mid_q[idx] <= pkt_msg_id_i;
      cnt_q[idx] <= cnt_new;
      tot_q[idx] <= tot_new;
      att_q[idx] <= pkt_attempt_i;
    end
  end

endmodule
