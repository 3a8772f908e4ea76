// Reference for the trailer of the answer packets ddc_ack_gen builds (ACK, NACK,
// NACK_REJECT: three header words, no payload): CRC-32 (reflected, 0xEDB88320, init and
// final XOR all ones) computed bit by bit, independent of the RTL's crc32_d64.
// Shared by tb_ddc_ack_gen and tb_ddc_rel_loop; included inside the testbench module.

  function automatic logic [31:0] crc_ref(logic [63:0] w [3]);
    logic [31:0] c = 32'hFFFF_FFFF;
    for (int i = 0; i < 3; i++) begin
      for (int b = 0; b < 64; b++) begin
        c = (c[0] ^ w[i][b]) ? ((c >> 1) ^ 32'hEDB8_8320) : (c >> 1);
      end
    end
    return ~c;
  endfunction
