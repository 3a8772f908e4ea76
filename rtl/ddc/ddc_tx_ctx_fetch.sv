// Descriptor fetch for several contexts: round robin between the LME rings with work,
// and between the contexts' messages a segment at a time (TX_QUANTUM).
//
// Each context has its own fetch index; a descriptor read goes to the next context, round
// robin (rr_pick: the pointer moves past a context only when its read is issued),
// among those whose fetch index is behind their producer. Fetched descriptors
// wait in a shared store of DescDepth slots, each context's in a list in its ring order
// (head, tail, next pointers), so no context's backlog stands in front of another's.
//
// The read engine is offered the head descriptor of the next context with one, round
// robin again (its pointer moves past the context of every take). The offer is built in
// two registered steps, each a cycle of its own: the pick (which context, and its head
// slot) and the offer (the store read at that slot, the clash check and the segment
// arithmetic). In one cycle, the choice, the store read and the clash compare made the
// NIC's longest path (docs/SYNTH.md); before that the offer shared a cycle with the read
// engine's checks and packet cutting. Both registers follow the current state every
// cycle, so a context that gets work while the read engine is busy is offered as soon as
// its turn comes. A take empties both for a cycle while the state they come from is
// updated: takes are at most one per three cycles, and the shortest message needs more
// link cycles than that.
//
// With tx_quantum_i = q != 0 a unicast message longer than 2^q bytes is offered in
// segments of 2^q bytes: each take covers [off, off + 2^q), the context's offset
// advances, and the arbiter moves on, so between two segments of one message every other
// context with work gets one segment or one shorter message. The descriptor leaves the
// store with its final segment (desc_end_i: the take was its last, or the read engine
// refused it), so each context's messages still go out one after the other, in ring
// order. The first segment's sequence number, lag and completion record (take_*_i, from
// ddc_tx_complete) are kept per context for the later segments. The receiver counts a
// message's bytes under (source, msg_id) (ddc_rx_msg_track), and msg_id is numbered per
// context: a message does not start while another context's message with the same dest
// and msg_id is open (cut, final segment not yet taken); the arbiter passes over it for
// that turn. Broadcasts and inline descriptors are never cut (their packets are short
// already; an inline one is at most 64 bytes).
//
// Reads are issued only when the store has a slot for their result (counting reads in
// flight), and one slot stays free for every other context with a ring (lme_size != 0)
// that has nothing stored or in flight: a context that posted first cannot fill the store
// and hold the others' first descriptors back behind its whole backlog; no read starts in
// a context's ring reset cycle. Responses come back in request order; the context of each
// read waits in a small tag ring until its fourth beat completes the descriptor.
//
// Each descriptor is checked as it enters the store (ddc_tx_desc_check) and its error
// code is kept beside it, so the checks are not in the offer -> take -> packet cut path.
//
// The push window (ddc_push) belongs to context 0: a pushed descriptor stands for its
// slot of context 0's ring and enters the store from the window, beside the read round
// robin rather than through it, once every earlier read has answered; no read starts
// while it waits.
//
// flush_i (page 0's ring reset) restarts every context's fetch index; ctx_reset_i[k]
// restarts context k's only, and comes only while context k has nothing in flight
// (ddc_ctx_csr refuses LME_SIZE while a context has descriptors not completed).
module ddc_tx_ctx_fetch
  import fasthsl_pkg::*;
#(
  parameter int unsigned DescDepth = 16,
  parameter int unsigned NumCtx    = CTX_COUNT,
  parameter int unsigned RecW      = 5,
  localparam int unsigned CtxW     = (NumCtx > 1) ? $clog2(NumCtx) : 1,
  localparam int unsigned MsgLenW  = $clog2(MSG_LEN_MAX + 1)
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic                          flush_i,      // pulse: every fetch index back to 0
  input  logic                          drain_i,      // flush in progress: discard the queue
  input  logic [NumCtx-1:0]             ctx_reset_i,  // pulse: context k's fetch index to 0

  input  logic                          enable_i,
  input  logic [4:0]                    tx_quantum_i,  // TX_QUANTUM (0: whole messages)
  input  logic [15:0]                   dest_lo_i,
  input  logic [15:0]                   dest_hi_i,
  input  logic [NumCtx-1:0][63:0]       lme_base_i,
  input  logic [NumCtx-1:0][15:0]       lme_size_i,
  input  logic [NumCtx-1:0][15:0]       lme_prod_i,

  // Push window (context 0): the descriptor of slot push_slot_i, if push_valid_i.
  input  logic                          push_valid_i,
  input  logic [15:0]                   push_slot_i,
  input  logic [63:0]                   push_local_i,
  input  logic [79:0]                   push_remote_i,   // {key, word 1}
  input  logic [63:0]                   push_w2_i,
  input  logic [31:0]                   push_msg_id_i,
  output logic                          push_take_o,

  // Descriptor reads (4 beats each).
  output logic                          req_valid_o,
  input  logic                          req_ready_i,
  output logic [63:0]                   req_addr_o,

  // Response beats of descriptor reads, in order.
  input  logic                          rsp_valid_i,
  input  logic [63:0]                   rsp_data_i,

  // Descriptors: each context's in its ring order, contexts interleaved.
  output logic                          desc_valid_o,
  input  logic                          desc_ready_i,
  output logic [CtxW-1:0]               desc_ctx_o,
  // The segment's first byte: local_addr + off, and the remote address (bits 47:0) + off.
  output logic [63:0]                   desc_local_o,
  // {key (word 3 bits 63:48), word 1 (dctx, remote address)}
  output logic [79:0]                   desc_remote_o,
  output logic [15:0]                   desc_dest_o,
  output logic [7:0]                    desc_flags_o,
  output logic [31:0]                   desc_msg_id_o,
  output logic                          desc_inline_o,
  output logic                          desc_pushed_o,
  output desc_err_e                     desc_err_o,   // the descriptor's checks
  // The segment offered: message bytes [off, off + seg_len), whether it ends the message,
  // and for a later segment (off != 0) the first segment's seq, lag and record.
  output logic [MsgLenW-1:0]            desc_off_o,
  output logic [MsgLenW-1:0]            desc_seg_len_o,
  output logic                          desc_final_o,
  output logic [7:0]                    desc_seq_o,
  output logic [3:0]                    desc_lag_o,
  output logic [RecW-1:0]               desc_rec_o,
  input  logic                          desc_end_i,   // with the take: the descriptor is done
  input  logic [7:0]                    take_seq_i,   // with a first segment's take
  input  logic [3:0]                    take_lag_i,
  input  logic [RecW-1:0]               take_rec_i,

  output logic                          idle_o        // nothing stored
);
  localparam int unsigned CntW = $clog2(DescDepth + 1);
  localparam int unsigned TagW = (DescDepth > 1) ? $clog2(DescDepth) : 1;

  typedef struct packed {
    logic [CtxW-1:0] ctx;
    logic [63:0]     local_addr;
    logic [79:0]     remote_addr;
    logic [31:0]     len;
    logic [15:0]     dest;
    logic [7:0]      flags;
    logic [31:0]     msg_id;
    logic            inl;
    logic            pushed;
  } desc_t;

  logic [NumCtx-1:0][15:0] idx_q, idx_d;
  logic [CntW-1:0]         inflight_q, inflight_d;
  logic [1:0]              beat_q, beat_d;
  logic [63:0]             w0_q, w1_q;
  logic [31:0]             len_q;
  logic [15:0]             dest_q;
  logic [7:0]              flags_q;
  logic                    inl_q;
  // Contexts of the reads in flight, in issue order (responses come back in that order).
  logic [DescDepth-1:0][CtxW-1:0] tag_q, tag_d;
  logic [TagW-1:0]                tag_wp_q, tag_wp_d, tag_rp_q, tag_rp_d;

  // The store: slots, a free map, and per context a list in ring order.
  desc_t                          mem_q [DescDepth];
  desc_err_e                      err_mem_q [DescDepth];
  // A copy of each slot's {dest, msg_id}, read at the pick (see pk_key_q).
  logic [47:0]                    key_mem_q [DescDepth];
  logic [DescDepth-1:0]           free_q, free_d;
  logic [DescDepth-1:0][TagW-1:0] nxt_q, nxt_d;
  logic [NumCtx-1:0][TagW-1:0]    head_q, head_d, tail_q, tail_d;
  logic [NumCtx-1:0][CntW-1:0]    cnt_q, cnt_d;     // stored
  logic [NumCtx-1:0][CntW-1:0]    own_q, own_d;     // stored or being read
  logic [CntW-1:0]                stored_q, stored_d;
  // Per context: bytes of its head message already offered, and that message's numbers.
  logic [NumCtx-1:0][MsgLenW-1:0] off_q, off_d;
  logic [NumCtx-1:0][7:0]         seq_q, seq_d;
  logic [NumCtx-1:0][3:0]         lag_q, lag_d;
  logic [NumCtx-1:0][RecW-1:0]    rec_q, rec_d;
  logic [NumCtx-1:0][47:0]        key_q, key_d;     // {dest, msg_id} of the open message

  lme_desc_w2_t    rsp_w2, push_w2;
  desc_t           q_in, q_out;
  logic [CtxW-1:0] in_ctx;
  logic            q_push, rsp_push, q_pop, desc_fire;
  logic            issue, req_fire;
  logic [TagW-1:0] alloc, hs;

  // ---- which context reads next ----
  logic [NumCtx-1:0] pending, idle_ctx, may_read, arb_req;
  logic [CtxW-1:0]   sel;
  logic              sel_valid;
  logic [CntW:0]     busy, resv_all, claimed;
  logic              room_q, room_own_q;

  // Whether each context has a ring, registered: the compare behind the CSR's size
  // register started the NIC's routed critical path into the read choice (docs/SYNTH.md).
  // A size changes only with its context's reset pulse (ctx_reset_i; context 0's with
  // flush_i), in the first cycle it is visible, so the register is a cycle late only in a
  // reset cycle, and no read starts in one (a ring reset drains; a context's reset holds
  // every context's reads, not only its own, since its reserved slot changes the room).
  logic [NumCtx-1:0] has_ring_q;
  logic              ctx_resetting;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      has_ring_q <= '0;
    end else begin
      for (int unsigned k = 0; k < NumCtx; k++) has_ring_q[k] <= (lme_size_i[k] != '0);
    end
  end
  assign ctx_resetting = |ctx_reset_i;

  // Whether each context's fetch index is behind its producer, registered (behind_q):
  // the 16-bit compares began the read choice's deepest path, into the counts it moves
  // (docs/SYNTH.md). They are made beside the choice, one per value the index can take
  // next, against the producer of this cycle, so behind_q compares the index with the
  // producer of a cycle ago: a doorbell is seen a cycle later, as if its write had taken
  // a cycle more. A ring or context reset sets its producer to 0 in the cycle it pulses,
  // so no read follows a reset on a stale producer.
  logic [NumCtx-1:0] behind_q, behind_d;
  always_comb begin
    for (int unsigned k = 0; k < NumCtx; k++) begin
      // In a context's reset cycle its new size and producer are already visible but
      // its fetch index is not yet back to 0.
      pending[k]  = has_ring_q[k] && behind_q[k] && !ctx_reset_i[k];
      idle_ctx[k] = has_ring_q[k] && (own_q[k] == '0);
    end
  end
  // Every context's next fetch index, worked out beside the read choice rather than after it.
  logic [NumCtx-1:0][15:0] idx_next;
  always_comb begin
    for (int unsigned k = 0; k < NumCtx; k++) begin
      idx_next[k] = (idx_q[k] + 16'd1 == lme_size_i[k]) ? '0 : idx_q[k] + 16'd1;
    end
  end

  // Slots stored, being read, or kept for an idle context. A context may read if a slot
  // is left besides those, not counting the one kept for itself (room_own_q).
  //
  // The room is a register, a cycle old: summing the idle contexts and comparing, then
  // choosing, ran into the counts the choice updates (own_q -> own_q), the NIC's deepest
  // logic once the offer was cut (docs/SYNTH.md). In one cycle the claimed slots grow by
  // at most one, through a read (or the push window's descriptor: never both) of a
  // context that is not idle; an idle context's read takes its own reserved slot, and a
  // response or a pop moves a slot from one term to another or frees it. So room_q asks
  // for one slot more than such a read needs, and a read it allows still fits a cycle
  // later; room_own_q needs no margin, since the cycle before it could not end above the
  // whole store. A context's reset can give it a ring and so a reserved slot: reads wait
  // for the cycle after one as well. The price: one slot of the store is not prefetched
  // into by busy contexts while the others are claimed.
  logic ctx_resetting_q;
  assign busy     = (CntW + 1)'(stored_q) + (CntW + 1)'(inflight_q);
  count_set #(.N(NumCtx), .W(CntW + 1)) u_resv_count (.v_i(idle_ctx), .count_o(resv_all));
  assign claimed  = busy + resv_all;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      room_q          <= 1'b0;
      room_own_q      <= 1'b0;
      ctx_resetting_q <= 1'b0;
    end else begin
      room_q          <= (claimed + 1'b1 < (CntW + 1)'(DescDepth));
      room_own_q      <= (claimed < (CntW + 1)'(DescDepth + 1));
      ctx_resetting_q <= ctx_resetting;
    end
  end
  always_comb begin
    for (int unsigned k = 0; k < NumCtx; k++) begin
      may_read[k] = enable_i && !drain_i && !ctx_resetting && !ctx_resetting_q && pending[k] &&
                    (idle_ctx[k] ? room_own_q : room_q);
    end
  end

  // The push window's descriptor is context 0's next one and needs no read: it enters
  // the store beside the read round robin, not through it, so neither whether it enters
  // nor whether a read goes out waits for the arbiter's scan (that chain ran on into the
  // DMA port's arbitration and the read engine's issue in one cycle: docs/SYNTH.md). While
  // it waits for the reads in flight to answer (they land first, in order), no read
  // starts, so it cannot be starved; context 0 does not compete for a read of that slot.
  logic push_match, push_wait;
  assign push_match  = push_valid_i && (push_slot_i == idx_q[0]);
  assign push_wait   = push_match && may_read[0];
  assign push_take_o = push_wait && (inflight_q == '0);
  always_comb begin
    arb_req    = may_read;
    arb_req[0] = may_read[0] && !push_match;
  end

  // The read choice's round robin: the pointer moves past a context when its read goes out.
  logic [CtxW-1:0]   rptr_q;
  logic [NumCtx-1:0] gnt;
  rr_pick #(.N(NumCtx)) u_read_pick (
    .req_i(arb_req), .ptr_i(rptr_q), .valid_o(sel_valid), .idx_o(sel)
  );
  always_comb begin
    for (int unsigned k = 0; k < NumCtx; k++) gnt[k] = sel_valid && (sel == CtxW'(k));
  end

  // Every context's next descriptor address, summed beside the read choice: chosen after
  // it, the 59-bit carry chain came after the arbiter on the node's longest path
  // (docs/SYNTH.md). Eight adders from registers instead of one behind the choice.
  logic [NumCtx-1:0][63:0] ring_addr;
  ring_slot_addrs #(
    .N       (NumCtx),
    .WORD_OFF(5'd0)
  ) u_ring_addrs (
    .base_i(lme_base_i),
    .idx_i (idx_q),
    .addr_o(ring_addr)
  );

  // A read is issued into a request register, and counted (fetch index, slot, tag) as it
  // enters: the DMA port's arbitration (ddc_tx) then starts from a register instead of
  // from the end of this choice, which ran on through the read engine's packet cut in one
  // cycle (docs/SYNTH.md). One cycle more per descriptor read; a read enters as the one
  // before leaves, so they still go out back to back.
  logic        rq_valid_q;
  logic [63:0] rq_addr_q;
  assign req_valid_o = rq_valid_q;
  assign req_addr_o  = rq_addr_q;
  assign req_fire    = rq_valid_q && req_ready_i;
  assign issue       = sel_valid && !push_wait && (!rq_valid_q || req_ready_i);

  // The fourth beat completes a descriptor; the slot was reserved when its read went out.
  assign rsp_w2   = rsp_data_i;
  assign push_w2  = push_w2_i;
  assign rsp_push = rsp_valid_i && (beat_q == 2'd3);
  assign q_push   = rsp_push || push_take_o;
  // The two never come together (a push waits for every read to answer); choosing by the
  // response, which comes from registers, keeps the push decision off the data's muxes.
  assign in_ctx   = rsp_push ? tag_q[tag_rp_q] : '0;
  always_comb begin
    if (!rsp_push) begin
      q_in = '{
        ctx:         '0,
        local_addr:  push_local_i,
        remote_addr: push_remote_i,
        len:         push_w2.len,
        dest:        push_w2.dest,
        flags:       push_w2.flags[7:0],
        msg_id:      push_msg_id_i,
        inl:         push_w2.flags[DESC_FLAG_INLINE_BIT],
        pushed:      1'b1
      };
    end else begin
      q_in = '{
        ctx:         tag_q[tag_rp_q],
        local_addr:  w0_q,
        remote_addr: {rsp_data_i[63:48], w1_q},  // lme_desc_w3_t.key above word 1
        len:         len_q,
        dest:        dest_q,
        flags:       flags_q,
        msg_id:      rsp_data_i[31:0],  // lme_desc_w3_t.msg_id; the status field is ours
        inl:         inl_q,
        pushed:      1'b0
      };
    end
  end

  // Both sources are checked apart, from their registers, and the code is chosen with the
  // descriptor: whether the push window's descriptor enters comes late in the cycle (after
  // the read arbitration), and the checks are long.
  desc_err_e in_err, ring_err, push_err;
  ddc_tx_desc_check u_check_ring (
    .len_i      (len_q),
    .remote_w1_i(w1_q),
    .dest_i     (dest_q),
    .flags_i    (flags_q),
    .inline_i   (inl_q),
    .pushed_i   (1'b0),
    .bad_i      (1'b0),
    .dest_lo_i  (dest_lo_i),
    .dest_hi_i  (dest_hi_i),
    .err_o      (ring_err)
  );
  ddc_tx_desc_check u_check_push (
    .len_i      (push_w2.len),
    .remote_w1_i(push_remote_i[63:0]),
    .dest_i     (push_w2.dest),
    .flags_i    (push_w2.flags[7:0]),
    .inline_i   (push_w2.flags[DESC_FLAG_INLINE_BIT]),
    .pushed_i   (1'b1),
    .bad_i      (1'b0),
    .dest_lo_i  (dest_lo_i),
    .dest_hi_i  (dest_hi_i),
    .err_o      (push_err)
  );
  assign in_err = rsp_push ? ring_err : push_err;

  // The lowest free slot takes the next descriptor (a store write needs one: the read
  // reserved it, or the push checked the room).
  logic alloc_found;
  lowest_set #(.N(DescDepth)) u_alloc_pick (.v_i(free_q), .found_o(alloc_found), .idx_o(alloc));

  // ---- which context the read engine serves next, and the offer register ----
  typedef struct packed {
    desc_t              desc;
    desc_err_e          err;
    logic [TagW-1:0]    slot;
    logic [MsgLenW-1:0] off;
    logic [MsgLenW-1:0] seg_len;
    logic               final_seg;
    logic [7:0]         seq;
    logic [3:0]         lag;
    logic [RecW-1:0]    rec;
  } offer_t;
  offer_t          ofr_q, ofr_d;
  logic            ofr_valid_q, ofr_load, pass;
  logic [CtxW-1:0] tctx;   // the context of the offer (and of a take)

  logic [NumCtx-1:0] has_desc;
  logic [CtxW-1:0]   osel;
  logic              osel_valid, clash, skip;
  always_comb begin
    for (int unsigned k = 0; k < NumCtx; k++) has_desc[k] = (cnt_q[k] != '0);
  end

  // Round robin too, but the pointer moves past the context taken, which is the one picked
  // two cycles before the take, not necessarily the current choice.
  logic [CtxW-1:0] optr_q, optr_d;
  logic [CtxW-1:0] pick;
  logic            pick_valid;
  rr_pick #(.N(NumCtx)) u_offer_pick (
    .req_i(has_desc), .ptr_i(optr_q), .valid_o(pick_valid), .idx_o(pick)
  );

  function automatic logic [CtxW-1:0] ctx_after(logic [CtxW-1:0] c);
    return (32'(c) == NumCtx - 1) ? '0 : c + 1'b1;
  endfunction

  // The pick register: the context, its head slot and its offset, so that the store read
  // starts from a register. A pick is a cycle old when used. What it comes from changes
  // in that cycle only through a take, a pass over it or a ring reset, and each of those
  // keeps it from loading; a push only starts an empty context's list or lengthens one,
  // so a picked context keeps its head.
  logic [CtxW-1:0] pk_ctx_q;
  logic [TagW-1:0] pk_slot_q;
  logic            pk_valid_q, pk_load;
  logic [MsgLenW-1:0] pk_off_q;
  // The picked head's {dest, msg_id}, read from its own copy of the store's keys in the
  // pick's cycle: read in the offer's cycle, the store's read, a long wire and the clash
  // compare into the pass decision (the round robin's pointer and the pick's enable) ended
  // the TX's worst placed path alone (docs/SYNTH.md session 53). The slot is not
  // written between the two reads: a picked context's head is stored, and a push only
  // writes a free slot.
  logic [47:0]        pk_key_q;
  assign pk_load    = pick_valid && !drain_i && !flush_i && !desc_fire && !skip;
  assign osel_valid = pk_valid_q && !drain_i;
  assign osel       = pk_ctx_q;

  always_comb begin
    optr_d = optr_q;
    if (desc_fire)  optr_d = ctx_after(tctx);
    else if (skip)  optr_d = ctx_after(osel);
  end

  assign hs    = pk_slot_q;
  assign q_out = mem_q[hs];

  // The segment: the rest of the message, or 2^q bytes of it if the rest is longer.
  logic [MsgLenW-1:0] off, quantum;
  logic [31:0]        rest;
  logic               cut;
  assign off     = pk_off_q;
  assign quantum = MsgLenW'(1) << tx_quantum_i;
  assign rest    = q_out.len - 32'(off);
  assign cut     = (tx_quantum_i != '0) && !q_out.flags[DESC_FLAG_BCAST_BIT] && !q_out.inl &&
                   (rest > 32'(quantum));

  // Another context's open message with the same key: pass this one over.
  always_comb begin
    clash = 1'b0;
    for (int unsigned j = 0; j < NumCtx; j++) begin
      if (CtxW'(j) != osel && off_q[j] != '0 && key_q[j] == pk_key_q) begin
        clash = 1'b1;
      end
    end
  end
  // An offer is a cycle old when taken; nothing it was made from changes in that cycle but
  // through a take, which empties the register (pushes only start an empty context's
  // list, clashes change with takes, a context is reset only with nothing stored).
  assign pass     = osel_valid && (off == '0) && clash;
  assign skip     = pass && !drain_i && !desc_fire;
  assign ofr_load = osel_valid && !pass && !drain_i && !flush_i && !desc_fire;
  // The segment's addresses are added here, where the offer has a cycle of its own: an
  // adder after the take started the NIC's routed critical path (docs/SYNTH.md).
  desc_t seg_desc;
  always_comb begin
    seg_desc                   = q_out;
    seg_desc.local_addr        = q_out.local_addr + 64'(off);
    seg_desc.remote_addr[47:0] = q_out.remote_addr[47:0] + 48'(off);
  end
  assign ofr_d = '{
    desc:      seg_desc,
    err:       err_mem_q[hs],
    slot:      hs,
    off:       off,
    seg_len:   cut ? quantum : MsgLenW'(rest),
    final_seg: !cut,
    seq:       seq_q[osel],
    lag:       lag_q[osel],
    rec:       rec_q[osel]
  };

  assign desc_valid_o   = ofr_valid_q && !drain_i;
  assign desc_fire      = desc_valid_o && desc_ready_i;
  assign q_pop          = desc_fire && desc_end_i;
  assign tctx           = ofr_q.desc.ctx;
  assign desc_ctx_o     = tctx;
  assign desc_local_o   = ofr_q.desc.local_addr;
  assign desc_remote_o  = ofr_q.desc.remote_addr;
  assign desc_dest_o    = ofr_q.desc.dest;
  assign desc_flags_o   = ofr_q.desc.flags;
  assign desc_msg_id_o  = ofr_q.desc.msg_id;
  assign desc_inline_o  = ofr_q.desc.inl;
  assign desc_pushed_o  = ofr_q.desc.pushed;
  assign desc_err_o     = ofr_q.err;
  assign desc_off_o     = ofr_q.off;
  assign desc_seg_len_o = ofr_q.seg_len;
  assign desc_final_o   = ofr_q.final_seg;
  assign desc_seq_o     = ofr_q.seq;
  assign desc_lag_o     = ofr_q.lag;
  assign desc_rec_o     = ofr_q.rec;
  assign idle_o         = (stored_q == '0);

  function automatic logic [TagW-1:0] tag_next(logic [TagW-1:0] p);
    return (p == TagW'(DescDepth - 1)) ? '0 : p + 1'b1;
  endfunction

  always_comb begin
    idx_d      = idx_q;
    inflight_d = inflight_q;
    beat_d     = beat_q;
    tag_d      = tag_q;
    tag_wp_d   = tag_wp_q;
    tag_rp_d   = tag_rp_q;
    free_d     = free_q;
    nxt_d      = nxt_q;
    head_d     = head_q;
    tail_d     = tail_q;
    cnt_d      = cnt_q;
    own_d      = own_q;
    stored_d   = stored_q;
    off_d      = off_q;
    seq_d      = seq_q;
    lag_d      = lag_q;
    rec_d      = rec_q;
    key_d      = key_q;
    // Per context, from the one-hot grant rather than through the read choice's index:
    // the counts are updated beside the choice instead of after it.
    for (int unsigned k = 0; k < NumCtx; k++) begin
      logic read_k, done_k;
      read_k = (issue && gnt[k]) || (push_take_o && k == 0);
      done_k = q_pop && (tctx == CtxW'(k));
      behind_d[k] = (idx_q[k] != lme_prod_i[k]);
      if (read_k) begin
        idx_d[k]    = idx_next[k];
        behind_d[k] = (idx_next[k] != lme_prod_i[k]);
      end
      unique case ({read_k, done_k})
        2'b10:   own_d[k] = own_q[k] + 1'b1;
        2'b01:   own_d[k] = own_q[k] - 1'b1;
        default: own_d[k] = own_q[k];
      endcase
    end
    if (issue) begin
      tag_d[tag_wp_q] = sel;
      tag_wp_d        = tag_next(tag_wp_q);
    end
    if (rsp_push) tag_rp_d = tag_next(tag_rp_q);
    if (rsp_valid_i) beat_d = beat_q + 2'd1;
    unique case ({issue, rsp_push})
      2'b10:   inflight_d = inflight_q + 1'b1;
      2'b01:   inflight_d = inflight_q - 1'b1;
      default: inflight_d = inflight_q;
    endcase

    // A take: the next segment, or the descriptor leaves its context's list.
    if (desc_fire) begin
      if (ofr_q.off == '0) begin
        seq_d[tctx] = take_seq_i;
        lag_d[tctx] = take_lag_i;
        rec_d[tctx] = take_rec_i;
        key_d[tctx] = {ofr_q.desc.dest, ofr_q.desc.msg_id};
      end
      if (desc_end_i) begin
        off_d[tctx]          = '0;
        free_d[ofr_q.slot]   = 1'b1;
        head_d[tctx]         = nxt_q[ofr_q.slot];
        cnt_d[tctx]          = cnt_q[tctx] - 1'b1;
      end else begin
        off_d[tctx] = ofr_q.off + ofr_q.seg_len;
      end
    end
    // A new descriptor joins the end of its context's list (after a pop in the same
    // cycle, which never frees the slot it takes).
    if (q_push) begin
      free_d[alloc] = 1'b0;
      if (cnt_d[in_ctx] == '0) head_d[in_ctx] = alloc;
      else                     nxt_d[tail_q[in_ctx]] = alloc;
      tail_d[in_ctx] = alloc;
      cnt_d[in_ctx]  = cnt_d[in_ctx] + 1'b1;
    end
    unique case ({q_push, q_pop})
      2'b10:   stored_d = stored_q + 1'b1;
      2'b01:   stored_d = stored_q - 1'b1;
      default: stored_d = stored_q;
    endcase

    for (int unsigned k = 0; k < NumCtx; k++) begin
      if (ctx_reset_i[k]) begin
        idx_d[k]    = '0;
        behind_d[k] = (lme_prod_i[k] != '0);
        off_d[k]    = '0;
      end
    end
    // A ring reset empties the store; beats of reads already issued are dropped upstream.
    if (drain_i) begin
      free_d   = '1;
      cnt_d    = '0;
      own_d    = '0;
      stored_d = '0;
      off_d    = '0;
    end
    if (flush_i) begin
      idx_d      = '0;
      for (int unsigned k = 0; k < NumCtx; k++) behind_d[k] = (lme_prod_i[k] != '0);
      inflight_d = '0;
      beat_d     = '0;
      tag_wp_d   = '0;
      tag_rp_d   = '0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (q_push) begin
      mem_q[alloc]     <= q_in;
      err_mem_q[alloc] <= in_err;
      key_mem_q[alloc] <= {q_in.dest, q_in.msg_id};
    end
    ofr_q     <= ofr_d;
    pk_ctx_q  <= pick;
    pk_slot_q <= head_q[pick];
    pk_off_q  <= off_q[pick];
    pk_key_q  <= key_mem_q[head_q[pick]];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      idx_q      <= '0;
      behind_q   <= '0;
      inflight_q <= '0;
      beat_q     <= '0;
      tag_q      <= '0;
      tag_wp_q   <= '0;
      tag_rp_q   <= '0;
      w0_q       <= '0;
      w1_q       <= '0;
      len_q      <= '0;
      dest_q     <= '0;
      flags_q    <= '0;
      inl_q      <= 1'b0;
      free_q     <= '1;
      nxt_q      <= '0;
      head_q     <= '0;
      tail_q     <= '0;
      cnt_q      <= '0;
      own_q      <= '0;
      stored_q   <= '0;
      off_q      <= '0;
      seq_q      <= '0;
      lag_q      <= '0;
      rec_q      <= '0;
      key_q      <= '0;
      optr_q     <= '0;
      pk_valid_q <= 1'b0;
      rptr_q     <= '0;
      rq_valid_q <= 1'b0;
      rq_addr_q  <= '0;
      ofr_valid_q <= 1'b0;
    end else begin
      idx_q      <= idx_d;
      behind_q   <= behind_d;
      inflight_q <= inflight_d;
      beat_q     <= beat_d;
      tag_q      <= tag_d;
      tag_wp_q   <= tag_wp_d;
      tag_rp_q   <= tag_rp_d;
      free_q     <= free_d;
      nxt_q      <= nxt_d;
      head_q     <= head_d;
      tail_q     <= tail_d;
      cnt_q      <= cnt_d;
      own_q      <= own_d;
      stored_q   <= stored_d;
      off_q      <= off_d;
      seq_q      <= seq_d;
      lag_q      <= lag_d;
      rec_q      <= rec_d;
      key_q      <= key_d;
      optr_q     <= optr_d;
      pk_valid_q <= pk_load;
      if (issue) rptr_q <= ctx_after(sel);
      // A ring reset drops a read not yet taken (no issue comes while it drains).
      if (flush_i)       rq_valid_q <= 1'b0;
      else if (issue)    rq_valid_q <= 1'b1;
      else if (req_fire) rq_valid_q <= 1'b0;
      if (issue) rq_addr_q <= ring_addr[sel];
      ofr_valid_q <= ofr_load;
      if (rsp_valid_i) begin
        unique case (beat_q)
          2'd0: w0_q <= rsp_data_i;
          2'd1: w1_q <= rsp_data_i;
          2'd2: begin
            len_q   <= rsp_w2.len;
            dest_q  <= rsp_w2.dest;
            flags_q <= rsp_w2.flags[7:0];
            inl_q   <= rsp_w2.flags[DESC_FLAG_INLINE_BIT];
          end
          default: ;
        endcase
      end
    end
  end

`ifndef SYNTHESIS
  // Every read reserved its slot.
  a_desc_no_overflow: assert property (@(posedge clk_i) q_push |-> alloc_found && free_q[alloc]);
  // ... and the registered room never lets the reads claim more than the store.
  a_store_bound: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                  busy <= (CntW + 1)'(DescDepth));
  // The store and the lists agree.
  a_ctx_of_head: assert property (@(posedge clk_i) osel_valid |-> (q_out.ctx == osel));
  // The pick is still current when it is used: its context's head, with work, at the
  // same offset.
  a_pick_current: assert property (@(posedge clk_i) osel_valid |->
                                   (head_q[osel] == hs && cnt_q[osel] != '0 &&
                                    off_q[osel] == off));
  // The key read at the pick is the offered slot's.
  a_pick_key: assert property (@(posedge clk_i) osel_valid |->
                               (pk_key_q == {q_out.dest, q_out.msg_id}));
  // The offer is still its context's head.
  a_offer_is_head: assert property (@(posedge clk_i)
                                    desc_valid_o |-> (head_q[tctx] == ofr_q.slot));
  // A pushed descriptor enters only when no ring read can still answer ahead of it.
  a_push_alone: assert property (@(posedge clk_i) !(rsp_push && push_take_o));
  // ... and never beside a read (both would claim the store's last room).
  a_push_or_read: assert property (@(posedge clk_i) !(issue && push_take_o));
  // A context is reset only while none of its reads is in flight (ddc_ctx_csr's rule).
  a_reset_idle: assert property (@(posedge clk_i) !(issue && ctx_reset_i[sel]));
  // Nothing is issued while a ring reset drains.
  a_no_issue_drain: assert property (@(posedge clk_i) !(issue && drain_i));
  // The ring flags are the sizes' compare whenever a read may start.
  for (genvar k = 0; k < NumCtx; k++) begin : g_a_has_ring
    a_has_ring: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                 (!drain_i && !ctx_resetting) |->
                                 (has_ring_q[k] == (lme_size_i[k] != '0)));
  end
  // behind_q is the index's compare with the producer of a cycle ago.
  // (From the second cycle out of reset: behind_q leaves reset at 0, whatever the
  // producer.)
  logic [NumCtx-1:0][15:0] prod_prev_q;
  logic                    out_of_reset_q;
  always_ff @(posedge clk_i) prod_prev_q <= lme_prod_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) out_of_reset_q <= 1'b0;
    else         out_of_reset_q <= 1'b1;
  end
  for (genvar k = 0; k < NumCtx; k++) begin : g_a_behind
    a_behind: assert property (@(posedge clk_i) disable iff (!rst_ni)
                               out_of_reset_q |->
                               (behind_q[k] == (idx_q[k] != prod_prev_q[k])));
  end
`endif

endmodule
