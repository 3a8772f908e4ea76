// LME ring descriptor fetch with prefetch.
//
// Reads the 4-word descriptor at lme_base + 32 * idx for every slot between its own fetch
// index and the driver's producer index, up to DescDepth descriptors ahead of the read
// engine: a read is only issued when the queue has a slot for its result (counting reads
// in flight), so several descriptors overlap one read latency and back-to-back messages
// don't pay it serially. The fetch index runs ahead of the consumer index, which the
// completion unit owns.
//
// A pushed descriptor (ddc_push) stands for the ring slot it names: when the fetch index
// reaches that slot, the descriptor enters the queue from the push window instead of a
// ring read, once every earlier read has answered, so the queue stays in ring order.
module ddc_tx_desc_fetch
  import fasthsl_pkg::*;
#(
  parameter int unsigned DescDepth = 4
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        flush_i,      // pulse: ring reset, fetch index back to 0
  input  logic        drain_i,      // flush in progress: discard queued descriptors

  input  logic        enable_i,
  input  logic [63:0] lme_base_i,
  input  logic [15:0] lme_size_i,
  input  logic [15:0] lme_prod_i,

  // Push window: the descriptor of slot push_slot_i, if push_valid_i.
  input  logic        push_valid_i,
  input  logic [15:0] push_slot_i,
  input  logic [63:0] push_local_i,
  input  logic [63:0] push_remote_i,
  input  logic [63:0] push_w2_i,
  input  logic [31:0] push_msg_id_i,
  output logic        push_take_o,

  // Descriptor reads (4 beats each).
  output logic        req_valid_o,
  input  logic        req_ready_i,
  output logic [63:0] req_addr_o,

  // Response beats of descriptor reads, in order.
  input  logic        rsp_valid_i,
  input  logic [63:0] rsp_data_i,

  // Descriptors, ring order.
  output logic        desc_valid_o,
  input  logic        desc_ready_i,
  output logic [63:0] desc_local_o,
  output logic [63:0] desc_remote_o,
  output logic [31:0] desc_len_o,
  output logic [15:0] desc_dest_o,
  output logic [7:0]  desc_flags_o,  // only the low 8 flag bits travel (packet header)
  output logic [31:0] desc_msg_id_o,
  output logic        desc_inline_o,  // DESC_FLAG_INLINE (a local-only flag bit)
  output logic        desc_pushed_o,  // came from the push window

  output logic        idle_o         // queue empty
);
  localparam int unsigned CntW = $clog2(DescDepth + 1);

  typedef struct packed {
    logic [63:0] local_addr;
    logic [63:0] remote_addr;
    logic [31:0] len;
    logic [15:0] dest;
    logic [7:0]  flags;
    logic [31:0] msg_id;
    logic        inl;
    logic        pushed;
  } desc_t;

  logic [15:0]   idx_q, idx_d;
  logic [CntW-1:0] inflight_q, inflight_d;
  logic [1:0]    beat_q, beat_d;
  logic [63:0]   w0_q;
  logic [47:0]   w1_q;            // word 1 bits 63:48 are not address
  logic [31:0]   len_q;
  logic [15:0]   dest_q;
  logic [7:0]    flags_q;
  logic          inl_q;

  lme_desc_w2_t    rsp_w2, push_w2;
  desc_t           q_in, q_out;
  logic            q_push, rsp_push, q_valid, q_pop, q_in_ready;
  logic [CntW-1:0] q_count;
  logic            req_fire, fetch_ok, push_here;

  assign fetch_ok    = enable_i && !drain_i && (lme_size_i != '0) && (idx_q != lme_prod_i) &&
                       (CntW'(inflight_q + q_count) < CntW'(DescDepth));
  assign push_here   = push_valid_i && (push_slot_i == idx_q);
  assign req_valid_o = fetch_ok && !push_here;
  assign req_addr_o  = lme_base_i + {43'h0, idx_q, 5'h00};
  assign req_fire    = req_valid_o && req_ready_i;
  assign push_take_o = fetch_ok && push_here && (inflight_q == '0);

  // The fourth beat completes a descriptor; the slot was reserved when its read went out.
  assign rsp_w2   = rsp_data_i;
  assign push_w2  = push_w2_i;
  assign rsp_push = rsp_valid_i && (beat_q == 2'd3);
  assign q_push   = rsp_push || push_take_o;
  always_comb begin
    if (push_take_o) begin
      q_in = '{
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
        local_addr:  w0_q,
        // {key, address}: the key (word 3 bits 63:48) travels above the 48 address bits.
        remote_addr: {rsp_data_i[63:48], w1_q},
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
  assign desc_local_o  = q_out.local_addr;
  assign desc_remote_o = q_out.remote_addr;
  assign desc_len_o    = q_out.len;
  assign desc_dest_o   = q_out.dest;
  assign desc_flags_o  = q_out.flags;
  assign desc_msg_id_o = q_out.msg_id;
  assign desc_inline_o = q_out.inl;
  assign desc_pushed_o = q_out.pushed;
  assign idle_o        = !q_valid;

  always_comb begin
    idx_d      = idx_q;
    inflight_d = inflight_q;
    beat_d     = beat_q;
    if (req_fire || push_take_o) begin
      idx_d = (idx_q + 16'd1 == lme_size_i) ? '0 : idx_q + 16'd1;
    end
    if (rsp_valid_i) beat_d = beat_q + 2'd1;
    unique case ({req_fire, rsp_push})
      2'b10:   inflight_d = inflight_q + 1'b1;
      2'b01:   inflight_d = inflight_q - 1'b1;
      default: inflight_d = inflight_q;
    endcase
    // Beats of reads already issued are dropped upstream.
    if (flush_i) begin
      idx_d      = '0;
      inflight_d = '0;
      beat_d     = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      idx_q      <= '0;
      inflight_q <= '0;
      beat_q     <= '0;
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
      if (rsp_valid_i) begin
        unique case (beat_q)
          2'd0: w0_q <= rsp_data_i;
          2'd1: w1_q <= rsp_data_i[47:0];
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
`endif

endmodule
