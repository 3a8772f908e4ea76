// Packet cutting and payload DMA reads.
//
// Takes descriptors in ring order. Each one gets a completion record at once (so
// completions keep ring order however far the reads run ahead); a bad one gets its error
// code there and nothing else. The code comes with the descriptor (desc_err_i): the fetch
// stage and the retransmission fetch check descriptors before offering them
// (ddc_tx_desc_check). A good one is cut into MTU-sized packets; each packet
// yields a job record for the packetizer, then the reads of the 8-byte words covering its
// local bytes (a word shared with the next packet is read again: realignment stays per
// packet). Reads are at most DMA_RD_BEATS_MAX beats and never cross a 256-byte boundary.
//
// Each read reserves its beats in the payload buffer before it is issued (rsv_q counts
// beats requested and not yet arrived), so responses never wait for room. The buffer
// holds more than one read latency's worth of data, so reads for the next packets are
// in flight while the current one is sent.
//
// Inline descriptors (DESC_FLAG_INLINE) carry their payload: word 0 is the local_addr
// field, words 1..7 (pushed descriptors only) the push window's PUSH_DATA. Their words
// are written into the payload buffer by this block, one per cycle, in the slots their
// reads would have had: they address the payload as if it sat at local address 0, and
// they wait until every payload read issued before them has landed (rsv_q == 0), so the
// buffer keeps job order. The push window is released once the descriptor no longer
// needs it: when it is taken, or for an inline one when its last word is written.
//
// Every descriptor comes with its message's sequence number, lag and attempt, which its
// jobs carry into the packet headers. A retransmission (desc_retx_i: the descriptor
// re-read from its ring slot for ddc_tx_rel_table entry desc_ridx_i) is cut like any
// descriptor but has no completion record (its record is already queued); if it failed
// its checks (RETRY_EXHAUSTED included: it no longer names the entry's message) nothing
// is sent and rfail_* ends the entry.
//
// Segments (TX_QUANTUM, ddc_tx_ctx_fetch): a long message may come as several takes of
// its descriptor, each naming the bytes [desc_off_i, desc_off_i + desc_seg_len_i), whose
// first byte is read from desc_local_i and lands at desc_remote_i (the fetch stage adds
// the offset in its offer register, a cycle ahead of the take); other descriptors'
// segments may come between them. The checks were made on the whole
// descriptor (its code holds for every segment); only the first segment (offset 0) gets a
// completion record, sets `first` on its first packet and releases the push window; only
// the final segment (desc_final_i) ends with the message's `last` packet. desc_end_o tells
// the fetch stage that a take was the descriptor's last (its final segment, or a
// descriptor the checks refused). Every packet carries its completion record slot
// (desc_rec_i), which the packetizer reports back with the message's last trailer.
module ddc_tx_read_engine
  import fasthsl_pkg::*;
#(
  parameter int unsigned PbufDepth = 256,
  parameter int unsigned RecW      = 5,
  localparam int unsigned PbufCntW = $clog2(PbufDepth + 1),
  localparam int unsigned LenW     = $clog2(MTU_MAX + 1),
  localparam int unsigned MsgLenW  = $clog2(MSG_LEN_MAX + 1)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                flush_i,     // pulse: drop the message in progress
  input  logic                drain_i,     // flush in progress: start nothing

  input  logic                enable_i,
  input  logic [15:0]         mtu_i,

  // Fetched descriptors, ring order.
  input  logic                desc_valid_i,
  output logic                desc_ready_o,
  input  logic [63:0]         desc_local_i,
  input  logic [79:0]         desc_remote_i,   // {key, descriptor word 1}
  input  logic [15:0]         desc_dest_i,
  input  logic [7:0]          desc_flags_i,
  input  logic [31:0]         desc_msg_id_i,
  input  logic                desc_inline_i,
  input  logic                desc_pushed_i,
  input  logic [7:0]          desc_seq_i,
  input  logic [3:0]          desc_lag_i,
  input  logic [1:0]          desc_attempt_i,
  input  logic                desc_retx_i,
  input  logic [3:0]          desc_ridx_i,
  input  desc_err_e           desc_err_i,
  // The segment taken: message bytes [off, off + seg_len), and whether it ends the message.
  input  logic [MsgLenW-1:0]  desc_off_i,
  input  logic [MsgLenW-1:0]  desc_seg_len_i,
  input  logic                desc_final_i,
  input  logic [RecW-1:0]     desc_rec_i,
  output logic                desc_end_o,

  // A retransmission refused by the checks: its rel table entry.
  output logic                rfail_valid_o,
  output logic [3:0]          rfail_idx_o,

  // Push window inline words 1..7, valid while the pushed descriptor is held.
  input  logic [6:0][63:0]    push_data_i,
  output logic                push_release_o,

  // Completion records, ring order.
  output logic                cpl_valid_o,
  input  logic                cpl_ready_i,
  output desc_err_e           cpl_err_o,
  output logic [31:0]         cpl_msg_id_o,
  output logic                cpl_irq_o,

  // Packet jobs.
  output logic                job_valid_o,
  input  logic                job_ready_i,
  output logic [15:0]         job_dest_o,
  output logic [7:0]          job_flags_o,
  output logic                job_first_o,
  output logic                job_last_o,
  output logic [LenW-1:0]     job_len_o,
  output logic [79:0]         job_remote_o,
  output logic [31:0]         job_msg_id_o,
  output logic [31:0]         job_offset_o,
  output logic [2:0]          job_src_off_o,
  output logic [7:0]          job_seq_o,
  output logic [3:0]          job_lag_o,
  output logic [1:0]          job_attempt_o,
  output logic                job_retx_o,
  output logic [3:0]          job_ridx_o,
  output logic [RecW-1:0]     job_rec_o,

  // Payload reads.
  output logic                req_valid_o,
  input  logic                req_ready_i,
  output logic [63:0]         req_addr_o,
  output logic [5:0]          req_beats_o,

  // Inline payload words into the payload buffer.
  output logic                inl_push_o,
  output logic [63:0]         inl_data_o,

  // Payload buffer occupancy, and a pulse per DMA beat written into it.
  input  logic [PbufCntW-1:0] pbuf_count_i,
  input  logic                pbuf_push_i
);
  // Words (beats) a packet may span: ceil((7 + MTU_MAX) / 8).
  localparam int unsigned BeatW = LenW - 3;

  // ---------------------------------------------------------------------------------
  // Descriptor acceptance
  // ---------------------------------------------------------------------------------
  logic msg_active_q, msg_active_d;
  logic desc_take, desc_fire, desc_first, msg_load;
  logic rd_active_q, rd_inl_q;

  // A retransmission is always whole (offset 0, final).
  assign desc_first = (desc_off_i == '0);

  // A disabled NIC leaves fetched descriptors waiting; the message in progress finishes.
  // Inline words of the last packet still being written hold the next descriptor back:
  // they come from the message registers the next descriptor would overwrite. msg_load:
  // the message registers are free (they follow the offer, below).
  assign msg_load     = !msg_active_q && !(rd_active_q && rd_inl_q);
  assign desc_take    = msg_load && enable_i && !drain_i;
  // A retransmission needs no record room: it must pass even when a full rel table holds
  // the records back (the entries it frees are what the records wait for).
  // So does a later segment: its record was queued with the first.
  assign desc_ready_o = desc_take && (cpl_ready_i || desc_retx_i || !desc_first);
  assign cpl_valid_o  = desc_take && desc_valid_i && !desc_retx_i && desc_first;
  assign desc_fire    = desc_valid_i && desc_ready_o;
  assign desc_end_o   = desc_fire && (desc_final_i || (desc_err_i != DESC_ERR_OK));
  assign cpl_err_o    = desc_err_i;
  assign cpl_msg_id_o = desc_msg_id_i;
  assign cpl_irq_o    = desc_flags_i[DESC_FLAG_IRQ_LOCAL_BIT];
  assign rfail_valid_o = desc_fire && desc_retx_i && (desc_err_i != DESC_ERR_OK);
  assign rfail_idx_o   = desc_ridx_i;

  // ---------------------------------------------------------------------------------
  // Message state: what is left to cut into packets
  // ---------------------------------------------------------------------------------
  logic [63:0]        msg_local_q, msg_local_d;
  logic [79:0]        msg_remote_q, msg_remote_d;
  logic [MsgLenW-1:0] msg_rem_q, msg_rem_d;
  logic [MsgLenW-1:0] msg_off_q, msg_off_d;
  logic               msg_first_q, msg_first_d;
  logic [15:0]        msg_dest_q, msg_dest_d;
  logic [7:0]         msg_flags_q, msg_flags_d;
  logic [31:0]        msg_id_q, msg_id_d;
  logic               msg_inl_q, msg_inl_d;     // payload inline
  logic               msg_owns_q, msg_owns_d;   // ... partly in the push window
  logic [63:0]        msg_w0_q, msg_w0_d;       // inline word 0 (the local_addr field)
  logic [7:0]         msg_seq_q, msg_seq_d;
  logic [3:0]         msg_lag_q, msg_lag_d;
  logic [1:0]         msg_att_q, msg_att_d;
  logic               msg_retx_q, msg_retx_d;
  logic [3:0]         msg_ridx_q, msg_ridx_d;
  logic               msg_final_q, msg_final_d;  // the segment ends the message
  logic [RecW-1:0]    msg_rec_q, msg_rec_d;

  // A good descriptor is cut into packets from the message registers, starting the cycle
  // after its take. Cutting its first packet (and issuing its first read) in the take's
  // cycle chained the fetch stage's offer, the take, the cut, the read issue and the
  // buffer reservation into one path (docs/SYNTH.md); it costs a cycle per message.
  logic take_good;
  assign take_good     = desc_fire && (desc_err_i == DESC_ERR_OK);
  assign job_seq_o     = msg_seq_q;
  assign job_lag_o     = msg_lag_q;
  assign job_attempt_o = msg_att_q;
  assign job_retx_o    = msg_retx_q;
  assign job_ridx_o    = msg_ridx_q;
  assign job_rec_o     = msg_rec_q;

  // The CSR block only accepts multiples of 8 in 8..MTU_MAX; clamping keeps a bad value
  // from ever producing an empty or oversized packet. Broadcast packets are cut at
  // BCAST_MTU as well: a router starts one only with credits for all of it on every
  // output (BCAST_PKT_FLITS), so it must stay that short. Both limits are registered: MTU
  // is configuration, stable while traffic runs, and the compares would otherwise start
  // every packet cut.
  logic [LenW-1:0] mtu, mtu_q, bc_mtu_q;
  always_comb begin
    if (mtu_i > 16'(MTU_MAX)) begin
      mtu = LenW'(MTU_MAX);
    end else if (mtu_i < 16'd8) begin
      mtu = LenW'(8);
    end else begin
      mtu = LenW'(mtu_i);
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mtu_q    <= LenW'(8);
      bc_mtu_q <= LenW'(8);
    end else begin
      mtu_q    <= mtu;
      bc_mtu_q <= (mtu > LenW'(BCAST_MTU)) ? LenW'(BCAST_MTU) : mtu;
    end
  end

  logic [LenW-1:0]  pkt_mtu, pkt_len;
  logic [BeatW-1:0] pkt_beats;
  logic             pkt_last, seg_end;
  function automatic logic [LenW-1:0] mtu_of(logic [7:0] flags);
    return flags[DESC_FLAG_BCAST_BIT] ? bc_mtu_q : mtu_q;
  endfunction
  assign pkt_mtu = mtu_of(msg_flags_q);

  // A packet is the bytes left, or pkt_mtu of them. Its length, its beats, whether it ends
  // the segment and its first read are a register (cut_q), worked out a cycle ahead from
  // the message registers' next values: the message's first packet from the offered
  // descriptor, the next one from the packet being cut, otherwise the current one again
  // (which also follows an MTU change); the three are worked out side by side and the
  // late take or cut only picks one. Computed in the cut's cycle they started the read
  // engine's longest path, through the buffer room for the first read into the read
  // issue and the counts it moves (docs/SYNTH.md).
  function automatic logic [BeatW-1:0] beats_of(logic [2:0] lane, logic [LenW-1:0] len);
    return BeatW'((LenW'(lane) + len + LenW'(7)) >> 3);
  endfunction

  // Words up to the next 256-byte boundary (1..32), capped by what the packet still needs.
  function automatic logic [5:0] chunk_of(logic [4:0] word_in_block, logic [BeatW-1:0] left);
    logic [5:0] room;
    room = 6'd32 - {1'b0, word_in_block};
    return (left < BeatW'(room)) ? 6'(left) : room;
  endfunction

  typedef struct packed {
    logic             seg_end;   // the packet takes the rest of the segment
    logic [LenW-1:0]  len;
    logic [BeatW-1:0] beats;
    logic [5:0]       chunk;     // its first read (an inline packet: one word)
  } cut_t;
  function automatic cut_t cut_of(logic [MsgLenW-1:0] rem, logic [7:0] local_lo,
                                  logic [LenW-1:0] lim, logic inl);
    cut_t c;
    logic short_rem;
    short_rem = rem < MsgLenW'(lim);
    c.seg_end = rem <= MsgLenW'(lim);
    c.len     = short_rem ? LenW'(rem) : lim;
    c.beats   = short_rem ? beats_of(local_lo[2:0], LenW'(rem)) : beats_of(local_lo[2:0], lim);
    c.chunk   = inl ? 6'd1 : chunk_of(local_lo[7:3], c.beats);
    return c;
  endfunction

  cut_t cut_q, cut_load, cut_next, cut_hold;
  assign cut_load  = cut_of(desc_seg_len_i, desc_inline_i ? 8'h00 : desc_local_i[7:0],
                            mtu_of(desc_flags_i), desc_inline_i);
  assign cut_next  = cut_of(msg_rem_q - MsgLenW'(cut_q.len),
                            msg_local_q[7:0] + 8'(cut_q.len), pkt_mtu, msg_inl_q);
  assign cut_hold  = cut_of(msg_rem_q, msg_local_q[7:0], pkt_mtu, msg_inl_q);
  assign pkt_len   = cut_q.len;
  assign pkt_beats = cut_q.beats;
  assign seg_end   = cut_q.seg_end;
  assign pkt_last  = seg_end && msg_final_q;

  // ---------------------------------------------------------------------------------
  // Read issue
  // ---------------------------------------------------------------------------------
  // Reads of a packet go out one per cycle from rd_*_q; a packet cut while no read is
  // pending issues its first read straight away ("new" below).
  logic                rd_active_d, rd_inl_d;
  logic                rd_last_q, rd_last_d;     // the packet ends its message
  logic                rd_owns_q, rd_owns_d;     // its words are partly in the push window
  logic [60:0]         rd_word_q, rd_word_d;     // next word address (byte address / 8)
  logic [BeatW-1:0]    rd_left_q, rd_left_d;     // words of the packet still to request
  logic [PbufCntW-1:0] rsv_q, rsv_d;
  // The pending packet's next read and whether it is the packet's last, worked out a
  // cycle ahead (rd_word_d's low bits and rd_left_d feed them otherwise, from the fire).
  logic [5:0]          old_chunk_q, old_chunk_d;
  logic                old_last_q, old_last_d;
  // The buffer's free slots as of the cycle before, less what that cycle reserved or
  // wrote inline: behind the true count by that cycle's pop at most, never ahead
  // (rsv_q's beats landing move from rsv_q to pbuf_count_i in the same edge). Computed in
  // the issue's cycle, the two subtractions and the compare began the read engine's
  // deepest paths (docs/SYNTH.md); a pop seen a cycle late costs a full buffer a cycle.
  logic [PbufCntW:0]   pbuf_free, free_q, free_d;
  logic [BeatW-1:0]    left_after;   // the packet's words still to request after a read
  logic                new_last;

  logic [5:0]          old_chunk, new_chunk, chunk;
  logic                old_ok, old_done, new_ok, rd_idle, job_fire, req_fire;
  logic                issue, issue_ready, cur_inl, cur_last, cur_owns, inl_ok;
  logic [60:0]         cur_word;
  logic [BeatW-1:0]    cur_left;

  assign pbuf_free = (PbufCntW + 1)'(PbufDepth) - (PbufCntW + 1)'(pbuf_count_i) -
                     (PbufCntW + 1)'(rsv_q);

  // An inline word goes in once every earlier read has landed (one word per cycle).
  assign inl_ok    = (rsv_q == '0) && (free_q != '0);
  assign old_chunk = old_chunk_q;
  assign new_chunk = cut_q.chunk;
  assign old_ok    = rd_active_q && !drain_i &&
                     (rd_inl_q ? inl_ok : (free_q >= (PbufCntW + 1)'(old_chunk)));
  assign old_done  = old_ok && (rd_inl_q || req_ready_i) && old_last_q;
  assign rd_idle   = !rd_active_q || old_done;

  // The next packet is cut once the previous one's reads are all issued.
  assign job_valid_o = msg_active_q && rd_idle && !drain_i;
  assign job_fire    = job_valid_o && job_ready_i;
  assign new_ok      = !rd_active_q && job_fire &&
                       (msg_inl_q ? inl_ok : (free_q >= (PbufCntW + 1)'(new_chunk)));

  assign cur_word    = rd_active_q ? rd_word_q : msg_local_q[63:3];
  assign cur_left    = rd_active_q ? rd_left_q : pkt_beats;
  assign cur_inl     = rd_active_q ? rd_inl_q  : msg_inl_q;
  assign cur_last    = rd_active_q ? rd_last_q : pkt_last;
  assign cur_owns    = rd_active_q ? rd_owns_q : msg_owns_q;
  assign chunk       = rd_active_q ? old_chunk : new_chunk;
  assign issue       = old_ok || new_ok;
  assign issue_ready = cur_inl || req_ready_i;
  assign req_valid_o = issue && !cur_inl;
  assign req_addr_o  = {cur_word, 3'b000};
  assign req_beats_o = chunk;
  assign req_fire    = issue && issue_ready;
  assign left_after  = cur_left - BeatW'(chunk);
  assign new_last    = (cut_q.beats == BeatW'(cut_q.chunk));

  // Inline words: word 0 is the local_addr field, the rest the push window.
  assign inl_push_o = issue && cur_inl;
  always_comb begin
    inl_data_o = msg_w0_q;
    if (cur_word[2:0] != 3'd0) inl_data_o = push_data_i[3'(cur_word[2:0] - 3'd1)];
  end

  // Release the push window: a pushed descriptor that is not a good inline one needs it
  // no longer once taken; a good inline one after its last word.
  assign push_release_o = (desc_fire && desc_pushed_i && desc_first &&
                           !(take_good && desc_inline_i)) ||
                          (inl_push_o && cur_owns && cur_last && (cur_left == BeatW'(1)));

  assign job_dest_o    = msg_dest_q;
  assign job_flags_o   = msg_flags_q;
  assign job_first_o   = msg_first_q;
  assign job_last_o    = pkt_last;
  assign job_len_o     = pkt_len;
  assign job_remote_o  = msg_remote_q;
  assign job_msg_id_o  = msg_id_q;
  assign job_offset_o  = 32'(msg_off_q);
  assign job_src_off_o = msg_local_q[2:0];

  always_comb begin
    msg_active_d = msg_active_q;
    msg_local_d  = msg_local_q;
    msg_remote_d = msg_remote_q;
    msg_rem_d    = msg_rem_q;
    msg_off_d    = msg_off_q;
    msg_first_d  = msg_first_q;
    msg_dest_d   = msg_dest_q;
    msg_flags_d  = msg_flags_q;
    msg_id_d     = msg_id_q;
    rd_active_d  = rd_active_q;
    rd_word_d    = rd_word_q;
    rd_left_d    = rd_left_q;
    rd_inl_d     = rd_inl_q;
    rd_last_d    = rd_last_q;
    rd_owns_d    = rd_owns_q;
    msg_inl_d    = msg_inl_q;
    msg_owns_d   = msg_owns_q;
    msg_w0_d     = msg_w0_q;
    msg_seq_d    = msg_seq_q;
    msg_lag_d    = msg_lag_q;
    msg_att_d    = msg_att_q;
    msg_retx_d   = msg_retx_q;
    msg_ridx_d   = msg_ridx_q;
    msg_final_d  = msg_final_q;
    msg_rec_d    = msg_rec_q;

    // Reads: continue the pending packet, or start the one cut this cycle.
    if (!rd_active_q && job_fire) begin
      rd_active_d = 1'b1;
      rd_word_d   = cur_word;
      rd_left_d   = cur_left;
      rd_inl_d    = msg_inl_q;
      rd_last_d   = pkt_last;
      rd_owns_d   = msg_owns_q;
    end
    if (req_fire) begin
      rd_word_d = cur_word + 61'(chunk);
      rd_left_d = cur_left - BeatW'(chunk);
      if (cur_left == BeatW'(chunk)) rd_active_d = 1'b0;
    end
    // A packet cut as the previous one's last read leaves waits for the next cycle.
    if (rd_active_q && job_fire) begin
      rd_active_d = 1'b1;
      rd_word_d   = msg_local_q[63:3];
      rd_left_d   = pkt_beats;
      rd_inl_d    = msg_inl_q;
      rd_last_d   = pkt_last;
      rd_owns_d   = msg_owns_q;
    end
    rsv_d = rsv_q + ((req_fire && !cur_inl) ? PbufCntW'(chunk) : '0) -
            (pbuf_push_i ? PbufCntW'(1) : '0);
    // A read or an inline word takes `chunk` slots (an inline one: 1) either way.
    free_d = req_fire ? pbuf_free - (PbufCntW + 1)'(chunk) : pbuf_free;

    // The next read of the pending packet: after a read that leaves words over, the next
    // word starts a 256-byte block (a read stops at the boundary or at the packet's end),
    // so it is min(words left, 32); a packet that starts (its reads begin next cycle)
    // brings its registered first read; otherwise it stays.
    old_chunk_d = old_chunk_q;
    old_last_d  = old_last_q;
    if (req_fire) begin
      old_chunk_d = cur_inl ? 6'd1 :
                    (left_after < BeatW'(32)) ? 6'(left_after) : 6'd32;
      old_last_d  = cur_inl ? (left_after == BeatW'(1)) : (left_after <= BeatW'(32));
    end
    if (job_fire && (rd_active_q || !req_fire)) begin
      old_chunk_d = new_chunk;
      old_last_d  = new_last;
    end

    if (take_good) msg_active_d = 1'b1;
    // The message registers follow the offered descriptor while they are free, taken or
    // not: their ~330 enables then come from three flops instead of from the take (the
    // offer, the completion queue's room, the checks), which made them a net of over 300
    // loads at the end of the take in the placed NIC (docs/SYNTH.md). Nothing reads them
    // before a take sets msg_active_q; msg_w0_q is held while the last packet's inline
    // words, which read it, are still written.
    if (msg_load) begin
      // An inline descriptor is never cut into segments (it is shorter than any quantum).
      msg_local_d  = desc_inline_i ? '0 : desc_local_i;
      msg_remote_d = desc_remote_i;
      msg_rem_d    = desc_seg_len_i;
      msg_off_d    = desc_off_i;
      msg_first_d  = desc_first;
      msg_final_d  = desc_final_i || desc_retx_i;
      msg_rec_d    = desc_rec_i;
      msg_dest_d   = desc_dest_i;
      msg_flags_d  = desc_flags_i;
      msg_id_d     = desc_msg_id_i;
      msg_inl_d    = desc_inline_i;
      msg_owns_d   = desc_inline_i && desc_pushed_i;
      msg_w0_d     = desc_local_i;
      msg_seq_d    = desc_seq_i;
      msg_lag_d    = desc_lag_i;
      msg_att_d    = desc_attempt_i;
      msg_retx_d   = desc_retx_i;
      msg_ridx_d   = desc_ridx_i;
    end
    if (job_fire) begin
      msg_local_d  = msg_local_q + 64'(pkt_len);
      // Bits 63:48 are the window key (the descriptor's word 3, ddc_tx_ctx_fetch): the
      // address part wraps alone.
      msg_remote_d = {msg_remote_q[79:48], msg_remote_q[47:0] + 48'(pkt_len)};
      msg_rem_d    = msg_rem_q - MsgLenW'(pkt_len);
      msg_off_d    = msg_off_q + MsgLenW'(pkt_len);
      msg_first_d  = 1'b0;
      if (seg_end) msg_active_d = 1'b0;
    end

    // Responses still in flight are dropped upstream, so their reservations go too.
    if (flush_i) begin
      msg_active_d = 1'b0;
      rd_active_d  = 1'b0;
      rsv_d        = '0;
    end
  end

  // The next packet's cut follows the message registers' next values (no reset: it is
  // read only behind msg_active_q, set by a take, whose cycle loads it).
  always_ff @(posedge clk_i) begin
    if (msg_load)      cut_q <= cut_load;
    else if (job_fire) cut_q <= cut_next;
    else               cut_q <= cut_hold;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      msg_active_q <= 1'b0;
      msg_local_q  <= '0;
      msg_remote_q <= '0;
      msg_rem_q    <= '0;
      msg_off_q    <= '0;
      msg_first_q  <= 1'b0;
      msg_dest_q   <= '0;
      msg_flags_q  <= '0;
      msg_id_q     <= '0;
      msg_inl_q    <= 1'b0;
      msg_owns_q   <= 1'b0;
      msg_w0_q     <= '0;
      msg_seq_q    <= '0;
      msg_lag_q    <= '0;
      msg_att_q    <= '0;
      msg_retx_q   <= 1'b0;
      msg_ridx_q   <= '0;
      msg_final_q  <= 1'b0;
      msg_rec_q    <= '0;
      rd_inl_q     <= 1'b0;
      rd_last_q    <= 1'b0;
      rd_owns_q    <= 1'b0;
      rd_active_q  <= 1'b0;
      rd_word_q    <= '0;
      rd_left_q    <= '0;
      rsv_q        <= '0;
      free_q       <= (PbufCntW + 1)'(PbufDepth);
      old_chunk_q  <= '0;
      old_last_q   <= 1'b0;
    end else begin
      msg_active_q <= msg_active_d;
      msg_local_q  <= msg_local_d;
      msg_remote_q <= msg_remote_d;
      msg_rem_q    <= msg_rem_d;
      msg_off_q    <= msg_off_d;
      msg_first_q  <= msg_first_d;
      msg_dest_q   <= msg_dest_d;
      msg_flags_q  <= msg_flags_d;
      msg_id_q     <= msg_id_d;
      msg_inl_q    <= msg_inl_d;
      msg_owns_q   <= msg_owns_d;
      msg_w0_q     <= msg_w0_d;
      msg_seq_q    <= msg_seq_d;
      msg_lag_q    <= msg_lag_d;
      msg_att_q    <= msg_att_d;
      msg_retx_q   <= msg_retx_d;
      msg_ridx_q   <= msg_ridx_d;
      msg_final_q  <= msg_final_d;
      msg_rec_q    <= msg_rec_d;
      rd_inl_q     <= rd_inl_d;
      rd_last_q    <= rd_last_d;
      rd_owns_q    <= rd_owns_d;
      rd_active_q  <= rd_active_d;
      rd_word_q    <= rd_word_d;
      rd_left_q    <= rd_left_d;
      rsv_q        <= rsv_d;
      free_q       <= free_d;
      old_chunk_q  <= old_chunk_d;
      old_last_q   <= old_last_d;
    end
  end

`ifndef SYNTHESIS
  // The registered cut is the message registers' own while an MTU holds.
  logic [LenW-1:0] mtu_prev_q, bc_mtu_prev_q;
  always_ff @(posedge clk_i) begin
    mtu_prev_q    <= mtu_q;
    bc_mtu_prev_q <= bc_mtu_q;
  end
  a_cut_current: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                  (msg_active_q && mtu_q == mtu_prev_q &&
                                   bc_mtu_q == bc_mtu_prev_q) |-> (cut_q == cut_hold));
  // The pending packet's registered next read is the one its registers give.
  a_old_chunk: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                rd_active_q |->
                                (old_chunk_q == (rd_inl_q ? 6'd1 :
                                                 chunk_of(rd_word_q[4:0], rd_left_q)) &&
                                 old_last_q == (rd_left_q == BeatW'(old_chunk_q))));
  // Never more free slots than the buffer has.
  a_free_behind: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                  free_q <= pbuf_free);
  a_push_reserved: assert property (@(posedge clk_i)
                                    pbuf_push_i |-> (rsv_q != '0));
  // Inline words never share a cycle with DMA beats (they wait for rsv_q == 0).
  a_inline_alone: assert property (@(posedge clk_i) !(inl_push_o && pbuf_push_i));
`endif

endmodule
