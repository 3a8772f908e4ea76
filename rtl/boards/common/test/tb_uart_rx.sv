// Self-checking testbench for uart_rx: random bytes at the nominal rate and 3% fast and
// slow, back to back and with gaps, must come out once each; a byte whose stop bit is 0
// gives frame_err_o and no byte; a short low glitch on the idle line gives nothing.
module tb_uart_rx;
  localparam int DIV = 16;
  logic clk = 1'b0;
  always #5 clk = ~clk;   // 10 time units per cycle
  /* verilator lint_off SYNCASYNCNET */
  logic rst_n = 1'b0;
  /* verilator lint_on SYNCASYNCNET */
  logic line = 1'b1, valid, ferr;
  logic [7:0] data;

  uart_rx #(.CLK_HZ(1_600_000), .BAUD(100_000)) dut (
    .clk_i(clk), .rst_ni(rst_n), .rx_i(line), .valid_o(valid), .data_o(data), .frame_err_o(ferr));

  logic [7:0] expq[$];
  int got = 0, ferrs = 0;
  always @(posedge clk) begin
    if (valid) begin
      if (expq.size() == 0) $fatal(1, "uart_rx: unexpected byte %h", data);
      if (data !== expq.pop_front()) $fatal(1, "uart_rx: got %h, wrong", data);
      got++;
    end
    if (ferr) ferrs++;
  end

  // bit time in time units: DIV cycles of 10, scaled by pct/100
  task automatic send(logic [7:0] b, int pct = 100, bit stop = 1'b1);
    int t = DIV * 10 * pct / 100;
    logic [9:0] f = {stop, b, 1'b0};
    for (int i = 0; i < 10; i++) begin
      line = f[i];
      #(t);
    end
    line = 1'b1;
  endtask

  initial begin
    repeat (3) @(posedge clk);
    rst_n = 1'b1;
    #1000;
    for (int n = 0; n < 120; n++) begin
      logic [7:0] b = 8'($urandom);
      int pct = (n < 40) ? 100 : (n < 80) ? 103 : 97;
      expq.push_back(b);
      send(b, pct);
      if (n % 3 == 0) #($urandom_range(0, 500));
    end
    #500;
    // framing error
    send(8'h5A, 100, 1'b0);
    #(DIV * 10 * 3);
    if (ferrs != 1) $fatal(1, "uart_rx: %0d framing errors, expected 1", ferrs);
    // glitch: 3 cycles low on an idle line
    line = 1'b0;
    #30;
    line = 1'b1;
    #(DIV * 10 * 12);
    expq.push_back(8'hC3);
    send(8'hC3);
    #(DIV * 10 * 2);
    if (got != 121 || expq.size() != 0) $fatal(1, "uart_rx: %0d of 121 bytes", got);
    if (ferrs != 1) $fatal(1, "uart_rx: glitch gave a framing error");
    $display("tb_uart_rx: PASS");
    $finish;
  end
endmodule
