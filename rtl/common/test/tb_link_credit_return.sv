// link_credit_return: DEPTH pulses after reset, then one pulse per freed slot, never
// more credits in total than slots freed plus DEPTH, and no credit lost when frees
// arrive during the announcement.
module tb_link_credit_return;
  localparam int unsigned Depth = 5;
  logic clk = 1'b0;
  logic rst_n = 1'b0;
  logic freed = 1'b0;
  logic credit;
  always #5 clk = ~clk;

  link_credit_return #(.DEPTH(Depth)) dut (
    .clk_i(clk), .rst_ni(rst_n), .slot_freed_i(freed), .credit_o(credit)
  );

  int pulses = 0;
  int frees = 0;
  always @(posedge clk) if (rst_n) begin
    pulses <= pulses + int'(credit);
    frees  <= frees + int'(freed);
  end

  initial begin
    int errors = 0;
    int base_pulses;
    repeat (2) @(posedge clk);
    rst_n = 1'b1;
    // Announcement alone: exactly Depth pulses, back to back.
    repeat (Depth + 4) @(posedge clk);
    if (pulses != Depth) begin
      $display("FAIL announcement: %0d pulses, want %0d", pulses, Depth);
      errors++;
    end
    // Frees, some of them back to back, random spacing.
    for (int i = 0; i < 400; i++) begin
      @(negedge clk);
      freed = ($urandom_range(0, 2) != 0);
    end
    @(negedge clk);
    freed = 1'b0;
    repeat (Depth + 4) @(posedge clk);
    if (pulses != Depth + frees) begin
      $display("FAIL steady state: %0d pulses for %0d frees + %0d", pulses, frees, Depth);
      errors++;
    end
    // Frees during a fresh announcement are not lost.
    rst_n = 1'b0;
    @(posedge clk);
    #1 rst_n = 1'b1;
    base_pulses = pulses;
    for (int i = 0; i < 3; i++) begin
      @(negedge clk);
      freed = 1'b1;
    end
    @(negedge clk);
    freed = 1'b0;
    repeat (Depth + 8) @(posedge clk);
    if (pulses - base_pulses != Depth + 3) begin
      $display("FAIL overlap: %0d pulses, want %0d", pulses - base_pulses, Depth + 3);
      errors++;
    end
    if (errors != 0) $fatal(1, "tb_link_credit_return: %0d errors", errors);
    $display("tb_link_credit_return: PASS");
    $finish;
  end
endmodule
