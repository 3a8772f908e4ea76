// Descriptor completion: status write-back and the consumer index, in ring order.
//
// The read engine queues one record per descriptor as it takes it. A record with an error
// completes at once (once it reaches the head); a good one waits for the packetizer to
// report its message's last trailer. Messages finish in ring order, so a count of such
// reports is all the matching needed. The status word (descriptor word 3) goes out as one
// posted 8-byte write; LME_CONS advances and the event pulses fire when the host takes it.
// A message cut by a payload read error (msg_err_i with its msg_done_i) completes with
// DMA_RD: one flag per reported message, kept in report order next to the count.
//
// Records name their context (ddc_tx_ctx_fetch): the status goes to that context's ring
// slot and its LME_CONS advances. One in-order stream serves every context, so each
// context's completions stay in its ring order. flush_i restarts every context's indices;
// ctx_reset_i[k] only context k's, which has no record queued then (ddc_ctx_csr's rule).
module ddc_tx_complete
  import fasthsl_pkg::*;
#(
  parameter int unsigned CplDepth = 16,
  parameter int unsigned NumCtx   = 1,
  localparam int unsigned CtxW    = (NumCtx > 1) ? $clog2(NumCtx) : 1
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

  input  logic        msg_done_i,   // the last trailer of the oldest good message left
  input  logic        msg_err_i,    // ... and the message was cut by a DMA read error

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

  typedef struct packed {
    logic [CtxW-1:0] ctx;
    desc_err_e   err;
    logic [31:0] msg_id;
    logic        irq;
  } cpl_t;

  cpl_t            q_in, q_out;
  logic            q_valid, q_pop;
  logic [CntW-1:0] q_count_unused;

  assign q_in = '{ctx: cpl_ctx_i, err: cpl_err_i, msg_id: cpl_msg_id_i, irq: cpl_irq_i};

  fifo_sync #(
    .WIDTH($bits(cpl_t)),
    .DEPTH(CplDepth)
  ) u_cpl_fifo (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (cpl_valid_i && !drain_i),
    .in_ready_o (cpl_ready_o),
    .in_data_i  (q_in),
    .out_valid_o(q_valid),
    .out_ready_i(q_pop),
    .out_data_o (q_out),
    .count_o    (q_count_unused)
  );

  assign idle_o = !q_valid;

  // Good messages whose last trailer left but whose record is not yet written back.
  logic [CntW-1:0] done_cnt_q, done_cnt_d;
  // Read-error flags of those messages: a ring of CplDepth bits (there are never more
  // reports pending than records queued).
  localparam int unsigned PtrW = $clog2(CplDepth);
  logic [CplDepth-1:0] done_err_q, done_err_d;
  logic [PtrW-1:0]     err_wp_q, err_wp_d, err_rp_q, err_rp_d;

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

  assign head_err = (q_out.err == DESC_ERR_OK && done_err_q[err_rp_q]) ? DESC_ERR_DMA_RD :
                                                                          q_out.err;

  assign head_ok = (q_out.err != DESC_ERR_OK) || (done_cnt_q != '0);
  assign accept  = wr_valid_q && wr_ready_i;
  assign load    = q_valid && head_ok && !drain_i && (!wr_valid_q || wr_ready_i);
  assign q_pop   = load || (drain_i && q_valid);

  always_comb begin
    status                  = {8'h00, head_err};
    status[STATUS_DONE_BIT] = 1'b1;
  end
  // Word 3 is rewritten whole: the key reads 0 in a completed slot.
  assign status_word = '{key: 16'h0, status: status, msg_id: q_out.msg_id};

  function automatic logic [15:0] ring_next(logic [15:0] idx, logic [15:0] size);
    return (idx + 16'd1 == size) ? 16'd0 : idx + 16'd1;
  endfunction

  always_comb begin
    done_cnt_d = done_cnt_q;
    done_err_d = done_err_q;
    err_wp_d   = err_wp_q;
    err_rp_d   = err_rp_q;
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

    unique case ({msg_done_i, load && q_out.err == DESC_ERR_OK})
      2'b10:   done_cnt_d = done_cnt_q + 1'b1;
      2'b01:   done_cnt_d = done_cnt_q - 1'b1;
      default: done_cnt_d = done_cnt_q;
    endcase
    if (msg_done_i) begin
      done_err_d[err_wp_q] = msg_err_i;
      err_wp_d             = err_wp_q + 1'b1;
    end
    if (load && q_out.err == DESC_ERR_OK) err_rp_d = err_rp_q + 1'b1;

    if (accept) begin
      wr_valid_d = 1'b0;
      wr_stale_d = 1'b0;
      if (!wr_stale_q) begin
        cons_d[wr_ctx_q] = ring_next(cons_q[wr_ctx_q], lme_size_i[wr_ctx_q]);
        done_d = 1'b1;
        err_d  = wr_err_q;
        irq_d  = wr_irq_q;
      end
    end

    if (load) begin
      wr_valid_d = 1'b1;
      wr_addr_d  = lme_base_i[q_out.ctx] + {43'h0, wr_idx_q[q_out.ctx], 5'h00} + 64'd24;
      wr_data_d  = status_word;
      wr_err_d   = (head_err != DESC_ERR_OK);
      wr_irq_d   = q_out.irq;
      wr_ctx_d   = q_out.ctx;
      wr_idx_d[q_out.ctx] = ring_next(wr_idx_q[q_out.ctx], lme_size_i[q_out.ctx]);
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
      done_cnt_d = '0;
      err_wp_d   = '0;
      err_rp_d   = '0;
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
      done_cnt_q <= '0;
      done_err_q <= '0;
      err_wp_q   <= '0;
      err_rp_q   <= '0;
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
      done_cnt_q <= done_cnt_d;
      done_err_q <= done_err_d;
      err_wp_q   <= err_wp_d;
      err_rp_q   <= err_rp_d;
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

endmodule
