// Retransmission fetch: re-reads a message's descriptor from its LME ring slot for the
// read engine (docs/RELIABILITY.md, "Retransmission and duplicates").
//
// The completion stage's rel table asks for a retransmission with the entry's context,
// ring slot, dest, msg_id, seq, lag and attempt. The slot still holds the descriptor: the
// driver reuses a slot only after its completion, and the record completes only once the
// entry has ended (a pushed descriptor was written into its slot too, ddc_push). One
// request at a time: the descriptor is read (4 beats, its own read tag), then offered to
// the read engine ahead of the ring's next descriptor, marked as a retransmission of the
// entry. Retransmissions are rare (a lost message), so one in flight is plenty.
//
// The slot may no longer name the entry's message (another dest or msg_id, or a
// broadcast): the host broke the slot rule, so its code is RETRY_EXHAUSTED, the read
// engine refuses it and the entry ends rather than sending something else under this
// message's number.
// A ring INLINE descriptor is re-read like any other; its bytes 8..63, if it was pushed
// with more, existed only in the push window, and the read engine refuses it (INLINE_LEN
// against INLINE_RING_MAX: the slot is not marked pushed).
//
// The re-read descriptor is checked (ddc_tx_desc_check, the slot rule included) in a cycle
// of its own before it is offered, and the read engine gets the registered code: one
// cycle more per retransmission keeps the checks off the read engine's take path.
//
// flush_i (ring reset) drops the request in progress; the read's response, if still owed,
// is dropped upstream like every read at a ring reset.
module ddc_tx_retx
  import fasthsl_pkg::*;
#(
  parameter int unsigned NumCtx = 1,
  localparam int unsigned CtxW  = (NumCtx > 1) ? $clog2(NumCtx) : 1
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  logic                    flush_i,
  input  logic                    drain_i,

  input  logic [NumCtx-1:0][63:0] lme_base_i,
  input  logic [15:0]             dest_lo_i,
  input  logic [15:0]             dest_hi_i,

  // Request (ddc_tx_complete's rel table).
  input  logic                    req_valid_i,
  output logic                    req_ready_o,
  input  logic [3:0]              req_idx_i,
  input  logic [CtxW-1:0]         req_ctx_i,
  input  logic [15:0]             req_slot_i,
  input  logic [15:0]             req_dest_i,
  input  logic [31:0]             req_msg_id_i,
  input  logic [7:0]              req_seq_i,
  input  logic [3:0]              req_lag_i,
  input  logic [1:0]              req_attempt_i,

  // Descriptor read (LME_DESC_WORDS beats) and its response beats.
  output logic                    rd_valid_o,
  input  logic                    rd_ready_i,
  output logic [63:0]             rd_addr_o,
  input  logic                    rsp_valid_i,
  input  logic [63:0]             rsp_data_i,

  // The re-read descriptor, for the read engine.
  output logic                    desc_valid_o,
  input  logic                    desc_ready_i,
  output logic [63:0]             desc_local_o,
  output logic [79:0]             desc_remote_o,   // {key, word 1}
  output logic [31:0]             desc_len_o,
  output logic [15:0]             desc_dest_o,
  output logic [7:0]              desc_flags_o,
  output logic [31:0]             desc_msg_id_o,
  output logic                    desc_inline_o,
  output logic [7:0]              desc_seq_o,
  output logic [3:0]              desc_lag_o,
  output logic [1:0]              desc_attempt_o,
  output logic [3:0]              desc_ridx_o,
  output desc_err_e               desc_err_o,   // its checks (ddc_tx_desc_check)

  output logic                    idle_o
);
  typedef enum logic [2:0] {
    StIdle,
    StRead,   // read request offered
    StRsp,    // collecting its beats
    StCheck,  // checking it
    StDesc    // descriptor offered to the read engine
  } st_e;

  st_e         st_q, st_d;
  logic [1:0]  beat_q, beat_d;
  logic [3:0]  idx_q;
  logic [CtxW-1:0] ctx_q;
  logic [15:0] slot_q, dest_q;
  logic [31:0] msg_id_q;
  logic [7:0]  seq_q;
  logic [3:0]  lag_q;
  logic [1:0]  att_q;
  logic [3:0][63:0] w_q;
  logic        take;
  desc_err_e   err_q, err_d;

  assign req_ready_o = (st_q == StIdle) && !drain_i;
  assign take        = req_valid_i && req_ready_o;

  always_comb begin
    st_d   = st_q;
    beat_d = beat_q;
    unique case (st_q)
      StIdle: if (take) st_d = StRead;
      StRead: if (rd_ready_i) begin
        st_d   = StRsp;
        beat_d = '0;
      end
      StRsp: if (rsp_valid_i) begin
        beat_d = beat_q + 2'd1;
        if (beat_q == 2'(LME_DESC_WORDS - 1)) st_d = StCheck;
      end
      StCheck: st_d = StDesc;
      StDesc: if (desc_valid_o && desc_ready_i) st_d = StIdle;
      default: st_d = StIdle;
    endcase
    if (flush_i) st_d = StIdle;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q     <= StIdle;
      beat_q   <= '0;
      idx_q    <= '0;
      ctx_q    <= '0;
      slot_q   <= '0;
      dest_q   <= '0;
      msg_id_q <= '0;
      seq_q    <= '0;
      lag_q    <= '0;
      att_q    <= '0;
      w_q      <= '0;
      err_q    <= DESC_ERR_OK;
    end else begin
      st_q   <= st_d;
      beat_q <= beat_d;
      if (take) begin
        idx_q    <= req_idx_i;
        ctx_q    <= req_ctx_i;
        slot_q   <= req_slot_i;
        dest_q   <= req_dest_i;
        msg_id_q <= req_msg_id_i;
        seq_q    <= req_seq_i;
        lag_q    <= req_lag_i;
        att_q    <= req_attempt_i;
      end
      if (st_q == StRsp && rsp_valid_i) w_q[beat_q] <= rsp_data_i;
      if (st_q == StCheck) err_q <= err_d;
    end
  end

  lme_desc_w2_t w2;
  lme_desc_w3_t w3;
  assign w2 = w_q[2];
  assign w3 = w_q[3];

  assign rd_valid_o = (st_q == StRead);
  assign rd_addr_o  = lme_base_i[ctx_q] + {43'h0, slot_q, 5'h00};

  assign desc_valid_o   = (st_q == StDesc) && !drain_i;
  assign desc_local_o   = w_q[0];
  assign desc_remote_o  = {w3.key, w_q[1]};
  assign desc_len_o     = w2.len;
  assign desc_dest_o    = w2.dest;
  assign desc_flags_o   = w2.flags[7:0];
  assign desc_msg_id_o  = w3.msg_id;
  assign desc_inline_o  = w2.flags[DESC_FLAG_INLINE_BIT];
  assign desc_seq_o     = seq_q;
  assign desc_lag_o     = lag_q;
  assign desc_attempt_o = att_q;
  assign desc_ridx_o    = idx_q;
  logic slot_reused;
  assign slot_reused    = (w2.dest != dest_q) || (w3.msg_id != msg_id_q) ||
                          w2.flags[DESC_FLAG_BCAST_BIT];
  assign desc_err_o     = err_q;
  assign idle_o         = (st_q == StIdle);

  ddc_tx_desc_check u_check (
    .len_i      (w2.len),
    .remote_w1_i(w_q[1]),
    .dest_i     (w2.dest),
    .flags_i    (w2.flags[7:0]),
    .inline_i   (w2.flags[DESC_FLAG_INLINE_BIT]),
    .pushed_i   (1'b0),   // a ring slot: its inline bytes 8..63 are gone
    .bad_i      (slot_reused),
    .dest_lo_i  (dest_lo_i),
    .dest_hi_i  (dest_hi_i),
    .err_o      (err_d)
  );

  // w3.status is the NIC's own field (written at completion); nothing to read in it.
  logic [15:0] status_unused;
  logic [15:0] flags_hi_unused;
  assign status_unused   = w3.status;
  assign flags_hi_unused = w2.flags;

endmodule
