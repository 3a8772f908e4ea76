// Self-checking testbench for phy_ser: every frame on the lanes is reassembled and must
// be 20 beats with the frame mark on the first only, carry the payload given at its
// load_o pulse and that payload's CRC-8; frames follow back to back while send_i is
// high (load_o every 20 cycles); a frame in progress when send_i drops is completed and
// then the lanes stay quiet (zero, no mark) until send_i returns.
module tb_phy_ser;
  logic clk = 1'b0;
  always #5 clk = ~clk;
  /* verilator lint_off SYNCASYNCNET */
  logic rst_n = 1'b0;
  /* verilator lint_on SYNCASYNCNET */
  logic send = 1'b0, load, frame;
  logic [71:0] payload = '0;
  logic [3:0] lane;
  logic [7:0] crc_ref;

  phy_ser dut (.clk_i(clk), .rst_ni(rst_n), .send_i(send), .payload_i(payload), .load_o(load),
               .frame_o(frame), .lane_o(lane));
  phy_crc8 u_ref (.data_i(payload), .crc_o(crc_ref));

  logic [79:0] expq[$];
  int beat = -1, frames = 0, last_load = -100, cyc = 0, quiet = 0, run_start = 0;
  logic [79:0] acc;

  always @(posedge clk) begin
    cyc++;
    if (rst_n) begin
      // DUT outputs are registered: this edge sees the beat launched at the previous one
      if (frame) begin
        if (beat != -1) $fatal(1, "ser: frame mark at beat %0d", beat);
        beat = 0;
      end
      if (beat >= 0) begin
        acc = {acc[75:0], lane};
        beat++;
        if (beat == 20) begin
          logic [79:0] e;
          if (expq.size() == 0) $fatal(1, "ser: frame without a load");
          e = expq.pop_front();
          if (acc !== e) $fatal(1, "ser: frame %h, expected %h", acc, e);
          frames++;
          beat = -1;
        end
      end else begin
        if (lane !== 4'h0) $fatal(1, "ser: lanes not quiet between frames");
        quiet++;
      end
      if (load) begin
        if (!send) $fatal(1, "ser: load without send");
        // with send high since the last load, frames are back to back
        if (last_load > run_start && cyc - last_load != 20)
          $fatal(1, "ser: loads %0d cycles apart with send held", cyc - last_load);
        expq.push_back({payload, crc_ref});
        last_load = cyc;
      end
      payload <= {8'($urandom), 32'($urandom), 32'($urandom)};
    end
    if (!send) run_start = cyc;
  end

  initial begin
    int t0, f0;
    repeat (3) @(posedge clk);
    rst_n = 1'b1;
    repeat (5) @(posedge clk);
    // back to back: 10 frames in 200 cycles
    send = 1'b1;
    f0 = frames;
    t0 = cyc;
    repeat (200) @(posedge clk);
    send = 1'b0;
    repeat (40) @(posedge clk);
    if (frames - f0 != 10) $fatal(1, "ser: %0d frames in 200 cycles, expected 10", frames - f0);
    // send dropped mid-frame: the frame completes, then quiet
    send = 1'b1;
    repeat (7) @(posedge clk);
    send = 1'b0;
    f0 = frames;
    quiet = 0;
    repeat (100) @(posedge clk);
    if (frames - f0 != 1 || quiet < 70) $fatal(1, "ser: after send dropped: %0d frames, %0d quiet", frames - f0, quiet);
    // random on/off
    for (int i = 0; i < 300; i++) begin
      send = ($urandom_range(0, 2) != 0);
      repeat ($urandom_range(1, 30)) @(posedge clk);
    end
    send = 1'b0;
    repeat (40) @(posedge clk);
    if (expq.size() != 0) $fatal(1, "ser: %0d loaded frames never sent", expq.size());
    $display("tb_phy_ser: %0d frames checked", frames);
    $display("tb_phy_ser: PASS");
    $finish;
  end
endmodule
