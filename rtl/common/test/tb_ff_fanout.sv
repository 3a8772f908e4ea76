// ff_fanout: every copy is the input one clock later, all copies agree on every cycle,
// and all are clear from an asynchronous reset until the first edge after it, for one
// bit in N = 1 and N = 6 copies and four bits in 3 copies, under a random input, with a
// reset in the middle of the run.
module tb_ff_fanout;
  logic clk = 1'b0;
  logic rst_n = 1'b0;
  logic d = 1'b0;
  logic [3:0] d4 = '0;
  logic [0:0] q1;
  logic [5:0] q6;
  logic [2:0][3:0] q4;

  ff_fanout #(.N(1)) u1 (.clk_i(clk), .rst_ni(rst_n), .d_i(d), .q_o(q1));
  ff_fanout #(.N(6)) u6 (.clk_i(clk), .rst_ni(rst_n), .d_i(d), .q_o(q6));
  ff_fanout #(.W(4), .N(3)) u4 (.clk_i(clk), .rst_ni(rst_n), .d_i(d4), .q_o(q4));

  always #5 clk = ~clk;

  int errors = 0;

  task automatic expect_copies(logic want, logic [3:0] want4, string what);
    if (q1 !== {1{want}} || q6 !== {6{want}} || q4 !== {3{want4}}) begin
      if (errors < 10) $display("FAIL %s: q1 %b q6 %b q4 %h, want all %b and %h", what, q1,
                                q6, q4, want, want4);
      errors++;
    end
  endtask

  initial begin
    logic last_d = 1'b0;
    logic [3:0] last_d4 = '0;
    int ones = 0;
    repeat (2) @(negedge clk);
    expect_copies(1'b0, 4'h0, "in reset");
    rst_n = 1'b1;
    for (int c = 0; c < 2000; c++) begin
      d = 1'($urandom_range(0, 1));
      d4 = 4'($urandom());
      last_d = d;
      last_d4 = d4;
      @(negedge clk);
      expect_copies(last_d, last_d4, $sformatf("cycle %0d", c));
      if (last_d) ones++;
      if (c == 1000) begin
        // The reset clears every copy at once, without a clock edge.
        d = 1'b1;
        d4 = 4'hF;
        @(posedge clk);
        #1;
        rst_n = 1'b0;
        #1;
        expect_copies(1'b0, 4'h0, "asynchronous reset");
        @(negedge clk);
        rst_n = 1'b1;
      end
    end
    if (ones < 500) begin
      $display("FAIL the random input was one on only %0d of 2000 cycles", ones);
      errors++;
    end
    if (errors == 0) $display("PASS tb_ff_fanout");
    else $display("FAIL tb_ff_fanout: %0d errors", errors);
    $finish;
  end
endmodule
