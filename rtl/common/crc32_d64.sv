// CRC-32 (IEEE 802.3, reflected; the same as zlib and crc32fast) of one 64-bit word.
//
// Combinational step: crc_o is the running CRC after the 8 bytes of data_i, byte lane 0
// first (little-endian memory order). The caller holds the register, starting at
// 32'hFFFF_FFFF, and inverts it at the end. `bytes_i` (1..8) limits the step to the
// low lanes, for byte-exact CRCs; packets always use 8.
module crc32_d64 (
  input  logic [31:0] crc_i,
  input  logic [63:0] data_i,
  input  logic [3:0]  bytes_i,
  output logic [31:0] crc_o
);
  localparam logic [31:0] PolyReflected = 32'hEDB8_8320;

  always_comb begin
    logic [31:0] c;
    c = crc_i;
    for (int unsigned i = 0; i < 64; i++) begin
      if (i < 32'(bytes_i) * 8) begin
        c = (c[0] ^ data_i[i]) ? ((c >> 1) ^ PolyReflected) : (c >> 1);
      end
    end
    crc_o = c;
  end

endmodule
