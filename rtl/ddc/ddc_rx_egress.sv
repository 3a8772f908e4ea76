// RX egress: turns verdict-accepted packets at the flit buffer head into host writes.
//
// One buffer flit per cycle: 3 header flits, the payload (one aligned write per flit,
// strobes limited to the packet's bytes), the trailer; the same N+4 cycles a packet
// takes on the link, so the egress keeps up with a full-rate link. Dropped packets are
// popped flit by flit up to their end-of-packet mark.
//
// After the packet that completes a message (ddc_rx_msg_track: its bytes add up, in any
// order) comes the LMR entry at LMR_BASE + 32*prod: words 1, 2, 3, then word 0 (status
// DONE) so the entry is valid exactly when word 0 is. It
// waits while the ring is full ((prod+1) mod size == cons) or unconfigured (size 0): the
// buffer then fills and the link stalls on credits, nothing is dropped or overwritten.
//
// Two producer indices: prod_wr names the slot to write next; prod_vis (LMR_PROD as
// software sees it) advances, with the message counter and the LMR_NEW interrupt, only
// when word 0 has been accepted by the DMA port (wr_done_i with the commit side bit), so
// software never sees an index or interrupt ahead of the entry it announces.
//
// Reliability hooks (docs/RELIABILITY.md), all one-cycle events in the trailer cycle:
//   - an answer packet (ACK, NACK, NACK_REJECT; header only) is not written anywhere:
//     its source, msg_id, type and cause go to the sender side (ans_*);
//   - a unicast message that completes here asks for an ACK to its source (ack_*);
//   - a message given up by the tracker (its entry taken by a new message, or its bytes
//     counted twice) asks for a NACK (nack_*). Broadcasts are never answered (the
//     tracker's victims are not told apart: a NACK to a broadcast's sender is a stray).
//   - duplicates (dedup_i, REL_CTRL.DEDUP): every accepted unicast WRITE packet is looked
//     up in ddc_rx_seq_window by (src, seq, low = seq - lag) in its header-2 cycle (its
//     source's slot read in the header-1 cycle, the lookup combinational on it, so the
//     packet takes no extra cycle); a duplicate's payload
//     flits are popped without a write, it is not counted by the tracker, gets no LMR
//     entry, pulses dup_o, and if it is its message's last packet asks for the ACK again
//     (the first one may have been lost). A message that completes is inserted with its
//     ACK. dedup_i clear flushes the window and skips the lookup (senders before 1.7
//     number every message 0).
//   - early NACK (early_nack_i, REL_CTRL.EARLY_NACK): the last packet of a unicast
//     message without DESC_FLAG_ADAPTIVE that leaves its count short asks for a NACK at
//     once (early_nack_o): its route delivers the message's packets in order, so the
//     missing ones were lost. The tracker frees the entry; the retransmission starts a
//     new one. A lost last packet, or a lost one-packet message, still waits for the
//     sender's timeout (nothing arrives to notice it).
//
// Ring reset (lmr_reset_i, an LMR_SIZE write) while traffic runs: an entry already partly
// written finishes in its old slot but is not published (its word 0 carries no commit
// bit), and commits still in the write pipeline are ignored, so after the reset LMR_PROD
// counts exactly the entries written into the new ring. An entry still waiting for room
// goes to the new ring's slot 0.
//
// With NumCtx contexts, each has its own LMR ring: the entry goes to the ring of the
// packet's destination context (header dctx), and everything above is per context (its
// producer indices, its reset, the commits in flight, which carry the context in their
// side bits). A full ring of context 0 stalls the egress (back-pressure, nothing lost).
// Contexts 1..7 belong to processes that may stop draining their ring, which must not
// stop reception for everyone: a message of such a context that completes while its ring
// is full gets no entry (lmr_full_o) and is NACKed instead of ACKed, and not inserted
// in the sequence window, so its sender's retransmission is delivered, not taken for a
// duplicate. Its payload was written inside the receive window already, which is harmless:
// the retransmission writes the same bytes.
module ddc_rx_egress
  import fasthsl_pkg::*;
#(
  parameter int unsigned NumCtx = 1,
  parameter int unsigned SeqHoldW = 21,
  localparam int unsigned CtxW  = (NumCtx > 1) ? $clog2(NumCtx) : 1,
  localparam int unsigned SideW = 2 + CtxW
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // LMR rings
  input  logic [NumCtx-1:0][63:0] lmr_base_i,
  input  logic [NumCtx-1:0][15:0] lmr_size_i,
  input  logic [NumCtx-1:0][15:0] lmr_cons_i,
  input  logic [NumCtx-1:0]       lmr_reset_i,
  output logic [NumCtx-1:0][15:0] lmr_prod_o,
  // flit buffer head
  input  logic        buf_valid_i,
  input  logic        buf_eop_i,
  input  logic [63:0] buf_data_i,
  output logic        buf_pop_o,
  // verdict queue head
  input  logic        vrd_valid_i,
  input  logic        vrd_accept_i,
  output logic        vrd_pop_o,
  // host writes; side = {context, irq_remote, lmr_commit}
  output logic        wr_valid_o,
  input  logic        wr_ready_i,
  output logic [63:0] wr_addr_o,
  output logic [63:0] wr_data_o,
  output logic [7:0]  wr_strb_o,
  output logic [SideW-1:0] wr_side_o,
  input  logic        wr_done_i,
  input  logic [SideW-1:0] wr_done_side_i,
  // one-cycle event pulses
  output logic        pkt_o,
  output logic        msg_o,
  output logic        msg_irq_o,
  output logic [CtxW-1:0] msg_irq_ctx_o,   // the context whose ring got that entry
  output logic        trk_full_o,
  output logic        trk_expire_o,
  output logic        trk_overrun_o,
  output logic        lmr_full_o,      // a context 1..7 message dropped: its ring was full
  // early NACK (REL_CTRL.EARLY_NACK)
  input  logic        early_nack_i,
  output logic        early_nack_o,
  // duplicates (ddc_rx_seq_window)
  input  logic        dedup_i,
  input  logic [SeqHoldW-1:0] seq_hold_i,   // ticks of 2^REL_TICK_LOG2 cycles
  output logic        dup_o,
  output logic        seq_evict_o,
  // reliability: answers received, and answers to send
  output logic        ans_valid_o,
  output logic [3:0]  ans_ptype_o,
  output logic [15:0] ans_src_o,
  output logic [31:0] ans_msg_id_o,
  output logic [7:0]  ans_cause_o,
  output logic        ack_valid_o,
  output logic [15:0] ack_src_o,
  output logic [31:0] ack_msg_id_o,
  output logic        nack_valid_o,
  output logic [15:0] nack_src_o,
  output logic [31:0] nack_msg_id_o
);
  localparam int unsigned PayW = $clog2((MTU_MAX + 14) / 8 + 1);
  localparam logic [15:0] StatusDone = 16'(1 << STATUS_DONE_BIT) | 16'(DESC_ERR_OK);

  typedef enum logic [2:0] {
    StHdr0,
    StHdr1,
    StHdr2,
    StPay,
    StTrl,
    StDrop,
    StLmr,
    StAns
  } state_e;

  state_e          state_q, state_d;
  pkt_hdr_w0_t     hdr0_q, hdr0_d;
  logic [63:0]     raddr_q, raddr_d;
  pkt_hdr_w2_t     hdr2_q, hdr2_d;
  logic [63:0]     pay_addr_q, pay_addr_d;
  logic [PayW-1:0] pay_left_q, pay_left_d;
  // pay_left_q == 1, kept as a register: the tracker's lookup starts on it, in front of
  // its 64-entry victim pick (ddc_rx_msg_track), and the write strobe and the state use it.
  logic            pay_one_q, pay_one_d;
  logic            pay_first_q, pay_first_d;
  logic [7:0]      strb_first_q, strb_first_d;
  logic [7:0]      strb_last_q, strb_last_d;
  logic [1:0]      lmr_word_q, lmr_word_d;
  logic [63:0]     lmr_addr_q, lmr_addr_d;
  logic [NumCtx-1:0][15:0] prod_wr_q, prod_wr_d;
  logic [NumCtx-1:0][15:0] prod_vis_q, prod_vis_d;
  logic            stale_q, stale_d;        // the entry being written predates a ring reset
  // Per context: commit beats between here and the port, and of those the ones that
  // predate a reset of its ring (a context's commits come back in order).
  logic [NumCtx-1:0][2:0] marks_q, marks_d;
  logic [NumCtx-1:0][2:0] ignore_q, ignore_d;
  logic [CtxW-1:0] c;                       // the packet's destination context
  logic [31:0]     msg_len_q, msg_len_d;    // length of the message the entry reports
  logic            dup_q, dup_d;            // the packet is a duplicate: write nothing

  function automatic logic [15:0] ring_next(logic [15:0] idx, logic [15:0] size);
    return (idx + 16'd1 == size) ? 16'd0 : idx + 16'd1;
  endfunction

  // A one-context egress ignores dctx (ddc_rx_ingress drops other contexts' packets).
  assign c = (NumCtx > 1) ? CtxW'(hdr0_q.dctx) : '0;

  // Header-1 derived payload geometry, evaluated as header 1 is popped.
  logic [2:0]  lane0, lane_end;
  logic [16:0] pay_flits;
  always_comb begin
    lane0     = buf_data_i[2:0];
    lane_end  = lane0 + hdr0_q.len[2:0];
    pay_flits = (17'(lane0) + 17'(hdr0_q.len) + 17'd7) >> 3;
  end

  // LMR entry words.
  logic [63:0] lmr_w0, lmr_w1, lmr_w2;
  logic        lmr_room;
  always_comb begin
    lmr_w0 = lmr_entry_w0_t'{msg_id: hdr2_q.msg_id, status: StatusDone, src: hdr0_q.src};
    lmr_w1 = lmr_entry_w1_t'{addr: raddr_q - 64'(hdr2_q.offset)};
    lmr_w2 = lmr_entry_w2_t'{rsvd48: '0, flags: 16'(hdr0_q.flags), len: msg_len_q};
  end

  // The entry's slot address is a register. Its inputs are set cycles before the entry's
  // word 1 (the context with header 0, two header flits at least before the entry; the
  // producer index at the previous entry's word 0, then three header flits), so the
  // 8-way base multiplexer and the 64-bit add leave the write's cycle: computed in it,
  // they were the egress's worst path placed by itself (docs/SYNTH.md session 52). It
  // lags a ring reset by a cycle, so word 1 waits out the cycle after one as well. A ring
  // base written by the host in the cycle before word 1 is seen a cycle late, as if the
  // entry had gone out a cycle earlier (moving a live ring's base races the NIC anyway).
  // Every context's sum is worked out beside the pick, which then only chooses one: after
  // it, the carry chain came behind the wires of the 512 base bits and still ended the
  // egress's worst path alone (docs/SYNTH.md session 53).
  logic [63:0]       lmr_slot_q, lmr_slot_d;
  logic [NumCtx-1:0] lmr_reset_seen_q;
  logic [NumCtx-1:0][63:0] lmr_slot_all;
  ring_slot_addrs #(
    .N       (NumCtx),
    .WORD_OFF(5'd0)
  ) u_lmr_slot_addrs (
    .base_i(lmr_base_i),
    .idx_i (prod_wr_q),
    .addr_o(lmr_slot_all)
  );
  assign lmr_slot_d = lmr_slot_all[c];

  // Whether each ring has room for one more entry is a register, worked out from the next
  // producer index: the compare of the next index with LMR_CONS after the choice of the
  // context started the egress's longest path (the LMR write's valid, the write mux, the
  // commit marks: docs/SYNTH.md). Each context's room is computed beside the others from
  // its own indices, so the write's handshake only picks one (docs/SYNTH.md session 53).
  // A consumer index written by the host counts a cycle later. After an entry finishes
  // (prod_adv_en) the register holds the old index's room for one cycle: nothing reads it
  // then (the next entry's trailer is cycles away, a_room_settled), and computing the
  // room after the advance for that cycle cost eight double steps (1,087 LUT4 alone).
  logic [NumCtx-1:0] room_q, room_d;
  logic [NumCtx-1:0][15:0] prod_next;   // each producer index after an entry finishing
  logic              prod_adv_en;
  function automatic logic room_of(logic [15:0] prod, logic [15:0] size, logic [15:0] cons);
    return (size != '0) && (ring_next(prod, size) != cons);
  endfunction
  always_comb begin
    for (int unsigned k = 0; k < NumCtx; k++) begin
      prod_next[k] = ring_next(prod_wr_q[k], lmr_size_i[k]);
      room_d[k]    = lmr_reset_i[k] ? room_of('0, lmr_size_i[k], lmr_cons_i[k]) :
                     (lmr_size_i[k] != '0) && (prod_next[k] != lmr_cons_i[k]);
    end
  end
  assign lmr_room = room_q[c];
  // Word 0 of an entry leaving (it is always valid) moves context c's producer index.
  assign prod_adv_en = (state_q == StLmr) && (lmr_word_q == 2'd0) && wr_ready_i && !stale_q;

  // Completion by counting: the packet that completes a message may be any of its packets
  // (order-free), and a message that lost one never completes.
  logic        trk_valid, trk_ready, trk_complete, trk_victim, trk_gap, trk_gap_free, lmr_drop;
  logic [15:0] trk_victim_src;
  logic [31:0] trk_victim_msg_id;
  logic [31:0] trk_total;
  // The trailer waits for the tracker's verdict (a cycle, for a one-flit packet of a
  // multi-packet message: ddc_rx_msg_track).
  assign trk_valid = (state_q == StTrl) && buf_valid_i && !dup_q && trk_ready;
  // Only a deterministic route keeps a message's packets in order; broadcasts are never
  // answered.
  assign trk_gap_free = early_nack_i && (hdr0_q.ptype == PTYPE_WRITE) &&
                        !hdr0_q.flags[DESC_FLAG_ADAPTIVE_BIT];
  // In a ring reset cycle the entry goes to the new, empty ring (StLmr).
  assign lmr_drop = trk_valid && trk_complete && (c != '0) && !lmr_room && !lmr_reset_i[c];
  assign lmr_full_o = lmr_drop;

  logic is_ans, is_write;
  assign is_ans   = hdr0_q.ptype inside {PTYPE_ACK, PTYPE_NACK, PTYPE_NACK_REJECT};
  assign is_write = hdr0_q.ptype == PTYPE_WRITE;

  // Header 2 as it is popped (StHdr2).
  pkt_hdr_w2_t hdr2_in;
  assign hdr2_in = pkt_hdr_w2_t'(buf_data_i);

  // 64 entries: on a 64-node network every other node may have a multi-packet message
  // (e.g. a broadcast from everyone at once) in progress here; with 16, all-to-all
  // broadcasts on hypercube:6 lost messages to a full table (sim/tests/topologies.rs).
  // The tracker decides ahead (ddc_rx_msg_track): it matches the key as header 2 is
  // popped, and looks the packet's fields up (held from then on) from the last payload
  // flit's cycle to the trailer's; the trailer goes when the verdict is ready.
  logic trk_key, trk_lookup;
  assign trk_key    = (state_q == StHdr2) && buf_valid_i && !is_ans;
  assign trk_lookup = !dup_q && ((state_q == StTrl) ||
                                 (state_q == StPay && pay_one_q));

  ddc_rx_msg_track #(
    .ENTRIES(64)
  ) u_track (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .key_valid_i (trk_key),
    .key_msg_id_i(hdr2_in.msg_id),
    .lk_valid_i  (trk_lookup),
    .pkt_valid_i (trk_valid),
    .pkt_src_i   (hdr0_q.src),
    .pkt_msg_id_i(hdr2_q.msg_id),
    .pkt_first_i (hdr0_q.first),
    .pkt_last_i  (hdr0_q.last),
    .pkt_len_i   (16'(hdr0_q.len)),
    .pkt_offset_i(32'(hdr2_q.offset)),
    .pkt_attempt_i(hdr0_q.attempt),
    .pkt_gap_free_i(trk_gap_free),
    .verdict_ready_o(trk_ready),
    .complete_o  (trk_complete),
    .total_o     (trk_total),
    .gap_o       (trk_gap),
    .full_o      (trk_full_o),
    .expire_o    (trk_expire_o),
    .overrun_o   (trk_overrun_o),
    .victim_o    (trk_victim),
    .victim_src_o(trk_victim_src),
    .victim_msg_id_o(trk_victim_msg_id)
  );

  // Duplicates: the source's slot is read as header 1 is popped, the packet looked up as
  // header 2 (seq) is popped, its message inserted with the ACK (from the trailer, two
  // cycles or more after header 2: the payload has at least one flit).
  logic        seq_sel, seq_lk_valid, seq_lk, seq_dup, seq_ins, dup_trl;
  assign seq_sel      = state_q == StHdr1;
  assign seq_lk_valid = (state_q == StHdr2) && buf_valid_i;
  assign seq_lk       = dedup_i && seq_lk_valid && is_write;
  assign seq_ins      = dedup_i && trk_valid && trk_complete && is_write && !lmr_drop;
  assign dup_trl = (state_q == StTrl) && buf_valid_i && dup_q;
  assign dup_o   = dup_trl;

  ddc_rx_seq_window #(
    .SLOTS    (64),
    .SEQ_W    (8),
    .WIN      (16),
    .TICK_LOG2(REL_TICK_LOG2),
    .HOLD_W   (SeqHoldW)
  ) u_seq (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .flush_i    (!dedup_i),
    .hold_i     (seq_hold_i),
    .sel_i      (seq_sel),
    .src_i      (hdr0_q.src),
    .lk_valid_i (seq_lk_valid),
    .lk_touch_i (seq_lk),
    .lk_seq_i   (hdr2_in.seq),
    .lk_lag_i   (hdr0_q.lag),
    .lk_dup_o   (seq_dup),
    .ins_valid_i(seq_ins),
    .evict_o    (seq_evict_o)
  );

  assign ans_valid_o   = (state_q == StAns) && buf_valid_i;
  assign ans_ptype_o   = hdr0_q.ptype;
  assign ans_src_o     = hdr0_q.src;
  assign ans_msg_id_o  = hdr2_q.msg_id;
  assign ans_cause_o   = 8'(hdr0_q.flags);
  assign ack_valid_o   = (trk_valid && trk_complete && is_write && !lmr_drop) ||
                         (dup_trl && hdr0_q.last);
  assign ack_src_o     = hdr0_q.src;
  assign ack_msg_id_o  = hdr2_q.msg_id;
  assign early_nack_o  = trk_gap;
  // A victim comes only with a packet that takes a new entry, which restarts from zero:
  // it is no overrun, no gap (a gap's last packet takes no entry), and completes only a
  // malformed message (a non-first packet at offset 0 holding all of it), whose LMR-full
  // NACK then loses to the victim's (the sender's timeout covers it).
  assign nack_valid_o  = trk_victim || ((trk_overrun_o || trk_gap || lmr_drop) && is_write);
  assign nack_src_o    = trk_victim ? trk_victim_src : hdr0_q.src;
  assign nack_msg_id_o = trk_victim ? trk_victim_msg_id : hdr2_q.msg_id;

  always_comb begin
    state_d      = state_q;
    msg_len_d    = msg_len_q;
    dup_d        = dup_q;
    hdr0_d       = hdr0_q;
    raddr_d      = raddr_q;
    hdr2_d       = hdr2_q;
    pay_addr_d   = pay_addr_q;
    pay_left_d   = pay_left_q;
    pay_one_d    = pay_one_q;
    pay_first_d  = pay_first_q;
    strb_first_d = strb_first_q;
    strb_last_d  = strb_last_q;
    lmr_word_d   = lmr_word_q;
    lmr_addr_d   = lmr_addr_q;
    prod_wr_d    = prod_wr_q;
    stale_d      = stale_q;
    buf_pop_o    = 1'b0;
    vrd_pop_o    = 1'b0;
    wr_valid_o   = 1'b0;
    wr_addr_o    = pay_addr_q;
    wr_data_o    = buf_data_i;
    wr_strb_o    = 8'hFF;
    wr_side_o    = '0;
    pkt_o        = 1'b0;

    unique case (state_q)
      StHdr0: begin
        if (buf_valid_i && vrd_valid_i) begin
          buf_pop_o = 1'b1;
          if (!vrd_accept_i) begin
            if (buf_eop_i) vrd_pop_o = 1'b1;
            else           state_d = StDrop;
          end else begin
            hdr0_d  = pkt_hdr_w0_t'(buf_data_i);
            state_d = StHdr1;
          end
        end
      end
      StHdr1: begin
        if (buf_valid_i) begin
          buf_pop_o    = 1'b1;
          // Bits 63:48 are the window key, not address (pkt_hdr_w1_t).
          raddr_d      = 64'(buf_data_i[47:0]);
          pay_addr_d   = {16'h0, buf_data_i[47:3], 3'b000};
          pay_left_d   = PayW'(pay_flits);
          pay_one_d    = (pay_flits == 17'd1);
          pay_first_d  = 1'b1;
          strb_first_d = 8'hFF << lane0;
          strb_last_d  = (lane_end == 3'd0) ? 8'hFF : ~(8'hFF << lane_end);
          state_d      = StHdr2;
        end
      end
      StHdr2: begin
        if (buf_valid_i) begin
          buf_pop_o = 1'b1;
          hdr2_d    = pkt_hdr_w2_t'(buf_data_i);
          dup_d     = seq_lk && seq_dup;
          state_d   = is_ans ? StAns : StPay;
        end
      end
      StPay: begin
        wr_valid_o = buf_valid_i && !dup_q;
        if (pay_first_q)                wr_strb_o = wr_strb_o & strb_first_q;
        if (pay_one_q)                  wr_strb_o = wr_strb_o & strb_last_q;
        if (buf_valid_i && (wr_ready_i || dup_q)) begin
          buf_pop_o   = 1'b1;
          pay_addr_d  = pay_addr_q + 64'd8;
          pay_left_d  = pay_left_q - 1'b1;
          pay_one_d   = (pay_left_q == PayW'(2));
          pay_first_d = 1'b0;
          if (pay_one_q) state_d = StTrl;
        end
      end
      StTrl: begin
        if (buf_valid_i && (dup_q || trk_ready)) begin
          buf_pop_o  = 1'b1;
          vrd_pop_o  = 1'b1;
          pkt_o      = !dup_q;
          lmr_word_d = 2'd1;
          msg_len_d  = trk_total;
          state_d    = (trk_complete && !lmr_drop) ? StLmr : StHdr0;
        end
      end
      StAns: begin
        // The trailer (the ingress checked it): the answer is reported by ans_valid_o.
        if (buf_valid_i) begin
          buf_pop_o = 1'b1;
          vrd_pop_o = 1'b1;
          state_d   = StHdr0;
        end
      end
      StDrop: begin
        if (buf_valid_i) begin
          buf_pop_o = 1'b1;
          if (buf_eop_i) begin
            vrd_pop_o = 1'b1;
            state_d   = StHdr0;
          end
        end
      end
      StLmr: begin
        // The slot address is latched with word 1 so the entry stays in one slot.
        wr_addr_o = {lmr_addr_q[63:5], lmr_word_q, 3'b000};
        unique case (lmr_word_q)
          2'd1: begin
            // Not in a ring reset cycle: the slot must come from the new ring.
            wr_valid_o = lmr_room && !lmr_reset_i[c] && !lmr_reset_seen_q[c];
            wr_addr_o  = {lmr_slot_q[63:5], 2'd1, 3'b000};
            wr_data_o  = lmr_w1;
          end
          2'd2:    wr_data_o = lmr_w2;
          2'd3:    wr_data_o = '0;
          default: wr_data_o = lmr_w0;
        endcase
        if (lmr_word_q != 2'd1) wr_valid_o = 1'b1;
        if (lmr_word_q == 2'd0) begin
          wr_side_o = {c, hdr0_q.flags[DESC_FLAG_IRQ_REMOTE_BIT], !stale_q};
        end
        if (wr_valid_o && wr_ready_i) begin
          lmr_word_d = lmr_word_q + 2'd1;
          if (lmr_word_q == 2'd1) lmr_addr_d = lmr_slot_q;
          if (lmr_word_q == 2'd0) begin
            stale_d = 1'b0;
            state_d = StHdr0;
          end
        end
      end
      default: state_d = StHdr0;
    endcase

    if (prod_adv_en) prod_wr_d[c] = prod_next[c];
    for (int unsigned k = 0; k < NumCtx; k++) begin
      if (lmr_reset_i[k]) prod_wr_d[k] = '0;
    end
    if (lmr_reset_i[c]) begin
      // Started (word 1 sent) and not finishing now (word 0 being sent: a commit already
      // on its way is caught by ignore_q).
      if (state_q == StLmr && lmr_word_q != 2'd1 &&
          !(lmr_word_q == 2'd0 && wr_valid_o && wr_ready_i)) begin
        stale_d = 1'b1;
      end
    end
  end

  // Publication of finished entries.
  logic            mark_out, mark_done, commit;
  logic [CtxW-1:0] done_c;
  assign done_c = wr_done_side_i[2 +: CtxW];
  always_comb begin
    mark_out   = wr_valid_o && wr_ready_i && wr_side_o[0];
    mark_done  = wr_done_i && wr_done_side_i[0];
    commit     = mark_done && (ignore_q[done_c] == '0);
    marks_d    = marks_q;
    ignore_d   = ignore_q;
    prod_vis_d = prod_vis_q;
    if (mark_out) marks_d[c] = marks_d[c] + 3'd1;
    if (mark_done) begin
      marks_d[done_c] = marks_d[done_c] - 3'd1;
      if (ignore_q[done_c] != '0) ignore_d[done_c] = ignore_q[done_c] - 3'd1;
    end
    if (commit) prod_vis_d[done_c] = ring_next(prod_vis_q[done_c], lmr_size_i[done_c]);
    for (int unsigned k = 0; k < NumCtx; k++) begin
      if (lmr_reset_i[k]) begin
        prod_vis_d[k] = '0;
        ignore_d[k]   = marks_d[k];
      end
    end
  end

  assign msg_o      = commit;
  assign msg_irq_o  = commit && wr_done_side_i[1];
  assign msg_irq_ctx_o = done_c;
  assign lmr_prod_o = prod_vis_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q      <= StHdr0;
      hdr0_q       <= '0;
      raddr_q      <= '0;
      hdr2_q       <= '0;
      pay_addr_q   <= '0;
      pay_left_q   <= '0;
      pay_one_q    <= 1'b0;
      pay_first_q  <= 1'b0;
      strb_first_q <= '0;
      strb_last_q  <= '0;
      lmr_word_q   <= '0;
      lmr_addr_q   <= '0;
      lmr_slot_q   <= '0;
      lmr_reset_seen_q <= '0;
      prod_wr_q    <= '0;
      room_q       <= '0;
      prod_vis_q   <= '0;
      stale_q      <= 1'b0;
      marks_q      <= '0;
      ignore_q     <= '0;
      msg_len_q    <= '0;
      dup_q        <= 1'b0;
    end else begin
      state_q      <= state_d;
      hdr0_q       <= hdr0_d;
      raddr_q      <= raddr_d;
      hdr2_q       <= hdr2_d;
      pay_addr_q   <= pay_addr_d;
      pay_left_q   <= pay_left_d;
      pay_one_q    <= pay_one_d;
      pay_first_q  <= pay_first_d;
      strb_first_q <= strb_first_d;
      strb_last_q  <= strb_last_d;
      lmr_word_q   <= lmr_word_d;
      lmr_addr_q   <= lmr_addr_d;
      lmr_slot_q   <= lmr_slot_d;
      lmr_reset_seen_q <= lmr_reset_i;
      prod_wr_q    <= prod_wr_d;
      room_q       <= room_d;
      prod_vis_q   <= prod_vis_d;
      stale_q      <= stale_d;
      marks_q      <= marks_d;
      ignore_q     <= ignore_d;
      msg_len_q    <= msg_len_d;
      dup_q        <= dup_d;
    end
  end

  logic unused_bits;
  assign unused_bits = ^{hdr0_q.dest, hdr2_in.offset,
                         pay_flits[16:PayW], lmr_base_i, lmr_addr_q[4:0], hdr0_q.dctx};

`ifndef SYNTHESIS
  // room_q is one cycle stale after an entry finishes: no trailer's verdict and no word 1
  // may read it then.
  logic prod_adv_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) prod_adv_q <= 1'b0;
    else         prod_adv_q <= prod_adv_en;
  end
  a_room_settled: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                   prod_adv_q |-> !(state_q inside {StTrl, StLmr}));
  a_pay_one: assert property (@(posedge clk_i) disable iff (!rst_ni)
                              pay_one_q == (pay_left_q == PayW'(1)));
  // The registered slot is the one the live index and base give when word 1 goes out
  // (unless the host has just moved the base: see lmr_slot_q).
  a_slot_fresh: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                 (state_q == StLmr && lmr_word_q == 2'd1 && wr_valid_o &&
                                  lmr_base_i == $past(lmr_base_i)) |->
                                 lmr_slot_q == lmr_slot_d);
`endif

endmodule
