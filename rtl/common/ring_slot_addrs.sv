// Every ring's slot address at once: base[k] + idx[k] * 32 + WORD_OFF (32-byte ring
// entries; WORD_OFF picks a byte inside the entry).
//
// Why one adder per ring: a block that writes one ring's slot picks the ring first and
// adds after, so the carry chain sat behind the pick's wide multiplexer (N x 64 base bits)
// on its worst placed path. Summed here from registers, the caller's pick only chooses a
// finished address (docs/SYNTH.md, sessions 16 and 53).
module ring_slot_addrs #(
  parameter int unsigned N        = 8,
  parameter logic [4:0]  WORD_OFF = 5'd0
) (
  input  logic [N-1:0][63:0] base_i,
  input  logic [N-1:0][15:0] idx_i,
  output logic [N-1:0][63:0] addr_o
);
  always_comb begin
    for (int unsigned k = 0; k < N; k++) begin
      addr_o[k] = base_i[k] + {43'h0, idx_i[k], WORD_OFF};
    end
  end
endmodule
