// Self-checking testbench for phy_deser: frames driven beat by beat (as phy_ser sends
// them) must come out once each with their payload and good_o; a flipped bit gives one
// bad frame; a frame mark in the middle of a frame gives one bad (cut) frame and the
// next frame is good again (realignment); gaps and noise without a frame mark give
// nothing; a frame that finds out_ready_i low is dropped and the next one written is
// marked bad, the one after that is good.
module tb_phy_deser;
  logic clk = 1'b0;
  always #5 clk = ~clk;
  /* verilator lint_off SYNCASYNCNET */
  logic rst_n = 1'b0;
  /* verilator lint_on SYNCASYNCNET */
  logic frame = 1'b0, ready = 1'b1, valid, good;
  logic [3:0] lane = '0;
  logic [71:0] payload;

  phy_deser dut (.clk_i(clk), .rst_ni(rst_n), .frame_i(frame), .lane_i(lane),
                 .out_valid_o(valid), .out_ready_i(ready), .out_payload_o(payload),
                 .out_good_o(good));

  function automatic logic [7:0] ref_crc(logic [71:0] d);
    logic [79:0] r = {d, 8'h00};
    for (int i = 79; i >= 8; i--) if (r[i]) r[i -: 9] = r[i -: 9] ^ 9'h107;
    return r[7:0];
  endfunction

  logic [72:0] expq[$];   // {good, payload}
  int got = 0;

  always @(posedge clk) if (rst_n && valid && ready) begin
    logic [72:0] e;
    if (expq.size() == 0) $fatal(1, "deser: unexpected frame out (good %0d)", good);
    e = expq.pop_front();
    if (good !== e[72]) $fatal(1, "deser: frame %0d good=%0d, expected %0d", got, good, e[72]);
    if (e[72] && payload !== e[71:0]) $fatal(1, "deser: payload %h, expected %h", payload, e[71:0]);
    got++;
  end

  // Drives one frame from negedge to negedge; flip: bit to invert (-1 none); beats: how
  // many of the 20 beats to send before stopping (cut frames).
  task automatic drive(logic [71:0] p, int flip = -1, int beats = 20);
    logic [79:0] f = {p, ref_crc(p)};
    if (flip >= 0) f[flip] = ~f[flip];
    for (int b = 0; b < beats; b++) begin
      @(negedge clk);
      frame = (b == 0);
      lane  = f[79 - 4 * b -: 4];
    end
    @(negedge clk);
    frame = 1'b0;
    lane  = '0;
  endtask

  function automatic logic [71:0] rnd();
    return {8'($urandom), 32'($urandom), 32'($urandom)};
  endfunction

  task automatic good_frame();
    logic [71:0] p = rnd();
    expq.push_back({1'b1, p});
    drive(p);
  endtask

  initial begin
    repeat (3) @(posedge clk);
    rst_n = 1'b1;
    // back to back (drive leaves one idle beat: also check truly back to back below)
    repeat (20) good_frame();
    for (int n = 0; n < 10; n++) begin
      logic [71:0] p = rnd();
      logic [79:0] f = {p, ref_crc(p)};
      expq.push_back({1'b1, p});
      for (int b = 0; b < 20; b++) begin
        @(negedge clk);
        frame = (b == 0);
        lane  = f[79 - 4 * b -: 4];
      end
    end
    @(negedge clk);
    frame = 1'b0; lane = '0;
    // flipped bits: in the payload and in the CRC
    for (int n = 0; n < 20; n++) begin
      expq.push_back({1'b0, 72'b0});
      drive(rnd(), $urandom_range(0, 79));
      good_frame();
    end
    // cut frame: a new mark after 10 beats
    expq.push_back({1'b0, 72'b0});
    drive(rnd(), -1, 10);
    good_frame();
    // noise without a frame mark
    for (int i = 0; i < 100; i++) begin
      @(negedge clk);
      lane = 4'($urandom);
    end
    good_frame();
    // output not ready when a frame completes
    fork
      begin
        drive(rnd());
      end
      begin
        repeat (21) @(negedge clk);
        ready = 1'b0;
        repeat (3) @(negedge clk);
        ready = 1'b1;
      end
    join
    expq.push_back({1'b0, 72'b0});   // next frame carries the loss
    drive(rnd());
    good_frame();
    repeat (30) @(posedge clk);
    if (expq.size() != 0) $fatal(1, "deser: %0d frames never came out", expq.size());
    $display("tb_phy_deser: %0d frames checked", got);
    $display("tb_phy_deser: PASS");
    $finish;
  end
endmodule
