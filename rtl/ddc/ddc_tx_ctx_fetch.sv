// Descriptor fetch for several contexts: round robin between the LME rings with work.
//
// ddc_tx_desc_fetch for NumCtx rings. Each context has its own fetch index; a descriptor
// read goes to the next context, round robin (rcube_rr_arbiter: the pointer moves past a
// context only when its read is issued), among those whose fetch index is behind their
// producer. So with several contexts posting, the descriptor queue interleaves them one
// descriptor at a time, and the read engine behind it serves them message by message:
// a context with one short message waits for at most one message of every other context,
// not for a whole backlog. Each context's descriptors stay in its ring order.
//
// Reads are issued only when the queue has a slot for their result (counting reads in
// flight); their responses come back in request order, and the context of each read
// waits in a small tag ring until its fourth beat completes the descriptor.
//
// The push window (ddc_push) belongs to context 0: a pushed descriptor stands for its
// slot of context 0's ring and enters the queue from the window, once every earlier read
// has answered, as in ddc_tx_desc_fetch.
//
// flush_i (page 0's ring reset) restarts every context's fetch index; ctx_reset_i[k]
// restarts context k's only, and comes only while context k has nothing in flight
// (ddc_ctx_csr refuses LME_SIZE while a context has descriptors not completed).
module ddc_tx_ctx_fetch
  import fasthsl_pkg::*;
#(
  parameter int unsigned DescDepth = 16,
  parameter int unsigned NumCtx    = CTX_COUNT,
  localparam int unsigned CtxW     = (NumCtx > 1) ? $clog2(NumCtx) : 1
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic                          flush_i,      // pulse: every fetch index back to 0
  input  logic                          drain_i,      // flush in progress: discard the queue
  input  logic [NumCtx-1:0]             ctx_reset_i,  // pulse: context k's fetch index to 0

  input  logic                          enable_i,
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
  output logic [63:0]                   desc_local_o,
  // {key (word 3 bits 63:48), word 1 (dctx, remote address)}
  output logic [79:0]                   desc_remote_o,
  output logic [31:0]                   desc_len_o,
  output logic [15:0]                   desc_dest_o,
  output logic [7:0]                    desc_flags_o,
  output logic [31:0]                   desc_msg_id_o,
  output logic                          desc_inline_o,
  output logic                          desc_pushed_o,

  output logic                          idle_o        // queue empty
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

  lme_desc_w2_t    rsp_w2, push_w2;
  desc_t           q_in, q_out;
  logic            q_push, rsp_push, q_valid, q_pop, q_in_ready;
  logic [CntW-1:0] q_count;
  logic            req_fire, room, push_here;

  // ---- which context reads next ----
  logic [NumCtx-1:0] pending;
  logic [CtxW-1:0]   sel;
  logic              sel_valid, arb_ack;
  always_comb begin
    for (int unsigned k = 0; k < NumCtx; k++) begin
      // In a context's reset cycle its new size and producer are already visible but
      // its fetch index is not yet back to 0.
      pending[k] = (lme_size_i[k] != '0) && (idx_q[k] != lme_prod_i[k]) && !ctx_reset_i[k];
    end
  end
  assign room = enable_i && !drain_i && (CntW'(inflight_q + q_count) < CntW'(DescDepth));

  logic [NumCtx-1:0] gnt_unused;
  rcube_rr_arbiter #(
    .N(NumCtx)
  ) u_arb (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .req_i  (room ? pending : '0),
    .ack_i  (arb_ack),
    .gnt_o  (gnt_unused),
    .idx_o  (sel),
    .valid_o(sel_valid)
  );

  assign push_here   = push_valid_i && (sel == '0) && (push_slot_i == idx_q[0]);
  assign req_valid_o = sel_valid && !push_here;
  assign req_addr_o  = lme_base_i[sel] + {43'h0, idx_q[sel], 5'h00};
  assign req_fire    = req_valid_o && req_ready_i;
  assign push_take_o = sel_valid && push_here && (inflight_q == '0);
  assign arb_ack     = req_fire || push_take_o;

  // The fourth beat completes a descriptor; the slot was reserved when its read went out.
  assign rsp_w2   = rsp_data_i;
  assign push_w2  = push_w2_i;
  assign rsp_push = rsp_valid_i && (beat_q == 2'd3);
  assign q_push   = rsp_push || push_take_o;
  always_comb begin
    if (push_take_o) begin
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

  fifo_sync #(
    .WIDTH($bits(desc_t)),
    .DEPTH(DescDepth)
  ) u_desc_fifo (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (q_push),
    .in_ready_o (q_in_ready),
    .in_data_i  (q_in),
    .out_valid_o(q_valid),
    .out_ready_i(q_pop),
    .out_data_o (q_out),
    .count_o    (q_count)
  );

  assign desc_valid_o  = q_valid && !drain_i;
  assign q_pop         = q_valid && (desc_ready_i || drain_i);
  assign desc_ctx_o    = q_out.ctx;
  assign desc_local_o  = q_out.local_addr;
  assign desc_remote_o = q_out.remote_addr;
  assign desc_len_o    = q_out.len;
  assign desc_dest_o   = q_out.dest;
  assign desc_flags_o  = q_out.flags;
  assign desc_msg_id_o = q_out.msg_id;
  assign desc_inline_o = q_out.inl;
  assign desc_pushed_o = q_out.pushed;
  assign idle_o        = !q_valid;

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
    if (req_fire || push_take_o) begin
      idx_d[sel] = (idx_q[sel] + 16'd1 == lme_size_i[sel]) ? '0 : idx_q[sel] + 16'd1;
    end
    if (req_fire) begin
      tag_d[tag_wp_q] = sel;
      tag_wp_d        = tag_next(tag_wp_q);
    end
    if (rsp_push) tag_rp_d = tag_next(tag_rp_q);
    if (rsp_valid_i) beat_d = beat_q + 2'd1;
    unique case ({req_fire, rsp_push})
      2'b10:   inflight_d = inflight_q + 1'b1;
      2'b01:   inflight_d = inflight_q - 1'b1;
      default: inflight_d = inflight_q;
    endcase
    for (int unsigned k = 0; k < NumCtx; k++) begin
      if (ctx_reset_i[k]) idx_d[k] = '0;
    end
    // Beats of reads already issued are dropped upstream.
    if (flush_i) begin
      idx_d      = '0;
      inflight_d = '0;
      beat_d     = '0;
      tag_wp_d   = '0;
      tag_rp_d   = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      idx_q      <= '0;
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
    end else begin
      idx_q      <= idx_d;
      inflight_q <= inflight_d;
      beat_q     <= beat_d;
      tag_q      <= tag_d;
      tag_wp_q   <= tag_wp_d;
      tag_rp_q   <= tag_rp_d;
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
  a_desc_no_overflow: assert property (@(posedge clk_i)
                                       q_push |-> q_in_ready);
  // A pushed descriptor enters only when no ring read can still answer ahead of it.
  a_push_alone: assert property (@(posedge clk_i) !(rsp_push && push_take_o));
  // A context is reset only while none of its reads is in flight (ddc_ctx_csr's rule).
  a_reset_idle: assert property (@(posedge clk_i) !(req_fire && ctx_reset_i[sel]));
`endif

endmodule
