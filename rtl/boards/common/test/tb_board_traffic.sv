// Self-checking testbench for board_traffic, its source looped to its sink through a
// router-input model (4-flit buffer that announces its depth and returns a credit per
// flit it passes on, with random stalls) and the sink's credits counted by the
// testbench. Checks: COUNT packets of LEN flits are sent and received good, the head
// carries dest and src, no flit without a credit, busy drops at the end; start while
// busy is ignored; len 0 sends 1-flit packets; stop ends at a packet boundary with
// sent = received; a corrupted data bit, an `err` flit, a missing `last` each count
// exactly one bad packet, and checking continues correctly after each.
module tb_board_traffic;
  import fasthsl_link_pkg::*;
  logic clk = 1'b0;
  always #5 clk = ~clk;
  /* verilator lint_off SYNCASYNCNET */
  logic rst_n = 1'b0;
  /* verilator lint_on SYNCASYNCNET */

  link_flit_t out_flit, in_flit;
  logic out_credit = 1'b0, in_credit, start = 1'b0, stop = 1'b0, busy;
  logic [15:0] dest = 16'h0042, src = 16'h0007;
  logic [7:0] len = 8'd5;
  logic [31:0] count = 32'd10, sent, rcvd, rx_err;

  board_traffic dut (
    .clk_i(clk), .rst_ni(rst_n), .out_flit_o(out_flit), .out_credit_i(out_credit),
    .in_flit_i(in_flit), .in_credit_o(in_credit), .start_i(start), .stop_i(stop),
    .src_i(src), .dest_i(dest), .len_i(len), .count_i(count), .busy_o(busy),
    .sent_o(sent), .rcvd_o(rcvd), .rx_err_o(rx_err));

  // router input model
  link_flit_t buf_q[$];
  int announce = 4, sink_cred = 0, heads = 0;
  bit corrupt_data = 0, corrupt_err = 0, corrupt_last = 0;
  initial in_flit = LINK_FLIT_IDLE;
  always @(posedge clk) begin
    out_credit <= 1'b0;
    in_flit    <= LINK_FLIT_IDLE;
    if (rst_n) begin
      if (in_credit) sink_cred++;
      if (out_flit.valid) begin
        if (buf_q.size() >= 4) $fatal(1, "traffic: flit sent without a credit");
        buf_q.push_back(out_flit);
      end
      if (announce > 0) begin
        out_credit <= 1'b1;
        announce--;
      end else if (buf_q.size() > 0 && sink_cred > 0 && $urandom_range(0, 3) != 0) begin
        link_flit_t f = buf_q.pop_front();
        if (f.data[15:0] == dest && f.data[31:16] == src) heads++;
        if (corrupt_data && !f.last && f.data[43:36] != 8'd5) begin
          f.data[9] = ~f.data[9];
          corrupt_data = 0;
        end
        if (corrupt_err && f.last) begin
          f.err = 1'b1;
          corrupt_err = 0;
        end
        if (corrupt_last && f.last) begin
          // a packet without its end: the next packet's flits join it until a last
          f.last = 1'b0;
          corrupt_last = 0;
        end
        in_flit    <= f;
        out_credit <= 1'b1;
        sink_cred--;
      end
    end
  end

  task automatic pulse(bit is_stop);
    @(negedge clk);
    if (is_stop) stop = 1'b1; else start = 1'b1;
    @(negedge clk);
    stop  = 1'b0;
    start = 1'b0;
  endtask

  task automatic run_until_idle();
    int t = 0;
    while (busy || buf_q.size() != 0) begin
      @(posedge clk);
      t++;
      if (t > 100000) $fatal(1, "traffic: source never finished");
    end
    repeat (20) @(posedge clk);
  endtask

  initial begin
    repeat (3) @(posedge clk);
    rst_n = 1'b1;
    repeat (10) @(posedge clk);
    if (sink_cred != 4) $fatal(1, "traffic: sink announced %0d credits", sink_cred);
    pulse(0);
    len = 8'd9;     // ignored: a started run keeps its length
    pulse(0);   // ignored while busy
    run_until_idle();
    if (sent != 10 || rcvd != 10 || rx_err != 0 || heads != 10)
      $fatal(1, "traffic: sent %0d rcvd %0d err %0d heads %0d", sent, rcvd, rx_err, heads);
    // len 0 -> 1-flit packets
    len = 8'd0; count = 32'd7;
    pulse(0);
    run_until_idle();
    if (sent != 17 || rcvd != 17 || rx_err != 0) $fatal(1, "traffic: 1-flit packets: sent %0d rcvd %0d", sent, rcvd);
    // until stop
    len = 8'd5; count = 32'd0;
    pulse(0);
    repeat (537) @(posedge clk);
    pulse(1);
    run_until_idle();
    if (sent != rcvd || rx_err != 0 || sent < 30) $fatal(1, "traffic: stop: sent %0d rcvd %0d err %0d", sent, rcvd, rx_err);
    $display("tb_board_traffic: %0d packets sent and checked", sent);
    // corruptions, one each, then clean packets
    count = 32'd20;
    corrupt_data = 1;
    pulse(0);
    run_until_idle();
    if (rx_err != 1 || rcvd != sent - 1) $fatal(1, "traffic: data flip: err %0d rcvd %0d sent %0d", rx_err, rcvd, sent);
    corrupt_err = 1;
    pulse(0);
    run_until_idle();
    if (rx_err != 2 || rcvd != sent - 2) $fatal(1, "traffic: EEP: err %0d rcvd %0d sent %0d", rx_err, rcvd, sent);
    corrupt_last = 1;
    pulse(0);
    run_until_idle();
    // the unterminated packet swallows the next one: two sent, one bad received
    if (rx_err != 3 || rcvd != sent - 4) $fatal(1, "traffic: missing last: err %0d rcvd %0d sent %0d", rx_err, rcvd, sent);
    $display("tb_board_traffic: PASS");
    $finish;
  end
endmodule
