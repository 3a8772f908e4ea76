// Push window: a descriptor (and up to INLINE_MAX payload bytes) written through MMIO,
// so a lone message costs no descriptor read and, inline, no payload read either.
//
// The driver writes PUSH_DATA (inline bytes 8..63, if any), PUSH_DESC[0..6], then
// PUSH_DESC[7], the trigger, whose bits 15:0 are the new LME_PROD and bits 31:16 the
// descriptor's receive window key (lme_desc word 3 bits 63:48, where the trigger sits). The CSR block applies that
// value as a plain doorbell whatever happens here, and the driver has also written the
// descriptor into its ring slot: a rejected push therefore only costs the ring read it
// was meant to save, and the pushed descriptor is simply "the content of slot
// LME_PROD", which keeps pushed and ring descriptors in one order and one completion
// stream.
//
// One descriptor is held at a time:
//   free    -> pending  trigger accepted: window complete, exactly one new descriptor
//   pending -> held     the descriptor fetcher reached the slot and took the descriptor
//   held    -> free     the read engine no longer needs the inline words (release)
// Window writes while not free are ignored (they would overwrite the held words); the
// written-masks then stay incomplete, so a push overlapping a busy path is rejected, not
// sent with a mix of two descriptors. Every trigger clears the masks.
module ddc_push
  import fasthsl_pkg::*;
(
  input  logic              clk_i,
  input  logic              rst_ni,
  // CSR bus (snooped; the CSR block answers)
  input  logic              csr_req_valid_i,
  input  logic              csr_req_write_i,
  input  logic [11:0]       csr_req_addr_i,
  input  logic [31:0]       csr_req_wdata_i,
  // ring state before this cycle's write
  input  logic [15:0]       lme_size_i,
  input  logic [15:0]       lme_prod_i,
  input  logic              flush_i,        // ring reset: forget the held descriptor
  // to the descriptor fetcher
  output logic              push_valid_o,   // pending: slot push_slot_o is in the window
  output logic [15:0]       push_slot_o,
  output logic [63:0]       push_local_o,
  output logic [79:0]       push_remote_o,   // {key, descriptor word 1}
  output logic [63:0]       push_w2_o,      // lme_desc word 2: len, dest, flags
  output logic [31:0]       push_msg_id_o,
  input  logic              push_take_i,
  // to the read engine: inline payload words 1..7 (index 0 = bytes 8..15)
  output logic [6:0][63:0]  push_data_o,
  input  logic              push_release_i,
  // status and events
  output logic              free_o,
  output logic              accept_o,
  output logic              reject_o
);
  localparam int unsigned NDesc = PUSH_DESC_COUNT;   // 8 halves; the last is the trigger
  localparam int unsigned NData = PUSH_DATA_COUNT;   // 14 halves

  typedef enum logic [1:0] {
    StFree,
    StPending,
    StHeld
  } state_e;

  state_e                       state_q, state_d;
  logic [NDesc-2:0][31:0]       desc_q;
  logic [NData-1:0][31:0]       data_q;
  logic [NDesc-2:0]             desc_mask_q, desc_mask_d;
  logic [NData-1:0]             data_mask_q, data_mask_d;
  logic [15:0]                  slot_q, slot_d;
  logic [15:0]                  key_q;

  logic [15:0] addr;
  logic        wr, in_desc, in_data, trigger;
  logic [2:0]  desc_idx;
  logic [3:0]  data_idx;
  logic [15:0] desc_off, data_off;

  assign addr     = {4'h0, csr_req_addr_i};
  assign wr       = csr_req_valid_i && csr_req_write_i && (addr[1:0] == 2'b00);
  assign desc_off = addr - PUSH_DESC_OFFSET;
  assign data_off = addr - PUSH_DATA_OFFSET;
  assign in_desc  = wr && (addr >= PUSH_DESC_OFFSET) &&
                    (desc_off < 16'(NDesc * PUSH_DESC_STRIDE));
  assign in_data  = wr && (addr >= PUSH_DATA_OFFSET) &&
                    (data_off < 16'(NData * PUSH_DATA_STRIDE));
  assign desc_idx = desc_off[4:2];
  assign data_idx = data_off[5:2];
  assign trigger  = in_desc && (desc_idx == 3'(NDesc - 1));

  // Inline payload beyond the local_addr field needs PUSH_DATA registers 0..n-1,
  // n = ceil((len - 8) / 4). A length above INLINE_MAX is left to the read engine, which
  // fails the descriptor with INLINE_LEN (one error path for pushed and ring copies).
  // lme_desc word 2: len is its low half, flags the top 16 bits of its high half.
  // The length's part is worked out as word 4 is written, not from the stored word at the
  // doorbell: its compares started the push's deepest path (the doorbell's accept into the
  // CSR block's counters, docs/SYNTH.md). Like the words, it is valid once they all are.
  function automatic logic [NData-1:0] need_of(logic [31:0] len);
    logic [NData-1:0] need;
    need = '0;
    if (len > 32'(INLINE_RING_MAX) && len <= 32'(INLINE_MAX)) begin
      for (int unsigned i = 0; i < NData; i++) begin
        need[i] = (32'(INLINE_RING_MAX) + 32'(4 * i)) < len;
      end
    end
    return need;
  endfunction
  logic [NData-1:0] data_need, len_need_q;
  logic             inl_flag;
  assign inl_flag  = desc_q[5][16 + DESC_FLAG_INLINE_BIT];
  assign data_need = inl_flag ? len_need_q : '0;

  logic [15:0] prod_next;
  logic        complete, one_more, accept;
  assign prod_next = (lme_prod_i + 16'd1 == lme_size_i) ? 16'd0 : lme_prod_i + 16'd1;
  assign complete  = (&desc_mask_q) && ((data_mask_q & data_need) == data_need);
  assign one_more  = (lme_size_i != '0) && (csr_req_wdata_i[15:0] == prod_next);
  assign accept    = trigger && (state_q == StFree) && complete && one_more && !flush_i;

  always_comb begin
    state_d     = state_q;
    slot_d      = slot_q;
    desc_mask_d = desc_mask_q;
    data_mask_d = data_mask_q;
    if (state_q == StFree) begin
      if (in_desc && !trigger) desc_mask_d[desc_idx] = 1'b1;
      if (in_data)             data_mask_d[data_idx] = 1'b1;
    end
    if (trigger) begin
      desc_mask_d = '0;
      data_mask_d = '0;
    end
    unique case (state_q)
      StFree:    if (accept) begin
        state_d = StPending;
        slot_d  = lme_prod_i;
      end
      StPending: if (push_take_i) state_d = StHeld;
      StHeld:    if (push_release_i) state_d = StFree;
      default:   state_d = StFree;
    endcase
    if (flush_i) state_d = StFree;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= StFree;
      slot_q      <= '0;
      desc_mask_q <= '0;
      data_mask_q <= '0;
    end else begin
      state_q     <= state_d;
      slot_q      <= slot_d;
      desc_mask_q <= desc_mask_d;
      data_mask_q <= data_mask_d;
    end
  end

  // Payload registers: no reset needed, the masks say what is valid.
  always_ff @(posedge clk_i) begin
    if (state_q == StFree) begin
      if (in_desc && !trigger) desc_q[desc_idx] <= csr_req_wdata_i;
      if (in_desc && !trigger && desc_idx == 3'd4) len_need_q <= need_of(csr_req_wdata_i);
      if (in_data)             data_q[data_idx] <= csr_req_wdata_i;
    end
    if (accept) key_q <= csr_req_wdata_i[31:16];
  end

  assign push_valid_o  = (state_q == StPending);
  assign push_slot_o   = slot_q;
  assign push_local_o  = {desc_q[1], desc_q[0]};
  // The TX path carries the key next to the descriptor's word 1 (dctx, address).
  assign push_remote_o = {key_q, desc_q[3], desc_q[2]};
  assign push_w2_o     = {desc_q[5], desc_q[4]};
  assign push_msg_id_o = desc_q[6];
  for (genvar w = 0; w < 7; w++) begin : g_data
    assign push_data_o[w] = {data_q[2*w+1], data_q[2*w]};
  end

  assign free_o   = (state_q == StFree);
  assign accept_o = accept;
  assign reject_o = trigger && !accept;

`ifndef SYNTHESIS
  a_need_of_len: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                  desc_mask_q[4] |-> (len_need_q == need_of(desc_q[4])));
  a_take_pending: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                   push_take_i |-> (state_q == StPending));
  a_release_held: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                   push_release_i |-> (state_q == StHeld || flush_i));
`endif

endmodule
