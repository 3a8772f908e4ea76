// fifo_sync_oreg against fifo_sync of the same depth, both driven by the same random
// pushes and pops: every output (in_ready_o, out_valid_o, count_o, and out_data_o while
// valid) must be equal in every cycle, and the data must follow a queue model. Depths 2
// (the smallest: one word of storage), 4, 5 and 255 (the NIC's RX flit buffer) with the
// storage read through an address register (REG_READ, block RAM), 2 and 5 through the
// pointer (distributed RAM).
module tb_fifo_sync_oreg;
  localparam int unsigned NumCfg = 6;
  localparam int unsigned Width = 16;
  localparam int unsigned Depths [NumCfg] = '{2, 4, 5, 255, 2, 5};
  localparam bit          RegRead [NumCfg] = '{1'b1, 1'b1, 1'b1, 1'b1, 1'b0, 1'b0};

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic [NumCfg-1:0]            in_valid, out_ready;
  logic [NumCfg-1:0]            in_ready, out_valid, ref_in_ready, ref_out_valid;
  logic [NumCfg-1:0][Width-1:0] in_data, out_data, ref_out_data;
  logic [NumCfg-1:0][8:0]       count, ref_count;

  for (genvar g = 0; g < NumCfg; g++) begin : g_dut
    localparam int unsigned D = Depths[g];
    localparam int unsigned CountW = $clog2(D + 1);
    logic [CountW-1:0] cnt, ref_cnt;
    fifo_sync_oreg #(.WIDTH(Width), .DEPTH(D), .REG_READ(RegRead[g])) dut (
      .clk_i      (clk),
      .rst_ni     (rst_n),
      .in_valid_i (in_valid[g]),
      .in_ready_o (in_ready[g]),
      .in_data_i  (in_data[g]),
      .out_valid_o(out_valid[g]),
      .out_ready_i(out_ready[g]),
      .out_data_o (out_data[g]),
      .count_o    (cnt)
    );
    fifo_sync #(.WIDTH(Width), .DEPTH(D), .REG_READ(1'b1)) ref_fifo (
      .clk_i      (clk),
      .rst_ni     (rst_n),
      .in_valid_i (in_valid[g]),
      .in_ready_o (ref_in_ready[g]),
      .in_data_i  (in_data[g]),
      .out_valid_o(ref_out_valid[g]),
      .out_ready_i(out_ready[g]),
      .out_data_o (ref_out_data[g]),
      .count_o    (ref_cnt)
    );
    assign count[g]     = 9'(cnt);
    assign ref_count[g] = 9'(ref_cnt);
  end

  int errors = 0;
  int pops [NumCfg];
  int full_cycles [NumCfg];
  int bypass_pushes [NumCfg];   // pushes into an empty FIFO (the head's bypass)

  for (genvar g = 0; g < NumCfg; g++) begin : g_chk
    logic [Width-1:0] model [$];
    always @(posedge clk) if (rst_n) begin
      int n;
      n = model.size();
      if (in_ready[g] != ref_in_ready[g] || out_valid[g] != ref_out_valid[g] ||
          count[g] != ref_count[g] || (out_valid[g] && out_data[g] != ref_out_data[g])) begin
        $display("FAIL depth %0d/%0b: ready/valid/count/data %b/%b/%0d/%h, fifo_sync %b/%b/%0d/%h",
                 Depths[g], RegRead[g], in_ready[g], out_valid[g], count[g], out_data[g],
                 ref_in_ready[g], ref_out_valid[g], ref_count[g], ref_out_data[g]);
        errors++;
      end
      if (count[g] != 9'(n) || (out_valid[g] && out_data[g] != model[0])) begin
        $display("FAIL depth %0d: count %0d data %h, model %0d items, head %h",
                 Depths[g], count[g], out_data[g], n, (n != 0) ? model[0] : '0);
        errors++;
      end
      if (errors > 20) $fatal(1, "tb_fifo_sync_oreg: too many errors");
      if (!in_ready[g]) full_cycles[g]++;
      if (in_valid[g] && in_ready[g] && n == 0) bypass_pushes[g]++;
      if (out_valid[g] && out_ready[g]) begin
        void'(model.pop_front());
        pops[g]++;
      end
      if (in_valid[g] && in_ready[g]) model.push_back(in_data[g]);
    end
  end

  initial begin
    in_valid  = '0;
    out_ready = '0;
    in_data   = '0;
    repeat (2) @(posedge clk);
    rst_n = 1'b1;
    // Towards full (long enough to fill 255), towards empty, then balanced.
    for (int phase = 0; phase < 3; phase++) begin
      for (int i = 0; i < 3000; i++) begin
        @(negedge clk);
        for (int g = 0; g < NumCfg; g++) begin
          in_valid[g]  = ($urandom_range(0, 3) < (phase == 1 ? 1 : 3));
          out_ready[g] = ($urandom_range(0, 3) < (phase == 0 ? 1 : (phase == 1 ? 3 : 2)));
          in_data[g]   = Width'($urandom);
        end
      end
    end
    @(negedge clk);
    in_valid  = '0;
    out_ready = '0;
    @(posedge clk);
    for (int g = 0; g < NumCfg; g++) begin
      if (full_cycles[g] == 0 || bypass_pushes[g] < 50 || pops[g] < 1000) begin
        $display("FAIL depth %0d: coverage: %0d pops, %0d full cycles, %0d pushes when empty",
                 Depths[g], pops[g], full_cycles[g], bypass_pushes[g]);
        errors++;
      end
    end
    if (errors != 0) $fatal(1, "tb_fifo_sync_oreg: %0d errors", errors);
    $display("tb_fifo_sync_oreg: PASS (%0d/%0d/%0d/%0d items, depths 2/4/5/255; pointer read %0d/%0d, depths 2/5)",
             pops[0], pops[1], pops[2], pops[3], pops[4], pops[5]);
    $finish;
  end
endmodule
