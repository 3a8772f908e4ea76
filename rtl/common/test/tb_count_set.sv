// count_set against $countones: every vector for N = 1, 5 and 8 (odd sizes leave unpaired
// tree nodes), random ones for N = 16 and 64, and a count wider than it needs (W = 9).
module tb_count_set;
  logic [0:0]  v1;
  logic [4:0]  v5;
  logic [7:0]  v8;
  logic [15:0] v16;
  logic [63:0] v64;
  logic [0:0]  c1;
  logic [2:0]  c5;
  logic [3:0]  c8;
  logic [8:0]  c16;
  logic [6:0]  c64;

  count_set #(.N(1))         u1  (.v_i(v1),  .count_o(c1));
  count_set #(.N(5))         u5  (.v_i(v5),  .count_o(c5));
  count_set #(.N(8))         u8  (.v_i(v8),  .count_o(c8));
  count_set #(.N(16), .W(9)) u16 (.v_i(v16), .count_o(c16));
  count_set #(.N(64))        u64 (.v_i(v64), .count_o(c64));

  int errors = 0;

  task automatic check(int n, logic [63:0] v, int got);
    if (got != $countones(v)) begin
      if (errors < 10) $display("FAIL N=%0d v=%h: %0d, want %0d", n, v, got, $countones(v));
      errors++;
    end
  endtask

  initial begin
    int checked = 0;
    for (int v = 0; v < 256; v++) begin
      v1 = 1'(v); v5 = 5'(v); v8 = 8'(v);
      #1;
      if (v < 2)  check(1, 64'(v1), int'(c1));
      if (v < 32) check(5, 64'(v5), int'(c5));
      check(8, 64'(v8), int'(c8));
      checked++;
    end
    for (int k = 0; k < 20000; k++) begin
      logic [63:0] r;
      r = {$urandom, $urandom};
      // Dense and sparse ones: or/and with more random words.
      for (int s = 0; s < k % 4; s++) r = (k % 2) ? (r | {$urandom, $urandom}) : (r & {$urandom, $urandom});
      v16 = r[15:0];
      v64 = r;
      #1;
      check(16, 64'(v16), int'(c16));
      check(64, v64, int'(c64));
      checked++;
    end
    v64 = '1; v16 = '1;
    #1;
    check(64, v64, int'(c64));
    check(16, 64'(v16), int'(c16));
    if (errors == 0) $display("tb_count_set: PASS (%0d vectors)", checked);
    else $display("tb_count_set: FAIL (%0d errors)", errors);
    $finish;
  end
endmodule
