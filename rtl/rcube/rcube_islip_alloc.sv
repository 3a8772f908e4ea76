// Crossbar allocator for the VOQ router: iSLIP (McKeown 1999) with packet-long
// (wormhole) connections.
//
// Every cycle it decides which queue each input pops at the next edge; the popped
// flit crosses the crossbar the cycle after (rcube_voq_buffer reads synchronously).
// So the decision for cycle c+1 is made in cycle c from state all known in c: the
// queues including this cycle's arrival (avail_i), the output credits including this
// cycle's credit pulse (credit_ok_i), and whether the flit a pop takes is a packet's
// last (last_i, kept in a flop per queue by the buffer). Popping a last flit ends its
// connection at that edge, so its input and output are free for a match in the next
// cycle, while that flit crosses; the connection state is all flops, and nothing of
// the buffer's read port is on the allocator's path.
// That lookahead keeps a hop at 2 cycles with only a mux between the buffer read
// register and the output register.
//
// Wormhole: a connection (input i, output o) is made when a packet head is popped and
// lasts until its last flit is popped: the output carries one packet at a time and the
// input feeds one packet at a time (crossbar speedup 1). Connected pairs pop whenever
// the queue has a flit and the output a credit, without arbitration. Free inputs and
// free outputs with a credit are matched by ITERS iSLIP iterations: each output grants
// the requesting input next from its grant pointer, each input accepts the granting
// output next from its accept pointer. Pointers move one past the partner only on
// first-iteration matches, which desynchronises them. GRANT_ALL = 1 moves the grant
// pointers on every iteration's matches: with ITERS = 2 it lifts 1-flit uniform
// saturation with deep buffers from 0.948 to ~0.98 when no input sends to its own port
// (the first-iteration rule lets the pointers settle into rotations that leave an output
// idle); an output's pointer may then pass a waiting input that a later iteration
// skipped, which the waiting bound below counts as a pass like any other. Off by
// default; the simulator's deep-buffer model uses it (rtl/rcube/README.md).
//
// Waiting bound (FAIR_MATCHES): plain iSLIP serves every waiting head within NPORTS
// matches of its output only when packets are one flit. With packet-long connections an
// output passes over an input that is inside another packet, and the two can fall into
// step: the input frees while the output is taken and takes its other output, the output
// frees while the input is taken and takes another input, for ever (3 ports, 4-flit
// packets, one input with packets for two outputs: that queue never got a flit,
// tb_rcube_islip_alloc; at 8-port full load with 4-flit packets a queue waited a whole
// 4,200-cycle window). So each output remembers the first head it passes over (the first
// queue with a flit at or after its grant pointer, in a cycle the output could take a new
// packet and took another input or none); after FAIR_MATCHES such passes while that head
// waits, its grant pointer is pinned on that input. The input waits, once outside its
// packet, for one pinned output at a time (its target, kept until it serves the input),
// requesting nothing else and holding nothing, as a FIFO input waits for its head's
// output (no dependency a FIFO router does not have), while the output keeps serving
// others as long as the input is busy. Simulation bounds the waits (tb_rcube_islip_alloc),
// and a bounded formal check shaped this design: at 3 ports, FAIR_MATCHES 1 and packets of
// 1-2 flits no queue waits more than 48 cycles over 56 from reset, where plain iSLIP does,
// with PIPE as well (BMC, not a proof; docs/FORMAL.md). The default, 2 * NPORTS, costs the
// 1-iteration router with 2048-flit buffers and 64-flit packets about 1.5 points of link
// rate at saturation (0.958 -> 0.943 in one traffic stream; tb_rcube_router_sat). 0 turns
// it off (plain iSLIP). An output without credits requests nothing, so
// it never ties up a free input, and a connection stalled on credits holds only its
// own input and output.
// (Letting a busy input take further connections, feeding one per cycle, was measured
// worse: outputs pile up on busy inputs and share their bandwidth; 0.48 instead of 0.74
// of link rate on 64-flit uniform traffic with 128-flit buffers.)
//
// Broadcasts: an input whose broadcast queue has a packet (bc_avail_i, output set
// bc_mask_i) and no open connection takes the whole set at once, in a cycle when every
// output of it is free (not in a connection, not matched by iSLIP in that cycle) and has
// credits for a whole broadcast packet (credit_bc_i: BCAST_PKT_FLITS, the NIC cuts
// broadcasts that short); one such acquisition per cycle, round robin over the inputs.
// It pops the head the next cycle and then one flit per cycle on all of the set's
// outputs at once (every held output's crossbar column carries it); the set is released
// when the last flit is popped. A broadcast therefore never holds an output while waiting
// for anything: it waits holding nothing, and once started it cannot stall, as its
// credits were there from the start. That is what keeps broadcasts out of deadlocks
// (holding some outputs while stalled on another couples the tree's branches; rtl/rcube/
// README.md). An input waiting for or sending a broadcast takes no iSLIP match.
//
// out_open_o tells the inputs which outputs are held by a packet now (for adaptive
// routing, decided when a head arrives: rcube_voq_input).
//
// PIPE = 1 (ITERS = 1) splits the matching over two cycles: the outputs grant in cycle
// c, from a register the inputs accept in c+1 among the grants still valid then (input
// and output still free, queue and credit still there; a grant made while the same
// output was matched in c+1 is dropped), and the head is popped with the accept. Only
// new connections wait the extra cycle: open ones pop as before. An output or input
// whose connection pops its last flit in c already counts as free for the grant in c,
// so packets follow each other on an output without a bubble.
module rcube_islip_alloc #(
  parameter int unsigned  NPORTS    = 8,
  parameter int unsigned  ITERS     = 1,
  parameter bit           GRANT_ALL = 1'b0,
  parameter bit           PIPE      = 1'b0,   // grant and accept in consecutive cycles
  // cycles from a decision to the crossbar setting of its flits (1: the buffer pops at
  // the next edge; 2: the buffer pops a cycle later, rcube_voq_buffer REG_POP)
  parameter int unsigned  XBAR_LAT  = 1,
  // passes an output makes (cycles it could take a new packet and took another input or
  // none) while the first head it passed over waits, before it pins its grant pointer on
  // that head's input (above; 0: never)
  parameter int unsigned  FAIR_MATCHES = 2 * NPORTS,
  // the waiting bound's tracking reads registered copies of what it watches and acts a
  // cycle late (below): the pipelined build's choice, for Fmax
  parameter bit           FAIR_REG  = PIPE,
  localparam int unsigned PortW     = (NPORTS > 1) ? $clog2(NPORTS) : 1
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  // avail_i[i][o]: input i's queue for output o can be popped this cycle
  input  logic [NPORTS-1:0][NPORTS-1:0]  avail_i,
  // output o may be given a flit this cycle (a credit is left for it)
  input  logic [NPORTS-1:0]              credit_ok_i,
  // output o has credits for a whole broadcast packet
  input  logic [NPORTS-1:0]              credit_bc_i,
  // last_i[i][o]: the flit a pop of input i's queue o takes now is a packet's last
  input  logic [NPORTS-1:0][NPORTS-1:0]  last_i,
  input  logic [NPORTS-1:0]              bc_last_i,    // ... of its broadcast queue
  // broadcast queue per input: has a flit, output set of its front packet
  input  logic [NPORTS-1:0]              bc_avail_i,
  input  logic [NPORTS-1:0][NPORTS-1:0]  bc_mask_i,
  // pops at the next edge
  output logic [NPORTS-1:0]              pop_o,
  output logic [NPORTS-1:0][PortW-1:0]   pop_port_o,
  // the same pops one-hot: pop_oh_o[i][o] = pop_o[i] && pop_port_o[i] == o. The port
  // number selects in the buffer's memories; the per-queue state behind a registered pop
  // (rcube_voq_buffer REG_POP) takes its queue's bit, where decoding the port cost the
  // pop's path the encoder here and a compare per queue there.
  output logic [NPORTS-1:0][NPORTS-1:0]  pop_oh_o,
  output logic [NPORTS-1:0]              pop_bc_o,     // pop the broadcast queue instead
  output logic [NPORTS-1:0]              bc_start_o,   // ... and it is a broadcast's head
  // outputs held by a connection or a broadcast's reservation this cycle
  output logic [NPORTS-1:0]              out_open_o,
  // outputs that get a flit at the next edge (one credit spent each)
  output logic [NPORTS-1:0]              sched_o,
  // crossbar setting for this cycle (registered, XBAR_LAT cycles after the decision):
  // output o carries input xsel_o[o]
  output logic [NPORTS-1:0]              xvalid_o,
  output logic [NPORTS-1:0][PortW-1:0]   xsel_o
);

  // Round robin, one-hot: the lowest request at or above ptr, else the lowest one (zero
  // without requests). Word-wide masks and a prefix OR, so a pick is a few LUT levels;
  // written as a scan loop, each pick was a chain of NPORTS two-way choices, and the
  // allocator strings grant, accept and the crossbar setting behind each other
  // (rtl/rcube/README.md, Timing). The requests at or above ptr and all of them side by
  // side, one lowest-bit pick over both halves: choosing a half first (any request at or
  // above ptr?) put an OR over the requests and a select before the pick (session 34).
  function automatic logic [NPORTS-1:0] rr_onehot(logic [NPORTS-1:0] req, logic [PortW-1:0] ptr);
    logic [2*NPORTS-1:0] both, below, first;
    for (int unsigned k = 0; k < NPORTS; k++) begin
      both[k]          = req[k] && (k >= 32'(ptr));
      both[NPORTS + k] = req[k];
    end
    below = both << 1;
    for (int unsigned s = 1; s < 2 * NPORTS; s = s * 2) below = below | (below << s);
    first = both & ~below;
    return first[NPORTS-1:0] | first[2*NPORTS-1:NPORTS];
  endfunction

  function automatic logic [NPORTS-1:0] port_onehot(logic [PortW-1:0] p);
    logic [NPORTS-1:0] oh;
    for (int unsigned k = 0; k < NPORTS; k++) oh[k] = (32'(p) == k);
    return oh;
  endfunction

  // The index of the set bit of a vector with at most one set (0 without): one OR per
  // index bit, instead of a write through a variable index (a chain of NPORTS muxes).
  function automatic logic [PortW-1:0] onehot_index(logic [NPORTS-1:0] oh);
    logic [PortW-1:0]  idx;
    logic [NPORTS-1:0] plane;
    for (int unsigned b = 0; b < PortW; b++) begin
      for (int unsigned k = 0; k < NPORTS; k++) plane[k] = 1'((k >> b) & 1);
      idx[b] = (oh & plane) != '0;
    end
    return idx;
  endfunction

  // Per output, whether any input has its bit set in an [input][output] matrix: one
  // reduction per column. Accumulated input by input in a loop, the OR stays a chain of
  // NPORTS ORs through the LUT mapping for area (rtl/synth/synth.py AREA_FIRST_PS), and
  // the free outputs, the matched ones and a broadcast's set all gather bits this way.
  function automatic logic [NPORTS-1:0] any_input(logic [NPORTS-1:0][NPORTS-1:0] m);
    logic [NPORTS-1:0] any, col;
    for (int unsigned o = 0; o < NPORTS; o++) begin
      for (int unsigned i = 0; i < NPORTS; i++) col[i] = m[i][o];
      any[o] = |col;
    end
    return any;
  endfunction

  function automatic logic [PortW-1:0] next_of(logic [PortW-1:0] k);
    return (32'(k) == NPORTS - 1) ? '0 : k + 1'b1;
  endfunction

  // ---- connection state ----
  logic [NPORTS-1:0]            in_conn_q, in_conn_d;    // input i is inside a packet ...
  logic [NPORTS-1:0][PortW-1:0] in_port_q, in_port_d;    // ... to this output
  // Round-robin pointers: gptr_g for the grants, gptr_a / aptr_a of the grants accepted
  // now, updated to gptr_d / aptr_d (one bank; two with PIPE, below)
  logic [NPORTS-1:0][PortW-1:0] gptr_g, gptr_a, aptr_a, gptr_d, aptr_d;
  // the crossbar setting, [0] for the flits popped at the next edge, then delay stages
  logic [XBAR_LAT-1:0][NPORTS-1:0]            xvalid_q;
  logic [XBAR_LAT-1:0][NPORTS-1:0][PortW-1:0] xsel_q;
  logic [NPORTS-1:0]                          xvalid_d;
  logic [NPORTS-1:0][PortW-1:0]               xsel_d;
  logic [NPORTS-1:0]             bc_conn_q, bc_conn_d;   // input i sends a broadcast ...
  logic [NPORTS-1:0][NPORTS-1:0] bc_held_q, bc_held_d;   // ... to / reserving these outputs
  // bc_held_q[i] != '0 in a flop of its own: the input-busy test starts every match's
  // path, and the OR over the held set cost it two LUT levels (session 34)
  logic [NPORTS-1:0]             bc_hold_q, bc_hold_d;
  logic [PortW-1:0]              bptr_q, bptr_d;         // acquisition round robin over inputs

  // Connections open for pops now (a connection closed at the edge its last flit was
  // popped). A broadcast's reservations (started or not) count as open for their outputs.
  // Every per-output result below is gathered (an OR over the inputs) rather than written
  // through a variable index: at most one input drives each output (a_one_source).
  // The outputs held (out_open_q) are a flop of their own, set from the connections and
  // reservations as this edge leaves them (out_open_d, below): every match and broadcast
  // acquisition starts from it, and gathered from the per-input state it cost each of
  // them a decode and an OR over the inputs first.
  logic [NPORTS-1:0]             in_open, out_open, out_open_q, out_open_d, bc_open, bc_busy;
  logic [NPORTS-1:0][NPORTS-1:0] conn_oh;   // [input] its connection's output, one-hot
  logic [NPORTS-1:0][NPORTS-1:0] bc_keep;   // [input][output] reservations held
  always_comb begin
    for (int unsigned i = 0; i < NPORTS; i++) begin
      in_open[i] = in_conn_q[i];
      conn_oh[i] = in_open[i] ? port_onehot(in_port_q[i]) : '0;
      bc_open[i] = bc_conn_q[i];
      // Reserving (not started) or sending: the input is taken.
      bc_keep[i] = bc_held_q[i];
    end
  end
  assign out_open = out_open_q;
  always_comb begin
    for (int unsigned i = 0; i < NPORTS; i++) begin
      // the queue's flag last: through this cycle's arrival, it comes from a select
      bc_busy[i] = bc_avail_i[i] ? (bc_open[i] || (!bc_conn_q[i] && !in_open[i]))
                                 : (bc_open[i] || (!bc_conn_q[i] && bc_hold_q[i] && !in_open[i]));
    end
  end

  // ---- matching of free inputs and free outputs ----
  // req: the pairs that may be matched now; greq: those the outputs grant (PIPE: for the
  // next cycle, counting connections that end now as free); acc_in: the grants the inputs
  // choose from (PIPE: last cycle's, still in req)
  logic [NPORTS-1:0][NPORTS-1:0] req, greq, acc_in, gnt;   // [input][output]
  logic [NPORTS-1:0][NPORTS-1:0] gnt_q;                    // PIPE: last cycle's grants

  // The pairs an input and an output free for a new connection may form: the queue has a
  // flit for the output and the output a credit.
  function automatic logic [NPORTS-1:0][NPORTS-1:0] pairs(
      logic [NPORTS-1:0] ins_free, logic [NPORTS-1:0] outs_free,
      logic [NPORTS-1:0][NPORTS-1:0] queues, logic [NPORTS-1:0] credits);
    logic [NPORTS-1:0][NPORTS-1:0] p;
    for (int unsigned i = 0; i < NPORTS; i++) begin
      p[i] = ins_free[i] ? (queues[i] & outs_free & credits) : '0;
    end
    return p;
  endfunction

  // Free for a new connection now: outside a connection and a broadcast.
  logic [NPORTS-1:0] in_free, out_free;
  assign in_free  = ~in_open & ~bc_busy;
  assign out_free = ~out_open;
  // allow_q[i]: the outputs input i may request (all, or the ones pinned on it: waiting
  // bound, below); a flop, so the requests take one more AND and no decision
  logic [NPORTS-1:0][NPORTS-1:0] allow_q, avail_ok;   // [input][output]
  assign avail_ok = avail_i & allow_q;
  assign req      = pairs(in_free, out_free, avail_ok, credit_ok_i);

  // PIPE: the grants are for the next cycle, where a connection popping its last flit
  // now has freed its input and output (at this edge); the grants are registered.
  if (PIPE) begin : gen_pipe
    logic [NPORTS-1:0][NPORTS-1:0] close_oh;   // [input][output]
    logic [NPORTS-1:0]             in_close, out_close;
    always_comb begin
      for (int unsigned i = 0; i < NPORTS; i++) begin
        close_oh[i] = conn_oh[i] & avail_i[i] & credit_ok_i & last_i[i];
        in_close[i] = close_oh[i] != '0;
      end
      out_close = any_input(close_oh);
    end
    assign greq = pairs((~in_open | in_close) & ~bc_busy, out_free | out_close, avail_ok,
                        credit_ok_i);
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) gnt_q <= '0;
      else         gnt_q <= gnt;
    end
  end else begin : gen_no_pipe
    assign greq  = req;
    assign gnt_q = '0;
  end

  // Round-robin pointers. With PIPE, two banks used in turn: the grants of cycle c use
  // bank phase_q, and are accepted in c+1, which moves that bank's pointers; the bank
  // turns every cycle but idle ones. Each bank then sees its own accepts before it grants
  // again, as one iSLIP does; with one bank the grants ran a cycle behind the accepts and
  // the pointers did not desynchronise (full load of 1-flit packets: no perfect matching,
  // tb_rcube_islip_alloc).
  localparam int unsigned NBanks = PIPE ? 2 : 1;
  logic [NPORTS-1:0]            pin_now;      // grant pointer pinned now
  logic [NPORTS-1:0]            pin_d;        // grant pointer pinned at the next edge ...
  logic [NPORTS-1:0][PortW-1:0] wait_idx_d;   // ... on this input (waiting bound, below)
  logic [NBanks-1:0][NPORTS-1:0][PortW-1:0] gptr_q, aptr_q;
  logic phase_q, bank_a;   // the bank granting now (stays 0 without PIPE), the one accepting
  assign bank_a = PIPE ? !phase_q : 1'b0;
  assign gptr_g = gptr_q[phase_q];
  assign gptr_a = gptr_q[bank_a];
  assign aptr_a = aptr_q[bank_a];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      phase_q <= 1'b0;
      gptr_q  <= '0;
      aptr_q  <= '0;
    end else begin
      // Held while no queue has a flit (then there is no grant, whose accept would need
      // the bank to turn): idle, the allocator's state stays put, which lets the
      // simulator skip idle cycles. Turning only after grants keeps the rule too, but
      // in one run tb_rcube_islip_alloc drained its backlog in 510 cycles against 449.
      phase_q         <= PIPE ? (phase_q ^ (avail_i != '0)) : 1'b0;
      gptr_q[bank_a]  <= gptr_d;
      aptr_q[bank_a]  <= aptr_d;
      // A pinned pointer holds in both banks, so the grants of either phase see it, and
      // the pointer a pin ends with (one past the head, when it is served) goes to both as
      // well: left pinned in the other bank, it gave the input just served the next grant
      // of that phase again, and two inputs took an output in turn while a third's queue
      // waited for good (3 ports, PIPE, the bounded check islip_alloc_wait_n3_pipe). One
      // bank: the same value as gptr_d.
      for (int unsigned o = 0; o < NPORTS; o++) begin
        if (pin_d[o] || pin_now[o]) gptr_q[NBanks - 1 - 32'(bank_a)][o] <= gptr_d[o];
      end
    end
  end

  logic [NPORTS-1:0][NPORTS-1:0] acc_oh;         // [input][output] matches, all iterations
  logic [NPORTS-1:0][NPORTS-1:0] acc_first;      // ... of the first iteration
  logic [NPORTS-1:0]             in_matched, out_matched, first_in, gptr_move;
  logic [NPORTS-1:0][PortW-1:0]  in_pick, out_pick;
  logic [NPORTS-1:0]             col, gcol, acol;
  always_comb begin
    acc_in = '0;
    gnt         = '0;
    acc_oh      = '0;
    acc_first   = '0;
    in_matched  = '0;
    out_matched = '0;
    for (int unsigned it = 0; it < ITERS; it++) begin
      // Grant: each unmatched output picks among unmatched requesting inputs.
      for (int unsigned o = 0; o < NPORTS; o++) begin
        for (int unsigned i = 0; i < NPORTS; i++) col[i] = greq[i][o] && !in_matched[i];
        gcol = out_matched[o] ? '0 : rr_onehot(col, gptr_g[o]);
        for (int unsigned i = 0; i < NPORTS; i++) gnt[i][o] = gcol[i];
      end
      // Accept: each input with grants picks one. An output grants one input, so the
      // outputs accepted in one iteration are distinct.
      acc_in = PIPE ? (gnt_q & req) : gnt;
      for (int unsigned i = 0; i < NPORTS; i++) begin
        acol      = rr_onehot(acc_in[i], aptr_a[i]);
        acc_oh[i] = acc_oh[i] | acol;
        if (it == 0) acc_first[i] = acol;
      end
      for (int unsigned i = 0; i < NPORTS; i++) in_matched[i] = acc_oh[i] != '0;
      out_matched = any_input(acc_oh);
    end
    for (int unsigned i = 0; i < NPORTS; i++) begin
      first_in[i] = acc_first[i] != '0;
      in_pick[i]  = onehot_index(acc_oh[i]);
    end
    gptr_move = any_input(GRANT_ALL ? acc_oh : acc_first);
    for (int unsigned o = 0; o < NPORTS; o++) begin
      for (int unsigned i = 0; i < NPORTS; i++) col[i] = acc_oh[i][o];
      out_pick[o] = onehot_index(col);
    end
  end

  // ---- waiting bound: an output pins its pointer on a head it keeps passing over ----
  // wait_q[i][o]: output o passed over input i's head and counts since (at most one input
  // per output); pin_q[o]: FAIR_MATCHES reached. A pass is a cycle in which o could take
  // a new packet (free, a credit) and did not take that head: o matched another input, or
  // none (the head's input was busy, or restricted to outputs pinned on it). Idle cycles
  // count too: otherwise an output nobody else uses never pins its head, while other
  // outputs' pins keep that input from ever requesting it (found by the bounded check,
  // rtl/formal). The tracking ends when o matches that input, or when its head is gone.
  // No matching path goes through it (it starts from the matches and ends in flops), but
  // read live, its first-head picks load avail_i, and that cost the pipelined router 9-25%
  // of its Fmax (docs/SYNTH.md, session 37); FAIR_REG, on with PIPE, reads flopped copies.
  if (FAIR_MATCHES > 0) begin : gen_fair
    localparam int unsigned CntW = $clog2(FAIR_MATCHES + 1);
    logic [NPORTS-1:0][NPORTS-1:0] wait_q, wait_d;   // [input][output]
    logic [NPORTS-1:0][CntW-1:0]   cnt_q, cnt_d;
    logic [NPORTS-1:0]             pin_q;
    // per input, the one pinned output it waits for: kept until that output serves it,
    // then the next pinned one from the accept pointer. Waiting for any pinned output
    // instead, the input took whichever freed first, and its accept pointer passed a
    // busy pinned one each time: the lockstep again (found by the bounded check).
    logic [NPORTS-1:0][NPORTS-1:0] tgt_q, tgt_d, pins_in;   // [input][output]
    logic [NPORTS-1:0]             wcol, acol_o, acol_now, fcol, hcol;
    logic                          pass;   // o could take a new packet and did not take fcol's
    // What the tracking watches: the heads, the matches, the grant pointers they were made
    // from, and whether each output could take a new packet (chance). FAIR_REG: a cycle
    // late, from flops, so that the tracking adds no load to avail_i and the matches,
    // the nets of the buffer-allocator loop that sets the pipelined router's clock
    // (docs/SYNTH.md). A pin then comes a cycle after the pass that reaches FAIR_MATCHES,
    // and is dropped if that output takes the head in that cycle (acol_now, below).
    logic [NPORTS-1:0][NPORTS-1:0] seen_avail, seen_acc;   // [input][output]
    logic [NPORTS-1:0][PortW-1:0]  seen_gptr;
    logic [NPORTS-1:0]             seen_chance, chance;
    assign chance = out_matched | (out_free & credit_ok_i);
    if (FAIR_REG) begin : gen_seen_reg
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          seen_avail  <= '0;
          seen_acc    <= '0;
          seen_gptr   <= '0;
          seen_chance <= '0;
        end else begin
          seen_avail  <= avail_i;
          seen_acc    <= acc_oh;
          seen_gptr   <= gptr_a;
          seen_chance <= chance;
        end
      end
    end else begin : gen_seen_now
      assign seen_avail  = avail_i;
      assign seen_acc    = acc_oh;
      assign seen_gptr   = gptr_a;
      assign seen_chance = chance;
    end
    always_comb begin
      for (int unsigned o = 0; o < NPORTS; o++) begin
        for (int unsigned i = 0; i < NPORTS; i++) begin
          wcol[i]     = wait_q[i][o];
          acol_o[i]   = seen_acc[i][o];
          acol_now[i] = acc_oh[i][o];
          hcol[i]     = seen_avail[i][o];
        end
        // the first head at or after the pointer the matches were granted from
        fcol     = rr_onehot(hcol, seen_gptr[o]);
        pass     = seen_chance[o] && fcol != '0 && (fcol & acol_o) == '0;
        cnt_d[o] = cnt_q[o];
        pin_d[o] = pin_q[o];
        // Tracking a head that is still waiting: count the passes. Otherwise (none, or the
        // one tracked was served or is gone now) a pass starts on the first head, in the
        // same cycle: a match moves the pointer past that head, so a pass dropped here
        // would wait a whole round for the next one.
        if (wcol != '0 && (wcol & acol_o) == '0 && (wcol & hcol) != '0) begin
          if (seen_chance[o]) begin
            if (32'(cnt_q[o]) < FAIR_MATCHES) cnt_d[o] = cnt_q[o] + 1'b1;
            pin_d[o] = pin_q[o] || 32'(cnt_q[o]) + 1 >= FAIR_MATCHES;
          end
        end else if (pass) begin
          wcol     = fcol;        // passed over: start counting
          cnt_d[o] = CntW'(1);
          pin_d[o] = FAIR_MATCHES <= 1;
        end else begin
          wcol     = '0;
          cnt_d[o] = '0;
          pin_d[o] = 1'b0;
        end
        for (int unsigned i = 0; i < NPORTS; i++) wait_d[i][o] = wcol[i];
        wait_idx_d[o] = onehot_index(wcol);
        // FAIR_REG: no pin on a head its output takes now, which the late tracking does not
        // see yet; pinned, the pointer stayed on the input it had just served, and the
        // pinned input took that output twice running (3 ports, 4-flit full load: 0.833 of
        // link rate against 0.958, tb_rcube_islip_alloc). An AND-OR of a match column
        // beside the pointer's own move (gptr_d), ending in flops as that does.
        if (FAIR_REG && (wcol & acol_now) != '0) pin_d[o] = 1'b0;
      end
    end
    // from the pins as they stand, so a pin restricts its input one cycle after it is set
    // (and frees it one cycle after it is cleared). The next target is the first pinned
    // output after the last one (tptr): every output that stays pinned on the input gets
    // its turn. With one bank and one iteration the accept pointer is that pointer already
    // (the input accepts its target in a first iteration, which moves it one past); with
    // PIPE's two banks, or matches in later iterations, it is not: choosing from the
    // accepting bank's pointer, an input pinned by all three outputs took two of them in
    // turn and never the third (3 ports, PIPE: a queue waited 57 cycles and on, found by
    // the bounded check islip_alloc_wait_n3_pipe).
    localparam bit OwnTgtPtr = PIPE || ITERS > 1;
    logic [NPORTS-1:0][PortW-1:0] tptr;
    always_comb begin
      for (int unsigned i = 0; i < NPORTS; i++) begin
        pins_in[i] = wait_q[i] & pin_q;
        tgt_d[i]   = (tgt_q[i] & pins_in[i]) != '0 ? tgt_q[i] : rr_onehot(pins_in[i], tptr[i]);
      end
    end
    if (OwnTgtPtr) begin : gen_tptr
      logic [NPORTS-1:0][PortW-1:0] tptr_q;
      assign tptr = tptr_q;
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          tptr_q <= '0;
        end else begin
          for (int unsigned i = 0; i < NPORTS; i++) begin
            if (tgt_d[i] != '0 && tgt_d[i] != tgt_q[i]) begin
              tptr_q[i] <= next_of(onehot_index(tgt_d[i]));
            end
          end
        end
      end
    end else begin : gen_tptr_accept
      assign tptr = aptr_a;
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        wait_q  <= '0;
        cnt_q   <= '0;
        pin_q   <= '0;
        tgt_q   <= '0;
        allow_q <= '1;
      end else begin
        wait_q <= wait_d;
        cnt_q  <= cnt_d;
        pin_q  <= pin_d;
        tgt_q  <= tgt_d;
        for (int unsigned i = 0; i < NPORTS; i++) allow_q[i] <= tgt_d[i] != '0 ? tgt_d[i] : '1;
      end
    end
    assign pin_now = pin_q;
  end else begin : gen_no_fair
    assign pin_now    = '0;
    assign allow_q    = '1;
    assign pin_d      = '0;
    assign wait_idx_d = '0;
  end

  // ---- broadcast acquisition: a whole set in one cycle, or nothing ----
  // The round robin picks among inputs whose set is free of connections, in parallel with
  // the matching; the winner takes its set unless the matching gave one of its outputs
  // away in this cycle (then it tries again next cycle). Only that last check comes after
  // the matching, not the round robin as well.
  logic [NPORTS-1:0]             bc_cand, bc_win;   // bc_win: one-hot
  logic [NPORTS-1:0][NPORTS-1:0] bc_take;           // [input][output] taken at this edge
  logic [NPORTS-1:0]             bc_win_mask;
  logic                          bc_win_ok;
  logic [NPORTS-1:0][NPORTS-1:0] bc_win_sets;       // [input][output]: the winner's set
  always_comb begin
    for (int unsigned i = 0; i < NPORTS; i++) begin
      bc_cand[i] = bc_busy[i] && !bc_open[i] && !bc_hold_q[i] && bc_mask_i[i] != '0 &&
                   ((bc_mask_i[i] & ~out_open & credit_bc_i) == bc_mask_i[i]);
    end
    bc_win = rr_onehot(bc_cand, bptr_q);
    for (int unsigned i = 0; i < NPORTS; i++) bc_win_sets[i] = bc_win[i] ? bc_mask_i[i] : '0;
    bc_win_mask = any_input(bc_win_sets);
  end
  // Whether the matching gave an output of an input's set away is found for every input,
  // beside the round robin, so that the winner's take only ANDs its own bit: checked
  // against the winner's set (gathered over the inputs) it came after both, the deepest
  // path of the pipelined router's estimate (session 32).
  logic [NPORTS-1:0] bc_clash;
  always_comb begin
    for (int unsigned i = 0; i < NPORTS; i++) begin
      bc_clash[i] = (bc_mask_i[i] & out_matched) != '0;
      bc_take[i]  = (bc_win[i] && !bc_clash[i]) ? bc_mask_i[i] : '0;
    end
    bc_win_ok = (bc_win & ~bc_clash) != '0;
  end

  // An input holding its whole set starts (its credits are there) and keeps popping while
  // every output of the set has a credit (always, for packets of at most BCAST_PKT_FLITS).
  logic [NPORTS-1:0] bc_ready, bc_go;
  always_comb begin
    for (int unsigned i = 0; i < NPORTS; i++) begin
      bc_ready[i] = ((bc_held_q[i] & credit_ok_i) == bc_held_q[i]);
      bc_go[i]    = bc_avail_i[i] && bc_ready[i] && bc_hold_q[i] &&
                    (bc_open[i] || (bc_busy[i] && bc_held_q[i] == bc_mask_i[i]));
    end
  end

  // ---- pops, connections, crossbar setting ----
  // uni_oh[i]: the output input i's unicast pop goes to (a connection's, when its queue has
  // a flit and the output a credit, or a new match's); bc_oh[i]: a broadcast's set.
  logic [NPORTS-1:0][NPORTS-1:0] uni_oh, bc_oh, src;   // src: [output][input]
  // the next cycle's connections and reservations per [input][output], for out_open_d: the
  // ones kept (broadcasts not released now), and a new match's output; a broadcast taken now
  // adds the winner's set (bc_win_mask), as no input takes and releases in one cycle
  logic [NPORTS-1:0][NPORTS-1:0] conn_next, bc_stay;
  logic [NPORTS-1:0]             bc_release;   // the set is released at this edge
  always_comb begin
    pop_bc_o   = '0;
    bc_start_o = '0;
    bc_conn_d  = bc_open;
    bptr_d     = bptr_q;
    for (int unsigned i = 0; i < NPORTS; i++) begin
      // A match is only ever made for an input outside a connection (req), so the two
      // terms never overlap.
      uni_oh[i]     = (conn_oh[i] & avail_i[i] & credit_ok_i) | acc_oh[i];
      pop_o[i]      = uni_oh[i] != '0;
      pop_port_o[i] = onehot_index(uni_oh[i]);
      in_conn_d[i]  = (in_open[i] || in_matched[i]) && (uni_oh[i] & last_i[i]) == '0;
      in_port_d[i]  = in_matched[i] ? in_pick[i] : in_port_q[i];
      aptr_d[i]     = first_in[i] ? next_of(in_pick[i]) : aptr_a[i];
      bc_held_d[i]  = bc_keep[i] | bc_take[i];
      bc_oh[i]      = bc_go[i] ? bc_held_q[i] : '0;
      if (bc_go[i]) begin
        pop_bc_o[i]   = 1'b1;
        bc_start_o[i] = !bc_open[i];
        bc_conn_d[i]  = !bc_last_i[i];
      end
      // the set is released at the edge its last flit is popped
      bc_release[i] = bc_go[i] && bc_last_i[i];
      if (bc_release[i]) bc_held_d[i] = '0;
      // a winner's take is its set, never empty (bc_cand)
      bc_hold_d[i] = !bc_release[i] && (bc_hold_q[i] || (bc_win[i] && !bc_clash[i]));
      conn_next[i] = in_conn_d[i] ? (conn_oh[i] | acc_oh[i]) : '0;
      bc_stay[i]   = bc_release[i] ? '0 : bc_keep[i];
    end
    out_open_d = any_input(conn_next | bc_stay) | (bc_win_ok ? bc_win_mask : '0);
    if (bc_win_ok) bptr_d = next_of(onehot_index(bc_win));
    for (int unsigned o = 0; o < NPORTS; o++) begin
      for (int unsigned i = 0; i < NPORTS; i++) src[o][i] = uni_oh[i][o] || bc_oh[i][o];
      xvalid_d[o] = src[o] != '0;
      xsel_d[o]   = xvalid_d[o] ? onehot_index(src[o]) : xsel_q[0][o];
      gptr_d[o]   = pin_d[o] ? wait_idx_d[o] : gptr_move[o] ? next_of(out_pick[o]) : gptr_a[o];
    end
  end

  assign pop_oh_o   = uni_oh;
  assign out_open_o = out_open;
  assign sched_o  = xvalid_d;
  assign xvalid_o = xvalid_q[XBAR_LAT-1];
  assign xsel_o   = xsel_q[XBAR_LAT-1];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_conn_q  <= '0;
      in_port_q  <= '0;
      xvalid_q   <= '0;
      xsel_q     <= '0;
      bc_conn_q  <= '0;
      bc_held_q  <= '0;
      bc_hold_q  <= '0;
      bptr_q     <= '0;
      out_open_q <= '0;
    end else begin
      in_conn_q  <= in_conn_d;
      in_port_q  <= in_port_d;
      xvalid_q[0] <= xvalid_d;
      xsel_q[0]   <= xsel_d;
      for (int unsigned s = 1; s < XBAR_LAT; s++) begin
        xvalid_q[s] <= xvalid_q[s-1];
        xsel_q[s]   <= xsel_q[s-1];
      end
      bc_conn_q  <= bc_conn_d;
      bc_held_q  <= bc_held_d;
      bc_hold_q  <= bc_hold_d;
      bptr_q     <= bptr_d;
      out_open_q <= out_open_d;
    end
  end

`ifndef SYNTHESIS
  // The held outputs' flop is what the connections and reservations say.
  always_ff @(posedge clk_i or negedge rst_ni) begin : a_out_open
    if (rst_ni) begin
      assert (out_open_q == any_input(conn_oh | bc_keep))
        else $error("rcube_islip_alloc: out_open_q %b differs from the connections %b",
                    out_open_q, any_input(conn_oh | bc_keep));
    end
  end
  // The holding flag is the held set's OR.
  always_ff @(posedge clk_i or negedge rst_ni) begin : a_bc_hold
    if (rst_ni) begin
      for (int unsigned i = 0; i < NPORTS; i++) begin
        assert (bc_hold_q[i] == (bc_held_q[i] != '0))
          else $error("rcube_islip_alloc: input %0d holding flag %b, held set %b", i,
                      bc_hold_q[i], bc_held_q[i]);
      end
    end
  end
  // Wormhole: no output is held by two inputs.
  always_ff @(posedge clk_i or negedge rst_ni) begin : a_wormhole
    if (rst_ni) begin
      for (int unsigned o = 0; o < NPORTS; o++) begin
        int n;
        n = 0;
        for (int unsigned i = 0; i < NPORTS; i++) begin
          n += int'(in_conn_q[i] && in_port_q[i] == PortW'(o));
          n += int'(bc_held_q[i][o]);
        end
        assert (n <= 1) else $error("rcube_islip_alloc: output %0d has %0d connections", o, n);
      end
    end
  end
  // The crossbar setting gathers each output's source with ORs: one source at most.
  always_ff @(posedge clk_i or negedge rst_ni) begin : a_one_source
    if (rst_ni) begin
      for (int unsigned o = 0; o < NPORTS; o++) begin
        assert ($onehot0(src[o])) else $error("rcube_islip_alloc: output %0d has sources %b",
                                              o, src[o]);
      end
    end
  end
`endif

endmodule
