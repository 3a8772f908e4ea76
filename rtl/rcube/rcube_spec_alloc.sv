// Crossbar allocator in three pipeline stages, for a router clock beyond what
// rcube_islip_alloc can reach (in rcube_router as the experimental ALLOC_SPEC option).
//
// rcube_islip_alloc with PIPE grants in one cycle and accepts in the next, and the accept
// cycle also re-checks the grant, pops, and updates the connections and pointers: 13 LUT
// levels, 54.6 MHz on the ECP5-85F with every port registered (docs/SYNTH.md,
// alloc_voq_pipe). Here each cycle holds one round robin and little else:
//   grant  (t):   each output picks among the pairs eligible now whose queue has a flit
//                 and whose output a credit;
//   accept (t+1): each input picks among those grants;
//   commit (t+2): an accepted pair whose input and output are still free, whose queue
//                 still has a flit and whose output a credit pops its head (one AND per
//                 pair, from flops); the others are dropped.
// The grants and accepts are speculative: made from the state as it was, they may name
// an input or an output that an earlier commit has taken since. Eligibility is a flop
// set by the commit stage for the next cycle, from the connections and the queues' flags
// (last_i, and the hints last2_i, last3_i), so the grant is a round robin on (flit and
// credit and flop).
// Pointers are thermometer masks, so a pick starts with an AND, not a compare. Three
// pointer sets travel down the pipeline with the grants they made, and the commit moves
// its set's pointers past committed pairs only: each set grants again after its own
// commits, as one iSLIP instance does (three interleaved). Compared with
// rcube_islip_alloc, a new connection waits one cycle more (grant to pop: 2 cycles). An
// output or input handed from one packet to the next does not idle when the hints say
// which flit ends the packet two pops ahead: it is eligible again from the cycle it pops
// the flit two before the last (last3_i). Without last3_i a handover idles a cycle,
// without last2_i two. A grant made that early fails at the commit if the pops stall.
// An output is not eligible in the cycle after it accepted a multi-flit packet's grant:
// a grant then would meet the connection that accept opens. Backlogged, in
// tb_rcube_spec_alloc (which measures both designs side by side), last3_i and this rule
// took 4 / 5 / 16-flit and random-length packets from 0.800 / 0.833 / 0.941 / 0.667 of
// link rate to 0.768 / 0.833 / 1.000 / 0.769 (0.740 for 4 flits without the rule), and
// the router's saturation from 0.564 to 0.666 for 4 flits (tb_rcube_router_sat).
// A multi-flit match in flight also keeps its input out of the next grant stage (the
// input accepts one of its grants now, so another grant would meet that connection at its
// commit) and its output out of the next accept stage (the accept it made opens a
// connection at the commit now, before the new accept's commit). Commits failing on a
// taken input or output were 42% of the accepts with 4-flit packets in the router, 9%
// with the rules. Each rule alone did not help (router, 4 flits: 0.680 and 0.635 against
// 0.659), the two together: 4 / 16-flit packets 0.659 / 0.595 -> 0.709 / 0.602 over four
// streams, 1 and 64 flits the same; backlogged 4 / 5-flit and random-length packets
// 0.762 / 0.808 / 0.769 -> 0.824 / 0.843 / 0.827, with credits at 80% 0.593 -> 0.583
// (session 47). A pinned output (the waiting bound, below) is exempt from both rules:
// without that, the 2-port bounded check finds a queue that waits forever.
//
// Broadcasts keep rcube_islip_alloc's rule: an input takes its broadcast's whole output
// set at once, in a cycle when every output of it is free and has credits for a whole
// broadcast packet (credit_bc_i), and never holds part of it while waiting (what keeps
// broadcasts out of deadlocks, rtl/rcube/README.md); it then pops a flit per cycle on
// all of them until the last. The take runs down three stages like a unicast match: a
// round robin over the inputs with a broadcast waiting picks one whose set looked free
// a cycle earlier (a flop; t), its set is gathered (t+1), and the take checks the set
// and the input against the connections again (t+2). In that cycle no unicast commit
// may use the set's outputs or the input (a flop each, set at t+1), so the take's check
// reads flops only and the commits keep their single AND; the block lasts that one
// cycle, whether the take succeeds or not. An input with a broadcast waiting is not
// eligible for unicast grants (it waits to be free, as in rcube_islip_alloc). The
// connection ORs treat a take tried as successful and a set released as still held for
// a cycle: they come from flops, not after the take's check and the broadcast's pop
// (broadcast ports stay busy a cycle longer at each end). Broadcasts cost the block
// 2,056 LUT4 and 79.7 MHz against 1,500 and 97.7 unicast-only (docs/SYNTH.md, session 41).
//
// Waiting bound (FAIR_MATCHES): rcube_islip_alloc's, with its tracking a cycle late
// (FAIR_REG). Without it a queue starves as under plain iSLIP (2-port formal check; until
// session 47's rules for matches in flight, also tb_rcube_islip_alloc's lockstep, where
// queue 0 -> 1 waited the whole 2,200-cycle window). Each output counts its passes over
// the first head it passed over and after FAIR_MATCHES pins its pointer, in all three
// sets, on that input, which then requests one pinned output at a time.
module rcube_spec_alloc #(
  parameter int unsigned  NPORTS   = 8,
  parameter int unsigned  XBAR_LAT = 1,
  // the waiting bound: passes an output makes over the first head it passed over before it
  // pins its grant pointers on that input (rcube_islip_alloc's FAIR_MATCHES; 0: none)
  parameter int unsigned  FAIR_MATCHES = 2 * NPORTS,
  localparam int unsigned PortW    = (NPORTS > 1) ? $clog2(NPORTS) : 1
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  input  logic [NPORTS-1:0][NPORTS-1:0]  avail_i,
  input  logic [NPORTS-1:0]              credit_ok_i,
  input  logic [NPORTS-1:0][NPORTS-1:0]  last_i,
  // the flit after the front one is there and is its packet's last
  input  logic [NPORTS-1:0][NPORTS-1:0]  last2_i,
  // the two flits after the front one are there and the second of them is the last
  input  logic [NPORTS-1:0][NPORTS-1:0]  last3_i,
  // output o has credits for a whole broadcast packet
  input  logic [NPORTS-1:0]              credit_bc_i,
  // broadcast queue per input: has a flit, its front flit is last, its front packet's set
  input  logic [NPORTS-1:0]              bc_avail_i,
  input  logic [NPORTS-1:0]              bc_last_i,
  input  logic [NPORTS-1:0][NPORTS-1:0]  bc_mask_i,
  output logic [NPORTS-1:0]              pop_o,
  output logic [NPORTS-1:0][PortW-1:0]   pop_port_o,
  output logic [NPORTS-1:0][NPORTS-1:0]  pop_oh_o,
  output logic [NPORTS-1:0]              pop_bc_o,     // pop the broadcast queue instead
  output logic [NPORTS-1:0]              bc_start_o,   // ... and it is a broadcast's head
  output logic [NPORTS-1:0]              out_open_o,
  output logic [NPORTS-1:0]              sched_o,
  output logic [NPORTS-1:0]              xvalid_o,
  output logic [NPORTS-1:0][PortW-1:0]   xsel_o
);

  // Pointers as thermometer masks (bit k set: k at or after the pointer), so that a pick
  // ANDs the requests with a flop instead of comparing each index with the pointer.
  function automatic logic [NPORTS-1:0] rr_mask(logic [NPORTS-1:0] req, logic [NPORTS-1:0] m);
    logic [2*NPORTS-1:0] both, below, first;
    both  = {req, req & m};
    below = both << 1;
    for (int unsigned s = 1; s < 2 * NPORTS; s = s * 2) below = below | (below << s);
    first = both & ~below;
    return first[NPORTS-1:0] | first[2*NPORTS-1:NPORTS];
  endfunction

  // the mask of the pointer one past a pick (one-hot): the bits above it
  function automatic logic [NPORTS-1:0] past(logic [NPORTS-1:0] pick);
    logic [NPORTS-1:0] m;
    m = pick << 1;
    for (int unsigned s = 1; s < NPORTS; s = s * 2) m = m | (m << s);
    return m;
  endfunction

  function automatic logic [PortW-1:0] onehot_index(logic [NPORTS-1:0] oh);
    logic [PortW-1:0]  idx;
    logic [NPORTS-1:0] plane;
    for (int unsigned b = 0; b < PortW; b++) begin
      for (int unsigned k = 0; k < NPORTS; k++) plane[k] = 1'((k >> b) & 1);
      idx[b] = (oh & plane) != '0;
    end
    return idx;
  endfunction

  function automatic logic [NPORTS-1:0][NPORTS-1:0] transpose(logic [NPORTS-1:0][NPORTS-1:0] m);
    logic [NPORTS-1:0][NPORTS-1:0] t;
    for (int unsigned a = 0; a < NPORTS; a++) begin
      for (int unsigned b = 0; b < NPORTS; b++) t[b][a] = m[a][b];
    end
    return t;
  endfunction

  // ---- connection state: [input][output] one-hot per input, all flops; its per-input
  // and per-output ORs kept in flops as well (a broadcast's set and input included) ----
  logic [NPORTS-1:0][NPORTS-1:0] conn_q, conn_d, conn_d_t;
  logic [NPORTS-1:0]             in_conn_q, in_conn_d, out_conn_q, out_conn_d;
  // what a unicast commit may not use: the connections, and the input and set of the
  // broadcast take of the same cycle (a copy of the ORs above with those added, so that
  // the commit's AND still reads one flop per input and output)
  logic [NPORTS-1:0]             in_blk_q, out_blk_q;
  // broadcasts: the input sends one (its head popped, not its last) ...
  logic [NPORTS-1:0]             bc_conn_q, bc_conn_d;
  logic [NPORTS-1:0][NPORTS-1:0] bc_held_q, bc_held_d;   // ... holding this set
  logic [NPORTS-1:0]             bc_hold_q, bc_hold_d;   // bc_held_q[i] != '0
  // the take's stages: the input picked (t), the same a cycle later with its set (t+2)
  logic [NPORTS-1:0]             bsel_q, bsel_d, bsel2_q, bset_d, bset_q;
  logic [NPORTS-1:0]             bptr_q, bptr_d;         // round robin over the inputs
  // pointer sets: [0] grants now, [1] accepts now, [2] commits now
  logic [2:0][NPORTS-1:0][NPORTS-1:0] gptr_q, aptr_q;
  logic [NPORTS-1:0][NPORTS-1:0]      gptr_d, aptr_d;
  logic [NPORTS-1:0][NPORTS-1:0]     gnt_q, gnt_d, acc_q, acc_d;   // [input][output]
  // an input with an accept in flight for a packet longer than a flit (from its grants:
  // it accepts one now): it is not granted now, nor eligible in the cycle of that commit,
  // where a grant would meet the connection it opens. An output the same, from its
  // accept; out_acc_q is that accept in the cycle of its commit, which the accept stage
  // then leaves out. Pinned outputs are exempt (top).
  logic [NPORTS-1:0]                 in_acc_d, out_acc_d, out_acc_q;
  logic [NPORTS-1:0][NPORTS-1:0]     acc_ml_t;
  // the waiting bound (below): an output's pointers pinned (at the next edge: on this
  // input's mask), and per input the outputs it may request
  logic [NPORTS-1:0]             pin_q, pin_d;
  logic [NPORTS-1:0][NPORTS-1:0] pin_ptr_d;   // [output]
  logic [NPORTS-1:0][NPORTS-1:0] allow_d, allow_q;   // [input]

  // ---- grant: every output picks among the pairs eligible now (elig_q, a flop set by
  // the commit stage below, and allow_q, the waiting bound's) whose queue has a flit and
  // whose output a credit ----
  logic [NPORTS-1:0][NPORTS-1:0] elig_q, elig_d, greq, greq_t, gnt_t;
  always_comb begin
    for (int unsigned i = 0; i < NPORTS; i++) begin
      greq[i] = (in_acc_d[i] ? pin_q : '1) & avail_i[i] & credit_ok_i & elig_q[i] & allow_q[i];
    end
    greq_t = transpose(greq);
    for (int unsigned o = 0; o < NPORTS; o++) gnt_t[o] = rr_mask(greq_t[o], gptr_q[0][o]);
    gnt_d = transpose(gnt_t);
  end

  // avail_i a cycle late, per output ([output][input]): the waiting bound's tracking reads
  // it, and an output with no head in it has no grant in its accept stage (holding the
  // pointer sets, at the flops below)
  logic [NPORTS-1:0][NPORTS-1:0] seen_avail_t;
  logic [NPORTS-1:0]             out_quiet;
  always_comb begin
    for (int unsigned o = 0; o < NPORTS; o++) out_quiet[o] = seen_avail_t[o] == '0;
  end

  // ---- accept: each input picks among last cycle's grants ----
  always_comb begin
    for (int unsigned i = 0; i < NPORTS; i++) begin
      acc_d[i]    = rr_mask(gnt_q[i] & ~(out_acc_q & ~pin_q), aptr_q[1][i]);
      in_acc_d[i] = (gnt_q[i] & ~last_i[i]) != '0;
    end
    // the same for outputs (see the top), from the accepts: from the grants, which may
    // not be accepted, backlogged 4-flit packets got 0.742 of link rate against 0.768
    acc_ml_t = transpose(acc_d & ~last_i);
    for (int unsigned o = 0; o < NPORTS; o++) out_acc_d[o] = acc_ml_t[o] != '0;
  end

  // ---- broadcast take (pick t, set t+1, take t+2) and pops ----
  logic [NPORTS-1:0]             bc_cand, bc_cand_q, bc_take, bc_go, bc_release, bc_out_q;
  logic [NPORTS-1:0][NPORTS-1:0] bc_oh, bc_ok, sel_sets, sel_sets_t, bc_held_t;
  logic                          bset_ok;
  always_comb begin
    // t-1: the inputs with a broadcast waiting whose input and set look free, into a flop
    // (the pick below is a round robin on flops); t: one of them not picked already and
    // not holding a set now (taken at t-1, by a pick the flop did not see: its set read at
    // t+1 would be the front packet's, about to go, and the take would hold the wrong set)
    for (int unsigned i = 0; i < NPORTS; i++) begin
      // (!bc_hold_q is implied by !in_conn_q, asserted below, and kept: without it here and
      // in bc_take the block placed at 76.1 / 71.1 / 83.2 MHz at seeds 1-3, with it at
      // 85.0 / 88.6 / 86.0, session 42)
      bc_cand[i] = bc_avail_i[i] && !in_conn_q[i] && !bc_hold_q[i] && bc_mask_i[i] != '0 &&
                   (bc_mask_i[i] & (out_conn_q | ~credit_bc_i)) == '0;
    end
    bsel_d = rr_mask(bc_cand_q & ~bsel_q & ~bsel2_q & ~bc_hold_q, bptr_q);
    // t+1: the set of the input picked
    for (int unsigned i = 0; i < NPORTS; i++) sel_sets[i] = bsel_q[i] ? bc_mask_i[i] : '0;
    sel_sets_t = transpose(sel_sets);
    for (int unsigned o = 0; o < NPORTS; o++) bset_d[o] = sel_sets_t[o] != '0;
    // t+2: the take, if the set is still free with its credits and the input still free
    // (no unicast commit takes either in this cycle: in_blk_q, out_blk_q)
    bset_ok = bset_q != '0 && (bset_q & (out_conn_q | ~credit_bc_i)) == '0;
    for (int unsigned i = 0; i < NPORTS; i++) begin
      bc_take[i] = bsel2_q[i] && bset_ok && bc_avail_i[i] && !in_conn_q[i] && !bc_hold_q[i];
    end
    // the pointer moves past each pick, a cycle later (bsel_q is left out of the next pick
    // anyway): each waiting input is picked in turn, taken or not
    bptr_d = bsel_q != '0 ? past(bsel_q) : bptr_q;
    // A held set pops while all its outputs have a credit (always, for packets of at most
    // BCAST_PKT_FLITS); the head only if the front set is the one taken.
    // (Per output one LUT's term: a credit if held, and the head's set the one held.)
    for (int unsigned i = 0; i < NPORTS; i++) begin
      for (int unsigned o = 0; o < NPORTS; o++) begin
        bc_ok[i][o] = bc_held_q[i][o] ? (credit_ok_i[o] && (bc_conn_q[i] || bc_mask_i[i][o]))
                                      : (bc_conn_q[i] || !bc_mask_i[i][o]);
      end
      bc_go[i]      = bc_hold_q[i] && bc_avail_i[i] && bc_ok[i] == '1;
      bc_release[i] = bc_go[i] && bc_last_i[i];
      bc_conn_d[i]  = bc_go[i] ? !bc_last_i[i] : bc_conn_q[i];
      bc_held_d[i]  = bc_release[i] ? '0 : bc_take[i] ? bset_q : bc_held_q[i];
      bc_hold_d[i]  = !bc_release[i] && (bc_hold_q[i] || bc_take[i]);
      bc_oh[i]      = bc_go[i] ? bc_held_q[i] : '0;
    end
    bc_held_t = transpose(bc_held_q);
    for (int unsigned o = 0; o < NPORTS; o++) bc_out_q[o] = bc_held_t[o] != '0;
  end
  assign pop_bc_o   = bc_go;
  assign bc_start_o = bc_go & ~bc_conn_q;

  // ---- commit: an accepted pair whose input and output are still free, whose queue has
  // a flit and whose output a credit, pops its head now ----
  logic [NPORTS-1:0][NPORTS-1:0] com, cpop, uni_oh, com_t, src, busy_next, busy_next_t;
  logic [NPORTS-1:0]             in_busy_next, out_busy_next;
  always_comb begin
    for (int unsigned i = 0; i < NPORTS; i++) begin
      com[i]    = in_blk_q[i] ? '0 : (acc_q[i] & avail_i[i] & credit_ok_i & ~out_blk_q);
      cpop[i]   = conn_q[i] & avail_i[i] & credit_ok_i;
      uni_oh[i] = cpop[i] | com[i];
      // a connection stays until its last flit pops; a new one opens unless its head is last
      conn_d[i] = (conn_q[i] & ~(cpop[i] & last_i[i])) | (com[i] & ~last_i[i]);
      // In the connection ORs a take tried now counts as successful and a set released
      // now as held (its input and outputs busy a cycle longer than they are): from flops,
      // they do not wait for the take's check or the broadcast's pop.
      in_conn_d[i] = conn_d[i] != '0 || bc_hold_q[i] || bsel2_q[i];
      pop_o[i]      = uni_oh[i] != '0;
      pop_port_o[i] = onehot_index(uni_oh[i]);
      aptr_d[i] = com[i] != '0 ? past(com[i]) : aptr_q[2][i];
    end
    com_t = transpose(com);
    src   = transpose(uni_oh) | transpose(bc_oh);
    // Eligible in the next cycle: the input and the output are outside a connection by
    // the cycle before that grant's commit if the pops go on, and neither has a multi-flit
    // accept in flight. A connection kept is busy then unless it pops now with its front,
    // second or third flit last; a new one unless its head, second or third flit is last.
    // Written from the pops, not from conn_d, whose closing term would come before it. (A
    // front that is last but does not pop, for want of a credit, used to count as free:
    // stalled on its last flit behind a full buffer, the input then took grants that
    // failed at the commit cycle after cycle, and an output pinned on it by the waiting
    // bound granted it and nobody else: the soak's stalls, session 47.)
    for (int unsigned i = 0; i < NPORTS; i++) begin
      busy_next[i] = (conn_q[i] & ~(cpop[i] & (last_i[i] | last2_i[i] | last3_i[i]))) |
                     (com[i] & ~last_i[i] & ~last2_i[i] & ~last3_i[i]);
    end
    busy_next_t = transpose(busy_next);
    // A broadcast's input is busy from the cycle its queue has a flit until the edge after
    // its last flit pops, its outputs from the cycle its take is tried (a cycle longer than
    // needed at each end: only the broadcasts wait for it).
    for (int unsigned i = 0; i < NPORTS; i++) begin
      in_busy_next[i] = busy_next[i] != '0 || bc_hold_q[i] || bc_avail_i[i];
    end
    for (int unsigned o = 0; o < NPORTS; o++) begin
      out_busy_next[o] = busy_next_t[o] != '0 || bc_out_q[o] || bset_q[o];
    end
    for (int unsigned i = 0; i < NPORTS; i++) begin
      elig_d[i] = (in_busy_next[i] || in_acc_d[i]) ? '0 : ~out_busy_next & ~out_acc_d;
    end
    conn_d_t = transpose(conn_d);
    for (int unsigned o = 0; o < NPORTS; o++) begin
      out_conn_d[o] = conn_d_t[o] != '0 || bc_out_q[o] || bset_q[o];
    end
  end
  // pinned (waiting bound, below): on the head's input, whatever the output commits
  always_comb begin
    for (int unsigned o = 0; o < NPORTS; o++) begin
      gptr_d[o] = pin_d[o] ? pin_ptr_d[o] : com_t[o] != '0 ? past(com_t[o]) : gptr_q[2][o];
    end
  end
  assign pop_oh_o   = uni_oh;
  assign out_open_o = out_conn_q;

  // ---- waiting bound: an output pins its pointers on a head it keeps passing over ----
  // rcube_islip_alloc's rule with its late tracking (FAIR_REG): wait_q[i][o], output o
  // passed over input i's head and counts since (at most one input per output); pin_q[o],
  // FAIR_MATCHES passes reached. A pass is a cycle in which o could take a new packet (it
  // committed one, or it was free with a credit) and did not commit that head. The
  // tracking reads flopped copies of the heads, the commits, the commit stage's pointers
  // and the outputs' chances, so it runs a cycle behind and loads each avail_i and commit
  // bit with one flop; only the pin's end is live: a pin is dropped when its output commits
  // the head in that cycle (an AND-OR of the commit column beside the pointer's own move).
  // A pinned input waits, once free, for one pinned output at a time (its target): its
  // other requests are masked (allow_q), so it holds nothing.
  if (FAIR_MATCHES > 0) begin : gen_fair
    localparam int unsigned CntW = $clog2(FAIR_MATCHES + 1);
    logic [NPORTS-1:0][NPORTS-1:0] wait_q, wait_d;       // [input][output]
    logic [NPORTS-1:0][NPORTS-1:0] wait_t_q, wait_t_d;   // [output][input]
    logic [NPORTS-1:0][CntW-1:0]   cnt_q, cnt_d;
    logic [NPORTS-1:0][NPORTS-1:0] seen_com_t;   // [output][input]
    logic [NPORTS-1:0][NPORTS-1:0] seen_gptr;
    logic [NPORTS-1:0]             seen_free;
    // per input, the one pinned output it waits for, kept until that output serves it, then
    // the next pinned one after it (tptr_q, a mask like the pointers)
    logic [NPORTS-1:0][NPORTS-1:0] tgt_q, tgt_d, tptr_q, pins_in;   // [input][output]
    logic [NPORTS-1:0]             wcol, fcol, pin_col;
    logic                          pass, chance;
    always_comb begin
      for (int unsigned o = 0; o < NPORTS; o++) begin
        wcol     = wait_t_q[o];
        chance   = seen_free[o] || seen_com_t[o] != '0;
        // the first head at or after the pointer the commits were granted from
        fcol     = rr_mask(seen_avail_t[o], seen_gptr[o]);
        pass     = chance && fcol != '0 && (fcol & seen_com_t[o]) == '0;
        cnt_d[o] = cnt_q[o];
        pin_d[o] = pin_q[o];
        // Tracking a head that still waits: count the passes. Otherwise (none, or the one
        // tracked was served or is gone) a pass starts on the first head in the same cycle.
        if (wcol != '0 && (wcol & seen_com_t[o]) == '0 && (wcol & seen_avail_t[o]) != '0) begin
          if (chance) begin
            if (32'(cnt_q[o]) < FAIR_MATCHES) cnt_d[o] = cnt_q[o] + 1'b1;
            pin_d[o] = pin_q[o] || 32'(cnt_q[o]) >= FAIR_MATCHES - 1;   // no adder
          end
        end else if (pass) begin
          wcol     = fcol;
          cnt_d[o] = CntW'(1);
          pin_d[o] = FAIR_MATCHES <= 1;
        end else begin
          wcol     = '0;
          cnt_d[o] = '0;
          pin_d[o] = 1'b0;
        end
        wait_t_d[o]  = wcol;
        // A pin is on the head tracked already (wait_t_q) unless one pass is enough
        // (FAIR_MATCHES 1: it may start on the head just passed over), so the pointer and
        // the check below read flops, not the first-head pick: that pick into the pointers
        // was the block's deepest logic (11.5 estimated LUT4 levels).
        pin_col      = FAIR_MATCHES > 1 ? wait_t_q[o] : wcol;
        pin_ptr_d[o] = pin_col | past(pin_col);
        // no pin on a head its output commits now, which the tracking sees a cycle later:
        // the pointer would stay on the input just served, which would take it again
        if ((pin_col & com_t[o]) != '0) pin_d[o] = 1'b0;
      end
      wait_d = transpose(wait_t_d);
    end
    // from the pins as they stand (flops), so a pin restricts its input one cycle after it
    // is set and frees it one cycle after it ends
    always_comb begin
      for (int unsigned i = 0; i < NPORTS; i++) begin
        pins_in[i] = wait_q[i] & pin_q;
        tgt_d[i]   = (tgt_q[i] & pins_in[i]) != '0 ? tgt_q[i] : rr_mask(pins_in[i], tptr_q[i]);
        allow_d[i] = tgt_d[i] != '0 ? tgt_d[i] : '1;
      end
    end
    assign wait_t_q = transpose(wait_q);
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        wait_q       <= '0;
        cnt_q        <= '0;
        pin_q        <= '0;
        tgt_q        <= '0;
        tptr_q       <= '1;
        seen_com_t   <= '0;
        seen_gptr    <= '1;
        seen_free    <= '0;
      end else begin
        wait_q       <= wait_d;
        cnt_q        <= cnt_d;
        pin_q        <= pin_d;
        tgt_q        <= tgt_d;
        seen_com_t   <= com_t;
        seen_gptr    <= gptr_q[2];
        seen_free    <= ~out_blk_q & credit_ok_i;
        for (int unsigned i = 0; i < NPORTS; i++) begin
          if (tgt_d[i] != '0 && tgt_d[i] != tgt_q[i]) tptr_q[i] <= past(tgt_d[i]);
        end
      end
    end
  end else begin : gen_no_fair
    assign pin_q     = '0;
    assign pin_d     = '0;
    assign pin_ptr_d = '0;
    assign allow_d   = '1;
  end

  // ---- crossbar setting, XBAR_LAT cycles after the decision ----
  logic [XBAR_LAT-1:0][NPORTS-1:0]            xvalid_q;
  logic [XBAR_LAT-1:0][NPORTS-1:0][PortW-1:0] xsel_q;
  logic [NPORTS-1:0]                          xvalid_d;
  logic [NPORTS-1:0][PortW-1:0]               xsel_d;
  always_comb begin
    for (int unsigned o = 0; o < NPORTS; o++) begin
      xvalid_d[o] = src[o] != '0;
      xsel_d[o]   = xvalid_d[o] ? onehot_index(src[o]) : xsel_q[0][o];
    end
  end
  assign sched_o  = xvalid_d;
  assign xvalid_o = xvalid_q[XBAR_LAT-1];
  assign xsel_o   = xsel_q[XBAR_LAT-1];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      conn_q     <= '0;
      in_conn_q  <= '0;
      out_conn_q <= '0;
      in_blk_q   <= '0;
      out_blk_q  <= '0;
      bc_conn_q  <= '0;
      bc_held_q  <= '0;
      bc_hold_q  <= '0;
      bc_cand_q  <= '0;
      bsel_q     <= '0;
      bsel2_q    <= '0;
      bset_q     <= '0;
      bptr_q     <= '1;
      gnt_q      <= '0;
      acc_q      <= '0;
      out_acc_q  <= '0;
      elig_q     <= '1;
      allow_q    <= '1;
      gptr_q     <= '1;
      aptr_q     <= '1;
      seen_avail_t <= '0;
      xvalid_q   <= '0;
      xsel_q     <= '0;
    end else begin
      conn_q     <= conn_d;
      in_conn_q  <= in_conn_d;
      out_conn_q <= out_conn_d;
      in_blk_q   <= in_conn_d | bsel_q;
      out_blk_q  <= out_conn_d | bset_d;
      bc_conn_q  <= bc_conn_d;
      bc_held_q  <= bc_held_d;
      bc_hold_q  <= bc_hold_d;
      bc_cand_q  <= bc_cand;
      bsel_q     <= bsel_d;
      bsel2_q    <= bsel_q;
      bset_q     <= bset_d;
      bptr_q     <= bptr_d;
      gnt_q      <= gnt_d;
      acc_q      <= acc_d;
      out_acc_q  <= out_acc_d;
      elig_q     <= elig_d;
      allow_q    <= allow_d;
      seen_avail_t <= transpose(avail_i);
      // A pinned pointer (waiting bound, below) holds in all three sets, so the grants of
      // every stage see it, and the pointer a pin ends with goes to all three as well: the
      // rule rcube_islip_alloc's bounded check required of its two banks (left pinned in
      // the other bank, the pointer gave the input just served the next grant again).
      // Simulation does not tell it from a pin in one set alone; the 2-port bounded check
      // does: with either later set left to pick the pin up as it travels, a queue waits
      // from reset on (run_formal.py spec_alloc_wait_n2_mut_pin*, docs/FORMAL.md).
      // Idle, the three sets become one and stop moving (they rotated with period 3
      // whenever they differed, so an idle router never settled, and the simulator's skip
      // froze them): a set with nothing to commit next takes the pointer this
      // commit leaves as it moves to the commit stage, instead of carrying its own, and
      // the other two follow it within two cycles. For the grant pointers, only on an
      // output that had no head at all a cycle ago (so no grant in its accept stage):
      // applied on every output without a grant in flight, the rule cost the sets their
      // independence and the router 4-flit packets (0.666 -> 0.607 of link rate,
      // tb_rcube_router_sat). Flops select (seen_avail_t, gnt_q): no load on the grant.
      for (int unsigned o = 0; o < NPORTS; o++) begin
        gptr_q[0][o] <= gptr_d[o];
        gptr_q[1][o] <= (pin_d[o] || pin_q[o]) ? gptr_d[o] : gptr_q[0][o];
        gptr_q[2][o] <= (pin_d[o] || pin_q[o] || out_quiet[o]) ? gptr_d[o] : gptr_q[1][o];
      end
      for (int unsigned i = 0; i < NPORTS; i++) begin
        aptr_q[0][i] <= aptr_d[i];
        aptr_q[1][i] <= aptr_q[0][i];
        aptr_q[2][i] <= gnt_q[i] == '0 ? aptr_d[i] : aptr_q[1][i];
      end
      xvalid_q[0] <= xvalid_d;
      xsel_q[0]   <= xsel_d;
      for (int unsigned s = 1; s < XBAR_LAT; s++) begin
        xvalid_q[s] <= xvalid_q[s-1];
        xsel_q[s]   <= xsel_q[s-1];
      end
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i or negedge rst_ni) begin : a_one_source
    if (rst_ni) begin
      for (int unsigned o = 0; o < NPORTS; o++) begin
        assert ($onehot0(src[o])) else $error("rcube_spec_alloc: output %0d has sources %b",
                                              o, src[o]);
      end
      for (int unsigned i = 0; i < NPORTS; i++) begin
        assert ($onehot0(uni_oh[i])) else $error("rcube_spec_alloc: input %0d pops %b", i,
                                                 uni_oh[i]);
        assert (!(uni_oh[i] != '0 && bc_go[i]))
          else $error("rcube_spec_alloc: input %0d pops both queues", i);
        // a set taken is the front packet's (no pop can change the front before its head)
        assert (!(bc_hold_q[i] && !bc_conn_q[i] && bc_avail_i[i]) || bc_held_q[i] == bc_mask_i[i])
          else $error("rcube_spec_alloc: input %0d holds %b for a broadcast to %b", i,
                      bc_held_q[i], bc_mask_i[i]);
        // the connection OR covers a held set (the candidates' and the take's !bc_hold_q
        // are redundant with it)
        assert (!bc_hold_q[i] || in_conn_q[i])
          else $error("rcube_spec_alloc: input %0d holds a set outside its connection OR", i);
        assert (bc_hold_q[i] == (bc_held_q[i] != '0))
          else $error("rcube_spec_alloc: input %0d holding flag %b, held set %b", i,
                      bc_hold_q[i], bc_held_q[i]);
      end
    end
  end
`endif

endmodule
