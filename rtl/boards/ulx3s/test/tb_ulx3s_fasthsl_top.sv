// Self-checking testbench for ulx3s_fasthsl_top (the PLL is the simulation pass-through:
// the oscillator pin is driven at the core clock period). Two boards, A and B, on clocks
// with different periods, each driven only through its pins: a UART host model per
// board speaks the bridge protocol on the FTDI pins. Cabling: A PHY 0 <-> B PHY 1 (a
// board-to-board cable), and on A, PHY 2 <-> PHY 3 (a loop between two connectors).
// Node ids: A = 1, B = 2. Checks:
//   - board ID and router RT_ID over the UART; LEDs and BRD_STATUS show exactly the
//     cabled links up;
//   - routing tables written over the UART: A's source sends to B (A port 0 -> B port
//     1 -> B's sink), B's source to A, then A's source to itself through the loop
//     (A port 2 -> cable -> A port 3 -> A's sink); every packet counted good at the
//     receiving checker, none bad, sent counts as asked;
//   - a packet to a destination without a route is dropped and counted (RT_DROP);
//   - the A-B cable pulled out under traffic: LINK_DOWNS counts it, the link comes
//     back, and traffic after that is delivered completely.
module tb_ulx3s_fasthsl_top;
  import fasthsl_pkg::*;

  localparam int CLK_HZ = 40_000_000, BAUD = 2_500_000, DIV = CLK_HZ / BAUD;
  localparam int HALF_A = 10, HALF_B = 11;

  logic clk_a = 1'b0, clk_b = 1'b0;
  always #(HALF_A) clk_a = ~clk_a;
  always #(HALF_B) clk_b = ~clk_b;

  logic        btn_a = 1'b0, btn_b = 1'b0;
  logic [7:0]  led_a, led_b;
  logic        rxd_a, rxd_b;            // FPGA -> host
  logic        txd_a = 1'b1, txd_b = 1'b1;
  logic [3:0]  a_tclk, a_tfr, b_tclk, b_tfr, a_rclk, a_rfr, b_rclk, b_rfr;
  logic [15:0] a_tl, b_tl, a_rl, b_rl;
  logic        plug = 1'b1;

  // A PHY0 <-> B PHY1; A PHY2 <-> A PHY3; the rest open (quiet, no clock)
  assign b_rclk = {2'b00, plug ? a_tclk[0] : 1'b0, 1'b0};
  assign b_rfr  = {2'b00, a_tfr[0], 1'b0};
  assign b_rl   = {8'b0, a_tl[3:0], 4'b0};
  assign a_rclk = {a_tclk[2], a_tclk[3], 1'b0, plug ? b_tclk[1] : 1'b0};
  assign a_rfr  = {a_tfr[2], a_tfr[3], 1'b0, b_tfr[1]};
  assign a_rl   = {a_tl[11:8], a_tl[15:12], 4'b0, b_tl[7:4]};

  ulx3s_fasthsl_top #(
    .CLK_HZ(CLK_HZ), .BAUD(BAUD), .WDOG_CYCLES(128), .SILENT_CYCLES(512), .LED_HOLD_W(4),
    .HEART_W(4)
  ) dut_a (
    .clk_25mhz_i(clk_a), .btn_pwr_ni(btn_a), .led_o(led_a), .ftdi_rxd_o(rxd_a),
    .ftdi_txd_i(txd_a), .lk_tx_clk_o(a_tclk), .lk_tx_frame_o(a_tfr), .lk_tx_lane_o(a_tl),
    .lk_rx_clk_i(a_rclk), .lk_rx_frame_i(a_rfr), .lk_rx_lane_i(a_rl));
  ulx3s_fasthsl_top #(
    .CLK_HZ(CLK_HZ), .BAUD(BAUD), .WDOG_CYCLES(128), .SILENT_CYCLES(512), .LED_HOLD_W(4),
    .HEART_W(4)
  ) dut_b (
    .clk_25mhz_i(clk_b), .btn_pwr_ni(btn_b), .led_o(led_b), .ftdi_rxd_o(rxd_b),
    .ftdi_txd_i(txd_b), .lk_tx_clk_o(b_tclk), .lk_tx_frame_o(b_tfr), .lk_tx_lane_o(b_tl),
    .lk_rx_clk_i(b_rclk), .lk_rx_frame_i(b_rfr), .lk_rx_lane_i(b_rl));

  // ---- UART host model (board 0 = A, 1 = B); bit time = DIV cycles of that board ----
  task automatic put_byte(int brd, logic [7:0] v);
    logic [9:0] f = {1'b1, v, 1'b0};
    int t = DIV * 2 * (brd == 0 ? HALF_A : HALF_B);
    for (int i = 0; i < 10; i++) begin
      if (brd == 0) txd_a = f[i]; else txd_b = f[i];
      #(t);
    end
  endtask

  task automatic get_byte(int brd, output logic [7:0] v);
    int t = DIV * 2 * (brd == 0 ? HALF_A : HALF_B);
    int waited = 0;
    while ((brd == 0 ? rxd_a : rxd_b) !== 1'b0) begin
      #1;
      waited++;
      if (waited > 200 * t) $fatal(1, "top: no UART reply from board %0d", brd);
    end
    #(t + t / 2);
    for (int i = 0; i < 8; i++) begin
      v[i] = (brd == 0) ? rxd_a : rxd_b;
      #(t);
    end
    if ((brd == 0 ? rxd_a : rxd_b) !== 1'b1) $fatal(1, "top: UART stop bit from board %0d", brd);
  endtask

  task automatic wr(int brd, logic [15:0] a, logic [31:0] d);
    logic [7:0] r;
    put_byte(brd, 8'h57); put_byte(brd, a[15:8]); put_byte(brd, a[7:0]);
    put_byte(brd, d[31:24]); put_byte(brd, d[23:16]); put_byte(brd, d[15:8]); put_byte(brd, d[7:0]);
    get_byte(brd, r);
    if (r !== 8'h4B) $fatal(1, "top: write %h on board %0d answered %h", a, brd, r);
  endtask

  task automatic rd(int brd, logic [15:0] a, output logic [31:0] d);
    put_byte(brd, 8'h52); put_byte(brd, a[15:8]); put_byte(brd, a[7:0]);
    get_byte(brd, d[31:24]); get_byte(brd, d[23:16]); get_byte(brd, d[15:8]); get_byte(brd, d[7:0]);
  endtask


  // route entry e of input `inp`: destinations lo..hi -> port
  task automatic route(int brd, int inp, int e, int lo, int hi, int port);
    int idx = inp * ROUTE_ENTRIES + e;
    wr(brd, 16'(32'(RT_BOUNDS_OFFSET) + idx * RT_BOUNDS_STRIDE), {16'(hi), 16'(lo)});
    wr(brd, 16'(32'(RT_CTRL_OFFSET) + idx * RT_CTRL_STRIDE), 32'h8000_0000 | 32'(port));
  endtask

  localparam logic [15:0] BRD = 16'h1000;

  task automatic tg_run(int brd, int dest, int len, int count);
    wr(brd, BRD + 16'h044, 32'(dest));
    wr(brd, BRD + 16'h048, 32'(len));
    wr(brd, BRD + 16'h04C, 32'(count));
    wr(brd, BRD + 16'h040, 32'h1);
  endtask

  task automatic expect_reg(int brd, logic [15:0] a, logic [31:0] v, string what);
    logic [31:0] d;
    rd(brd, a, d);
    if (d !== v) $fatal(1, "top: board %0d %s = %0h, expected %0h", brd, what, d, v);
  endtask

  task automatic wait_idle(int brd);
    logic [31:0] d;
    int n = 0;
    do begin
      rd(brd, BRD + 16'h004, d);
      n++;
      if (n > 200) $fatal(1, "top: board %0d traffic source never finished", brd);
    end while (d[8]);
  endtask

  initial begin
    logic [31:0] d, sent_ab, rcvd_b0, rcvd_a0, downs;
    repeat (5) @(posedge clk_b);
    btn_a = 1'b1;
    btn_b = 1'b1;
    #(200 * HALF_B);
    expect_reg(0, BRD, 32'h554C_5833, "BRD_ID");
    expect_reg(1, 16'(32'(RT_ID_OFFSET)), ID_MAGIC, "RT_ID");
    // links up: wait for the training, then exactly the cabled ones
    #(20000 * HALF_B);
    expect_reg(0, BRD + 16'h004, 32'h0000_000D, "BRD_STATUS");
    expect_reg(1, BRD + 16'h004, 32'h0000_0002, "BRD_STATUS");
    if (led_a[3:0] !== 4'b1101 || led_b[3:0] !== 4'b0010) $fatal(1, "top: link LEDs %b %b", led_a[3:0], led_b[3:0]);
    // routes. A: from its source (input 4): 2 -> port 0, 1 -> port 2 (loop);
    // from port 0 and port 3: 1 -> port 4 (sink). B: source: 1 -> port 1; port 1: 2 -> 4.
    route(0, 4, 0, 2, 2, 0);
    route(0, 4, 1, 1, 1, 2);
    route(0, 0, 0, 1, 1, 4);
    route(0, 3, 0, 1, 1, 4);
    route(1, 4, 0, 1, 1, 1);
    route(1, 1, 0, 2, 2, 4);
    wr(0, BRD + 16'h050, 32'd1);
    wr(1, BRD + 16'h050, 32'd2);
    // A -> B and B -> A at the same time
    tg_run(0, 2, 6, 40);
    tg_run(1, 1, 9, 25);
    wait_idle(0);
    wait_idle(1);
    #(2000 * HALF_B);
    expect_reg(0, BRD + 16'h054, 32'd40, "TG_SENT");
    expect_reg(1, BRD + 16'h054, 32'd25, "TG_SENT");
    expect_reg(1, BRD + 16'h058, 32'd40, "TG_RCVD");
    expect_reg(0, BRD + 16'h058, 32'd25, "TG_RCVD");
    // A to itself through the PHY 2 -> PHY 3 loop
    tg_run(0, 1, 4, 30);
    wait_idle(0);
    #(2000 * HALF_B);
    expect_reg(0, BRD + 16'h058, 32'd55, "TG_RCVD after loop");
    expect_reg(0, BRD + 16'h05C, 32'd0, "TG_ERR");
    expect_reg(1, BRD + 16'h05C, 32'd0, "TG_ERR");
    for (int k = 0; k < 4; k++) begin
      expect_reg(0, BRD + 16'(16'h010 + 4 * k), 32'd0, "BAD_FRAMES");
      expect_reg(0, BRD + 16'(16'h020 + 4 * k), 32'd0, "LINK_DOWNS");
    end
    // no route: dropped at A's input 4, counted
    tg_run(0, 9, 3, 2);
    wait_idle(0);
    expect_reg(0, 16'(32'(RT_DROP_OFFSET) + 4 * RT_DROP_STRIDE), 32'd2, "RT_DROP[4]");
    // cable out under traffic, back in, then clean traffic again
    tg_run(1, 1, 9, 0);
    #(3000 * HALF_B);
    plug = 1'b0;
    #(6000 * HALF_B);
    if (led_a[0] || led_b[1]) $fatal(1, "top: link LEDs on with the cable out");
    plug = 1'b1;
    wr(1, BRD + 16'h040, 32'h2);   // stop
    wait_idle(1);
    #(20000 * HALF_B);
    expect_reg(0, BRD + 16'h004, 32'h0000_000D, "BRD_STATUS after replug");
    rd(0, BRD + 16'h020, downs);
    if (downs == 0) $fatal(1, "top: link loss not counted");
    rd(0, BRD + 16'h058, rcvd_a0);
    rd(1, BRD + 16'h054, sent_ab);
    tg_run(1, 1, 7, 20);
    wait_idle(1);
    #(2000 * HALF_B);
    expect_reg(1, BRD + 16'h054, sent_ab + 20, "TG_SENT after replug");
    rd(0, BRD + 16'h058, d);
    if (d != rcvd_a0 + 20) $fatal(1, "top: after replug A received %0d of 20", d - rcvd_a0);
    rd(0, BRD + 16'h05C, d);
    $display("tb_ulx3s_fasthsl_top: A->B 40, B->A 25, A->A 30 packets; cable pull: %0d link downs on A, %0d packets cut (EEP) and counted bad; 20 after replug delivered",
             downs, d);
    $display("tb_ulx3s_fasthsl_top: PASS");
    $finish;
  end

  initial begin
    #(64'd400000000);
    $fatal(1, "tb_ulx3s_fasthsl_top: timeout");
  end
endmodule
