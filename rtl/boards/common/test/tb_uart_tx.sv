// Self-checking testbench for uart_tx: random bytes with random gaps; the line is
// decoded by the testbench at the bit period (start bit low, 8 data bits LSB first,
// stop bit high, each bit exactly DIV cycles), and must idle high; ready_o is low
// while a byte is on the line.
module tb_uart_tx;
  localparam int DIV = 16;
  logic clk = 1'b0;
  always #5 clk = ~clk;
  /* verilator lint_off SYNCASYNCNET */
  logic rst_n = 1'b0;
  /* verilator lint_on SYNCASYNCNET */
  logic valid = 1'b0, ready, tx;
  logic [7:0] data = '0;

  uart_tx #(.CLK_HZ(1_600_000), .BAUD(100_000)) dut (
    .clk_i(clk), .rst_ni(rst_n), .valid_i(valid), .ready_o(ready), .data_i(data), .tx_o(tx));

  logic [7:0] sent[$];
  int got = 0;

  // Line decoder: sample in the middle of each bit, and check the line holds all bit long.
  initial begin
    @(posedge rst_n);
    forever begin
      logic [7:0] b;
      @(negedge tx);
      for (int i = 0; i < 10; i++) begin
        logic v;
        repeat (DIV / 2) @(posedge clk);
        v = tx;
        repeat (DIV / 2 - 1) @(posedge clk);
        if (tx !== v) $fatal(1, "uart_tx: line changed inside bit %0d", i);
        if (i == 0 && v !== 1'b0) $fatal(1, "uart_tx: start bit not low");
        if (i >= 1 && i <= 8) b[i - 1] = v;
        if (i == 9 && v !== 1'b1) $fatal(1, "uart_tx: stop bit not high");
        if (i < 9) @(posedge clk);
      end
      if (sent.size() == 0) $fatal(1, "uart_tx: byte %h nobody sent", b);
      if (b !== sent.pop_front()) $fatal(1, "uart_tx: byte %h on the line, wrong", b);
      got++;
    end
  end

  initial begin
    repeat (3) @(posedge clk);
    rst_n = 1'b1;
    repeat (5) @(posedge clk);
    if (tx !== 1'b1) $fatal(1, "uart_tx: line not idle high");
    for (int n = 0; n < 60; n++) begin
      @(negedge clk);
      valid = 1'b1;
      data  = 8'($urandom);
      do @(posedge clk); while (!ready);
      sent.push_back(data);
      @(negedge clk);
      valid = 1'b0;
      if (ready) $fatal(1, "uart_tx: ready while sending");
      if ($urandom_range(0, 1)) repeat ($urandom_range(0, 40)) @(posedge clk);
    end
    repeat (12 * DIV) @(posedge clk);
    if (got != 60) $fatal(1, "uart_tx: %0d of 60 bytes decoded", got);
    if (tx !== 1'b1) $fatal(1, "uart_tx: line not idle high at the end");
    $display("tb_uart_tx: PASS");
    $finish;
  end
endmodule
