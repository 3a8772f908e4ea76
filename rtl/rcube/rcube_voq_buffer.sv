// Dynamically allocated multi-queue buffer (DAMQ, Tamir & Frazier 1988): NQ FIFO
// queues as linked lists in one DEPTH-slot memory, plus a free list.
//
// The link gives an input one credit pool of DEPTH slots (the sender does not know
// our outputs), so the queues share the slots: any mix of up to DEPTH entries fits
// and a full queue never blocks another one, which per-queue FIFOs of DEPTH/NQ could
// not promise.
//
// One push and one pop per cycle. A pop is scheduled one cycle ahead: pop_i in cycle
// c takes the front of queue pop_q_i at the edge and rd_data_o shows it during c+1.
// The flit pushed in the same cycle may be popped at once (it bypasses the memory),
// which is what keeps a router hop at 2 cycles. avail_o says which queues may be
// popped this cycle. inj_i offers push_data_i to an empty queue push_q_i for this
// cycle only, without a slot: it is taken if popped now (bypass) and forgotten if not
// (the router input uses it to end a stalled packet with an EEP flit).
//
// REG_POP = 1 registers the pop: pop_i in cycle c is a decision, carried out at the
// edge that ends c+1, and rd_data_o shows the entry during c+2. The scheduler's path
// then ends in that register instead of running on through this module's queue and
// free-list state. avail_o and head_last_o look ahead: they describe the queues as the
// registered pop leaves them (plus this cycle's push or offer), so the scheduler may pop
// a queue again in the cycle after, and pops this module carries out never find their
// queue empty, except an offered entry taken (inj_i and pop_i on its queue in the same
// cycle): its data is kept until the pop is carried out. count_o and has_free_o stay the
// stored state (a slot is free again when the pop is carried out).
//
// Deep buffers have to live in block RAM, which reads synchronously: address in cycle
// c, data in c+1. All three memories (flits, `next` links, free list) are used that
// way, one write and one read port each, and nothing is ever read combinationally
// from them:
// - the flit of the popped head is read at the pop edge (it is needed in c+1 anyway);
// - each queue keeps its second slot (h2) next to its head, so a pop knows the new
//   head at once; the new second slot, next[h2], is read at the pop edge and used
//   from the read register in the following cycle (fix_*), until it is stored in h2;
// - the free list's head is a register (or the free-list RAM's read register) refilled
//   one cycle ahead; a slot released while that head is empty goes straight into it;
//   slots never used since reset are handed out by a counter, so the RAMs need no
//   initialisation.
// The top bit of an entry (the router's `last` flag) of each queue's head is kept in a
// register as well (head_last_o), so whoever schedules the pops knows whether the entry
// it pops ends a packet without waiting for the read: the `next` links carry the top bit
// of the entry they point to, and h2 keeps its own.
// LOOKAHEAD = 1 adds last2_o and last3_o: the entry after the one a pop would take (or
// the one after that) is stored and has the top bit set. An allocator that opens an
// output to its next packet while the current one's last flits are still queued needs
// them (rcube_spec_alloc's last2_i and last3_i). Without a pending pop they are the second
// and third entries' bits; with REG_POP's pending pop the third and fourth entries',
// which no register held: each queue keeps the bits of its third and fourth entries
// (h3l, h4l), refilled at a pop from two one-bit memories that hold, per slot, the top
// bit of the entry two and three behind it. Those bits are written when that entry is
// pushed, at the slots two and three before it (a register per queue each), and read at
// the pop edge beside `next`, so they are ready when the fix is.
//
// Synthesis maps this module on its own (keep_hierarchy; rtl/synth/synth.py keeps the
// marked modules). Flattened together with the route lookup that drives push_q_i and
// the allocator that drives pop_q_i, ABC's depth-first LUT mapping duplicated logic
// across them: the 8-port VOQ router took 30.7k LUT4, against 24.3k with the buffer
// mapped apart, at the same Fmax within the seed spread (docs/SYNTH.md, session 28).
(* keep_hierarchy *)
module rcube_voq_buffer #(
  parameter int unsigned NQ    = 8,
  parameter int unsigned DEPTH = 16,
  parameter int unsigned W     = 66,
  // 1: avail_o leaves out this cycle's push (a flit can be popped from the cycle after
  // it arrived), so it comes from flops, not from the writer's route lookup.
  parameter bit          REG_AVAIL = 1'b0,
  // 1: pop_i is carried out a cycle later, from a register (above).
  parameter bit          REG_POP = 1'b0,
  // 1: last2_o and last3_o (above); 0: they are '0 and the state behind them is left out.
  parameter bit          LOOKAHEAD = 1'b0,
  localparam int unsigned QW   = (NQ > 1) ? $clog2(NQ) : 1,
  localparam int unsigned CntW = $clog2(DEPTH + 1)
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  // write side: at most one entry per cycle, into queue push_q_i
  input  logic                     push_i,
  input  logic                     inj_i,        // offer without a slot (see above); not with push_i
  input  logic [QW-1:0]            push_q_i,
  input  logic [W-1:0]             push_data_i,
  // read side
  output logic [NQ-1:0]            avail_o,      // queue has an entry now or pushed now
  output logic [NQ-1:0]            head_last_o,  // top bit of the entry a pop would take now
  output logic [NQ-1:0]            last2_o,      // the entry after that one is stored, top bit set
  output logic [NQ-1:0]            last3_o,      // the same for the entry after that
  input  logic                     pop_i,        // requires avail_o[pop_q_i]
  input  logic [QW-1:0]            pop_q_i,
  // The same pop one-hot (pop_i && pop_q_i == q), for the per-queue state behind
  // REG_POP's register: a compare per queue there put the scheduler's encoder and the
  // compare on the scheduler's path. Kept apart from the queue number, which selects in
  // the memories: the encoder moved in here, the 8-port router without REG_POP took
  // 24.5k -> 31.6k LUT4 in Yosys' depth mapping (session 32).
  input  logic [NQ-1:0]            pop_oh_i,
  output logic                     rd_valid_o,   // the entry popped at the last edge (above)
  output logic [W-1:0]             rd_data_o,
  output logic [NQ-1:0][CntW-1:0]  count_o,      // entries per queue (for tests, status)
  output logic [NQ-1:0]            empty_next_o, // count_o of the queue is 0 after this edge
  output logic                     has_free_o    // a slot is free (at the start of the cycle)
);
  localparam int unsigned AW = (DEPTH > 1) ? $clog2(DEPTH) : 1;

  // ---- queue state ----
  logic [NQ-1:0][AW-1:0]   head_q, h2_q, tail_q;
  logic [NQ-1:0]           hl_q, h2l_q;   // top bit of the head's and h2's entry
  logic [NQ-1:0][CntW-1:0] cnt_q;
  logic                    fix_q;      // next_rd_q holds the new h2 of queue fix_qn_q
  logic [QW-1:0]           fix_qn_q;
  logic [AW-1:0]           next_rd_q;
  logic                    next_rd_l_q;
  // Per-queue emptiness from the count flops, so that the late push and pop selects pick
  // one bit each, not a count to compare.
  logic [NQ-1:0]           q_empty;
  always_comb for (int unsigned q = 0; q < NQ; q++) q_empty[q] = (cnt_q[q] == '0);

  // ---- the pop carried out at this edge: this cycle's (REG_POP = 0) or the last ----
  logic          x_pop;    // a pop is carried out
  logic [QW-1:0] x_q;      // ... of this queue
  logic          x_inj;    // ... and takes the entry offered a cycle ago (REG_POP)
  logic [NQ-1:0] x_oh;     // ... one-hot
  logic          pop_h2l;  // top bit of the second entry of the queue popped now (below)
  if (REG_POP) begin : gen_pop_reg
    logic          pop_r_q, inj_r_q;
    logic [QW-1:0] pop_q_r_q;
    logic [NQ-1:0] pop_oh_r_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        pop_r_q    <= 1'b0;
        pop_q_r_q  <= '0;
        pop_oh_r_q <= '0;
        inj_r_q    <= 1'b0;
      end else begin
        pop_r_q    <= pop_i;
        pop_q_r_q  <= pop_q_i;
        pop_oh_r_q <= pop_oh_i;
        inj_r_q    <= inj_i && pop_oh_i[push_q_i];
      end
    end
    assign x_pop  = pop_r_q;
    assign x_q    = pop_q_r_q;
    assign x_oh   = pop_oh_r_q;
    assign x_inj  = inj_r_q;
  end else begin : gen_pop_now
    assign x_pop      = pop_i;
    assign x_q        = pop_q_i;
    assign x_oh       = pop_oh_i;
    assign x_inj      = 1'b0;   // taken through the bypass below
  end

  // Queues as the pop carried out now leaves them: with REG_POP the scheduler's view
  // (gen_lookahead_reg below). la_rel: the pending pop takes the queue's head, which
  // leaves its second entry in front (top bit h2l_now, pop_h2l of the popped queue taken
  // per queue: the one-hot pop picks a queue's own bits, where the queue number's select
  // of all queues' bits was on the way to the scheduler's `last`, session 32).
  logic [NQ-1:0] empty_after, la_rel, h2l_now;
  always_comb begin
    for (int unsigned q = 0; q < NQ; q++) begin
      h2l_now[q]     = (fix_q && fix_qn_q == QW'(q)) ? next_rd_l_q : h2l_q[q];
      avail_o[q]     = !empty_after[q];
      head_last_o[q] = la_rel[q] ? h2l_now[q] : hl_q[q];
    end
    if ((push_i && !REG_AVAIL) || inj_i) begin
      avail_o[push_q_i] = 1'b1;
      if (empty_after[push_q_i]) head_last_o[push_q_i] = push_data_i[W-1];
    end
  end
  assign count_o = cnt_q;

  // ---- free list: head register, RAM FIFO behind it, fresh-slot counter ----
  logic [AW-1:0]   fhead_q, free_rd_q;   // free_rd_q: the free-list RAM's read register
  logic            fhead_v_q, fhead_ram_q;
  logic [AW-1:0]   fl_rptr_q, fl_wptr_q;
  logic [CntW-1:0] fl_cnt_q;             // entries in the free-list RAM
  logic [CntW-1:0] fresh_q;              // slots fresh_q..DEPTH-1 never used since reset

  logic [AW-1:0] wr_slot, fhead;
  assign fhead   = fhead_ram_q ? free_rd_q : fhead_q;
  assign wr_slot = fhead_v_q ? fhead : AW'(fresh_q);
  // The free-list RAM is only non-empty while its head is valid.
  assign has_free_o = fhead_v_q || fresh_q != CntW'(DEPTH);

  function automatic logic [AW-1:0] wrap_inc(logic [AW-1:0] p);
    return (p == AW'(DEPTH - 1)) ? '0 : p + 1'b1;
  endfunction

  // ---- the pop carried out now ----
  logic [CntW-1:0] pop_cnt;
  logic            pop_empty;      // the queue has no stored entry: bypass or offered entry
  logic            bypass;         // popping what is pushed or offered in this very cycle
  logic [AW-1:0]   pop_h2;         // second slot of the popped queue, fix applied
  logic [AW-1:0]   rel_slot;       // slot freed by the pop
  logic            rel;            // a slot goes back to the free list
  assign pop_cnt   = cnt_q[x_q];
  assign pop_empty = q_empty[x_q];
  // With REG_POP nothing is popped in the cycle it arrives: the scheduler decided a
  // cycle ago, when this push was not there.
  assign bypass    = !REG_POP && x_pop && pop_empty;
  assign pop_h2    = (fix_q && fix_qn_q == x_q) ? next_rd_q : h2_q[x_q];
  assign pop_h2l   = (fix_q && fix_qn_q == x_q) ? next_rd_l_q : h2l_q[x_q];
  assign rel_slot  = head_q[x_q];
  // A bypassed push or an injection never takes a slot.
  assign rel       = x_pop && !pop_empty;

  // Free-list refill: the head is needed again when it is used now or empty.
  logic push_stored;              // the pushed entry takes a slot (not bypassed)
  logic take_fhead, take_fresh, need_fhead, fl_read, rel_to_head, fl_write;
  always_comb begin
    push_stored = push_i && !bypass;
    take_fhead  = push_stored && fhead_v_q;
    take_fresh  = push_stored && !fhead_v_q;
    need_fhead  = take_fhead || !fhead_v_q;
    fl_read     = need_fhead && fl_cnt_q != '0;
    rel_to_head = need_fhead && fl_cnt_q == '0 && rel;
    fl_write    = rel && !rel_to_head;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fhead_q     <= '0;
      fhead_v_q   <= 1'b0;
      fhead_ram_q <= 1'b0;
      fl_rptr_q   <= '0;
      fl_wptr_q   <= '0;
      fl_cnt_q    <= '0;
      fresh_q     <= '0;
    end else begin
      if (take_fresh) fresh_q <= fresh_q + 1'b1;
      if (fl_read) fl_rptr_q <= wrap_inc(fl_rptr_q);
      if (fl_write) fl_wptr_q <= wrap_inc(fl_wptr_q);
      // the next counts come from the flop, the late write/read decisions only select
      if (fl_write && !fl_read) fl_cnt_q <= fl_cnt_q + 1'b1;
      if (fl_read && !fl_write) fl_cnt_q <= fl_cnt_q - 1'b1;
      // The head is copied out of the RAM read register whenever it stays, so that
      // register only has to hold for one cycle.
      fhead_q     <= rel_to_head ? rel_slot : fhead;
      fhead_ram_q <= fl_read;
      if (need_fhead) fhead_v_q <= fl_read || rel_to_head;
    end
  end

  logic [AW-1:0] free_mem_q [DEPTH];
  always_ff @(posedge clk_i) begin
    if (fl_write) free_mem_q[fl_wptr_q] <= rel_slot;
    if (fl_read) free_rd_q <= free_mem_q[fl_rptr_q];
  end

  // ---- queue pointers ----
  logic          link_push;        // push behind an existing tail: write next[tail]
  logic          read_next;        // new h2 is next[pop_h2], read at this edge
  logic [AW-1:0] push_tail;
  assign push_tail = tail_q[push_q_i];
  always_comb begin
    link_push = push_i && !q_empty[push_q_i];
    read_next = x_pop && pop_cnt > CntW'(2);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      head_q   <= '0;
      h2_q     <= '0;
      hl_q     <= '0;
      h2l_q    <= '0;
      tail_q   <= '0;
      cnt_q    <= '0;
      fix_q    <= 1'b0;
      fix_qn_q <= '0;
    end else begin
      if (fix_q) begin
        h2_q[fix_qn_q]  <= next_rd_q;
        h2l_q[fix_qn_q] <= next_rd_l_q;
      end
      fix_q    <= read_next;
      fix_qn_q <= x_q;
      // pop first, then the push sees the queue as the pop left it
      if (rel) begin
        head_q[x_q] <= pop_h2;
        hl_q[x_q]   <= pop_h2l;
      end
      if (push_stored) begin
        tail_q[push_q_i] <= wr_slot;
        // REG_POP: a carried-out pop of an offered entry (no stored one) does not count;
        // without it, a pop of an empty queue is a bypass, and then nothing is stored.
        // (The simpler pop test keeps the default's case select as shallow as it was:
        // `rel` here made the 8-port router 24.3k -> 28.4k LUT4, session 29.)
        unique case (cnt_q[push_q_i] - CntW'((REG_POP ? rel : x_pop) && x_q == push_q_i))
          CntW'(0): begin
            head_q[push_q_i] <= wr_slot;
            hl_q[push_q_i]   <= push_data_i[W-1];
          end
          CntW'(1): begin
            h2_q[push_q_i]  <= wr_slot;
            h2l_q[push_q_i] <= push_data_i[W-1];
          end
          default: ;
        endcase
      end
      // Only the pushed and the popped queue change (one update per cycle, not NQ:
      // the simulator evaluates every input's buffer each cycle).
      if (push_stored && !(rel && x_q == push_q_i)) begin
        cnt_q[push_q_i] <= cnt_q[push_q_i] + 1'b1;
      end
      if (rel && !(push_stored && x_q == push_q_i)) cnt_q[x_q] <= cnt_q[x_q] - 1'b1;
    end
  end

  // With REG_POP whether a queue is empty once its pending pop is carried out is a flop
  // per queue, set at the edge the pop is decided from the counts as that edge leaves
  // them: avail_o, where the scheduler's cycle starts, then comes from it instead of
  // from count compares and the pending pop's queue select (they moved to the end of the
  // cycle before, where the decision only picks the queue). The same for la_rel (which
  // head_last_o needs) took the 8-port pipelined router from 25.8k to 30.6k LUT4 in
  // Yosys' depth mapping (session 31), so that one stays a bit of the pop register.
  // Without REG_POP there is no pending pop: the queues as they are.
  if (REG_POP) begin : gen_lookahead_reg
    logic [NQ-1:0] empty_after_q;
    logic [NQ-1:0] here_push, here_rel, here_pop, next_zero, next_one;
    always_comb begin
      for (int unsigned q = 0; q < NQ; q++) begin
        here_push[q] = push_stored && push_q_i == QW'(q);
        here_rel[q]  = rel && x_q == QW'(q);
        // the count after this edge is 0 or 1 (it moves by one at most)
        next_zero[q] = (q_empty[q] && !here_push[q]) ||
                       (cnt_q[q] == CntW'(1) && here_rel[q] && !here_push[q]);
        next_one[q]  = (cnt_q[q] == CntW'(1) && here_push[q] == here_rel[q]) ||
                       (q_empty[q] && here_push[q] && !here_rel[q]) ||
                       (cnt_q[q] == CntW'(2) && here_rel[q] && !here_push[q]);
        here_pop[q]  = pop_oh_i[q];
      end
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        empty_after_q <= '1;
      end else begin
        for (int unsigned q = 0; q < NQ; q++) begin
          empty_after_q[q] <= next_zero[q] || (here_pop[q] && next_one[q]);
        end
      end
    end
    assign empty_after = empty_after_q;
    always_comb begin
      for (int unsigned q = 0; q < NQ; q++) la_rel[q] = x_oh[q] && !q_empty[q];
    end
  end else begin : gen_lookahead_now
    logic unused_x_oh;   // without REG_POP nothing waits behind a register
    assign unused_x_oh = ^x_oh;
    assign empty_after = q_empty;
    assign la_rel      = '0;
  end

  // Lets the writer register a decision that needs an empty queue (the stall timeout's
  // injection) a cycle ahead instead of reading count_o through a select in its cycle.
  // With REG_POP only: otherwise it depends on this cycle's pop, and even unused, the
  // output changed how the module alone was mapped (the 8-port router 24.3k -> 29.0k
  // LUT4, session 29).
  // With REG_POP the pop carried out now is the lookahead's pending one (empty_after).
  if (REG_POP) begin : gen_empty_next
    always_comb begin
      for (int unsigned q = 0; q < NQ; q++) begin
        empty_next_o[q] = empty_after[q] && !(push_stored && push_q_i == QW'(q));
      end
    end
  end else begin : gen_no_empty_next
    assign empty_next_o = '0;
  end

  // ---- hints of the second and third entries (LOOKAHEAD, see the top) ----
  if (LOOKAHEAD) begin : gen_lookahead_hints
    logic [NQ-1:0][AW-1:0] ptail_q, pptail_q;   // the slots one and two before each tail
    logic [NQ-1:0]         h3l_q, h4l_q, h3l_now, h4l_now;   // third and fourth entries' bits
    logic                  fix3_q, fix4_q;      // next3/4_rd_l_q hold them for queue fix_qn_q
    logic                  next3_rd_l_q, next4_rd_l_q;
    logic                  two_behind_l_q [DEPTH];
    logic                  three_behind_l_q [DEPTH];
    logic                  read_two_behind, read_three_behind;
    // Per queue, how many entries a push there would have in front of it once this edge's
    // pop is carried out (at least two / three, exactly two / three), from the count flops
    // and the pop's one-hot bit: the push then selects one bit. (The count's select and
    // subtract in front of a compare made these write enables the pipelined router's
    // second deepest estimate, 13.2 LUT4 levels, session 43.)
    logic [NQ-1:0]         pend_pop, pos_ge2, pos_ge3, pos_eq2, pos_eq3;
    always_comb begin
      for (int unsigned q = 0; q < NQ; q++) begin
        // REG_POP: a carried-out pop of an offered entry (no stored one) does not count
        pend_pop[q] = REG_POP ? la_rel[q] : x_oh[q];
        pos_ge2[q]  = 32'(cnt_q[q]) >= 3 || (32'(cnt_q[q]) == 2 && !pend_pop[q]);
        pos_ge3[q]  = 32'(cnt_q[q]) >= 4 || (32'(cnt_q[q]) == 3 && !pend_pop[q]);
        pos_eq2[q]  = pend_pop[q] ? 32'(cnt_q[q]) == 3 : 32'(cnt_q[q]) == 2;
        pos_eq3[q]  = pend_pop[q] ? 32'(cnt_q[q]) == 4 : 32'(cnt_q[q]) == 3;
      end
    end
    // Read only when the pop leaves such an entry that was stored before this edge: else
    // the entry pushed at this edge is it, and is taken directly (its bit is written to
    // the memory at this very edge).
    assign read_two_behind   = x_pop && 32'(pop_cnt) > 3;
    assign read_three_behind = x_pop && 32'(pop_cnt) > 4;
    always_ff @(posedge clk_i) begin
      if (push_stored && pos_ge2[push_q_i]) two_behind_l_q[ptail_q[push_q_i]] <= push_data_i[W-1];
      if (push_stored && pos_ge3[push_q_i]) three_behind_l_q[pptail_q[push_q_i]] <= push_data_i[W-1];
      if (read_two_behind) next3_rd_l_q <= two_behind_l_q[pop_h2];
      if (read_three_behind) next4_rd_l_q <= three_behind_l_q[pop_h2];
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        ptail_q  <= '0;
        pptail_q <= '0;
        h3l_q    <= '0;
        h4l_q    <= '0;
        fix3_q   <= 1'b0;
        fix4_q   <= 1'b0;
      end else begin
        fix3_q <= read_two_behind;
        fix4_q <= read_three_behind;
        if (fix3_q) h3l_q[fix_qn_q] <= next3_rd_l_q;
        if (fix4_q) h4l_q[fix_qn_q] <= next4_rd_l_q;
        if (push_stored) begin
          ptail_q[push_q_i]  <= push_tail;
          pptail_q[push_q_i] <= ptail_q[push_q_i];
          if (pos_eq2[push_q_i]) h3l_q[push_q_i] <= push_data_i[W-1];
          if (pos_eq3[push_q_i]) h4l_q[push_q_i] <= push_data_i[W-1];
        end
      end
    end
    // From flops only: the counts, the pending pop's bit (la_rel) and the fixes.
    always_comb begin
      for (int unsigned q = 0; q < NQ; q++) begin
        h3l_now[q] = (fix3_q && fix_qn_q == QW'(q)) ? next3_rd_l_q : h3l_q[q];
        h4l_now[q] = (fix4_q && fix_qn_q == QW'(q)) ? next4_rd_l_q : h4l_q[q];
        last2_o[q] = la_rel[q] ? (h3l_now[q] && cnt_q[q] >= CntW'(3))
                               : (h2l_now[q] && cnt_q[q] >= CntW'(2));
        last3_o[q] = la_rel[q] ? (h4l_now[q] && 32'(cnt_q[q]) >= 4)
                               : (h3l_now[q] && cnt_q[q] >= CntW'(3));
      end
    end
  end else begin : gen_no_lookahead_hints
    assign last2_o = '0;
    assign last3_o = '0;
  end

  // ---- memories: flits and links, one write + one synchronous read port each ----
  // A link is only read once written (a queue of three or more entries; with two,
  // the pushed slot becomes h2 directly), and the slots read are never the one
  // written in the same cycle, so read-during-write behaviour does not matter.
  logic [W-1:0]  mem_q  [DEPTH];
  logic [AW:0]   next_q [DEPTH];   // {top bit of the entry, its slot}
  logic [W-1:0]  rd_mem_q, byp_data_q;
  // With REG_POP an offered entry taken is carried out into the read register from
  // byp_data_q, the write port's data of the cycle before, which is the offered entry
  // then (no register of its own, and nothing of the pop decision on the data's way).
  always_ff @(posedge clk_i) begin
    if (push_i) mem_q[wr_slot] <= push_data_i;
    if (x_pop) rd_mem_q <= x_inj ? byp_data_q : mem_q[head_q[x_q]];
    if (link_push) next_q[push_tail] <= {push_data_i[W-1], wr_slot};
    if (read_next) {next_rd_l_q, next_rd_q} <= next_q[pop_h2];
    byp_data_q <= push_data_i;
  end

  logic byp_q, rd_valid_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      byp_q      <= 1'b0;
      rd_valid_q <= 1'b0;
    end else begin
      byp_q      <= bypass;
      rd_valid_q <= x_pop;
    end
  end
  assign rd_valid_o = rd_valid_q;
  assign rd_data_o  = byp_q ? byp_data_q : rd_mem_q;

`ifndef SYNTHESIS
  logic [CntW:0] in_use;
  always_comb begin
    in_use = '0;
    for (int unsigned q = 0; q < NQ; q++) in_use += (CntW + 1)'(cnt_q[q]);
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin : a_protocol
    if (rst_ni) begin
      assert (!push_i || in_use < (CntW + 1)'(DEPTH))
        else $error("rcube_voq_buffer: push with no free slot");
      assert (!pop_i || avail_o[pop_q_i]) else $error("rcube_voq_buffer: pop of an empty queue");
      assert (pop_oh_i == (pop_i ? NQ'(1) << pop_q_i : '0))
        else $error("rcube_voq_buffer: one-hot pop %b is not pop %b of queue %0d", pop_oh_i,
                    pop_i, pop_q_i);
      assert (!(push_i && inj_i)) else $error("rcube_voq_buffer: push and inject together");
      assert (!inj_i || cnt_q[push_q_i] == '0) else $error("rcube_voq_buffer: inject into a busy queue");
      assert (!REG_POP || !x_pop || !pop_empty || x_inj)
        else $error("rcube_voq_buffer: registered pop of an empty queue");
      // the lookahead flop is what the pending pop makes of the queues
      for (int unsigned q = 0; q < NQ; q++) begin
        assert (empty_after[q] == (q_empty[q] || (la_rel[q] && cnt_q[q] == CntW'(1))))
          else $error("rcube_voq_buffer: queue %0d's empty_after flop is wrong", q);
      end
      // every slot used since reset is in a queue, in the free list or its head
      assert (32'(in_use) + 32'(fl_cnt_q) + 32'(fhead_v_q) == 32'(fresh_q))
        else $error("rcube_voq_buffer: slot accounting broken");
    end
  end
`endif

endmodule
