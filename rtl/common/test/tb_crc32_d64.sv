// Checks crc32_d64 against a byte-serial reference on known vectors and random data.
module tb_crc32_d64;
  logic [31:0] crc_i, crc_o;
  logic [63:0] data;
  logic [3:0]  nbytes;

  crc32_d64 dut (.crc_i(crc_i), .data_i(data), .bytes_i(nbytes), .crc_o(crc_o));

  function automatic logic [31:0] ref_byte(logic [31:0] c, logic [7:0] b);
    c = c ^ {24'h0, b};
    for (int k = 0; k < 8; k++) c = c[0] ? ((c >> 1) ^ 32'hEDB8_8320) : (c >> 1);
    return c;
  endfunction

  initial begin
    logic [31:0] ref_crc;
    int errors = 0;
    // "123456789" -> 0xCBF43926 (the standard check value).
    crc_i = 32'hFFFF_FFFF; data = 64'h3837_3635_3433_3231; nbytes = 8; #1;
    crc_i = crc_o; data = 64'h39; nbytes = 1; #1;
    if ((crc_o ^ 32'hFFFF_FFFF) != 32'hCBF4_3926) begin
      $display("FAIL check value: %h", crc_o ^ 32'hFFFF_FFFF);
      errors++;
    end
    for (int n = 0; n < 2000; n++) begin
      crc_i = $urandom(); data = {$urandom(), $urandom()}; nbytes = 4'($urandom_range(1, 8)); #1;
      ref_crc = crc_i;
      for (int b = 0; b < 32'(nbytes); b++) ref_crc = ref_byte(ref_crc, data[b*8 +: 8]);
      if (crc_o != ref_crc) begin
        $display("FAIL n=%0d crc_i=%h data=%h bytes=%0d got %h want %h", n, crc_i, data, nbytes, crc_o, ref_crc);
        errors++;
      end
    end
    if (errors != 0) $fatal(1, "tb_crc32_d64: %0d errors", errors);
    $display("tb_crc32_d64: PASS");
    $finish;
  end
endmodule
