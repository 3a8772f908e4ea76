// ring_slot_addrs against base + idx * 32 + offset in 64-bit arithmetic: the entry
// offsets the NIC uses (0 and 24), indices at both ends, and bases whose sum carries
// across bit 63 (the address wraps, as the callers' single adder did).
module tb_ring_slot_addrs;
  localparam int unsigned N = 3;
  logic [N-1:0][63:0] base;
  logic [N-1:0][15:0] idx;
  logic [N-1:0][63:0] addr0, addr24;

  ring_slot_addrs #(.N(N), .WORD_OFF(5'd0))  u_off0  (.base_i(base), .idx_i(idx), .addr_o(addr0));
  ring_slot_addrs #(.N(N), .WORD_OFF(5'd24)) u_off24 (.base_i(base), .idx_i(idx), .addr_o(addr24));

  int errors = 0;
  int checked = 0;

  task automatic check_all();
    #1;
    for (int k = 0; k < N; k++) begin
      logic [63:0] want0, want24;
      want0  = base[k] + 64'(idx[k]) * 64'd32;
      want24 = want0 + 64'd24;
      if (addr0[k] !== want0 || addr24[k] !== want24) begin
        if (errors < 10) $display("FAIL ring %0d base=%h idx=%0d: %h / %h, want %h / %h",
                                  k, base[k], idx[k], addr0[k], addr24[k], want0, want24);
        errors++;
      end
      checked++;
    end
  endtask

  initial begin
    // Edges: zero, the last index, a base that carries out of bit 63, unaligned low bits.
    base = '{64'h0, 64'hFFFF_FFFF_FFFF_FFE0, 64'h0000_0001_0000_0007};
    idx  = '{16'd0, 16'hFFFF, 16'd1};
    check_all();
    idx  = '{16'hFFFF, 16'd1, 16'd0};
    check_all();
    for (int t = 0; t < 20000; t++) begin
      for (int k = 0; k < N; k++) begin
        base[k] = {$urandom, $urandom};
        if (t % 3 == 0) base[k][4:0] = '0;   // ring bases are 32-byte aligned in the NIC
        idx[k]  = 16'($urandom);
      end
      check_all();
    end
    if (errors == 0) $display("tb_ring_slot_addrs: PASS (%0d sums)", checked);
    else $display("tb_ring_slot_addrs: FAIL (%0d errors)", errors);
    $finish;
  end
endmodule
