// The checks a descriptor must pass before anything of it is sent (the first failing one
// names the completion's error code, docs/CONTRACT.md).
//
// Combinational, on stored fields: ddc_tx_ctx_fetch checks each descriptor as it enters
// its store and ddc_tx_retx each re-read one before offering it, and both keep the
// result in a register. The read engine only looks at the code, so the checks (a 49-bit
// add and compare, range compares) are on no path from the fetch stage's offer through
// the take into the packet cut (docs/SYNTH.md). DEST_LO/DEST_HI are configuration,
// stable while traffic runs, so checking a descriptor before it is offered is the same
// as checking it at the take.
module ddc_tx_desc_check
  import fasthsl_pkg::*;
(
  input  logic [31:0] len_i,
  input  logic [63:0] remote_w1_i,   // descriptor word 1: remote_addr[47:0] | dctx << 48
  input  logic [15:0] dest_i,
  input  logic [7:0]  flags_i,
  input  logic        inline_i,
  input  logic        pushed_i,      // inline words 1..7 are in the push window
  input  logic        bad_i,         // a retransmission's slot no longer names its message
  input  logic [15:0] dest_lo_i,
  input  logic [15:0] dest_hi_i,
  output desc_err_e   err_o
);
  // The destination context is the receiver's to check (its own context pages).
  logic [2:0] dctx_unused;
  assign dctx_unused = remote_w1_i[50:48];

  logic inline_too_long;
  assign inline_too_long = inline_i && (len_i > (pushed_i ? 32'(INLINE_MAX) :
                                                            32'(INLINE_RING_MAX)));

  always_comb begin
    err_o = DESC_ERR_OK;
    if (bad_i) begin
      err_o = DESC_ERR_RETRY_EXHAUSTED;
    end else if (len_i == '0) begin
      err_o = DESC_ERR_ZERO_LEN;
    end else if (len_i > 32'(MSG_LEN_MAX)) begin
      err_o = DESC_ERR_LEN_TOO_BIG;
    end else if ((remote_w1_i[63:51] != '0) ||
                 (49'(remote_w1_i[47:0]) + 49'(len_i) > 49'(64'h1_0000_0000_0000))) begin
      // A message ending past 2^48 would carry into dctx as its packets' addresses
      // advance.
      err_o = DESC_ERR_ADDR_RANGE;
    end else if (flags_i[DESC_FLAG_BCAST_BIT]) begin
      // A broadcast's dest is a node range lo | hi << 8, inside DEST_RANGE.
      if (dest_i[7:0] > dest_i[15:8] || 16'(dest_i[7:0]) < dest_lo_i ||
          16'(dest_i[15:8]) > dest_hi_i) begin
        err_o = DESC_ERR_BCAST_RANGE;
      end else if (inline_too_long) begin
        err_o = DESC_ERR_INLINE_LEN;
      end
    end else if (dest_i < dest_lo_i || dest_i > dest_hi_i) begin
      err_o = DESC_ERR_BAD_DEST;
    end else if (inline_too_long) begin
      err_o = DESC_ERR_INLINE_LEN;
    end
  end

endmodule
