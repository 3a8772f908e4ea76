// Packet framing: 3 header flits, the realigned payload, and a CRC trailer, one flit per
// cycle under credit flow control, from a registered output.
//
// Jobs (one per packet) queue in a small FIFO; the head job is the packet being sent and
// is popped with its trailer, so the next packet's header goes out the very next cycle
// (headers are plain wiring from the job record: no bubble between packets). A packet
// starts once its first payload word is in the buffer; later words normally follow at
// DMA rate, so a bubble inside a packet only happens if the host stalls.
//
// flush_i (ring reset) abandons the packet in progress: if any flit of it already left,
// one end-of-packet flit with err=1 (EEP) tells the router to drop it.
//
// A payload word the host answered with an error (pbuf_err_i) poisons its packet: the
// packet still goes out whole (its header already left, or the receiver could not tell
// where it ends), but ends with an EEP flit instead of the trailer, so the receiver drops
// it as malformed. The rest of that message is not sent: its packets' words are taken
// from the buffer and discarded (no link credit needed), and the message is reported
// done with msg_err_o, so its descriptor completes with DMA_RD. Packets of other messages
// may come between a message's packets (TX_QUANTUM segments), so the messages being
// discarded are remembered by their completion record (job_rec_i), or for a
// retransmission by its rel table entry, and only their packets are skipped.
//
// The receive side's answers (ACK/NACK packets from ddc_ack_gen, complete with their own
// CRC) share the link: between packets an answer waiting goes before the next data
// packet, and is passed through flit by flit under the same credit count. An answer is 4
// flits and there is at most one per message received, so data is never starved; putting
// answers first keeps the sender's round trip short. A ring reset does not touch an
// answer in progress (it is not the TX ring's).
module ddc_tx_packetizer
  import fasthsl_pkg::*;
  import fasthsl_link_pkg::*;
#(
  parameter int unsigned JobDepth = 8,
  parameter int unsigned CreditW  = 8,
  parameter int unsigned RecW     = 5,   // completion record slot (ddc_tx_complete)
  localparam int unsigned LenW  = $clog2(MTU_MAX + 1),
  localparam int unsigned BeatW = LenW - 3
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            flush_i,      // pulse: abandon the packet in progress
  input  logic            drain_i,      // flush in progress: discard queued jobs, start nothing

  input  logic [15:0]     node_id_i,

  // One record per packet, in transmit order.
  input  logic            job_valid_i,
  output logic            job_ready_o,
  input  logic [15:0]     job_dest_i,
  input  logic [7:0]      job_flags_i,
  input  logic            job_first_i,
  input  logic            job_last_i,
  input  logic [LenW-1:0] job_len_i,
  // {key, descriptor word 1} advanced by the packet's offset: remote address in 47:0,
  // destination context (dctx) in 50:48 (the read engine refuses a carry into it),
  // receive window key in 79:64.
  input  logic [79:0]     job_remote_i,
  input  logic [31:0]     job_msg_id_i,
  input  logic [31:0]     job_offset_i,
  input  logic [2:0]      job_src_off_i,  // local address mod 8 of the packet's first byte
  // The message's sequence number, lag and attempt (header fields; docs/RELIABILITY.md),
  // and for a retransmission (job_retx_i) its ddc_tx_rel_table entry, reported back with
  // msg_done_o.
  input  logic [7:0]      job_seq_i,
  input  logic [3:0]      job_lag_i,
  input  logic [1:0]      job_attempt_i,
  input  logic            job_retx_i,
  input  logic [3:0]      job_ridx_i,
  input  logic [RecW-1:0] job_rec_i,     // the message's completion record, reported back

  // Payload buffer head: the packets' local words, in order.
  input  logic            pbuf_valid_i,
  output logic            pbuf_ready_o,
  input  logic [63:0]     pbuf_data_i,
  input  logic            pbuf_err_i,   // the host answered this word's read with an error

  // Answer packets (header only, CRC included) to interleave between data packets.
  input  logic            ans_valid_i,
  output logic            ans_ready_o,
  input  logic [63:0]     ans_data_i,
  input  logic            ans_last_i,

  output link_flit_t      tx_flit_o,
  input  logic            tx_credit_i,

  output logic            pkt_sent_o,   // a trailer left
  output logic            msg_done_o,   // ... and it ended its message
  output logic            msg_err_o,    // with msg_done_o: the message was cut by a read error
  output logic            msg_retx_o,   // with msg_done_o: it was a retransmission ...
  output logic [3:0]      msg_ridx_o,   // ... of this rel table entry
  output logic [RecW-1:0] msg_rec_o,    // with msg_done_o: the message's completion record
  output logic            idle_o        // no job queued
);
  typedef struct packed {
    logic [15:0]      dest;
    logic [7:0]       flags;
    logic             first;
    logic             last;
    logic [LenW-1:0]  len;
    logic [79:0]      remote;
    logic [31:0]      msg_id;
    logic [31:0]      offset;
    // The payload's realignment geometry (ddc_tx_realign_geom), worked out on the way in.
    logic [BeatW-1:0] ra_in_last;
    logic [BeatW-1:0] ra_out_last;
    logic [3:0]       ra_end_lane;
    logic [2:0]       ra_shift;
    logic             ra_prime;
    logic [7:0]       seq;
    logic [3:0]       lag;
    logic [1:0]       attempt;
    logic             retx;
    logic [3:0]       ridx;
    logic [RecW-1:0]  rec;
  } job_t;

  typedef enum logic [3:0] {
    StHdr0,   // waiting to start the head job
    StHdr1,
    StHdr2,
    StPay,
    StTrl,
    StEep,    // abandoned mid-packet: owe the link an EEP flit
    StSkip,   // a packet after a read error in its message: discard its words
    StSkipEnd,
    StAns     // passing an answer packet through, after its first flit
  } state_e;

  state_e state_q, state_d;

  job_t job_in, job;
  logic job_valid, job_pop;
  logic [$clog2(JobDepth + 1)-1:0] job_count_unused;

  fifo_sync #(
    .WIDTH($bits(job_t)),
    .DEPTH(JobDepth)
  ) u_job_fifo (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (job_valid_i && !drain_i),
    .in_ready_o (job_ready_o),
    .in_data_i  (job_in),
    .out_valid_o(job_valid),
    .out_ready_i(job_pop),
    .out_data_o (job),
    .count_o    (job_count_unused)
  );

  logic [BeatW-1:0] geom_in_last, geom_out_last;
  logic [3:0]       geom_end_lane;
  logic [2:0]       geom_shift;
  logic             geom_prime;

  ddc_tx_realign_geom u_geom (
    .src_off_i     (job_src_off_i),
    .dst_off_i     (job_remote_i[2:0]),
    .len_i         (job_len_i),
    .in_last_idx_o (geom_in_last),
    .out_last_idx_o(geom_out_last),
    .end_lane_o    (geom_end_lane),
    .shift_o       (geom_shift),
    .prime_o       (geom_prime)
  );

  assign job_in = '{
    dest:        job_dest_i,
    flags:       job_flags_i,
    first:       job_first_i,
    last:        job_last_i,
    len:         job_len_i,
    remote:      job_remote_i,
    msg_id:      job_msg_id_i,
    offset:      job_offset_i,
    ra_in_last:  geom_in_last,
    ra_out_last: geom_out_last,
    ra_end_lane: geom_end_lane,
    ra_shift:    geom_shift,
    ra_prime:    geom_prime,
    seq:         job_seq_i,
    lag:         job_lag_i,
    attempt:     job_attempt_i,
    retx:        job_retx_i,
    ridx:        job_ridx_i,
    rec:         job_rec_i
  };
  assign idle_o = !job_valid;

  // Realigner.
  logic        ra_pkt_valid, ra_clear;
  logic        ra_out_valid, ra_out_ready, ra_out_last, ra_in_avail;
  logic [63:0] ra_out_data;

  // Only the head job is ever presented, and never once it is abandoned.
  assign ra_pkt_valid = job_valid && !drain_i && (state_q != StEep);

  // pkt_bad_q: a word of the packet in progress came with a read error.
  // skip_q: messages cut by a read error whose remaining packets are discarded, by key
  // (first transmissions by record slot, retransmissions by rel table entry).
  localparam int unsigned KeyW = ((RecW > 4) ? RecW : 4) + 1;
  logic pkt_bad_q, pkt_bad_d, pbuf_fire, job_skip;
  logic [(1 << KeyW)-1:0] skip_q, skip_d;
  logic [KeyW-1:0]        job_key;
  assign pbuf_fire = pbuf_valid_i && pbuf_ready_o;
  assign job_key   = job.retx ? {1'b1, (KeyW - 1)'(job.ridx)} : {1'b0, (KeyW - 1)'(job.rec)};
  assign job_skip  = skip_q[job_key];

  ddc_tx_realign u_realign (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .pkt_valid_i   (ra_pkt_valid),
    .dst_off_i     (job.remote[2:0]),
    .in_last_idx_i (job.ra_in_last),
    .out_last_idx_i(job.ra_out_last),
    .end_lane_i    (job.ra_end_lane),
    .shift_i       (job.ra_shift),
    .prime_i       (job.ra_prime),
    .clear_i       (ra_clear),
    .in_valid_i    (pbuf_valid_i),
    .in_ready_o    (pbuf_ready_o),
    .in_data_i     (pbuf_data_i),
    .out_valid_o   (ra_out_valid),
    .out_ready_i   (ra_out_ready),
    .out_data_o    (ra_out_data),
    .out_last_o    (ra_out_last),
    .in_avail_o    (ra_in_avail)
  );

  // Header words are wiring from the head job.
  pkt_hdr_w0_t hdr_w0;
  pkt_hdr_w1_t hdr_w1;
  pkt_hdr_w2_t hdr_w2;
  pkt_trl_t    trl;
  // The CRC runs a flit behind the link: the flit sent (crc_data_q) is folded into the
  // CRC of the flits before it (crc_q) in the next cycle, from registers. Folded in the
  // cycle it was chosen, the CRC's XOR trees came after the payload buffer, the byte
  // shifter and the flit multiplexer: the NIC's deepest estimated path (docs/SYNTH.md).
  // The trailer follows its last payload flit at once, so it takes the fold (crc_now).
  logic [31:0] crc_q, crc_d, crc_in, crc_out, crc_now;
  logic [63:0] crc_data_q;
  logic        crc_pend_q, crc_first_q;

  assign hdr_w0 = '{
    rsvd62: '0,
    dctx:   job.remote[50:48],
    len:    11'(job.len),
    lag:    job.lag,
    flags:  job.flags[3:0],
    attempt: job.attempt,
    last:   job.last,
    first:  job.first,
    ptype:  job.flags[DESC_FLAG_BCAST_BIT] ? PTYPE_BCAST : PTYPE_WRITE,
    src:    node_id_i,
    dest:   job.dest
  };
  // job.remote is {key, descriptor word 1}: key in 79:64, dctx in 50:48, address in 47:0.
  assign hdr_w1 = '{key: job.remote[79:64], remote_addr: job.remote[47:0]};
  assign hdr_w2 = '{seq: job.seq, offset: job.offset[23:0], msg_id: job.msg_id};
  assign trl    = '{rsvd32: '0, crc: ~crc_now};
  // Only meaningful with msg_done_o, which is only raised for the head job.
  assign msg_retx_o = job.retx;
  assign msg_ridx_o = job.ridx;
  assign msg_rec_o  = job.rec;

  // Credits: the router returns one per freed buffer slot; we may send while any remain.
  logic [CreditW-1:0] credit_q, credit_d;
  logic               has_credit;
  assign has_credit = (credit_q != '0);

  logic        send, send_last, send_err;
  logic [63:0] send_data;
  link_flit_t  flit_q, flit_d;

  always_comb begin
    state_d      = state_q;
    send         = 1'b0;
    send_last    = 1'b0;
    send_err     = 1'b0;
    send_data    = 64'h0;
    ra_out_ready = 1'b0;
    ra_clear     = 1'b0;
    job_pop      = drain_i && job_valid;
    pkt_sent_o   = 1'b0;
    msg_done_o   = 1'b0;
    msg_err_o    = 1'b0;
    pkt_bad_d    = pkt_bad_q || (pbuf_fire && pbuf_err_i);
    skip_d       = skip_q;
    ans_ready_o  = 1'b0;

    unique case (state_q)
      StHdr0: begin
        send_data = hdr_w0;
        if (ans_valid_i) begin
          send_data   = ans_data_i;
          send_last   = ans_last_i;
          ans_ready_o = has_credit;
          if (has_credit) begin
            send    = 1'b1;
            state_d = ans_last_i ? StHdr0 : StAns;
          end
        end else if (job_valid && !drain_i && job_skip) begin
          state_d = StSkip;
        end else if (job_valid && !drain_i && ra_in_avail && has_credit) begin
          send    = 1'b1;
          state_d = StHdr1;
        end
      end
      StHdr1: begin
        send_data = hdr_w1;
        if (has_credit) begin
          send    = 1'b1;
          state_d = StHdr2;
        end
      end
      StHdr2: begin
        send_data = hdr_w2;
        if (has_credit) begin
          send    = 1'b1;
          state_d = StPay;
        end
      end
      StPay: begin
        send_data    = ra_out_data;
        ra_out_ready = has_credit;
        if (has_credit && ra_out_valid) begin
          send = 1'b1;
          if (ra_out_last) state_d = StTrl;
        end
      end
      StTrl: begin
        send_data = pkt_bad_q ? 64'h0 : trl;
        send_last = 1'b1;
        send_err  = pkt_bad_q;
        if (has_credit) begin
          send       = 1'b1;
          job_pop    = 1'b1;
          ra_clear   = 1'b1;
          pkt_sent_o = !pkt_bad_q;
          msg_done_o = job.last;
          msg_err_o  = job.last && pkt_bad_q;
          if (pkt_bad_q && !job.last) skip_d[job_key] = 1'b1;
          pkt_bad_d  = 1'b0;
          state_d    = StHdr0;
        end
      end
      StSkip: begin
        ra_out_ready = 1'b1;
        if (ra_out_valid && ra_out_last) state_d = StSkipEnd;
      end
      StSkipEnd: begin
        job_pop    = 1'b1;
        ra_clear   = 1'b1;
        msg_done_o = job.last;
        msg_err_o  = job.last;
        if (job.last) skip_d[job_key] = 1'b0;
        pkt_bad_d  = 1'b0;
        state_d    = StHdr0;
      end
      StAns: begin
        send_data   = ans_data_i;
        send_last   = ans_last_i;
        ans_ready_o = has_credit;
        if (has_credit && ans_valid_i) begin
          send = 1'b1;
          if (ans_last_i) state_d = StHdr0;
        end
      end
      StEep: begin
        send_last = 1'b1;
        send_err  = 1'b1;
        if (has_credit) begin
          send    = 1'b1;
          state_d = StHdr0;
        end
      end
      default: state_d = StHdr0;
    endcase

    // A ring reset wins over whatever this cycle would have sent, except an answer flit
    // (answers are not the ring's; one is only ever sent between data packets).
    if (flush_i) begin
      send         = ans_ready_o && ans_valid_i;
      ra_out_ready = 1'b0;
      ra_clear     = 1'b1;
      pkt_sent_o   = 1'b0;
      msg_done_o   = 1'b0;
      msg_err_o    = 1'b0;
      pkt_bad_d    = 1'b0;
      skip_d       = '0;
      job_pop      = job_valid;
      unique case (state_q)
        StHdr1, StHdr2, StPay, StTrl, StEep: state_d = StEep;
        StAns:                               state_d = state_d;
        default:                             state_d = send ? state_d : StHdr0;
      endcase
    end
  end

  // The CRC restarts with each packet's first header flit.
  assign crc_in  = crc_first_q ? 32'hFFFF_FFFF : crc_q;
  assign crc_now = crc_pend_q ? crc_out : crc_q;
  assign crc_d   = crc_now;

  crc32_d64 u_crc (
    .crc_i (crc_in),
    .data_i(crc_data_q),
    .crc_o (crc_out)
  );

  // Every flit but a last one counts (answers too: harmless, the next header restarts).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      crc_pend_q  <= 1'b0;
      crc_first_q <= 1'b0;
    end else begin
      crc_pend_q  <= send && !send_last;
      crc_first_q <= (state_q == StHdr0);
    end
  end
  always_ff @(posedge clk_i) begin
    if (send) crc_data_q <= send_data;
  end

  always_comb begin
    credit_d = credit_q;
    unique case ({tx_credit_i, send})
      2'b10:   credit_d = credit_q + 1'b1;
      2'b01:   credit_d = credit_q - 1'b1;
      default: credit_d = credit_q;
    endcase
  end

  always_comb begin
    flit_d = LINK_FLIT_IDLE;
    if (send) flit_d = '{valid: 1'b1, last: send_last, err: send_err, data: send_data};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= StHdr0;
      pkt_bad_q  <= 1'b0;
      skip_q     <= '0;
      crc_q    <= '0;
      credit_q <= '0;
      flit_q   <= LINK_FLIT_IDLE;
    end else begin
      state_q    <= state_d;
      pkt_bad_q  <= pkt_bad_d;
      skip_q     <= skip_d;
      crc_q    <= crc_d;
      credit_q <= credit_d;
      flit_q   <= flit_d;
    end
  end

  assign tx_flit_o = flit_q;

`ifndef SYNTHESIS
  // The router never returns more credits than it has slots.
  a_credit_no_overflow: assert property (@(posedge clk_i)
                                         (tx_credit_i && !send) |-> (credit_q != '1));
`endif

endmodule
