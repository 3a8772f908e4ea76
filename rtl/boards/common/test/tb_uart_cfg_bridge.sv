// Self-checking testbench for uart_cfg_bridge with a register-bus model (a memory that
// answers reads one cycle later, and never answers at 0xFxxx) and a UART-side model
// (bytes in as pulses, replies taken with random delays). Checks: random writes then
// reads back ('K' per write, 4 bytes big-endian per read), exactly one bus request per
// command with the right address/data; an unknown command byte answers '?' and counts
// an error; a command cut short is dropped after TIMEOUT (error, no reply, no bus
// request) and the next command works; bytes arriving during a reply are dropped and
// counted; a read nobody answers replies FFFFFFFF.
module tb_uart_cfg_bridge;
  localparam int TO = 200;
  logic clk = 1'b0;
  always #5 clk = ~clk;
  /* verilator lint_off SYNCASYNCNET */
  logic rst_n = 1'b0;
  /* verilator lint_on SYNCASYNCNET */
  logic rx_valid = 1'b0, tx_valid, tx_ready = 1'b0, req_valid, req_write, rsp_valid = 1'b0, err;
  logic [7:0] rx_data = '0, tx_data;
  logic [15:0] req_addr;
  logic [31:0] req_wdata, rsp_rdata = '0;

  uart_cfg_bridge #(.TIMEOUT(TO)) dut (
    .clk_i(clk), .rst_ni(rst_n), .rx_valid_i(rx_valid), .rx_data_i(rx_data),
    .tx_valid_o(tx_valid), .tx_ready_i(tx_ready), .tx_data_o(tx_data),
    .req_valid_o(req_valid), .req_write_o(req_write), .req_addr_o(req_addr),
    .req_wdata_o(req_wdata), .rsp_valid_i(rsp_valid), .rsp_rdata_i(rsp_rdata), .err_o(err));

  logic [31:0] mem[logic [15:0]];
  int reqs = 0, errs = 0;
  logic [7:0] replies[$];

  always @(posedge clk) begin
    rsp_valid <= 1'b0;
    if (req_valid) begin
      reqs++;
      if (req_write) mem[req_addr] = req_wdata;
      else if (req_addr[15:12] != 4'hF) begin
        rsp_valid <= 1'b1;
        rsp_rdata <= mem.exists(req_addr) ? mem[req_addr] : 32'h0BAD_0BAD;
      end
    end
    if (err) errs++;
    // UART transmitter model: takes a byte, then busy for a few cycles
    if (tx_valid && tx_ready) replies.push_back(tx_data);
    tx_ready <= !(tx_valid && tx_ready) && ($urandom_range(0, 3) == 0);
  end

  task automatic put(logic [7:0] b);
    @(negedge clk);
    rx_valid = 1'b1;
    rx_data  = b;
    @(negedge clk);
    rx_valid = 1'b0;
    repeat ($urandom_range(0, 5)) @(negedge clk);
  endtask

  task automatic wait_replies(int n);
    int t = 0;
    while (replies.size() < n) begin
      @(posedge clk);
      t++;
      if (t > 1000) $fatal(1, "bridge: no reply (%0d of %0d bytes)", replies.size(), n);
    end
    repeat (20) @(posedge clk);
    if (replies.size() != n) $fatal(1, "bridge: %0d reply bytes, expected %0d", replies.size(), n);
  endtask

  task automatic wr(logic [15:0] a, logic [31:0] d);
    int r0 = reqs;
    put(8'h57); put(a[15:8]); put(a[7:0]);
    put(d[31:24]); put(d[23:16]); put(d[15:8]); put(d[7:0]);
    wait_replies(1);
    if (replies.pop_front() !== 8'h4B) $fatal(1, "bridge: write not answered 'K'");
    if (reqs != r0 + 1 || mem[a] !== d) $fatal(1, "bridge: write %h <- %h not done once", a, d);
  endtask

  task automatic rd(logic [15:0] a, output logic [31:0] d);
    int r0 = reqs;
    put(8'h52); put(a[15:8]); put(a[7:0]);
    wait_replies(4);
    d = {replies[0], replies[1], replies[2], replies[3]};
    replies.delete();
    if (reqs != r0 + 1) $fatal(1, "bridge: read of %h made %0d requests", a, reqs - r0);
  endtask

  initial begin
    logic [31:0] d;
    logic [15:0] addrs[16];
    logic [31:0] vals[16];
    repeat (3) @(posedge clk);
    rst_n = 1'b1;
    for (int i = 0; i < 16; i++) begin
      addrs[i] = {4'($urandom_range(0, 14)), 10'($urandom), 2'b00} + 16'(i * 4096 % 61440);
      vals[i]  = $urandom;
      wr(addrs[i], vals[i]);
    end
    for (int i = 15; i >= 0; i--) begin
      rd(addrs[i], d);
      if (d !== mem[addrs[i]]) $fatal(1, "bridge: read %h gave %h, expected %h", addrs[i], d, mem[addrs[i]]);
    end
    if (errs != 0) $fatal(1, "bridge: errors in clean traffic");
    // unknown command
    put(8'h41);
    wait_replies(1);
    if (replies.pop_front() !== 8'h3F || errs != 1) $fatal(1, "bridge: unknown command not answered '?'");
    // cut command: timeout, no reply, no request, then a good command
    begin
      int r0 = reqs;
      put(8'h57); put(8'h12); put(8'h34);
      repeat (TO + 20) @(posedge clk);
      if (errs != 2 || reqs != r0 || replies.size() != 0) $fatal(1, "bridge: cut command not dropped cleanly");
    end
    wr(16'h0123, 32'hCAFE_F00D);
    // bytes during a reply
    put(8'h52); put(8'h01); put(8'h23);
    put(8'h99);
    wait_replies(4);
    d = {replies[0], replies[1], replies[2], replies[3]};
    replies.delete();
    if (d !== 32'hCAFE_F00D || errs != 3) $fatal(1, "bridge: read during extra bytes: %h, errs %0d", d, errs);
    // unanswered read
    rd(16'hF000, d);
    if (d !== 32'hFFFF_FFFF) $fatal(1, "bridge: unanswered read gave %h", d);
    $display("tb_uart_cfg_bridge: PASS");
    $finish;
  end
endmodule
