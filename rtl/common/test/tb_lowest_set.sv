// lowest_set against a first-match loop: every vector for N = 1, 5 and 8 (odd sizes leave
// unpaired tree nodes), random ones for N = 16 and 64 (sparse ones too, where the lowest
// set bit is far up), and the empty vector.
module tb_lowest_set;
  logic [0:0]  v1;
  logic [4:0]  v5;
  logic [7:0]  v8;
  logic [15:0] v16;
  logic [63:0] v64;
  logic f1, f5, f8, f16, f64;
  logic [0:0] i1;
  logic [2:0] i5, i8;
  logic [3:0] i16;
  logic [5:0] i64;

  lowest_set #(.N(1))  u1  (.v_i(v1),  .found_o(f1),  .idx_o(i1));
  lowest_set #(.N(5))  u5  (.v_i(v5),  .found_o(f5),  .idx_o(i5));
  lowest_set #(.N(8))  u8  (.v_i(v8),  .found_o(f8),  .idx_o(i8));
  lowest_set #(.N(16)) u16 (.v_i(v16), .found_o(f16), .idx_o(i16));
  lowest_set #(.N(64)) u64 (.v_i(v64), .found_o(f64), .idx_o(i64));

  int errors = 0;

  // The reference: the first set bit from index 0 up; -1 when none is set.
  function automatic int first(logic [63:0] v, int n);
    for (int i = 0; i < n; i++) if (v[i]) return i;
    return -1;
  endfunction

  task automatic check(int n, logic [63:0] v, logic f, int idx);
    int want = first(v, n);
    // The index is only meaningful with found_o.
    if (f != (want >= 0) || (want >= 0 && idx != want)) begin
      if (errors < 10) $display("FAIL N=%0d v=%h: found %0d idx %0d, want %0d", n, v, f, idx, want);
      errors++;
    end
  endtask

  initial begin
    int checked = 0;
    for (int v = 0; v < 256; v++) begin
      v1 = 1'(v); v5 = 5'(v); v8 = 8'(v);
      #1;
      if (v < 2)  check(1, 64'(v1), f1, int'(i1));
      if (v < 32) check(5, 64'(v5), f5, int'(i5));
      check(8, 64'(v8), f8, int'(i8));
      checked++;
    end
    for (int k = 0; k < 20000; k++) begin
      logic [63:0] r;
      r = {$urandom, $urandom};
      // Sparse vectors too: keep each bit with probability 1/2^(k%6).
      for (int s = 0; s < k % 6; s++) r &= {$urandom, $urandom};
      v16 = r[15:0];
      v64 = r;
      #1;
      check(16, 64'(v16), f16, int'(i16));
      check(64, v64, f64, int'(i64));
      checked++;
    end
    v64 = '0; v16 = '0;
    #1;
    check(64, v64, f64, int'(i64));
    check(16, 64'(v16), f16, int'(i16));
    if (errors == 0) $display("tb_lowest_set: PASS (%0d vectors)", checked);
    else $display("tb_lowest_set: FAIL (%0d errors)", errors);
    $finish;
  end
endmodule
