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
  // Bit k of every position's index, as one N-bit word per k.
  function automatic logic [IdxW-1:0][N-1:0] index_planes();
    logic [IdxW-1:0][N-1:0] p;
    for (int unsigned k = 0; k < IdxW; k++) begin
      for (int unsigned i = 0; i < N; i++) p[k][i] = 1'((i >> k) & 1);
    end
    return p;
  endfunction
  localparam logic [IdxW-1:0][N-1:0] IndexPlanes = index_planes();
  localparam logic [N-1:0]           Ones        = '1;

  // The nodes of a level are the positions i that are multiples of 2w; node i takes node
  // i + w's answer when its own half has none. Every position is updated as if it were a
  // node (the others are never read again), so a level is a few word-wide operations per
  // index bit. The simulator runs every tree on every cycle; with one statement per node
  // a star:2 demo took 13% more CPU (docs/ARCHITECTURE.md, Measured). The
  // same function as the per-node form (a Yosys miter proves it for N = 1-5, 8, 13,
  // 16, 32, 64, 128); ABC maps N = 64 to 108 LUT4 instead of 125.
  always_comb begin
    logic [N-1:0] found, take;
    logic [N-1:0] plane [IdxW];
    found = v_i;
    for (int unsigned k = 0; k < IdxW; k++) plane[k] = IndexPlanes[k];
    for (int unsigned w = 1; w < N; w = w * 2) begin
      // Where i + w is past the end, nothing to take: when nothing is found the index
      // (a don't-care) then stays what the per-node form gave.
      take = ~found & (Ones >> w);
      for (int unsigned k = 0; k < IdxW; k++) begin
        plane[k] = plane[k] ^ ((plane[k] ^ (plane[k] >> w)) & take);
      end
      found = found | (found >> w);
    end
    found_o = found[0];
    for (int unsigned k = 0; k < IdxW; k++) idx_o[k] = plane[k][0];
  end
endmodule
