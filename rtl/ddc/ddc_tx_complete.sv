// Descriptor completion: status write-back and the consumer index, in ring order.
//
// The read engine hands over one record per descriptor as it takes it (queued the next
// cycle, see in_valid_q). A record with an error completes at once (once it reaches the
// head); a good one waits for the packetizer to report its message's last trailer (two
// cycles after the take at the earliest). Messages of different contexts may finish out of
// record order (TX_QUANTUM: a long message is sent in segments, other contexts' messages
// between them), so each record is named by its queue slot (rec_o, offered for the record
// at the input; the read engine carries it with the message's packets) and the report
// names it back (msg_rec_i): a done flag and a read-error flag per slot. The head still
// completes first, so completions keep record order. The status word (descriptor word 3)
// goes out as one posted 8-byte write; LME_CONS advances and the event pulses fire when
// the host takes it. A message cut by a payload read error (msg_err_i with its msg_done_i)
// completes with DMA_RD.
//
// Records name their context (ddc_tx_ctx_fetch): the status goes to that context's ring
// slot and its LME_CONS advances. One in-order stream serves every context, so each
// context's completions stay in its ring order. flush_i restarts every context's indices;
// ctx_reset_i[k] only context k's, which has no record queued then (ddc_ctx_csr's rule).
//
// REL_CTRL.SENDER_WAIT (cpl_wait_i, sampled per record): a good unicast record also takes
// an entry of a ddc_tx_rel_table when it is queued (named by (dest, msg_id); a full table
// holds the record back), the msg_done report of its message becomes the entry's sent
// report, and the record completes only when the entry has ended: OK on the receiver's
// ACK, REJECTED on its NACK_REJECT, RETRY_EXHAUSTED on a NACK or after rel_timeout_i
// ticks without an answer once retries_max_i retransmissions are spent. The head record
// waits for its own entry, so completions stay in ring order; a later message answered
// first keeps its result in the table. A message cut by a read error ends its entry at
// once (retransmitting it would re-read the memory that just failed) and completes DMA_RD.
//
// Retransmission (REL_RETRIES = retries_max_i): the table's requests leave on retx_*, with
// what the TX path needs to re-read the message: the descriptor's context and ring slot
// (counted here per context as records are queued: one record per descriptor, in ring
// order), dest, msg_id, seq, lag and the attempt. The last trailer of a retransmission
// (msg_retx_i with msg_done_i) is that entry's sent report, not a new message's; a
// retransmission refused on its re-read (rfail_*) ends its entry EXHAUSTED.
//
// Sequence numbers (contract 1.7, docs/RELIABILITY.md): every good unicast record takes
// seq = next_seq[dest[5:0]] (then +1) and lag = the live table entries of that dest[5:0],
// offered on seq_o/lag_o for the record at the input (the read engine keeps them with
// the descriptor). Entries are freed in record order, so a destination's unfinished
// messages are always the numbers seq - lag .. seq. Broadcasts and bad records: 0, no
// number taken. The counters survive a ring reset: the receiver's window still holds the
// old numbers, and a restart from 0 would look like old copies to it.
module ddc_tx_complete
  import fasthsl_pkg::*;
#(
  parameter int unsigned CplDepth = 16,
  parameter int unsigned NumCtx   = 1,
  parameter int unsigned RelEntries = 16,   // messages waiting for their answer at once
  localparam int unsigned CtxW    = (NumCtx > 1) ? $clog2(NumCtx) : 1,
  localparam int unsigned RelW    = $clog2(RelEntries)
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        flush_i,      // pulse: ring reset, consumer index back to 0
  input  logic        drain_i,      // flush in progress: discard queued records
  input  logic [NumCtx-1:0] ctx_reset_i,  // pulse: context k's indices back to 0

  input  logic [NumCtx-1:0][63:0] lme_base_i,
  input  logic [NumCtx-1:0][15:0] lme_size_i,

  // One record per descriptor, ring order.
  input  logic        cpl_valid_i,
  output logic        cpl_ready_o,
  input  logic [CtxW-1:0] cpl_ctx_i,
  input  desc_err_e   cpl_err_i,
  input  logic [31:0] cpl_msg_id_i,
  input  logic        cpl_irq_i,
  input  logic [15:0] cpl_dest_i,
  input  logic        cpl_wait_i,   // complete on the answer (SENDER_WAIT, unicast)
  input  logic        cpl_unicast_i,  // takes a sequence number
  output logic [7:0]  seq_o,        // the record's seq and lag (see above)
  output logic [3:0]  lag_o,
  output logic [$clog2(CplDepth)-1:0] rec_o,   // the queue slot of the record at the input

  input  logic [15:0] rel_timeout_i,   // REL_TIMEOUT, ticks of 2^REL_TICK_LOG2 cycles
  input  logic [3:0]  retries_max_i,   // REL_RETRIES

  // Retransmission requests, and refusals of their re-read.
  output logic        retx_valid_o,
  input  logic        retx_ready_i,
  output logic [RelW-1:0] retx_idx_o,
  output logic [CtxW-1:0] retx_ctx_o,
  output logic [15:0] retx_slot_o,
  output logic [15:0] retx_dest_o,
  output logic [31:0] retx_msg_id_o,
  output logic [7:0]  retx_seq_o,
  output logic [3:0]  retx_lag_o,
  output logic [1:0]  retx_attempt_o,
  input  logic        rfail_valid_i,
  input  logic [RelW-1:0] rfail_idx_i,
  // Counter events: answer timeouts (a count) and retransmissions started.
  output logic [4:0]  timeouts_o,
  output logic        retx_o,

  // An answer that arrived for one of our messages (ACK / NACK / NACK_REJECT).
  input  logic        ans_valid_i,
  input  logic [15:0] ans_src_i,
  input  logic [31:0] ans_msg_id_i,
  input  logic        ans_nack_i,
  input  logic        ans_reject_i,

  input  logic        msg_done_i,   // the last trailer of a good message
  input  logic [$clog2(CplDepth)-1:0] msg_rec_i,  // ... of this record (not a retransmission)
  input  logic        msg_err_i,    // ... and the message was cut by a DMA read error
  input  logic        msg_retx_i,   // ... and it was a retransmission of entry msg_ridx_i
  input  logic [RelW-1:0] msg_ridx_i,

  // Status write-back.
  output logic        wr_valid_o,
  input  logic        wr_ready_i,
  output logic [63:0] wr_addr_o,
  output logic [63:0] wr_data_o,
  output logic [7:0]  wr_strb_o,

  output logic [NumCtx-1:0][15:0] cons_o,
  output logic        done_o,
  output logic        err_o,
  output logic        irq_o,
  output logic [CtxW-1:0] irq_ctx_o,  // context of the descriptor done_o/irq_o name
  output logic        idle_o        // no record queued
);
  localparam int unsigned CntW = $clog2(CplDepth + 1);
  // What a retransmission needs that the table does not keep itself.
  localparam int unsigned TagW = CtxW + 16 + 8 + 4;

  typedef struct packed {
    logic [CtxW-1:0] ctx;
    desc_err_e   err;
    logic [31:0] msg_id;
    logic        irq;
    logic        wait_ans;   // holds rel entry rel_idx until its answer
    logic [RelW-1:0] rel_idx;
  } cpl_t;

  cpl_t            q_in, q_out;
  logic            q_valid, q_pop, q_in_ready, q_push;
  logic [CntW-1:0] q_count_unused;

  logic            rel_alloc, rel_alloc_ready, rel_done_valid, rel_done_ready;
  logic [RelW-1:0] rel_alloc_idx, rel_done_idx_unused;
  logic [1:0]      rel_done_res;
  logic            msg_new;

  // A retransmission's last trailer is not a new message's.
  assign msg_new = msg_done_i && !msg_retx_i;

  // The record taken is queued the next cycle, from a register (in_*_q): queued in the
  // take's own cycle, the queue's write, the rel entry's allocation and the sequence
  // counter's update hung at the end of one path from the read engine's take, and the
  // rel table's room started it (the NIC's worst placed paths, docs/SYNTH.md session 54).
  // A record is taken only while the register is empty, so a take sees every earlier
  // record queued: seq_o, lag_o and rec_o need no correction, and the register is always
  // emptied the next cycle (the room checked at the take is still there; a flush or a
  // drain drops it, as it discards the queue). Only records that fail their checks can be
  // taken in back-to-back cycles (a good take starts a message, which holds the next take
  // for two cycles at least), so the cost is a cycle per such pair.
  // The ready does not look at the record: a full table (rare: RelEntries messages
  // unanswered) holds back every record, good or not.
  logic            in_valid_q, in_wait_q, in_irq_q, in_unicast_q;
  logic [CtxW-1:0] in_ctx_q;
  desc_err_e       in_err_q;
  logic [31:0]     in_msg_id_q;
  logic [15:0]     in_dest_q;
  logic [7:0]      in_seq_q;
  logic [3:0]      in_lag_q;

  assign cpl_ready_o = !in_valid_q && q_in_ready && rel_alloc_ready;
  assign q_push      = in_valid_q && !drain_i && rel_alloc_ready;
  assign rel_alloc   = q_push && q_in_ready && in_wait_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) in_valid_q <= 1'b0;
    else         in_valid_q <= cpl_valid_i && cpl_ready_o && !drain_i;
  end
  // The fields follow the input while the register is empty, taken or not: their enable
  // is a flop, not the take.
  always_ff @(posedge clk_i) begin
    if (!in_valid_q) begin
      in_ctx_q     <= cpl_ctx_i;
      in_err_q     <= cpl_err_i;
      in_msg_id_q  <= cpl_msg_id_i;
      in_irq_q     <= cpl_irq_i;
      in_dest_q    <= cpl_dest_i;
      in_wait_q    <= cpl_wait_i && (cpl_err_i == DESC_ERR_OK);
      in_unicast_q <= cpl_unicast_i;
      in_seq_q     <= seq_o;
      in_lag_q     <= lag_o;
    end
  end

  assign q_in = '{ctx: in_ctx_q, err: in_err_q, msg_id: in_msg_id_q, irq: in_irq_q,
                  wait_ans: in_wait_q, rel_idx: rel_alloc_idx};

  // The head record leaves a register: read from the queue's storage, it started the
  // NIC's worst placed paths (its rel entry's done flag, the load, the entry's release:
  // docs/SYNTH.md session 53).
  fifo_sync_oreg #(
    .WIDTH($bits(cpl_t)),
    .DEPTH(CplDepth)
  ) u_cpl_fifo (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (q_push),
    .in_ready_o (q_in_ready),
    .in_data_i  (q_in),
    .out_valid_o(q_valid),
    .out_ready_i(q_pop),
    .out_data_o (q_out),
    .count_o    (q_count_unused)
  );

  assign idle_o = !q_valid && !in_valid_q;

  // Queue slots, mirroring u_cpl_fifo's pointers (it is drained, never reset, by a ring
  // reset, so they stay in step).
  localparam int unsigned PtrW = $clog2(CplDepth);
  logic [PtrW-1:0]     rec_wp_q, rec_wp_d, rec_rp_q, rec_rp_d;
  // Per slot: the message's last trailer left (and it was cut by a read error).
  logic [CplDepth-1:0] rdone_q, rdone_d, done_err_q, done_err_d;
  // Per slot: does the record hold a rel entry, and which. Written when the record is
  // queued, read at its message's msg_done (the sent report).
  logic [CplDepth-1:0]           sent_wait_q, sent_wait_d;
  logic [CplDepth-1:0][RelW-1:0] sent_idx_q, sent_idx_d;
  logic                          rel_sent;

  logic        wr_valid_q, wr_valid_d;
  logic        wr_stale_q, wr_stale_d;   // issued before a ring reset: no completion event
  logic [63:0] wr_addr_q, wr_addr_d;
  logic [63:0] wr_data_q, wr_data_d;
  logic        wr_err_q, wr_err_d;
  logic        wr_irq_q, wr_irq_d;
  logic [CtxW-1:0] wr_ctx_q, wr_ctx_d;   // context of the write offered
  logic [NumCtx-1:0][15:0] wr_idx_q, wr_idx_d;  // per context: ring slot of its next write
  logic [NumCtx-1:0][15:0] cons_q, cons_d;
  logic        done_q, done_d, err_q, err_d, irq_q, irq_d;
  logic [CtxW-1:0] irq_ctx_q;

  logic         head_ok, load, accept;
  lme_desc_w3_t status_word;
  logic [15:0]  status;
  desc_err_e    head_err;

  desc_err_e rel_err;

  always_comb begin
    unique case (rel_done_res)
      2'd1:    rel_err = DESC_ERR_RETRY_EXHAUSTED;
      2'd2:    rel_err = DESC_ERR_REJECTED;
      default: rel_err = DESC_ERR_OK;
    endcase
  end

  assign head_err = (q_out.err != DESC_ERR_OK) ? q_out.err :
                    done_err_q[rec_rp_q]       ? DESC_ERR_DMA_RD :
                    q_out.wait_ans             ? rel_err : DESC_ERR_OK;

  assign head_ok = (q_out.err != DESC_ERR_OK) ||
                   (rdone_q[rec_rp_q] && (!q_out.wait_ans || rel_done_valid));
  assign accept  = wr_valid_q && wr_ready_i;
  assign load    = q_valid && head_ok && !drain_i && (!wr_valid_q || wr_ready_i);
  assign q_pop   = load || (drain_i && q_valid);
  assign rel_done_ready = load && q_out.err == DESC_ERR_OK && q_out.wait_ans;
  assign rel_sent       = (msg_new && sent_wait_q[msg_rec_i]) || (msg_done_i && msg_retx_i);
  assign rec_o          = rec_wp_q;

  logic            rel_stray_unused;
  logic [RelW-1:0] rel_retx_idx;
  logic [TagW-1:0] rel_retx_tag, rel_done_tag_unused, rel_alloc_tag;
  logic [RelW:0]   rel_timeouts;
  logic [3:0]      rel_retx_tries, rel_lag;

  // ---- sequence numbers ----
  logic [63:0][7:0]        next_seq_q, next_seq_d;
  logic [NumCtx-1:0][15:0] q_slot_q, q_slot_d;   // per context: ring slot of the next record
  logic                    take_seq;

  function automatic logic [15:0] ring_next(logic [15:0] idx, logic [15:0] size);
    return (idx + 16'd1 == size) ? 16'd0 : idx + 16'd1;
  endfunction

  // Every context's next slot, worked out from registers beside the head's read, so a
  // load or an accept only picks one. After the context multiplexer, the increment and
  // the wrap compare ended the NIC's worst placed path (the head's queue read, its
  // verdict, then a 16-bit carry chain): 42.9 -> 44.3 MHz for +366 LUT4 (docs/SYNTH.md).
  // The same for the status word's address (word 3 of slot wr_idx_q[k]: base + idx*32 +
  // 24): the 64-bit carry chain then runs beside the head's queue read instead of after
  // its context multiplexer, which ended the TX completion's worst placed path alone.
  logic [NumCtx-1:0][15:0] wr_idx_next, cons_next, q_slot_next;
  logic [NumCtx-1:0][63:0] status_addr;
  always_comb begin
    for (int unsigned k = 0; k < NumCtx; k++) begin
      wr_idx_next[k] = ring_next(wr_idx_q[k], lme_size_i[k]);
      cons_next[k]   = ring_next(cons_q[k], lme_size_i[k]);
      q_slot_next[k] = ring_next(q_slot_q[k], lme_size_i[k]);
    end
  end
  ring_slot_addrs #(
    .N       (NumCtx),
    .WORD_OFF(5'd24)   // descriptor word 3
  ) u_status_addrs (
    .base_i(lme_base_i),
    .idx_i (wr_idx_q),
    .addr_o(status_addr)
  );

  // A record dropped by a flush in the cycle after its take has still used its number, as
  // when it was queued in the take's cycle and then drained: the counters never go back.
  assign take_seq = in_valid_q && in_err_q == DESC_ERR_OK && in_unicast_q;
  assign seq_o    = cpl_unicast_i ? next_seq_q[cpl_dest_i[5:0]] : 8'h00;
  assign lag_o    = cpl_unicast_i ? rel_lag : 4'h0;
  // The seq and lag handed to the read engine at the take (the table may have freed an
  // entry of that destination since, which changes the live count, not the message's).
  assign rel_alloc_tag = {in_ctx_q, q_slot_q[in_ctx_q], in_seq_q, in_lag_q};

  ddc_tx_rel_table #(
    .ENTRIES  (RelEntries),
    .TICK_LOG2(REL_TICK_LOG2),
    .TAG_W    (TagW),
    .SEQ_W    (32)
  ) u_rel (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .flush_i      (flush_i),
    .timeout_i    (rel_timeout_i),
    .retries_max_i(retries_max_i),
    .alloc_valid_i(rel_alloc),
    .alloc_ready_o(rel_alloc_ready),
    .alloc_dest_i (in_dest_q),
    .alloc_seq_i  (in_msg_id_q),
    .alloc_tag_i  (rel_alloc_tag),
    .alloc_idx_o  (rel_alloc_idx),
    .sent_valid_i (rel_sent),
    .sent_idx_i   (msg_retx_i ? msg_ridx_i : sent_idx_q[msg_rec_i]),
    .sent_fail_i  (msg_err_i),
    .fail_valid_i (rfail_valid_i),
    .fail_idx_i   (rfail_idx_i),
    .ans_valid_i  (ans_valid_i),
    .ans_src_i    (ans_src_i),
    .ans_seq_i    (ans_msg_id_i),
    .ans_nack_i   (ans_nack_i),
    .ans_reject_i (ans_reject_i),
    .retx_valid_o (retx_valid_o),
    .retx_ready_i (retx_ready_i),
    .retx_idx_o   (rel_retx_idx),
    .retx_tag_o   (rel_retx_tag),
    .retx_dest_o  (retx_dest_o),
    .retx_seq_o   (retx_msg_id_o),
    .retx_tries_o (rel_retx_tries),
    .lag_dest_i   (cpl_dest_i[5:0]),
    .lag_o        (rel_lag),
    .done_sel_en_i(1'b1),
    .done_sel_i   (q_out.rel_idx),
    .done_valid_o (rel_done_valid),
    .done_ready_i (rel_done_ready),
    .done_idx_o   (rel_done_idx_unused),
    .done_tag_o   (rel_done_tag_unused),
    .done_res_o   (rel_done_res),
    .timeouts_o   (rel_timeouts),
    .retx_o       (retx_o),
    .stray_o      (rel_stray_unused)
  );

  assign retx_idx_o     = rel_retx_idx;
  assign {retx_ctx_o, retx_slot_o, retx_seq_o, retx_lag_o} = rel_retx_tag;
  // The attempt field counts retransmissions modulo 4 (0 is the first transmission).
  assign retx_attempt_o = rel_retx_tries[1:0];
  logic [1:0] rel_tries_hi_unused;
  assign rel_tries_hi_unused = rel_retx_tries[3:2];
  assign timeouts_o     = 5'(rel_timeouts);

  always_comb begin
    next_seq_d = next_seq_q;
    q_slot_d   = q_slot_q;
    // No record was queued between the take and now: in_seq_q is still the counter.
    if (take_seq) next_seq_d[in_dest_q[5:0]] = in_seq_q + 8'd1;
    if (q_push && q_in_ready) begin
      q_slot_d[in_ctx_q] = q_slot_next[in_ctx_q];
    end
    for (int unsigned k = 0; k < NumCtx; k++) begin
      if (ctx_reset_i[k]) q_slot_d[k] = '0;
    end
    if (flush_i) q_slot_d = '0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      next_seq_q <= '0;
      q_slot_q   <= '0;
    end else begin
      next_seq_q <= next_seq_d;
      q_slot_q   <= q_slot_d;
    end
  end

  always_comb begin
    status                  = {8'h00, head_err};
    status[STATUS_DONE_BIT] = 1'b1;
  end
  // Word 3 is rewritten whole: the key reads 0 in a completed slot.
  assign status_word = '{key: 16'h0, status: status, msg_id: q_out.msg_id};

  always_comb begin
    rec_wp_d   = rec_wp_q;
    rec_rp_d   = rec_rp_q;
    rdone_d    = rdone_q;
    done_err_d = done_err_q;
    sent_wait_d = sent_wait_q;
    sent_idx_d  = sent_idx_q;
    wr_valid_d = wr_valid_q;
    wr_stale_d = wr_stale_q;
    wr_addr_d  = wr_addr_q;
    wr_data_d  = wr_data_q;
    wr_err_d   = wr_err_q;
    wr_irq_d   = wr_irq_q;
    wr_ctx_d   = wr_ctx_q;
    wr_idx_d   = wr_idx_q;
    cons_d     = cons_q;
    done_d     = 1'b0;
    err_d      = 1'b0;
    irq_d      = 1'b0;

    // The head's slot is freed as it leaves; a report never names a slot in that cycle
    // (the head only leaves after its report).
    if (q_pop) begin
      rdone_d[rec_rp_q] = 1'b0;
      rec_rp_d         = rec_rp_q + 1'b1;
    end
    if (msg_new) begin
      rdone_d[msg_rec_i]    = 1'b1;
      done_err_d[msg_rec_i] = msg_err_i;
    end
    if (q_push && q_in_ready) begin
      sent_wait_d[rec_wp_q] = in_wait_q;
      sent_idx_d[rec_wp_q]  = rel_alloc_idx;
      rec_wp_d              = rec_wp_q + 1'b1;
    end

    if (accept) begin
      wr_valid_d = 1'b0;
      wr_stale_d = 1'b0;
      if (!wr_stale_q) begin
        cons_d[wr_ctx_q] = cons_next[wr_ctx_q];
        done_d = 1'b1;
        err_d  = wr_err_q;
        irq_d  = wr_irq_q;
      end
    end

    if (load) begin
      wr_valid_d = 1'b1;
      wr_addr_d  = status_addr[q_out.ctx];
      wr_data_d  = status_word;
      wr_err_d   = (head_err != DESC_ERR_OK);
      wr_irq_d   = q_out.irq;
      wr_ctx_d   = q_out.ctx;
      wr_idx_d[q_out.ctx] = wr_idx_next[q_out.ctx];
    end

    for (int unsigned k = 0; k < NumCtx; k++) begin
      if (ctx_reset_i[k]) begin
        wr_idx_d[k] = '0;
        cons_d[k]   = '0;
      end
    end

    // A write already offered to the host stays offered (valid/ready rule), but it no
    // longer belongs to the ring.
    if (flush_i) begin
      rdone_d    = '0;
      wr_stale_d = wr_valid_d;
      wr_idx_d   = '0;
      cons_d     = '0;
      done_d     = 1'b0;
      err_d      = 1'b0;
      irq_d      = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rec_wp_q   <= '0;
      rec_rp_q   <= '0;
      rdone_q    <= '0;
      done_err_q <= '0;
      sent_wait_q <= '0;
      sent_idx_q  <= '0;
      wr_valid_q <= 1'b0;
      wr_stale_q <= 1'b0;
      wr_addr_q  <= '0;
      wr_data_q  <= '0;
      wr_err_q   <= 1'b0;
      wr_irq_q   <= 1'b0;
      wr_ctx_q   <= '0;
      wr_idx_q   <= '0;
      cons_q     <= '0;
      done_q     <= 1'b0;
      err_q      <= 1'b0;
      irq_q      <= 1'b0;
      irq_ctx_q  <= '0;
    end else begin
      rec_wp_q   <= rec_wp_d;
      rec_rp_q   <= rec_rp_d;
      rdone_q    <= rdone_d;
      done_err_q <= done_err_d;
      sent_wait_q <= sent_wait_d;
      sent_idx_q  <= sent_idx_d;
      wr_valid_q <= wr_valid_d;
      wr_stale_q <= wr_stale_d;
      wr_addr_q  <= wr_addr_d;
      wr_data_q  <= wr_data_d;
      wr_err_q   <= wr_err_d;
      wr_irq_q   <= wr_irq_d;
      wr_ctx_q   <= wr_ctx_d;
      wr_idx_q   <= wr_idx_d;
      cons_q     <= cons_d;
      done_q     <= done_d;
      err_q      <= err_d;
      irq_q      <= irq_d;
      irq_ctx_q  <= wr_ctx_q;
    end
  end

  assign wr_valid_o = wr_valid_q;
  assign wr_addr_o  = wr_addr_q;
  assign wr_data_o  = wr_data_q;
  assign wr_strb_o  = 8'hFF;
  assign cons_o     = cons_q;
  assign done_o     = done_q;
  assign err_o      = err_q;
  assign irq_o      = irq_q;
  assign irq_ctx_o  = irq_ctx_q;

`ifndef SYNTHESIS
  // The record taken last cycle is queued now: its room, checked at the take, is still
  // there (only a flush takes it away, and drops the record).
  a_in_queued: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                (in_valid_q && !drain_i && !flush_i) |->
                                (q_push && q_in_ready));
  // A message's last trailer comes after its record is queued (its sent report reads the
  // record's slot).
  a_done_after_queue: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                       (msg_new && in_valid_q) |-> (msg_rec_i != rec_wp_q));
  // The sequence number handed out at the take is the counter's value when it is taken.
  a_in_seq: assert property (@(posedge clk_i) disable iff (!rst_ni)
                             take_seq |-> (in_seq_q == next_seq_q[in_dest_q[5:0]]));
`endif

endmodule
