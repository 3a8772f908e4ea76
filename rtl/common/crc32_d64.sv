// CRC-32 (IEEE 802.3, reflected; the same as zlib and crc32fast) of one 64-bit word.
//
// Combinational step: crc_o is the running CRC after the 8 bytes of data_i, byte lane 0
// first (little-endian memory order). The caller holds the register, starting at
// 32'hFFFF_FFFF, and inverts it at the end. Packets are whole flits, so there is no
// partial-word step.
//
// Parallel form, as CRC generators emit it: for a reflected CRC the register enters
// like the first 32 message bits, so each output bit is the XOR of a fixed subset of
// x = data_i ^ crc_i. The subsets (rows of the 32x64 matrix) are derived here from the
// polynomial at elaboration, by running the bit-serial definition on each input bit,
// rather than pasted in as opaque constants. Per output bit that is one 64-input XOR
// (about 32 terms), and a simulator evaluates it as a masked parity instead of 64
// dependent serial steps.
module crc32_d64 (
  input  logic [31:0] crc_i,
  input  logic [63:0] data_i,
  output logic [31:0] crc_o
);
  localparam logic [31:0] PolyReflected = 32'hEDB8_8320;

  // rows[j][i]: does input bit i of x reach output bit j?
  function automatic logic [31:0][63:0] crc_rows();
    logic [31:0][63:0] rows;
    rows = '0;
    for (int unsigned i = 0; i < 64; i++) begin
      logic [31:0] c;
      c = '0;
      // The bit-serial CRC of the single input bit i, from a zero register.
      for (int unsigned k = 0; k < 64; k++) begin
        c = (c[0] ^ (k == i)) ? ((c >> 1) ^ PolyReflected) : (c >> 1);
      end
      for (int unsigned j = 0; j < 32; j++) rows[j][i] = c[j];
    end
    return rows;
  endfunction

  localparam logic [31:0][63:0] Rows = crc_rows();

  logic [63:0] x;
  assign x = data_i ^ {32'h0, crc_i};

  always_comb begin
    for (int unsigned j = 0; j < 32; j++) begin
      crc_o[j] = ^(x & Rows[j]);
    end
  end

endmodule
