// rr_pick against a scan: every request vector with every pointer for N = 1, 5 and 8
// (N = 5 leaves unpaired tree nodes and pointer values a 3-bit index could hold beyond
// the last requester), and the empty vector.
module tb_rr_pick;
  logic [0:0] r1;
  logic [4:0] r5;
  logic [7:0] r8;
  logic [0:0] p1, i1;
  logic [2:0] p5, p8, i5, i8;
  logic       v1, v5, v8;

  rr_pick #(.N(1)) u1 (.req_i(r1), .ptr_i(p1), .valid_o(v1), .idx_o(i1));
  rr_pick #(.N(5)) u5 (.req_i(r5), .ptr_i(p5), .valid_o(v5), .idx_o(i5));
  rr_pick #(.N(8)) u8 (.req_i(r8), .ptr_i(p8), .valid_o(v8), .idx_o(i8));

  int errors = 0;

  // The reference: from the pointer up, then from 0 up; -1 when nobody requests.
  function automatic int pick(logic [7:0] r, int n, int p);
    for (int i = p; i < n; i++) if (r[i]) return i;
    for (int i = 0; i < n; i++) if (r[i]) return i;
    return -1;
  endfunction

  task automatic check(int n, logic [7:0] r, int p, logic v, int idx);
    int want = pick(r, n, p);
    // The index is only meaningful with valid_o.
    if (v != (want >= 0) || (want >= 0 && idx != want)) begin
      if (errors < 10) begin
        $display("FAIL N=%0d req=%b ptr=%0d: valid %0d idx %0d, want %0d", n, r, p, v, idx, want);
      end
      errors++;
    end
  endtask

  initial begin
    int checked = 0;
    for (int r = 0; r < 256; r++) begin
      for (int p = 0; p < 8; p++) begin
        r1 = 1'(r); r5 = 5'(r); r8 = 8'(r);
        p1 = 1'(p); p5 = 3'(p); p8 = 3'(p);
        #1;
        if (r < 2 && p < 2) check(1, 8'(r1), p, v1, int'(i1));
        if (r < 32) check(5, 8'(r5), p, v5, int'(i5));
        check(8, r8, p, v8, int'(i8));
        checked++;
      end
    end
    if (errors == 0) $display("tb_rr_pick: PASS (%0d request and pointer pairs)", checked);
    else $display("tb_rr_pick: FAIL (%0d errors)", errors);
    $finish;
  end
endmodule
