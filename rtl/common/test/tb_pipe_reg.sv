// pipe_reg: random valid/ready against a queue model: every word comes out once, in
// order, a cycle after it entered at the earliest; nothing is taken while full and not
// leaving; a held word stays put while not taken; and with both sides always willing a
// word passes every cycle (full rate).
module tb_pipe_reg;
  localparam int unsigned Width = 16;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic             in_valid = 1'b0, out_ready = 1'b0;
  logic             in_ready, out_valid, full;
  logic [Width-1:0] in_data = '0, out_data;

  pipe_reg #(.WIDTH(Width)) dut (
    .clk_i      (clk),
    .rst_ni     (rst_n),
    .in_valid_i (in_valid),
    .in_ready_o (in_ready),
    .in_data_i  (in_data),
    .out_valid_o(out_valid),
    .out_ready_i(out_ready),
    .out_data_o (out_data),
    .full_o     (full)
  );

  int errors = 0;
  int passed = 0;
  logic [Width-1:0] model [$];
  logic             held_q = 1'b0;
  logic [Width-1:0] held_data_q;

  task automatic fail(string msg);
    $display("FAIL %0t: %s", $time, msg);
    errors++;
    if (errors > 20) $fatal(1, "tb_pipe_reg: too many errors");
  endtask

  // Outputs are checked before the edge, then the handshakes are applied to the model.
  always @(posedge clk) if (rst_n) begin
    if (model.size() > 1) fail("model holds more than one word");
    if (out_valid != (model.size() != 0)) fail($sformatf("out_valid %0b, model %0d", out_valid, model.size()));
    if (full != out_valid) fail("full_o is not the held word");
    if (out_valid && out_data != model[0]) fail($sformatf("out_data %h, want %h", out_data, model[0]));
    if (held_q && out_data != held_data_q) fail("a held word changed while not taken");
    if (in_ready != (!out_valid || out_ready)) fail("in_ready is not 'empty or leaving'");
    if (out_valid && out_ready) begin
      void'(model.pop_front());
      passed++;
    end
    if (in_valid && in_ready) model.push_back(in_data);
    held_q      <= out_valid && !out_ready;
    held_data_q <= out_data;
  end

  initial begin
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    // Random both sides.
    for (int n = 0; n < 20000; n++) begin
      @(negedge clk);
      in_valid  = ($urandom_range(0, 99) < 60);
      in_data   = 16'($urandom);
      out_ready = ($urandom_range(0, 99) < 60);
    end
    // Both sides always willing: one word per cycle, after the first cycle's fill.
    @(negedge clk);
    in_valid = 1'b0; out_ready = 1'b1;
    repeat (3) @(negedge clk);
    begin
      int start = passed;
      for (int n = 0; n < 100; n++) begin
        in_valid = 1'b1;
        in_data  = 16'(n);
        @(negedge clk);
      end
      in_valid = 1'b0;
      @(negedge clk);
      if (passed - start != 100) fail($sformatf("full rate: %0d of 100 words in 101 cycles", passed - start));
    end
    if (passed < 5000) fail($sformatf("only %0d words passed", passed));
    if (errors != 0) $fatal(1, "tb_pipe_reg: %0d errors", errors);
    $display("tb_pipe_reg: %0d words; PASS", passed);
    $finish;
  end
endmodule
