// Self-checking test of ddc_dma_wr_mux: two random sources (each beat tagged with its
// source and sequence number) and a port with random stalls. Checks no loss, no
// duplication, per-source order, that done pulses and their side bits match the beats
// leaving the port, registered port outputs, and fairness: with both sources always
// valid they alternate beat by beat.
module tb_ddc_dma_wr_mux;
  logic clk = 1'b0;
  logic rst_n = 1'b0;
  logic run = 1'b0;
  always #5 clk = ~clk;

  logic        tx_valid, tx_ready, rx_valid, rx_ready;
  logic [63:0] tx_addr, tx_data, rx_addr, rx_data;
  logic [7:0]  tx_strb, rx_strb;
  logic [1:0]  tx_side, rx_side, done_side;
  logic        tx_done, rx_done;
  logic        wr_valid, wr_ready;
  logic [63:0] wr_addr, wr_data;
  logic [7:0]  wr_strb;

  ddc_dma_wr_mux #(
    .SIDE_W(2)
  ) dut (
    .clk_i         (clk),
    .rst_ni        (rst_n),
    .tx_valid_i    (tx_valid),
    .tx_ready_o    (tx_ready),
    .tx_addr_i     (tx_addr),
    .tx_data_i     (tx_data),
    .tx_strb_i     (tx_strb),
    .tx_side_i     (tx_side),
    .tx_done_o     (tx_done),
    .rx_valid_i    (rx_valid),
    .rx_ready_o    (rx_ready),
    .rx_addr_i     (rx_addr),
    .rx_data_i     (rx_data),
    .rx_strb_i     (rx_strb),
    .rx_side_i     (rx_side),
    .rx_done_o     (rx_done),
    .done_side_o   (done_side),
    .dma_wr_valid_o(wr_valid),
    .dma_wr_ready_i(wr_ready),
    .dma_wr_addr_o (wr_addr),
    .dma_wr_data_o (wr_data),
    .dma_wr_strb_o (wr_strb)
  );

`include "ddc_tb_check.svh"

  // A beat of source s, number n: every field derived from (s, n) so the sink can check it.
  function automatic logic [63:0] f_addr(int s, int n);
    return {8'(s), 21'h0, 32'(n), 3'b000};
  endfunction
  function automatic logic [63:0] f_data(int s, int n);
    return {32'(n) * 32'h9E37_79B9, 32'(s) ^ 32'(n)};
  endfunction
  function automatic logic [7:0] f_strb(int n);
    return 8'(n * 37 + 1);
  endfunction
  function automatic logic [1:0] f_side(int s, int n);
    return 2'(n + s);
  endfunction

  int tx_pct = 100, rx_pct = 100, ready_pct = 100;
  int tx_n = 0, rx_n = 0;       // next beat number each source offers
  int tx_got = 0, rx_got = 0;   // next beat number the sink expects per source
  int tx_done_n = 0, rx_done_n = 0;
  int limit = 0;                // beats each source offers in this phase

  // Sources: valid stays up until accepted (the protocol), content fixed meanwhile.
  always @(posedge clk) begin
    if (run) begin
      if (tx_valid && tx_ready) tx_n++;
      if (rx_valid && rx_ready) rx_n++;
      if (!(tx_valid && !tx_ready)) tx_valid <= (tx_n < limit) && ($urandom_range(99) < tx_pct);
      if (!(rx_valid && !rx_ready)) rx_valid <= (rx_n < limit) && ($urandom_range(99) < rx_pct);
    end else begin
      tx_valid <= 1'b0;
      rx_valid <= 1'b0;
    end
  end
  assign tx_addr = f_addr(0, tx_n);
  assign tx_data = f_data(0, tx_n);
  assign tx_strb = f_strb(tx_n);
  assign tx_side = f_side(0, tx_n);
  assign rx_addr = f_addr(1, rx_n);
  assign rx_data = f_data(1, rx_n);
  assign rx_strb = f_strb(rx_n);
  assign rx_side = f_side(1, rx_n);

  // Sink
  int     src_hist[$];
  logic [63:0] prev_addr;
  logic        prev_valid_stall = 1'b0;
  always @(posedge clk) begin
    if (!run) begin
      wr_ready <= 1'b0;
    end else begin
      // A stalled beat must not change (outputs are held).
      if (prev_valid_stall) `CHECK(wr_valid && wr_addr == prev_addr, "stalled beat changed")
      prev_valid_stall = wr_valid && !wr_ready;
      prev_addr = wr_addr;
      `CHECK(!(tx_done && rx_done), "two done pulses at once")
      `CHECK((tx_done || rx_done) == (wr_valid && wr_ready), "done pulse without a beat")
      if (wr_valid && wr_ready) begin
        int s = int'(wr_addr[63:56]);
        int n = int'(wr_addr[34:3]);
        `CHECK(s == 0 || s == 1, "beat from nowhere")
        if (s == 0) begin
          `CHECK(n == tx_got, $sformatf("tx beat %0d, expected %0d", n, tx_got))
          `CHECK(tx_done && done_side == f_side(0, n), "tx done/side")
          tx_got = n + 1;
        end else begin
          `CHECK(n == rx_got, $sformatf("rx beat %0d, expected %0d", n, rx_got))
          `CHECK(rx_done && done_side == f_side(1, n), "rx done/side")
          rx_got = n + 1;
        end
        `CHECK(wr_addr == f_addr(s, n) && wr_data == f_data(s, n) && wr_strb == f_strb(n),
               "beat contents")
        src_hist.push_back(s);
      end
      wr_ready <= $urandom_range(99) < ready_pct;
    end
  end

  task automatic phase(int n, int tp, int rp, int wp);
    longint t = 0;
    limit = n;
    tx_n = 0; rx_n = 0; tx_got = 0; rx_got = 0;
    tx_pct = tp; rx_pct = rp; ready_pct = wp;
    src_hist.delete();
    while ((tx_got < n || rx_got < n) && t < 100000) begin
      @(posedge clk);
      t++;
    end
    `CHECK(tx_got == n && rx_got == n, $sformatf("lost beats: tx %0d rx %0d of %0d",
                                                 tx_got, rx_got, n))
    repeat (10) @(posedge clk);
    `CHECK(!wr_valid, "extra beat after all were delivered")
    $display("phase src %0d%%/%0d%% ready %0d%%: %0d beats each in %0d cycles", tp, rp, wp,
             n, t);
  endtask

  initial begin
    repeat (3) @(posedge clk);
    rst_n = 1'b1;
    run = 1'b1;
    @(posedge clk);

    // Fairness: both saturating, port always ready: strict alternation, 1 beat/cycle.
    phase(2000, 100, 100, 100);
    begin
      int runs = 0;
      for (int i = 1; i < src_hist.size(); i++) if (src_hist[i] == src_hist[i-1]) runs++;
      `CHECK(runs <= 2, $sformatf("saturated: %0d back-to-back grants to one source", runs))
    end
    // Both saturating, port stalling: still alternating.
    phase(2000, 100, 100, 50);
    begin
      int runs = 0;
      for (int i = 1; i < src_hist.size(); i++) if (src_hist[i] == src_hist[i-1]) runs++;
      `CHECK(runs <= 2, $sformatf("stalled port: %0d back-to-back grants to one source",
                                  runs))
    end
    // One source alone gets the full port.
    phase(0, 100, 100, 100);
    limit = 1000;
    tx_pct = 0; rx_pct = 100; ready_pct = 100;
    begin
      longint t = 0;
      while (rx_got < 1000) begin
        @(posedge clk);
        t++;
      end
      `CHECK(t <= 1005, $sformatf("single source: 1000 beats took %0d cycles", t))
      $display("single source: 1000 beats in %0d cycles", t);
    end
    repeat (10) @(posedge clk);
    // Random everything.
    phase(3000, 70, 40, 60);
    phase(3000, 30, 90, 80);
    phase(3000, 50, 50, 30);

    if (errors != 0) $fatal(1, "tb_ddc_dma_wr_mux: %0d errors", errors);
    $display("tb_ddc_dma_wr_mux: PASS");
    $finish;
  end
endmodule
