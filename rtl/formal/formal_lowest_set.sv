// Formal harness for lowest_set: for every input vector, the tree answers what the
// first-match loop it replaces would (found, and the index whenever found). The tree is
// written as word-wide operations for the simulator's sake (rtl/common/lowest_set.sv),
// which is easy to get subtly wrong at the edges of a level; this holds it to the plain
// definition.
module formal_lowest_set #(
  parameter int unsigned N = 8
) (
  input logic         clk_i,
  input logic [N-1:0] v_i
);
  localparam int unsigned IdxW = (N > 1) ? $clog2(N) : 1;

  logic            found;
  logic [IdxW-1:0] idx;

  lowest_set #(
    .N(N)
  ) dut (
    .v_i    (v_i),
    .found_o(found),
    .idx_o  (idx)
  );

  logic            ref_found;
  logic [IdxW-1:0] ref_idx;
  always_comb begin
    ref_found = 1'b0;
    ref_idx   = '0;
    for (int i = int'(N) - 1; i >= 0; i--) begin
      if (v_i[i]) begin
        ref_found = 1'b1;
        ref_idx   = IdxW'(i);
      end
    end
  end

  always_comb begin
    assert (found == ref_found);
    if (ref_found) assert (idx == ref_idx);
  end

  // The answer is not always bit 0's, nor always found: the proof is not vacuous.
  always_comb begin
    cover (found && idx == IdxW'(N - 1));
    cover (!found);
  end

  logic unused_clk;
  assign unused_clk = clk_i;
endmodule
