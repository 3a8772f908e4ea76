// Self-checking testbench for phy_sync_2ff: reset value 0, every input value appears
// at the output exactly two clock edges after it was sampled, for random input.
module tb_phy_sync_2ff;
  logic clk = 1'b0;
  always #5 clk = ~clk;
  /* verilator lint_off SYNCASYNCNET */
  logic rst_n = 1'b0;
  /* verilator lint_on SYNCASYNCNET */
  logic [3:0] d = '0, q;
  logic [3:0] hist [3];

  phy_sync_2ff #(.WIDTH(4)) dut (.clk_i(clk), .rst_ni(rst_n), .d_i(d), .q_o(q));

  initial begin
    d = 4'hF;
    #1;
    if (q !== 4'h0) $fatal(1, "sync_2ff: output %h in reset", q);
    repeat (3) @(posedge clk);
    if (q !== 4'h0) $fatal(1, "sync_2ff: output %h in reset with clock", q);
    @(negedge clk);
    rst_n = 1'b1;
    for (int i = 0; i < 500; i++) begin
      @(negedge clk);
      hist[2] = hist[1];
      hist[1] = hist[0];
      hist[0] = d;
      if (i >= 2 && q !== hist[1]) $fatal(1, "sync_2ff: %h out, %h went in two edges ago", q, hist[1]);
      d = 4'($urandom);
    end
    $display("tb_phy_sync_2ff: PASS");
    $finish;
  end
endmodule
