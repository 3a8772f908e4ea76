// NIC transmit path: LME ring -> DMA reads -> packets on the link -> status write-back.
//
//   ddc_tx_ctx_fetch    ring fetch (prefetching) from NumCtx contexts' rings, round
//                       robin, or the push window's descriptor for its slot of context
//                       0's ring; offers the contexts' messages round robin, a long one
//                       in segments of 2^TX_QUANTUM bytes; checks each descriptor as
//                       it is stored (ddc_tx_desc_check) --desc--> ddc_tx_read_engine
//   ddc_tx_read_engine  cut into packets, payload reads --job--> ddc_tx_packetizer
//                       --completion record--> ddc_tx_complete
//   ddc_tx_packetizer   header/payload(realigned)/CRC trailer, credits --msg_done--> complete
//   ddc_tx_complete     status write-back into the descriptor's context's ring, its LME_CONS;
//                       sequence numbers; the rel table's retransmission requests
//                       --retx--> ddc_tx_retx (re-reads the ring slot) --desc--> read engine,
//                       ahead of the ring's next descriptor
//
// Here: the shared DMA read request FIFO (descriptor reads win, they are short and
// bounded by the prefetch depth), response steering by tag into the descriptor fetcher or
// the payload buffer (which also takes the read engine's inline words), and ring reset.
//
// Ring reset (lme_reset_i) may come mid-message. A packet already partly on the link is
// ended with an EEP flit (err=1); everything queued is discarded; read responses still
// owed by the host are counted and dropped as they arrive (they come in request order);
// no new read is issued until the queues are empty. A status write already offered to
// the host is still completed (valid/ready rule) but raises no event. The ring reset is
// page 0's: it restarts every context's indices (the TX is reset as a whole). A context's
// own reset (ctx_reset_i) only restarts its indices: it comes while nothing of it is in
// the pipeline.
//
// Read errors (dma_rd_rsp_err_i: an IOMMU refusal, a PCIe completion with UR/CA status)
// travel with each beat: payload beats carry the flag through the payload buffer to the
// packetizer, which ends that packet with EEP and drops the rest of its message (the
// descriptor completes with DMA_RD); descriptor beats are zeroed, so a descriptor the
// host cannot deliver completes with ZERO_LEN instead of acting on whatever came back.
module ddc_tx
  import fasthsl_pkg::*;
  import fasthsl_link_pkg::*;
#(
  parameter int unsigned NumCtx = 1,
  localparam int unsigned CtxW  = (NumCtx > 1) ? $clog2(NumCtx) : 1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // configuration (from the CSR block; stable while traffic runs)
  input  logic        enable_i,
  input  logic [15:0] node_id_i,
  input  logic [15:0] mtu_i,
  input  logic [15:0] dest_lo_i,
  input  logic [15:0] dest_hi_i,
  input  logic [4:0]  tx_quantum_i,
  input  logic [NumCtx-1:0][63:0] lme_base_i,
  input  logic [NumCtx-1:0][15:0] lme_size_i,
  input  logic [NumCtx-1:0][15:0] lme_prod_i,
  input  logic        lme_reset_i,
  input  logic [NumCtx-1:0]       ctx_reset_i,
  output logic [NumCtx-1:0][15:0] lme_cons_o,
  // push window (ddc_push)
  input  logic             push_valid_i,
  input  logic [15:0]      push_slot_i,
  input  logic [63:0]      push_local_i,
  input  logic [79:0]      push_remote_i,   // {key, descriptor word 1}
  input  logic [63:0]      push_w2_i,
  input  logic [31:0]      push_msg_id_i,
  output logic             push_take_o,
  input  logic [6:0][63:0] push_data_i,
  output logic             push_release_o,
  // events for counters/interrupts (one-cycle pulses)
  output logic        desc_done_o,
  output logic        desc_err_o,
  output logic        desc_irq_o,
  output logic [CtxW-1:0] desc_irq_ctx_o,   // the context of desc_irq_o's descriptor
  output logic        pkt_sent_o,
  // DMA read master
  output logic        dma_rd_req_valid_o,
  input  logic        dma_rd_req_ready_i,
  output logic [63:0] dma_rd_req_addr_o,
  output logic [5:0]  dma_rd_req_beats_o,
  output logic [7:0]  dma_rd_req_tag_o,
  input  logic        dma_rd_rsp_valid_i,
  output logic        dma_rd_rsp_ready_o,
  input  logic [63:0] dma_rd_rsp_data_i,
  input  logic [7:0]  dma_rd_rsp_tag_i,
  input  logic        dma_rd_rsp_last_i,
  input  logic        dma_rd_rsp_err_i,
  output logic        dma_rd_err_o,       // pulse: a read ended whose response had an error
  // DMA write master (descriptor status write-back only)
  output logic        dma_wr_valid_o,
  input  logic        dma_wr_ready_i,
  output logic [63:0] dma_wr_addr_o,
  output logic [63:0] dma_wr_data_o,
  output logic [7:0]  dma_wr_strb_o,
  // end-to-end answers to our messages (ddc_rx), and whether descriptors wait for them
  input  logic        sender_wait_i,      // REL_CTRL.SENDER_WAIT
  input  logic [15:0] rel_timeout_i,      // REL_TIMEOUT
  input  logic [3:0]  rel_retries_i,      // REL_RETRIES
  output logic        rel_retx_o,         // pulse: a retransmission started
  output logic [4:0]  rel_timeouts_o,     // answer timeouts this cycle
  input  logic        rel_ans_valid_i,
  input  logic [15:0] rel_ans_src_i,
  input  logic [31:0] rel_ans_msg_id_i,
  input  logic        rel_ans_nack_i,     // NACK or NACK_REJECT
  input  logic        rel_ans_reject_i,   // NACK_REJECT
  // answer packets of the receive side, sent between data packets
  input  logic        ans_valid_i,
  output logic        ans_ready_o,
  input  logic [63:0] ans_data_i,
  input  logic        ans_last_i,
  // network
  output link_flit_t  tx_flit_o,
  input  logic        tx_credit_i
);
  // Small messages are latency-bound: each costs a descriptor read and a payload read of
  // ~125 cycles but only ~5 link cycles, so about 25 must be in flight to keep the link
  // busy. Descriptors fetched ahead, packets queued for the packetizer and descriptors
  // awaiting completion are sized for that (measured: ~7 cycles per 8-byte message).
  localparam int unsigned DescDepth = 16;
  localparam int unsigned JobDepth  = 16;
  localparam int unsigned CplDepth  = 32;
  // Payload buffer, 8-byte words: one read latency (~125 beats) plus the reads in flight
  // for the following packet, so a long message streams at link rate.
  localparam int unsigned PbufDepth = 256;
  // Credits: enough for any router input buffer up to 255 flits.
  localparam int unsigned CreditW   = 8;
  // Read requests the host may owe us: every payload read is >= 1 beat of reserved
  // buffer, plus the descriptor reads.
  localparam int unsigned OutW      = $clog2(PbufDepth + DescDepth + 2);
  localparam int unsigned PbufCntW  = $clog2(PbufDepth + 1);
  localparam int unsigned LenW      = $clog2(MTU_MAX + 1);
  localparam int unsigned MsgLenW   = $clog2(MSG_LEN_MAX + 1);
  // Completion record slots (ddc_tx_complete), named by every packet of a message.
  localparam int unsigned RecW      = $clog2(CplDepth);

  localparam logic [7:0] TagPayload = 8'h00;
  localparam logic [7:0] TagDesc    = 8'h01;
  localparam logic [7:0] TagRetx    = 8'h02;

  // ---------------------------------------------------------------------------------
  // Ring reset sequencing
  // ---------------------------------------------------------------------------------
  logic flushing_q, flushing_d, drain, all_idle;
  logic df_idle, pk_idle, cp_idle, rt_idle;
  logic [PbufCntW-1:0] pbuf_count;

  assign drain      = lme_reset_i || flushing_q;
  assign all_idle   = df_idle && pk_idle && cp_idle && rt_idle && (pbuf_count == '0);
  assign flushing_d = lme_reset_i || (flushing_q && !all_idle);

  // ---------------------------------------------------------------------------------
  // DMA read requests
  // ---------------------------------------------------------------------------------
  logic        df_req_valid, df_req_ready;
  logic [63:0] df_req_addr;
  logic        re_req_valid, re_req_ready;
  logic [63:0] re_req_addr;
  logic [5:0]  re_req_beats;
  logic        rt_req_valid, rt_req_ready;
  logic [63:0] rt_req_addr;

  // The port's requests wait in a two-entry FIFO (a request register with a skid register
  // beside it): a client's ready is "the FIFO is not full", from a register, rather than
  // the DMA port's ready passed back through this arbitration into the read engine's
  // packet cut and the fetch stage's take, which was the NIC's routed critical path
  // (docs/SYNTH.md). A request taken while the port stalls waits in the second entry; the
  // next goes out the cycle the port takes the one before.
  logic        req_in_valid, req_load_en, req_load;
  logic [63:0] req_in_addr;
  logic [5:0]  req_in_beats;
  logic [7:0]  req_in_tag;

  // A retransmission's descriptor read goes first: its entry holds up completions.
  assign rt_req_ready = req_load_en;
  assign df_req_ready = req_load_en && !rt_req_valid;
  assign re_req_ready = req_load_en && !df_req_valid && !rt_req_valid;
  assign req_in_valid = rt_req_valid || df_req_valid || re_req_valid;
  assign req_load     = req_load_en && req_in_valid;

  always_comb begin
    if (rt_req_valid) begin
      req_in_addr  = rt_req_addr;
      req_in_beats = 6'(LME_DESC_WORDS);
      req_in_tag   = TagRetx;
    end else if (df_req_valid) begin
      req_in_addr  = df_req_addr;
      req_in_beats = 6'(LME_DESC_WORDS);
      req_in_tag   = TagDesc;
    end else begin
      req_in_addr  = re_req_addr;
      req_in_beats = re_req_beats;
      req_in_tag   = TagPayload;
    end
  end

  logic [1:0] req_count;   // 2: the skid entry holds a request (tb_ddc_tx's coverage)
  fifo_sync #(
    .WIDTH(64 + 6 + 8),
    .DEPTH(2)
  ) u_rd_req (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (req_in_valid),
    .in_ready_o (req_load_en),
    .in_data_i  ({req_in_tag, req_in_beats, req_in_addr}),
    .out_valid_o(dma_rd_req_valid_o),
    .out_ready_i(dma_rd_req_ready_i),
    .out_data_o ({dma_rd_req_tag_o, dma_rd_req_beats_o, dma_rd_req_addr_o}),
    .count_o    (req_count)
  );
  logic unused_req_count;
  assign unused_req_count = ^req_count;

  // ---------------------------------------------------------------------------------
  // DMA read responses
  // ---------------------------------------------------------------------------------
  // Every response beat has room reserved before its read left, so it is never stalled.
  assign dma_rd_rsp_ready_o = 1'b1;

  // Reads counted from the moment they enter the request FIFO: a ring reset must
  // also discard the responses to a read the host has not yet taken.
  logic [OutW-1:0] out_q, out_d, drop_q, drop_d;
  logic            rsp_end, rsp_drop, df_rsp_valid, rt_rsp_valid, pbuf_push;

  assign rsp_end      = dma_rd_rsp_valid_i && dma_rd_rsp_last_i;
  assign rsp_drop     = lme_reset_i || (drop_q != '0);
  assign df_rsp_valid = dma_rd_rsp_valid_i && !rsp_drop && (dma_rd_rsp_tag_i == TagDesc);
  assign rt_rsp_valid = dma_rd_rsp_valid_i && !rsp_drop && (dma_rd_rsp_tag_i == TagRetx);
  assign pbuf_push    = dma_rd_rsp_valid_i && !rsp_drop && (dma_rd_rsp_tag_i == TagPayload);

  // One count per read: the flag of any beat sticks until the read's last beat.
  logic rd_err_q, rd_err_d, df_rsp_zero;
  assign rd_err_d     = dma_rd_rsp_valid_i ? (!dma_rd_rsp_last_i && (rd_err_q ||
                                                                    dma_rd_rsp_err_i))
                                           : rd_err_q;
  assign dma_rd_err_o = rsp_end && (rd_err_q || dma_rd_rsp_err_i);
  assign df_rsp_zero  = dma_rd_rsp_err_i;

  always_comb begin
    out_d = out_q;
    unique case ({req_load, rsp_end})
      2'b10:   out_d = out_q + 1'b1;
      2'b01:   out_d = out_q - 1'b1;
      default: out_d = out_q;
    endcase
    drop_d = drop_q;
    if (lme_reset_i) begin
      drop_d = out_d;
    end else if (rsp_end && drop_q != '0) begin
      drop_d = drop_q - 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_q      <= '0;
      drop_q     <= '0;
      rd_err_q   <= 1'b0;
      flushing_q <= 1'b0;
    end else begin
      out_q      <= out_d;
      drop_q     <= drop_d;
      rd_err_q   <= rd_err_d;
      flushing_q <= flushing_d;
    end
  end

  // ---------------------------------------------------------------------------------
  // Descriptor fetch
  // ---------------------------------------------------------------------------------
  logic        desc_valid, desc_ready;
  logic [63:0] desc_local;
  logic [79:0] desc_remote;   // {key, descriptor word 1}
  logic [31:0] desc_msg_id;
  logic [15:0] desc_dest;
  logic [7:0]  desc_flags;
  logic        desc_inline, desc_pushed;
  desc_err_e   desc_err;
  logic [CtxW-1:0] desc_ctx;
  logic        df_desc_ready;
  logic [MsgLenW-1:0] desc_off, desc_seg_len;
  logic        desc_final, desc_first, re_desc_end;
  logic [7:0]  df_seq;
  logic [3:0]  df_lag;
  logic [RecW-1:0] df_rec, cp_rec;
  logic        rt_valid;     // a retransmission's descriptor (ddc_tx_retx) goes first
  logic [7:0]  cp_seq;
  logic [3:0]  cp_lag;

  ddc_tx_ctx_fetch #(
    .DescDepth(DescDepth),
    .NumCtx   (NumCtx),
    .RecW     (RecW)
  ) u_desc_fetch (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .flush_i      (lme_reset_i),
    .drain_i      (drain),
    .ctx_reset_i  (ctx_reset_i),
    .enable_i     (enable_i),
    .tx_quantum_i (tx_quantum_i),
    .dest_lo_i    (dest_lo_i),
    .dest_hi_i    (dest_hi_i),
    .lme_base_i   (lme_base_i),
    .lme_size_i   (lme_size_i),
    .lme_prod_i   (lme_prod_i),
    .push_valid_i (push_valid_i),
    .push_slot_i  (push_slot_i),
    .push_local_i (push_local_i),
    .push_remote_i(push_remote_i),
    .push_w2_i    (push_w2_i),
    .push_msg_id_i(push_msg_id_i),
    .push_take_o  (push_take_o),
    .req_valid_o  (df_req_valid),
    .req_ready_i  (df_req_ready),
    .req_addr_o   (df_req_addr),
    .rsp_valid_i  (df_rsp_valid),
    .rsp_data_i   (df_rsp_zero ? 64'h0 : dma_rd_rsp_data_i),
    .desc_valid_o (desc_valid),
    .desc_ready_i (df_desc_ready),
    .desc_ctx_o   (desc_ctx),
    .desc_local_o (desc_local),
    .desc_remote_o(desc_remote),
    .desc_dest_o  (desc_dest),
    .desc_flags_o (desc_flags),
    .desc_msg_id_o(desc_msg_id),
    .desc_inline_o(desc_inline),
    .desc_pushed_o(desc_pushed),
    .desc_err_o   (desc_err),
    .desc_off_o   (desc_off),
    .desc_seg_len_o(desc_seg_len),
    .desc_final_o (desc_final),
    .desc_seq_o   (df_seq),
    .desc_lag_o   (df_lag),
    .desc_rec_o   (df_rec),
    .desc_end_i   (re_desc_end && !rt_valid),
    .take_seq_i   (cp_seq),
    .take_lag_i   (cp_lag),
    .take_rec_i   (cp_rec),
    .idle_o       (df_idle)
  );
  assign desc_first = (desc_off == '0);

  // ---------------------------------------------------------------------------------
  // Retransmission fetch, and the read engine's descriptor source
  // ---------------------------------------------------------------------------------
  logic            rtq_valid, rtq_ready;
  logic [3:0]      rtq_idx;
  logic [CtxW-1:0] rtq_ctx;
  logic [15:0]     rtq_slot, rtq_dest;
  logic [31:0]     rtq_msg_id;
  logic [7:0]      rtq_seq;
  logic [3:0]      rtq_lag;
  logic [1:0]      rtq_attempt;

  logic        rt_inline;
  desc_err_e   rt_err;
  logic [63:0] rt_local;
  logic [79:0] rt_remote;
  logic [31:0] rt_len, rt_msg_id;
  logic [15:0] rt_dest;
  logic [7:0]  rt_flags, rt_seq;
  logic [3:0]  rt_lag, rt_ridx;
  logic [1:0]  rt_attempt;

  ddc_tx_retx #(
    .NumCtx(NumCtx)
  ) u_retx (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .flush_i       (lme_reset_i),
    .drain_i       (drain),
    .lme_base_i    (lme_base_i),
    .dest_lo_i     (dest_lo_i),
    .dest_hi_i     (dest_hi_i),
    .req_valid_i   (rtq_valid),
    .req_ready_o   (rtq_ready),
    .req_idx_i     (rtq_idx),
    .req_ctx_i     (rtq_ctx),
    .req_slot_i    (rtq_slot),
    .req_dest_i    (rtq_dest),
    .req_msg_id_i  (rtq_msg_id),
    .req_seq_i     (rtq_seq),
    .req_lag_i     (rtq_lag),
    .req_attempt_i (rtq_attempt),
    .rd_valid_o    (rt_req_valid),
    .rd_ready_i    (rt_req_ready),
    .rd_addr_o     (rt_req_addr),
    .rsp_valid_i   (rt_rsp_valid),
    .rsp_data_i    (df_rsp_zero ? 64'h0 : dma_rd_rsp_data_i),
    .desc_valid_o  (rt_valid),
    .desc_ready_i  (desc_ready && rt_valid),
    .desc_local_o  (rt_local),
    .desc_remote_o (rt_remote),
    .desc_len_o    (rt_len),
    .desc_dest_o   (rt_dest),
    .desc_flags_o  (rt_flags),
    .desc_msg_id_o (rt_msg_id),
    .desc_inline_o (rt_inline),
    .desc_seq_o    (rt_seq),
    .desc_lag_o    (rt_lag),
    .desc_attempt_o(rt_attempt),
    .desc_ridx_o   (rt_ridx),
    .desc_err_o    (rt_err),
    .idle_o        (rt_idle)
  );

  // A retransmission goes ahead of the ring's next descriptor.
  logic        re_desc_valid;
  assign re_desc_valid = rt_valid || desc_valid;
  // A retransmission is one whole segment; a length above MSG_LEN_MAX has failed its checks
  // (LEN_TOO_BIG) and is not cut, so the length's top bits are not needed.
  logic [31-MsgLenW:0] rt_len_unused;
  assign rt_len_unused = rt_len[31:MsgLenW];
  assign df_desc_ready = desc_ready && !rt_valid;

  // ---------------------------------------------------------------------------------
  // Read engine
  // ---------------------------------------------------------------------------------
  logic        cpl_valid, cpl_ready, cpl_irq;
  desc_err_e   cpl_err;
  logic [31:0] cpl_msg_id;

  logic            job_valid, job_ready, job_first, job_last;
  logic [15:0]     job_dest;
  logic [7:0]      job_flags;
  logic [LenW-1:0] job_len;
  logic [79:0]     job_remote;
  logic [31:0]     job_msg_id, job_offset;
  logic [2:0]      job_src_off;
  logic            inl_push;
  logic [63:0]     inl_data;
  logic [7:0]      job_seq;
  logic [3:0]      job_lag, job_ridx, rfail_idx;
  logic [1:0]      job_attempt;
  logic            job_retx, rfail_valid;

  logic [RecW-1:0] job_rec, msg_rec;

  // A later segment carries its first segment's numbers and record (ddc_tx_ctx_fetch).
  ddc_tx_read_engine #(
    .PbufDepth(PbufDepth),
    .RecW     (RecW)
  ) u_read_engine (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .flush_i      (lme_reset_i),
    .drain_i      (drain),
    .enable_i     (enable_i),
    .mtu_i        (mtu_i),
    .desc_valid_i (re_desc_valid),
    .desc_ready_o (desc_ready),
    .desc_local_i (rt_valid ? rt_local  : desc_local),
    .desc_remote_i(rt_valid ? rt_remote : desc_remote),
    .desc_dest_i  (rt_valid ? rt_dest   : desc_dest),
    .desc_flags_i (rt_valid ? rt_flags  : desc_flags),
    .desc_msg_id_i(rt_valid ? rt_msg_id : desc_msg_id),
    .desc_inline_i(rt_valid ? rt_inline : desc_inline),
    .desc_pushed_i(desc_pushed && !rt_valid),
    .desc_seq_i   (rt_valid ? rt_seq : desc_first ? cp_seq : df_seq),
    .desc_lag_i   (rt_valid ? rt_lag : desc_first ? cp_lag : df_lag),
    .desc_attempt_i(rt_valid ? rt_attempt : 2'd0),
    .desc_retx_i  (rt_valid),
    .desc_ridx_i  (rt_ridx),
    .desc_err_i   (rt_valid ? rt_err : desc_err),
    .desc_off_i   (rt_valid ? '0 : desc_off),
    .desc_seg_len_i(rt_valid ? MsgLenW'(rt_len) : desc_seg_len),
    .desc_final_i (rt_valid || desc_final),
    .desc_rec_i   (desc_first ? cp_rec : df_rec),
    .desc_end_o   (re_desc_end),
    .rfail_valid_o(rfail_valid),
    .rfail_idx_o  (rfail_idx),
    .push_data_i  (push_data_i),
    .push_release_o(push_release_o),
    .cpl_valid_o  (cpl_valid),
    .cpl_ready_i  (cpl_ready),
    .cpl_err_o    (cpl_err),
    .cpl_msg_id_o (cpl_msg_id),
    .cpl_irq_o    (cpl_irq),
    .job_valid_o  (job_valid),
    .job_ready_i  (job_ready),
    .job_dest_o   (job_dest),
    .job_flags_o  (job_flags),
    .job_first_o  (job_first),
    .job_last_o   (job_last),
    .job_len_o    (job_len),
    .job_remote_o (job_remote),
    .job_msg_id_o (job_msg_id),
    .job_offset_o (job_offset),
    .job_src_off_o(job_src_off),
    .job_seq_o    (job_seq),
    .job_lag_o    (job_lag),
    .job_attempt_o(job_attempt),
    .job_retx_o   (job_retx),
    .job_ridx_o   (job_ridx),
    .job_rec_o    (job_rec),
    .req_valid_o  (re_req_valid),
    .req_ready_i  (re_req_ready),
    .req_addr_o   (re_req_addr),
    .req_beats_o  (re_req_beats),
    .inl_push_o   (inl_push),
    .inl_data_o   (inl_data),
    .pbuf_count_i (pbuf_count),
    .pbuf_push_i  (pbuf_push)
  );

  // ---------------------------------------------------------------------------------
  // Payload buffer
  // ---------------------------------------------------------------------------------
  logic        pbuf_in_ready, pbuf_valid, pbuf_ready, pk_pbuf_ready;
  logic [63:0] pbuf_data;
  logic [64:0] pbuf_in_data, pbuf_out;
  logic        pbuf_in_valid, pbuf_err;

  // The read engine writes inline words only while no payload beat is owed. Bit 64 is
  // the beat's read-error flag (inline words have none).
  assign pbuf_in_valid = pbuf_push || inl_push;
  assign pbuf_in_data  = inl_push         ? {1'b0, inl_data} :
                         dma_rd_rsp_err_i ? {1'b1, 64'h0}    : {1'b0, dma_rd_rsp_data_i};
  assign pbuf_data     = pbuf_out[63:0];
  assign pbuf_err      = pbuf_out[64];

  // REG_READ: 256 x 65 bits go to block RAM instead of distributed RAM and its read
  // multiplexers (docs/SYNTH.md)
  fifo_sync #(
    .WIDTH   (65),
    .DEPTH   (PbufDepth),
    .REG_READ(1'b1)
  ) u_pbuf (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (pbuf_in_valid),
    .in_ready_o (pbuf_in_ready),
    .in_data_i  (pbuf_in_data),
    .out_valid_o(pbuf_valid),
    .out_ready_i(pbuf_ready),
    .out_data_o (pbuf_out),
    .count_o    (pbuf_count)
  );

  assign pbuf_ready = pk_pbuf_ready || drain;

  // ---------------------------------------------------------------------------------
  // Packetizer
  // ---------------------------------------------------------------------------------
  logic       msg_done, msg_err, msg_retx;
  logic [3:0] msg_ridx;

  ddc_tx_packetizer #(
    .JobDepth(JobDepth),
    .CreditW (CreditW),
    .RecW    (RecW)
  ) u_packetizer (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .flush_i      (lme_reset_i),
    .drain_i      (drain),
    .node_id_i    (node_id_i),
    .job_valid_i  (job_valid),
    .job_ready_o  (job_ready),
    .job_dest_i   (job_dest),
    .job_flags_i  (job_flags),
    .job_first_i  (job_first),
    .job_last_i   (job_last),
    .job_len_i    (job_len),
    .job_remote_i (job_remote),
    .job_msg_id_i (job_msg_id),
    .job_offset_i (job_offset),
    .job_src_off_i(job_src_off),
    .job_seq_i    (job_seq),
    .job_lag_i    (job_lag),
    .job_attempt_i(job_attempt),
    .job_retx_i   (job_retx),
    .job_ridx_i   (job_ridx),
    .job_rec_i    (job_rec),
    .pbuf_valid_i (pbuf_valid),
    .pbuf_ready_o (pk_pbuf_ready),
    .pbuf_data_i  (pbuf_data),
    .pbuf_err_i   (pbuf_err),
    .ans_valid_i  (ans_valid_i),
    .ans_ready_o  (ans_ready_o),
    .ans_data_i   (ans_data_i),
    .ans_last_i   (ans_last_i),
    .tx_flit_o    (tx_flit_o),
    .tx_credit_i  (tx_credit_i),
    .pkt_sent_o   (pkt_sent_o),
    .msg_done_o   (msg_done),
    .msg_err_o    (msg_err),
    .msg_retx_o   (msg_retx),
    .msg_ridx_o   (msg_ridx),
    .msg_rec_o    (msg_rec),
    .idle_o       (pk_idle)
  );

  // ---------------------------------------------------------------------------------
  // Completion
  // ---------------------------------------------------------------------------------
  // A completion record is handed over in the cycle its descriptor is taken (cpl_valid
  // and desc_ready both follow the read engine's take), so the descriptor's context is
  // the fetch queue's head; u_complete queues it the next cycle.
  ddc_tx_complete #(
    .CplDepth(CplDepth),
    .NumCtx  (NumCtx)
  ) u_complete (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .flush_i     (lme_reset_i),
    .drain_i     (drain),
    .ctx_reset_i (ctx_reset_i),
    .lme_base_i  (lme_base_i),
    .lme_size_i  (lme_size_i),
    .cpl_valid_i (cpl_valid),
    .cpl_ready_o (cpl_ready),
    .cpl_ctx_i   (desc_ctx),
    .cpl_err_i   (cpl_err),
    .cpl_msg_id_i(cpl_msg_id),
    .cpl_irq_i   (cpl_irq),
    // Broadcasts are never answered, so they never wait.
    .cpl_dest_i  (desc_dest),
    .cpl_wait_i  (sender_wait_i && !desc_flags[DESC_FLAG_BCAST_BIT]),
    .cpl_unicast_i(!desc_flags[DESC_FLAG_BCAST_BIT]),
    .seq_o       (cp_seq),
    .lag_o       (cp_lag),
    .rec_o       (cp_rec),
    .rel_timeout_i(rel_timeout_i),
    .retries_max_i(rel_retries_i),
    .retx_valid_o(rtq_valid),
    .retx_ready_i(rtq_ready),
    .retx_idx_o  (rtq_idx),
    .retx_ctx_o  (rtq_ctx),
    .retx_slot_o (rtq_slot),
    .retx_dest_o (rtq_dest),
    .retx_msg_id_o(rtq_msg_id),
    .retx_seq_o  (rtq_seq),
    .retx_lag_o  (rtq_lag),
    .retx_attempt_o(rtq_attempt),
    .rfail_valid_i(rfail_valid),
    .rfail_idx_i (rfail_idx),
    .timeouts_o  (rel_timeouts_o),
    .retx_o      (rel_retx_o),
    .ans_valid_i (rel_ans_valid_i),
    .ans_src_i   (rel_ans_src_i),
    .ans_msg_id_i(rel_ans_msg_id_i),
    .ans_nack_i  (rel_ans_nack_i),
    .ans_reject_i(rel_ans_reject_i),
    .msg_done_i  (msg_done),
    .msg_err_i   (msg_err),
    .msg_retx_i  (msg_retx),
    .msg_ridx_i  (msg_ridx),
    .msg_rec_i   (msg_rec),
    .wr_valid_o  (dma_wr_valid_o),
    .wr_ready_i  (dma_wr_ready_i),
    .wr_addr_o   (dma_wr_addr_o),
    .wr_data_o   (dma_wr_data_o),
    .wr_strb_o   (dma_wr_strb_o),
    .cons_o      (lme_cons_o),
    .done_o      (desc_done_o),
    .err_o       (desc_err_o),
    .irq_o       (desc_irq_o),
    .irq_ctx_o   (desc_irq_ctx_o),
    .idle_o      (cp_idle)
  );

`ifndef SYNTHESIS
  // Room for every response beat was reserved before its read was issued.
  a_pbuf_no_overflow: assert property (@(posedge clk_i)
                                       pbuf_in_valid |-> pbuf_in_ready);
  // The record of a descriptor goes in with its first segment (see u_complete).
  a_cpl_with_desc: assert property (@(posedge clk_i)
                                    (cpl_valid && cpl_ready) ==
                                    (desc_valid && df_desc_ready && desc_first));
`endif

endmodule
