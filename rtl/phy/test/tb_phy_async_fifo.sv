// Self-checking testbench for phy_async_fifo: writer and reader on clocks with
// unrelated periods, random valid/ready, scoreboard (order, no loss, no duplicate),
// occupancy never above DEPTH nor a read from an empty FIFO (checked against exact
// push/pop counts kept by the testbench), full reached at exactly DEPTH entries when the
// reader stalls, and everything drains. Runs with the reader slower and faster.
module tb_phy_async_fifo_env #(
  parameter int HALF_W = 50,
  parameter int HALF_R = 117,
  parameter int N      = 4000
) (
  output logic done_o
);
  localparam int W = 16, D = 8;
  logic wclk = 1'b0, rclk = 1'b0;
  always #(HALF_W) wclk = ~wclk;
  always #(HALF_R) rclk = ~rclk;
  /* verilator lint_off SYNCASYNCNET */
  logic wrst_n = 1'b0, rrst_n = 1'b0;
  /* verilator lint_on SYNCASYNCNET */

  logic wvalid = 1'b0, wready, rvalid, rready = 1'b0;
  logic [W-1:0] wdata = '0, rdata;

  phy_async_fifo #(.WIDTH(W), .DEPTH(D)) dut (
    .wr_clk_i(wclk), .wr_rst_ni(wrst_n), .wr_valid_i(wvalid), .wr_ready_o(wready),
    .wr_data_i(wdata), .rd_clk_i(rclk), .rd_rst_ni(rrst_n), .rd_valid_o(rvalid),
    .rd_ready_i(rready), .rd_data_o(rdata));

  int pushes = 0, pops = 0, wprob = 3, rprob = 3;
  bit stall_r = 1'b0, settled = 1'b0, saw_full = 1'b0;
  logic [W-1:0] sb[$];

  always @(posedge wclk) if (wrst_n) begin
    if (wvalid && wready) begin
      if (pushes - pops >= D) $fatal(1, "async fifo: push with %0d entries inside", pushes - pops);
      sb.push_back(wdata);
      pushes++;
    end
    // full is conservative while pops are still crossing; once they have, exact
    if (settled && !wready) begin
      if (pushes - pops != D) $fatal(1, "async fifo: full at %0d entries", pushes - pops);
      saw_full = 1'b1;
    end
    if (!(wvalid && !wready)) begin
      wvalid <= (pushes < N) && ($urandom_range(0, 3) < wprob);
      wdata  <= 16'($urandom);
    end
  end

  always @(posedge rclk) if (rrst_n) begin
    if (rvalid && rready) begin
      logic [W-1:0] e;
      if (pushes - pops <= 0) $fatal(1, "async fifo: read while empty");
      e = sb.pop_front();
      if (rdata !== e) $fatal(1, "async fifo: read %h, expected %h", rdata, e);
      pops++;
    end
    rready <= !stall_r && ($urandom_range(0, 3) < rprob);
  end

  initial begin
    done_o = 1'b0;
    repeat (3) @(posedge rclk);
    wrst_n = 1'b1;
    rrst_n = 1'b1;
    // random rates, then a stalled reader (FIFO must fill to exactly D), then drain
    while (pushes < N / 2) @(posedge wclk);
    stall_r = 1'b1;
    repeat (10) @(posedge rclk);
    settled = 1'b1;
    repeat (200) @(posedge rclk);
    settled = 1'b0;
    if (!saw_full) $fatal(1, "async fifo: never reported full with the reader stalled");
    stall_r = 1'b0;
    wprob = 4; rprob = 1;
    while (pushes < 3 * N / 4) @(posedge wclk);
    wprob = 1; rprob = 4;
    while (pushes < N) @(posedge wclk);
    repeat (50) @(posedge rclk);
    if (pops != N || sb.size() != 0 || rvalid) $fatal(1, "async fifo: %0d of %0d read", pops, N);
    $display("tb_phy_async_fifo[W %0d R %0d]: %0d words through, full seen at %0d", 2 * HALF_W,
             2 * HALF_R, N, D);
    done_o = 1'b1;
  end
endmodule

module tb_phy_async_fifo;
  logic d0, d1;
  tb_phy_async_fifo_env #(.HALF_W(50), .HALF_R(117)) u_slow_rd (.done_o(d0));
  tb_phy_async_fifo_env #(.HALF_W(50), .HALF_R(19)) u_fast_rd (.done_o(d1));
  initial begin
    wait (d0 && d1);
    $display("tb_phy_async_fifo: PASS");
    $finish;
  end
  initial begin
    #(64'd100000000);
    $fatal(1, "tb_phy_async_fifo: timeout");
  end
endmodule
