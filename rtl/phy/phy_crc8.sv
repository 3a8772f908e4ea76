// CRC-8 (polynomial x^8+x^2+x+1, 0x07, init 0, MSB first, no reflection) over the
// 72-bit payload of a link frame, data_i[71] first. Check value: the nine ASCII bytes
// "123456789" give 8'hF4. One bit error, and any odd number, changes the CRC, so a
// frame damaged on the cable (or misaligned) is not taken for a good one.
module phy_crc8 (
  input  logic [71:0] data_i,
  output logic [7:0]  crc_o
);
  always_comb begin
    logic [7:0] c;
    c = '0;
    for (int i = 71; i >= 0; i--) begin
      c = (c[7] ^ data_i[i]) ? ((c << 1) ^ 8'h07) : (c << 1);
    end
    crc_o = c;
  end

endmodule
