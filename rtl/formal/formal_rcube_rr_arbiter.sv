// Formal harness for rcube_rr_arbiter.
//
// Safety: the grant is one-hot or zero, only to a requester, valid_o exactly when
// someone requests, idx_o names the granted requester. Fairness: a requester the solver
// picks (k) that keeps requesting is passed over by at most N-1 used (acked) grants
// before it is served, whatever the others and ack_i do; with FAIR_ACK (every grant is
// used, as in rcube_output_port) that is at most N-1 cycles of waiting.
module formal_rcube_rr_arbiter #(
  parameter int unsigned N = 8
) (
  input logic         clk_i,
  input logic         rst_ni,
  input logic [N-1:0] req_i,
  input logic         ack_i,
  input logic [((N > 1) ? $clog2(N) : 1)-1:0] k
);
  localparam int unsigned IdxW = (N > 1) ? $clog2(N) : 1;

  logic [N-1:0]    gnt;
  logic [IdxW-1:0] idx;
  logic            valid;

  rcube_rr_arbiter #(
    .N(N)
  ) dut (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .req_i  (req_i),
    .ack_i  (ack_i),
    .gnt_o  (gnt),
    .idx_o  (idx),
    .valid_o(valid)
  );

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  always_comb if (init_q) assume (!rst_ni);
`ifdef FAIR_ACK
  always_comb assume (ack_i == valid);
`endif

  // k: the watched requester, free but constant (yosys-slang has no $anyconst)
  logic [IdxW-1:0] k_q;
  always_ff @(posedge clk_i) k_q <= k;
  always_comb begin
    assume (32'(k) < N);
    if (!init_q) assume (k == k_q);
  end

  // Used grants that went to others while k kept requesting, and cycles k waited.
  logic [IdxW:0] skips_q, wait_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      skips_q <= '0;
      wait_q  <= '0;
    end else if (!req_i[k] || gnt[k]) begin
      skips_q <= '0;
      wait_q  <= '0;
    end else begin
      if (valid && ack_i) skips_q <= skips_q + 1'b1;
      if (wait_q != '1)   wait_q  <= wait_q + 1'b1;
    end
  end

  // Cyclic distance from the priority pointer to k: every grant that passes k over moves
  // the pointer strictly closer to it (induction strengthening).
  logic [IdxW:0] gap;
  always_comb begin
    if (k >= dut.ptr_q) gap = (IdxW + 1)'(k) - (IdxW + 1)'(dut.ptr_q);
    else                gap = (IdxW + 1)'(k) + (IdxW + 1)'(N) - (IdxW + 1)'(dut.ptr_q);
  end

  always_comb begin
    if (!init_q && rst_ni) begin
      assert ((gnt & (gnt - 1'b1)) == '0);
      assert ((gnt & ~req_i) == '0);
      assert (valid == (req_i != '0));
      if (valid) begin
        assert (gnt == (N'(1) << idx));
      end else begin
        assert (gnt == '0);
      end
      assert (32'(skips_q) <= N - 1);
`ifndef NO_STRENGTHEN
      assert (32'(dut.ptr_q) < N);
      if (req_i[k] && !gnt[k]) assert (32'(skips_q) + 32'(gap) <= N - 1);
`endif
`ifdef FAIR_ACK
      assert (wait_q == skips_q);
      assert (32'(wait_q) <= N - 1);
`endif
      cover (req_i[k] && gnt[k] && 32'(skips_q) == N - 1);
    end
  end
endmodule
