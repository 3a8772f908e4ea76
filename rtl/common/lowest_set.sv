// The lowest set bit of a vector: whether there is one, and its index (meaningful only
// with found_o).
//
// Built as a balanced tree of (found, index) pairs. Written as a first-match loop, a
// priority pick maps to a chain about as long as the vector (the NIC's table lookups
// and victim choices were its longest paths that way, docs/SYNTH.md); the tree is
// log2(N) levels of 2:1 choices.
module lowest_set #(
  parameter int unsigned N = 8,
  localparam int unsigned IdxW = (N > 1) ? $clog2(N) : 1
) (
  input  logic [N-1:0]    v_i,
  output logic            found_o,
  output logic [IdxW-1:0] idx_o
);
  // The indices are an unpacked array: packed, they are one wide word to Verilator, and
  // every node became a read-modify-write across its words.
  always_comb begin
    logic [N-1:0]    found;
    logic [IdxW-1:0] at [N];
    found = v_i;
    for (int unsigned i = 0; i < N; i++) at[i] = IdxW'(i);
    // Level by level, node i takes node i + w's answer when its own half has none.
    for (int unsigned w = 1; w < N; w = w * 2) begin
      for (int unsigned i = 0; i + w < N; i = i + 2 * w) begin
        if (!found[i]) at[i] = at[i + w];
        found[i] = found[i] || found[i + w];
      end
    end
    found_o = found[0];
    idx_o   = at[0];
  end
endmodule
