// Self-checking testbench for card_cdc: bridge clock 125 MHz, core clock 50 MHz
// (unrelated phases). A register file on the core side stands for fasthsl_card (a read
// answers one core cycle later); the bridge side does one CSR access at a time, as
// axi_csr_slave does, and every read must return the last value written. The three DMA
// streams carry random words with random stalls on both ends and must arrive complete
// and in order; with no stalls the write stream moves one beat per core cycle. The
// interrupt level must follow within a few bridge cycles.
module tb_card_cdc;
  logic b_clk = 1'b0, c_clk = 1'b0;
  always #4 b_clk = ~b_clk;
  initial begin
    #3;
    forever #10 c_clk = ~c_clk;
  end
  logic rst_n = 1'b0;

  logic        b_csr_req_valid = 0, b_csr_req_write = 0, b_csr_rsp_valid;
  logic [15:0] b_csr_req_addr = 0;
  logic [31:0] b_csr_req_wdata = 0, b_csr_rsp_rdata;
  logic        b_rd_req_valid, b_rd_req_ready = 0;
  logic [63:0] b_rd_req_addr;
  logic [5:0]  b_rd_req_beats;
  logic [7:0]  b_rd_req_tag;
  logic        b_rd_rsp_valid = 0, b_rd_rsp_ready;
  logic [63:0] b_rd_rsp_data = 0;
  logic [7:0]  b_rd_rsp_tag = 0;
  logic        b_rd_rsp_last = 0, b_rd_rsp_err = 0;
  logic        b_wr_valid, b_wr_ready = 0;
  logic [63:0] b_wr_addr, b_wr_data;
  logic [7:0]  b_wr_strb;
  logic        b_irq;
  logic        c_csr_req_valid, c_csr_req_write, c_csr_rsp_valid = 0;
  logic [15:0] c_csr_req_addr;
  logic [31:0] c_csr_req_wdata, c_csr_rsp_rdata = 0;
  logic        c_rd_req_valid = 0, c_rd_req_ready;
  logic [63:0] c_rd_req_addr = 0;
  logic [5:0]  c_rd_req_beats = 0;
  logic [7:0]  c_rd_req_tag = 0;
  logic        c_rd_rsp_valid, c_rd_rsp_ready = 0;
  logic [63:0] c_rd_rsp_data;
  logic [7:0]  c_rd_rsp_tag;
  logic        c_rd_rsp_last, c_rd_rsp_err;
  logic        c_wr_valid = 0, c_wr_ready;
  logic [63:0] c_wr_addr = 0, c_wr_data = 0;
  logic [7:0]  c_wr_strb = 0;
  logic        c_irq = 0;

  card_cdc #(.DMA_DEPTH(16)) dut (
    .b_clk_i(b_clk), .b_rst_ni(rst_n),
    .b_csr_req_valid_i(b_csr_req_valid), .b_csr_req_write_i(b_csr_req_write),
    .b_csr_req_addr_i(b_csr_req_addr), .b_csr_req_wdata_i(b_csr_req_wdata),
    .b_csr_rsp_valid_o(b_csr_rsp_valid), .b_csr_rsp_rdata_o(b_csr_rsp_rdata),
    .b_dma_rd_req_valid_o(b_rd_req_valid), .b_dma_rd_req_ready_i(b_rd_req_ready),
    .b_dma_rd_req_addr_o(b_rd_req_addr), .b_dma_rd_req_beats_o(b_rd_req_beats),
    .b_dma_rd_req_tag_o(b_rd_req_tag),
    .b_dma_rd_rsp_valid_i(b_rd_rsp_valid), .b_dma_rd_rsp_ready_o(b_rd_rsp_ready),
    .b_dma_rd_rsp_data_i(b_rd_rsp_data), .b_dma_rd_rsp_tag_i(b_rd_rsp_tag),
    .b_dma_rd_rsp_last_i(b_rd_rsp_last), .b_dma_rd_rsp_err_i(b_rd_rsp_err),
    .b_dma_wr_valid_o(b_wr_valid), .b_dma_wr_ready_i(b_wr_ready),
    .b_dma_wr_addr_o(b_wr_addr), .b_dma_wr_data_o(b_wr_data), .b_dma_wr_strb_o(b_wr_strb),
    .b_irq_o(b_irq),
    .c_clk_i(c_clk), .c_rst_ni(rst_n),
    .c_csr_req_valid_o(c_csr_req_valid), .c_csr_req_write_o(c_csr_req_write),
    .c_csr_req_addr_o(c_csr_req_addr), .c_csr_req_wdata_o(c_csr_req_wdata),
    .c_csr_rsp_valid_i(c_csr_rsp_valid), .c_csr_rsp_rdata_i(c_csr_rsp_rdata),
    .c_dma_rd_req_valid_i(c_rd_req_valid), .c_dma_rd_req_ready_o(c_rd_req_ready),
    .c_dma_rd_req_addr_i(c_rd_req_addr), .c_dma_rd_req_beats_i(c_rd_req_beats),
    .c_dma_rd_req_tag_i(c_rd_req_tag),
    .c_dma_rd_rsp_valid_o(c_rd_rsp_valid), .c_dma_rd_rsp_ready_i(c_rd_rsp_ready),
    .c_dma_rd_rsp_data_o(c_rd_rsp_data), .c_dma_rd_rsp_tag_o(c_rd_rsp_tag),
    .c_dma_rd_rsp_last_o(c_rd_rsp_last), .c_dma_rd_rsp_err_o(c_rd_rsp_err),
    .c_dma_wr_valid_i(c_wr_valid), .c_dma_wr_ready_o(c_wr_ready),
    .c_dma_wr_addr_i(c_wr_addr), .c_dma_wr_data_i(c_wr_data), .c_dma_wr_strb_i(c_wr_strb),
    .c_irq_i(c_irq));

  // ---- core side register file ----
  logic [31:0] regs [2048];
  initial for (int i = 0; i < 2048; i++) regs[i] = 32'(i) * 32'h0101_0007;
  always @(posedge c_clk) begin
    c_csr_rsp_valid <= 1'b0;
    if (rst_n && c_csr_req_valid) begin
      if (c_csr_req_write) regs[c_csr_req_addr[12:2]] <= c_csr_req_wdata;
      else begin
        c_csr_rsp_valid <= 1'b1;
        c_csr_rsp_rdata <= regs[c_csr_req_addr[12:2]];
      end
    end
  end

  // ---- streams: sent and received queues, random stalls at both ends ----
  typedef logic [143:0] word_t;
  word_t rq_sent[$], rs_sent[$], wr_sent[$];
  int rq_got = 0, rs_got = 0, wr_got = 0;
  bit no_stall = 1'b0;

  always @(negedge b_clk) begin
    b_rd_req_ready <= no_stall || ($urandom_range(0, 2) == 0);
    b_wr_ready     <= no_stall || ($urandom_range(0, 2) != 0);
  end
  always @(negedge c_clk) c_rd_rsp_ready <= no_stall || ($urandom_range(0, 2) != 0);

  // (the expected word is taken into a variable first: Verilator 5.006 mis-evaluates a
  // compare against pop_front() in place)
  word_t exp_w;
  always @(posedge b_clk) begin
    if (rst_n && b_rd_req_valid && b_rd_req_ready) begin
      exp_w = rq_sent.pop_front();
      if (word_t'({b_rd_req_addr, b_rd_req_beats, b_rd_req_tag}) !== exp_w)
        $fatal(1, "cdc: read request %0d corrupted or out of order", rq_got);
      rq_got++;
    end
    if (rst_n && b_wr_valid && b_wr_ready) begin
      exp_w = wr_sent.pop_front();
      if (word_t'({b_wr_addr, b_wr_data, b_wr_strb}) !== exp_w)
        $fatal(1, "cdc: write %0d corrupted or out of order", wr_got);
      wr_got++;
    end
  end
  word_t exp_c;
  always @(posedge c_clk) begin
    if (rst_n && c_rd_rsp_valid && c_rd_rsp_ready) begin
      exp_c = rs_sent.pop_front();
      if (word_t'({c_rd_rsp_data, c_rd_rsp_tag, c_rd_rsp_last, c_rd_rsp_err}) !== exp_c)
        $fatal(1, "cdc: read data %0d corrupted or out of order", rs_got);
      rs_got++;
    end
  end

  int c_cycles = 0;
  always @(posedge c_clk) c_cycles++;

  initial begin
    int t0, t_fast;
    repeat (3) @(posedge c_clk);
    rst_n = 1'b1;
    repeat (3) @(posedge c_clk);
    fork
      // CSR: write then read back, one access at a time from the bridge side
      begin
        for (int n = 0; n < 150; n++) begin
          logic [15:0] a;
          logic [31:0] d;
          a = {3'b000, 11'($urandom), 2'b00};
          d = $urandom;
          @(negedge b_clk);
          b_csr_req_valid = 1; b_csr_req_write = 1; b_csr_req_addr = a; b_csr_req_wdata = d;
          @(negedge b_clk);
          b_csr_req_valid = 0;
          // the write is posted; the read behind it in the same FIFO sees it
          @(negedge b_clk);
          b_csr_req_valid = 1; b_csr_req_write = 0; b_csr_req_addr = a;
          @(negedge b_clk);
          b_csr_req_valid = 0;
          while (!b_csr_rsp_valid) @(negedge b_clk);
          if (b_csr_rsp_rdata !== d) $fatal(1, "cdc: CSR read %h at %h, wrote %h", b_csr_rsp_rdata, a, d);
          @(negedge b_clk);
          if (b_csr_rsp_valid) $fatal(1, "cdc: two answers to one read");
        end
      end
      // DMA read requests, core -> bridge
      begin
        for (int n = 0; n < 300; n++) begin
          @(negedge c_clk);
          c_rd_req_valid = 1;
          c_rd_req_addr = {$urandom, $urandom};
          c_rd_req_beats = 6'($urandom);
          c_rd_req_tag = 8'(n);
          do @(posedge c_clk); while (!c_rd_req_ready);
          rq_sent.push_back(word_t'({c_rd_req_addr, c_rd_req_beats, c_rd_req_tag}));
          @(negedge c_clk);
          c_rd_req_valid = 0;
          repeat ($urandom_range(0, 2)) @(negedge c_clk);
        end
      end
      // DMA read data, bridge -> core
      begin
        for (int n = 0; n < 1000; n++) begin
          @(negedge b_clk);
          b_rd_rsp_valid = 1;
          b_rd_rsp_data = {$urandom, $urandom};
          b_rd_rsp_tag = 8'($urandom);
          b_rd_rsp_last = 1'($urandom);
          b_rd_rsp_err = 1'($urandom);
          do @(posedge b_clk); while (!b_rd_rsp_ready);
          rs_sent.push_back(word_t'({b_rd_rsp_data, b_rd_rsp_tag, b_rd_rsp_last, b_rd_rsp_err}));
          @(negedge b_clk);
          b_rd_rsp_valid = 0;
        end
      end
      // DMA writes, core -> bridge
      begin
        for (int n = 0; n < 1000; n++) begin
          @(negedge c_clk);
          c_wr_valid = 1;
          c_wr_addr = {$urandom, $urandom};
          c_wr_data = {$urandom, $urandom};
          c_wr_strb = 8'($urandom);
          do @(posedge c_clk); while (!c_wr_ready);
          wr_sent.push_back(word_t'({c_wr_addr, c_wr_data, c_wr_strb}));
          @(negedge c_clk);
          c_wr_valid = 0;
        end
      end
      // interrupt level
      begin
        for (int n = 0; n < 30; n++) begin
          @(negedge c_clk);
          c_irq = ~c_irq;
          repeat (4) @(posedge b_clk);
          if (b_irq !== c_irq) $fatal(1, "cdc: irq did not follow in 4 bridge cycles");
          repeat ($urandom_range(1, 20)) @(negedge c_clk);
        end
      end
    join
    repeat (40) @(posedge c_clk);
    if (rq_sent.size() || rs_sent.size() || wr_sent.size())
      $fatal(1, "cdc: words left behind: %0d %0d %0d", rq_sent.size(), rs_sent.size(), wr_sent.size());
    // full rate: writes back to back, no stalls: one per core cycle
    no_stall = 1'b1;
    repeat (4) @(negedge c_clk);
    t0 = c_cycles;
    c_wr_valid = 1;
    for (int n = 0; n < 200; n++) begin
      c_wr_addr = 64'(n);
      c_wr_data = 64'(n * 3);
      c_wr_strb = 8'hff;
      do @(posedge c_clk); while (!c_wr_ready);
      wr_sent.push_back(word_t'({c_wr_addr, c_wr_data, c_wr_strb}));
      @(negedge c_clk);
    end
    c_wr_valid = 0;
    t_fast = c_cycles - t0;
    if (t_fast > 205) $fatal(1, "cdc: 200 writes took %0d core cycles", t_fast);
    repeat (20) @(posedge c_clk);
    if (wr_sent.size() != 0) $fatal(1, "cdc: fast writes left behind");
    $display("tb_card_cdc: %0d read requests, %0d read beats, %0d writes, 200 back-to-back writes in %0d core cycles",
             rq_got, rs_got, wr_got, t_fast);
    $display("PASS");
    $finish;
  end
endmodule
