// Self-checking testbench for axi_dma_wr_master. The AXI slave here stands for the PCIe
// bridge (XDMA S_AXI_B) plus host memory: AW and W are taken independently with random
// stalls (W may come before its AW), the bytes are applied to a memory model in order,
// and B answers after a random delay (SLVERR for the page 0x7000-0x7fff, which is not
// written). The core side writes random words with random strobes; at the end the
// memory must hold exactly what the core wrote. Also checked: single-beat INCR bursts of
// 8 bytes, writes applied in the order the core issued them (a word written twice keeps
// the second value), at most MAX_WRITES without a B, one beat per cycle when the bridge
// never stalls, the error flag, and a stray B flagged.
module tb_axi_dma_wr_master;
  localparam int MaxWrites = 6;
  logic clk = 1'b0;
  always #5 clk = ~clk;
  logic rst_n = 1'b0;

  logic        wr_valid = 1'b0, wr_ready;
  logic [63:0] wr_addr = '0, wr_data = '0;
  logic [7:0]  wr_strb = '0;
  logic        awvalid, awready = 1'b0;
  logic [3:0]  awid;
  logic [63:0] awaddr;
  logic [7:0]  awlen;
  logic [2:0]  awsize;
  logic [1:0]  awburst;
  logic        wvalid, wready = 1'b0, wlast;
  logic [63:0] wdata;
  logic [7:0]  wstrb;
  logic        bvalid = 1'b0, bready;
  logic [1:0]  bresp = '0;
  logic        err, stray;
  logic        fast = 1'b0;

  axi_dma_wr_master #(.ID_W(4), .MAX_WRITES(MaxWrites)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .wr_valid_i(wr_valid), .wr_ready_o(wr_ready), .wr_addr_i(wr_addr),
    .wr_data_i(wr_data), .wr_strb_i(wr_strb),
    .m_axi_awvalid_o(awvalid), .m_axi_awready_i(awready), .m_axi_awid_o(awid),
    .m_axi_awaddr_o(awaddr), .m_axi_awlen_o(awlen), .m_axi_awsize_o(awsize),
    .m_axi_awburst_o(awburst),
    .m_axi_wvalid_o(wvalid), .m_axi_wready_i(wready), .m_axi_wdata_o(wdata),
    .m_axi_wstrb_o(wstrb), .m_axi_wlast_o(wlast),
    .m_axi_bvalid_i(bvalid), .m_axi_bready_o(bready), .m_axi_bid_i(4'd0),
    .m_axi_bresp_i(bresp), .err_o(err), .stray_o(stray));

  function automatic logic bad_addr(logic [63:0] a);
    return a[63:12] == 52'h7;
  endfunction

  // ---- slave (bridge + host memory) ----
  logic [7:0]  mem [logic [63:0]];
  logic [7:0]  ref_mem [logic [63:0]];
  logic [63:0] aw_q[$];
  typedef struct { logic [63:0] data; logic [7:0] strb; } w_t;
  w_t w_q[$];
  int b_due[$];
  int inflight = 0, max_inflight = 0, n_b = 0, cyc = 0;

  always @(negedge clk) begin
    awready <= fast || ($urandom_range(0, 2) != 0);
    wready  <= fast || ($urandom_range(0, 2) != 0);
  end
  always @(posedge clk) cyc++;
  always @(posedge clk) begin
    b_taken = 1'b0;
    if (rst_n && bvalid && bready && !manual_b) begin
      void'(b_due.pop_front());
      b_taken = 1'b1;
      inflight--;
      n_b++;
    end
    if (rst_n && awvalid && awready) begin
      if (awlen !== 0 || awsize !== 3'd3 || awburst !== 2'b01 || awid !== 0)
        $fatal(1, "wr: AW not one 8-byte INCR beat on ID 0");
      aw_q.push_back(awaddr);
      inflight++;
      if (inflight > max_inflight) max_inflight = inflight;
      if (inflight > MaxWrites) $fatal(1, "wr: %0d writes without B", inflight);
    end
    if (rst_n && wvalid && wready) begin
      w_t w;
      if (!wlast) $fatal(1, "wr: W without last");
      w.data = wdata;
      w.strb = wstrb;
      w_q.push_back(w);
    end
    // a write is applied when both halves are here, in AW order
    while (aw_q.size() > 0 && w_q.size() > 0) begin
      logic [63:0] a;
      w_t w;
      a = aw_q.pop_front();
      w = w_q.pop_front();
      if (a[2:0] != 0) $fatal(1, "wr: unaligned %h", a);
      if (!bad_addr(a))
        for (int i = 0; i < 8; i++) if (w.strb[i]) mem[a + 64'(i)] = w.data[8*i +: 8];
      b_due.push_back(bad_addr(a) ? 1 : 0);
    end
  end
  // B: the oldest applied write answers, after a random delay (none when fast)
  logic b_taken = 1'b0, manual_b = 1'b0;
  always @(negedge clk) begin
    if (!manual_b && (!bvalid || b_taken)) begin
      if (b_due.size() > 0 && (fast || $urandom_range(0, 3) == 0)) begin
        bvalid <= 1'b1;
        bresp  <= b_due[0] ? 2'b10 : 2'b00;
      end else begin
        bvalid <= 1'b0;
      end
    end
  end

  // ---- core side ----
  int n_wr = 0;
  task automatic write(logic [63:0] a, logic [63:0] d, logic [7:0] s);
    @(negedge clk);
    wr_valid = 1'b1;
    wr_addr = a;
    wr_data = d;
    wr_strb = s;
    do @(posedge clk); while (!wr_ready);
    if (!bad_addr(a))
      for (int i = 0; i < 8; i++) if (s[i]) ref_mem[a + 64'(i)] = d[8*i +: 8];
    n_wr++;
    @(negedge clk);
    wr_valid = 1'b0;
  endtask

  initial begin
    int t0, t_fast;
    repeat (3) @(posedge clk);
    rst_n = 1'b1;
    for (int n = 0; n < 3000; n++) begin
      logic [63:0] a;
      a = {40'h10, 13'($urandom), 8'($urandom_range(0, 31)), 3'b000};
      if ($urandom_range(0, 15) == 0) a = {52'h7, 9'($urandom), 3'b000};
      write(a, {$urandom, $urandom}, ($urandom_range(0, 3) == 0) ? 8'($urandom) : 8'hff);
      if ($urandom_range(0, 5) == 0) repeat ($urandom_range(1, 10)) @(negedge clk);
    end
    // the same word twice in a row: the second value wins
    write(64'h0000_0010_0000_0100, 64'h1111_1111_1111_1111, 8'hff);
    write(64'h0000_0010_0000_0100, 64'h2222_2222_2222_2222, 8'h0f);
    @(negedge clk);
    repeat (200) @(posedge clk);
    if (inflight != 0 || aw_q.size() != 0 || w_q.size() != 0)
      $fatal(1, "wr: writes not finished (%0d)", inflight);
    if (n_b != n_wr) $fatal(1, "wr: %0d B for %0d writes", n_b, n_wr);
    if (mem.num() != ref_mem.num()) $fatal(1, "wr: %0d bytes written, %0d expected", mem.num(), ref_mem.num());
    foreach (ref_mem[a]) begin
      if (!mem.exists(a) || mem[a] !== ref_mem[a]) $fatal(1, "wr: byte at %h wrong", a);
    end
    if (max_inflight != MaxWrites) $fatal(1, "wr: at most %0d writes in flight", max_inflight);
    if (!err) $fatal(1, "wr: SLVERR not flagged");
    if (stray) $fatal(1, "wr: stray flagged with nothing stray");
    // full rate: a bridge that never stalls takes one beat per cycle
    fast = 1'b1;
    repeat (3) @(negedge clk);
    t0 = cyc;
    @(negedge clk);
    wr_valid = 1'b1;
    for (int n = 0; n < 64; n++) begin
      wr_addr = 64'h0000_0010_0000_2000 + 64'(8 * n);
      wr_data = 64'(n);
      wr_strb = 8'hff;
      do @(posedge clk); while (!wr_ready);
      ref_mem[wr_addr] = 8'(n);
      @(negedge clk);
    end
    wr_valid = 1'b0;
    t_fast = cyc - t0;
    if (t_fast > 64 + 8) $fatal(1, "wr: 64 beats took %0d cycles", t_fast);
    repeat (50) @(posedge clk);
    for (int n = 0; n < 64; n++)
      if (mem[64'h0000_0010_0000_2000 + 64'(8 * n)] !== 8'(n)) $fatal(1, "wr: fast beat %0d", n);
    // a B with nothing outstanding
    @(negedge clk);
    manual_b = 1'b1;
    bvalid <= 1'b1;
    @(negedge clk);
    bvalid <= 1'b0;
    @(posedge clk);
    if (!stray) $fatal(1, "wr: stray B not flagged");
    $display("tb_axi_dma_wr_master: %0d writes, %0d bytes, max %0d in flight, 64 beats in %0d cycles",
             n_wr, mem.num(), max_inflight, t_fast);
    $display("PASS");
    $finish;
  end
endmodule
