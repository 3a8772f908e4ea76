// Self-checking testbench for phy_crc8: the standard check value ("123456789" -> F4),
// random words against a reference computed differently (remainder of the message
// times x^8 modulo x^8+x^2+x+1, by long division), the residue property (CRC over the
// payload followed by its CRC is 0) and detection of every single-bit error.
module tb_phy_crc8;
  logic [71:0] d;
  logic [7:0]  c;
  phy_crc8 dut (.data_i(d), .crc_o(c));

  function automatic logic [7:0] ref_crc(logic [79:0] msg);  // msg = {data, 8 bits}
    logic [79:0] r = msg;
    for (int i = 79; i >= 8; i--) if (r[i]) r[i -: 9] = r[i -: 9] ^ 9'h107;
    return r[7:0];
  endfunction

  initial begin
    d = 72'h31_32_33_34_35_36_37_38_39;   // "123456789"
    #1;
    if (c !== 8'hF4) $fatal(1, "crc8 check value %h, expected F4", c);
    for (int n = 0; n < 2000; n++) begin
      logic [7:0] good;
      d = {8'($urandom), 32'($urandom), 32'($urandom)};
      #1;
      good = c;
      if (good !== ref_crc({d, 8'h00})) $fatal(1, "crc8 of %h: %h, reference %h", d, good, ref_crc({d, 8'h00}));
      if (ref_crc({d, good}) !== 8'h00) $fatal(1, "crc8 residue not zero for %h", d);
      if (n < 50) begin
        logic [71:0] base = d;
        for (int b = 0; b < 72; b++) begin
          d = base ^ (72'd1 << b);
          #1;
          if (c === good) $fatal(1, "crc8 misses a flip of bit %0d in %h", b, base);
        end
      end
    end
    $display("tb_phy_crc8: PASS");
    $finish;
  end
endmodule
