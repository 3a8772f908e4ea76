// fifo_sync and fifo_sync_oreg (its head a register): random pushes and pops against a
// queue model for several depths (a power of two, one that is not, 1 for fifo_sync, 2
// and the NIC's RX buffer's 255 for fifo_sync_oreg), fifo_sync with the pointer read and
// with REG_READ: data order, count_o, in_ready_o only when not full, out_valid_o only when not
// empty, and no state change on refused pushes or pops. These fix every output of a FIFO
// of that depth in every cycle, so fifo_sync_oreg is checked to behave as fifo_sync,
// cycle for cycle. The FIFOs' own invariant assertions run too (--assert).
module tb_fifo_sync;
  localparam int unsigned NumCfg = 10;
  localparam int unsigned Width = 16;
  localparam int unsigned Depths [NumCfg] = '{4, 5, 1, 4, 5, 1, 2, 4, 5, 255};
  localparam bit          RegRead [NumCfg] = '{1'b0, 1'b0, 1'b0, 1'b1, 1'b1, 1'b1,
                                               1'b1, 1'b1, 1'b1, 1'b1};
  localparam bit          OReg [NumCfg] = '{1'b0, 1'b0, 1'b0, 1'b0, 1'b0, 1'b0,
                                            1'b1, 1'b1, 1'b1, 1'b1};
  localparam string       Name [2] = '{"fifo_sync", "fifo_sync_oreg"};

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic [NumCfg-1:0]            in_valid, in_ready, out_valid, out_ready;
  logic [NumCfg-1:0][Width-1:0] in_data, out_data;
  logic [NumCfg-1:0][8:0]       count;

  for (genvar g = 0; g < NumCfg; g++) begin : g_dut
    localparam int unsigned D = Depths[g];
    localparam int unsigned CountW = $clog2(D + 1);
    logic [CountW-1:0] cnt;
    if (OReg[g]) begin : g_oreg
      fifo_sync_oreg #(.WIDTH(Width), .DEPTH(D)) dut (
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
    end else begin : g_plain
      fifo_sync #(.WIDTH(Width), .DEPTH(D), .REG_READ(RegRead[g])) dut (
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
    end
    assign count[g] = 9'(cnt);
  end

  int errors = 0;
  int pops [NumCfg];
  int refused_push [NumCfg];
  int refused_pop [NumCfg];
  int empty_pushes [NumCfg];   // into an empty FIFO (fifo_sync_oreg: straight to its head)

  // One checker per FIFO (a queue per generate scope: Verilator 5.006 mishandles arrays
  // of queues). It checks the outputs before the edge, then applies the handshakes.
  for (genvar g = 0; g < NumCfg; g++) begin : g_chk
    logic [Width-1:0] model [$];
    always @(posedge clk) if (rst_n) begin
      int n;
      n = model.size();
      if (count[g] != 9'(n)) begin
        $display("FAIL %0s depth %0d reg_read %0b: count %0d, model %0d",
                 Name[OReg[g]], Depths[g], RegRead[g], count[g], n);
        errors++;
      end
      if (in_ready[g] != (n < int'(Depths[g]))) begin
        $display("FAIL %0s depth %0d reg_read %0b: in_ready %0b with %0d entries",
                 Name[OReg[g]], Depths[g], RegRead[g], in_ready[g], n);
        errors++;
      end
      if (out_valid[g] != (n != 0)) begin
        $display("FAIL %0s depth %0d reg_read %0b: out_valid %0b with %0d entries",
                 Name[OReg[g]], Depths[g], RegRead[g], out_valid[g], n);
        errors++;
      end
      if (out_valid[g] && n != 0 && out_data[g] != model[0]) begin
        $display("FAIL %0s depth %0d reg_read %0b: out_data %h, want %h",
                 Name[OReg[g]], Depths[g], RegRead[g], out_data[g], model[0]);
        errors++;
      end
      if (errors > 20) $fatal(1, "tb_fifo_sync: too many errors");
      if (in_valid[g] && !in_ready[g]) refused_push[g]++;
      if (in_valid[g] && in_ready[g] && n == 0) empty_pushes[g]++;
      if (out_ready[g] && !out_valid[g]) refused_pop[g]++;
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
    // Phases bias towards full, towards empty, then balanced, so both edges are hit often.
    for (int phase = 0; phase < 3; phase++) begin
      for (int i = 0; i < 2000; i++) begin
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
      if (refused_push[g] == 0 || refused_pop[g] == 0 || pops[g] < 1000 ||
          empty_pushes[g] < 50) begin
        $display("FAIL %0s depth %0d reg_read %0b: coverage: %0d pops, refused %0d/%0d, %0d",
                 Name[OReg[g]], Depths[g], RegRead[g], pops[g], refused_push[g], refused_pop[g],
                 empty_pushes[g]);
        errors++;
      end
    end
    if (errors != 0) $fatal(1, "tb_fifo_sync: %0d errors", errors);
    $display("tb_fifo_sync: PASS (%0d/%0d/%0d items, depths 4/5/1; REG_READ: %0d/%0d/%0d)",
             pops[0], pops[1], pops[2], pops[3], pops[4], pops[5]);
    $display("tb_fifo_sync: fifo_sync_oreg %0d/%0d/%0d/%0d items, depths 2/4/5/255",
             pops[6], pops[7], pops[8], pops[9]);
    $finish;
  end
endmodule
