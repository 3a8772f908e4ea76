// Self-checking testbench for axi_dma_rd_master. The AXI slave here stands for the PCIe
// bridge (XDMA S_AXI_B) plus host memory: word at address a reads as mem_word(a), bursts
// are answered in order after a random delay, with random stalls on AR and R, and any
// beat in the "bad" page (0x5000-0x5fff) answers SLVERR (DECERR for the first word).
// The core side issues random requests (1..63 beats, many near 4 KiB boundaries) with
// random rsp_ready, and checks every beat: data, tag, last, err, in request order.
// Also checked: no burst crosses 4 KiB, at most MAX_BURSTS bursts in flight, the
// outstanding reads all complete, and a stray R beat is dropped and flagged.
module tb_axi_dma_rd_master;
  localparam int MaxBursts = 4;
  logic clk = 1'b0;
  always #5 clk = ~clk;
  logic rst_n = 1'b0;

  logic        req_valid = 1'b0, req_ready;
  logic [63:0] req_addr = '0;
  logic [5:0]  req_beats = '0;
  logic [7:0]  req_tag = '0;
  logic        rsp_valid, rsp_ready = 1'b0;
  logic [63:0] rsp_data;
  logic [7:0]  rsp_tag;
  logic        rsp_last, rsp_err;
  logic        arvalid, arready = 1'b0;
  logic [3:0]  arid;
  logic [63:0] araddr;
  logic [7:0]  arlen;
  logic [2:0]  arsize;
  logic [1:0]  arburst;
  logic        rvalid = 1'b0, rready;
  logic [63:0] rdata = '0;
  logic [1:0]  rresp = '0;
  logic        rlast = 1'b0;
  logic        err, stray;

  axi_dma_rd_master #(.ID_W(4), .MAX_BURSTS(MaxBursts)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .req_valid_i(req_valid), .req_ready_o(req_ready), .req_addr_i(req_addr),
    .req_beats_i(req_beats), .req_tag_i(req_tag),
    .rsp_valid_o(rsp_valid), .rsp_ready_i(rsp_ready), .rsp_data_o(rsp_data),
    .rsp_tag_o(rsp_tag), .rsp_last_o(rsp_last), .rsp_err_o(rsp_err),
    .m_axi_arvalid_o(arvalid), .m_axi_arready_i(arready), .m_axi_arid_o(arid),
    .m_axi_araddr_o(araddr), .m_axi_arlen_o(arlen), .m_axi_arsize_o(arsize),
    .m_axi_arburst_o(arburst),
    .m_axi_rvalid_i(rvalid), .m_axi_rready_o(rready), .m_axi_rid_i(4'd0),
    .m_axi_rdata_i(rdata), .m_axi_rresp_i(rresp), .m_axi_rlast_i(rlast),
    .err_o(err), .stray_o(stray));

  function automatic logic [63:0] mem_word(logic [63:0] a);
    return {a[31:0] ^ 32'h5a5a_0000, ~a[31:0]};
  endfunction
  function automatic logic bad_addr(logic [63:0] a);
    return a[63:12] == 52'h5;
  endfunction

  // ---- slave (bridge + host memory) ----
  typedef struct { logic [63:0] addr; int beats; } burst_t;
  burst_t bursts[$];
  int inflight = 0, max_inflight = 0, n_bursts = 0;

  always @(posedge clk) begin
    if (rst_n && arvalid && arready) begin
      burst_t b;
      if (arsize !== 3'd3 || arburst !== 2'b01 || arid !== '0)
        $fatal(1, "rd: bad AR size/burst/id %0d/%0d/%0d", arsize, arburst, arid);
      if (araddr[2:0] != 0) $fatal(1, "rd: unaligned AR %h", araddr);
      if ((araddr[11:0] + (int'(arlen) + 1) * 8) > 4096)
        $fatal(1, "rd: burst at %h, %0d beats crosses 4 KiB", araddr, arlen + 1);
      b.addr = araddr;
      b.beats = int'(arlen) + 1;
      bursts.push_back(b);
      inflight++;
      n_bursts++;
      if (inflight > max_inflight) max_inflight = inflight;
      if (inflight > MaxBursts) $fatal(1, "rd: %0d bursts in flight", inflight);
    end
  end
  always @(negedge clk) arready <= ($urandom_range(0, 3) != 0);

  initial begin
    @(posedge rst_n);
    forever begin
      burst_t b;
      while (bursts.size() == 0) @(posedge clk);
      b = bursts.pop_front();
      repeat ($urandom_range(0, 12)) @(posedge clk);
      for (int i = 0; i < b.beats; i++) begin
        logic [63:0] a;
        a = b.addr + 64'(i * 8);
        while ($urandom_range(0, 4) == 0) @(posedge clk);
        @(negedge clk);
        rvalid <= 1'b1;
        rdata  <= mem_word(a);
        rresp  <= bad_addr(a) ? ((a[11:0] == 0) ? 2'b11 : 2'b10) : 2'b00;
        rlast  <= (i == b.beats - 1);
        do @(posedge clk); while (!rready);
        @(negedge clk);
        rvalid <= 1'b0;
      end
      inflight--;
    end
  end

  // ---- core side ----
  typedef struct { logic [63:0] addr; logic [7:0] tag; logic last; logic err; } beat_t;
  beat_t expect_q[$];
  int n_beats = 0, n_err = 0;

  always @(negedge clk) rsp_ready <= ($urandom_range(0, 5) != 0);
  always @(posedge clk) begin
    if (rst_n && rsp_valid && rsp_ready) begin
      beat_t e;
      if (expect_q.size() == 0) $fatal(1, "rd: beat nobody asked for");
      e = expect_q.pop_front();
      if (rsp_data !== mem_word(e.addr)) $fatal(1, "rd: data %h at %h", rsp_data, e.addr);
      if (rsp_tag !== e.tag) $fatal(1, "rd: tag %0d, expected %0d", rsp_tag, e.tag);
      if (rsp_last !== e.last) $fatal(1, "rd: last %0d at %h", rsp_last, e.addr);
      if (rsp_err !== e.err) $fatal(1, "rd: err %0d at %h", rsp_err, e.addr);
      n_beats++;
      if (rsp_err) n_err++;
    end
  end

  task automatic request(logic [63:0] addr, int beats, logic [7:0] tag);
    @(negedge clk);
    req_valid = 1'b1;
    req_addr  = addr;
    req_beats = 6'(beats);
    req_tag   = tag;
    do @(posedge clk); while (!req_ready);
    for (int i = 0; i < beats; i++) begin
      beat_t e;
      e.addr = addr + 64'(i * 8);
      e.tag  = tag;
      e.last = (i == beats - 1);
      e.err  = bad_addr(e.addr);
      expect_q.push_back(e);
    end
    @(negedge clk);
    req_valid = 1'b0;
  endtask

  initial begin
    repeat (3) @(posedge clk);
    rst_n = 1'b1;
    // a request exactly up to a boundary, and one across it
    request(64'h0000_1000_0000_0f00, 32, 8'd1);
    request(64'h0000_0000_0000_2fe8, 10, 8'd2);
    request(64'h0000_0000_0000_3ff8, 63, 8'd3);
    for (int n = 0; n < 600; n++) begin
      logic [63:0] a;
      int beats;
      beats = $urandom_range(1, 63);
      a = {32'($urandom), 20'($urandom_range(0, 7)), 9'($urandom), 3'b000};
      if ($urandom_range(0, 2) == 0) a[11:0] = 12'(4096 - 8 * $urandom_range(1, 64));
      if ($urandom_range(0, 9) == 0) a = {52'h5, a[11:0]};
      request(a, beats, 8'(n));
      if ($urandom_range(0, 7) == 0) repeat ($urandom_range(0, 30)) @(posedge clk);
    end
    // the port drains, and at most MaxBursts were outstanding while it was busy
    repeat (20000) begin
      @(posedge clk);
      if (expect_q.size() == 0 && inflight == 0) break;
    end
    if (expect_q.size() != 0) $fatal(1, "rd: %0d beats never came", expect_q.size());
    if (max_inflight != MaxBursts) $fatal(1, "rd: at most %0d bursts in flight", max_inflight);
    if (n_bursts <= 603) $fatal(1, "rd: no request was split (%0d bursts)", n_bursts);
    if (n_err == 0 || !err) $fatal(1, "rd: error responses not reported");
    if (stray) $fatal(1, "rd: stray flagged with nothing stray");
    // a stray beat: taken, dropped, flagged
    @(negedge clk);
    rvalid <= 1'b1; rlast <= 1'b1; rresp <= 2'b00;
    @(posedge clk);
    if (!rready) $fatal(1, "rd: stray beat not taken");
    if (rsp_valid) $fatal(1, "rd: stray beat passed to the core");
    @(negedge clk);
    rvalid <= 1'b0;
    @(posedge clk);
    if (!stray) $fatal(1, "rd: stray beat not flagged");
    $display("tb_axi_dma_rd_master: %0d beats, %0d bursts, %0d error beats, max %0d in flight",
             n_beats, n_bursts, n_err, max_inflight);
    $display("PASS");
    $finish;
  end
endmodule
