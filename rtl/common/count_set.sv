// The number of set bits of a vector, summed as a balanced tree: an increment per bit
// chains N adders (the rel table's lag count was that, in front of the read engine), the
// tree log2(N) levels of narrow ones.
module count_set #(
  parameter int unsigned N = 8,
  parameter int unsigned W = $clog2(N + 1)   // wide enough for N; wider is zero-extended
) (
  input  logic [N-1:0] v_i,
  output logic [W-1:0] count_o
);
  always_comb begin
    logic [N-1:0][W-1:0] part;
    for (int unsigned i = 0; i < N; i++) part[i] = W'(v_i[i]);
    // Level by level, node i adds node i + w's sum.
    for (int unsigned w = 1; w < N; w = w * 2) begin
      for (int unsigned i = 0; i + w < N; i = i + 2 * w) part[i] = part[i] + part[i + w];
    end
    count_o = part[0];
  end
endmodule
