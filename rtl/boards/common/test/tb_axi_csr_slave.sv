// Self-checking testbench for axi_csr_slave. The AXI master here stands for the PCIe
// bridge's BAR0 master (XDMA M_AXI_B) driven by a host doing 32-bit MMIO; the register
// file here stands for fasthsl_card's CSR bus: a read answers one cycle later (the card
// takes two), or (half of the run) 1..6 cycles later, as through the card_cdc crossing.
// A read thread and a write thread run at once (so AR and AW contend), with random
// IDs, random W-before-AW and random R/B back-pressure. Checked: every read returns the
// last value written to that register, in the right byte lanes, with its ID; writes land
// in the right register; neither thread starves; refused accesses (read bursts, 8-byte
// reads, write bursts, wrong strobes) get SLVERR on every beat with RLAST on the last,
// touch no register, and each pulses err_o once.
module tb_axi_csr_slave;
  localparam int AW = 13;
  logic clk = 1'b0;
  always #5 clk = ~clk;
  logic rst_n = 1'b0;

  logic        awvalid = 0, awready, wvalid = 0, wready, bvalid, bready = 0;
  logic [3:0]  awid = 0, bid, arid = 0, rid;
  logic [63:0] awaddr = 0, wdata = 0, araddr = 0, rdata;
  logic [7:0]  awlen = 0, wstrb = 0, arlen = 0;
  logic [1:0]  bresp, rresp;
  logic        arvalid = 0, arready, rvalid, rready = 0, rlast;
  logic [2:0]  arsize = 3'd2;
  logic          csr_valid, csr_write;
  logic [AW-1:0] csr_addr;
  logic [31:0]   csr_wdata, csr_rdata = '0;
  logic          csr_rsp_valid = 1'b0;
  logic          err;

  axi_csr_slave #(.ID_W(4), .ADDR_W(AW)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .s_axi_awvalid_i(awvalid), .s_axi_awready_o(awready), .s_axi_awid_i(awid),
    .s_axi_awaddr_i(awaddr), .s_axi_awlen_i(awlen),
    .s_axi_wvalid_i(wvalid), .s_axi_wready_o(wready), .s_axi_wdata_i(wdata),
    .s_axi_wstrb_i(wstrb),
    .s_axi_bvalid_o(bvalid), .s_axi_bready_i(bready), .s_axi_bid_o(bid), .s_axi_bresp_o(bresp),
    .s_axi_arvalid_i(arvalid), .s_axi_arready_o(arready), .s_axi_arid_i(arid),
    .s_axi_araddr_i(araddr), .s_axi_arlen_i(arlen), .s_axi_arsize_i(arsize),
    .s_axi_rvalid_o(rvalid), .s_axi_rready_i(rready), .s_axi_rid_o(rid),
    .s_axi_rdata_o(rdata), .s_axi_rresp_o(rresp), .s_axi_rlast_o(rlast),
    .csr_req_valid_o(csr_valid), .csr_req_write_o(csr_write), .csr_req_addr_o(csr_addr),
    .csr_req_wdata_o(csr_wdata), .csr_rsp_valid_i(csr_rsp_valid), .csr_rsp_rdata_i(csr_rdata),
    .err_o(err));

  // ---- register file (the card's CSR bus) ----
  logic [31:0] regs [2048];
  int n_csr_wr = 0, n_csr_rd = 0, n_err = 0;
  initial for (int i = 0; i < 2048; i++) regs[i] = 32'hdead_0000 | 32'(i);
  bit slow_rsp = 1'b0;
  logic [31:0] late_q[$];
  int late_wait = 0;
  always @(posedge clk) begin
    csr_rsp_valid <= 1'b0;
    if (late_q.size() > 0) begin
      if (late_wait == 0) begin
        logic [31:0] v;
        v = late_q.pop_front();
        csr_rsp_valid <= 1'b1;
        csr_rdata     <= v;
      end else begin
        late_wait--;
      end
    end
    if (rst_n && csr_valid) begin
      if (csr_addr[1:0] != 0) $fatal(1, "csr: unaligned %h", csr_addr);
      if (csr_write) begin
        regs[csr_addr[AW-1:2]] <= csr_wdata;
        n_csr_wr++;
      end else if (slow_rsp) begin
        late_q.push_back(regs[csr_addr[AW-1:2]]);
        late_wait = $urandom_range(0, 5);
        n_csr_rd++;
      end else begin
        csr_rsp_valid <= 1'b1;
        csr_rdata     <= regs[csr_addr[AW-1:2]];
        n_csr_rd++;
      end
    end
    if (rst_n && err) n_err++;
  end

  // model of what the registers should hold; both threads touch disjoint halves
  logic [31:0] model [2048];
  initial for (int i = 0; i < 2048; i++) model[i] = 32'hdead_0000 | 32'(i);

  always @(negedge clk) begin
    bready <= ($urandom_range(0, 2) != 0);
    rready <= ($urandom_range(0, 2) != 0);
  end

  task automatic axi_write(logic [63:0] a, logic [31:0] d, logic [7:0] strb, int len,
                           logic [1:0] want);
    logic [3:0] id;
    bit w_first;
    id = 4'($urandom);
    w_first = ($urandom_range(0, 1) == 1);
    @(negedge clk);
    awvalid = 1; awaddr = a; awlen = 8'(len); awid = id;
    fork
      begin
        do @(posedge clk); while (!awready);
        @(negedge clk);
        awvalid = 0;
      end
      begin
        for (int b = 0; b <= len; b++) begin
          if (!w_first) repeat ($urandom_range(0, 3)) @(negedge clk);
          wvalid = 1;
          wdata = a[2] ? {d, 32'h0bad_0bad} : {32'h0bad_0bad, d};
          wstrb = strb;
          do @(posedge clk); while (!wready);
          @(negedge clk);
          wvalid = 0;
        end
      end
    join
    while (!(bvalid && bready)) @(posedge clk);
    if (bid !== id) $fatal(1, "csr: BID %0d, sent %0d", bid, id);
    if (bresp !== want) $fatal(1, "csr: BRESP %0d at %h, expected %0d", bresp, a, want);
    @(negedge clk);
  endtask

  task automatic axi_read(logic [63:0] a, int len, logic [2:0] size, logic [1:0] want,
                          output logic [31:0] got_o);
    logic [3:0] id;
    id = 4'($urandom);
    @(negedge clk);
    arvalid = 1; araddr = a; arlen = 8'(len); arsize = size; arid = id;
    do @(posedge clk); while (!arready);
    @(negedge clk);
    arvalid = 0;
    for (int b = 0; b <= len; b++) begin
      do @(posedge clk); while (!(rvalid && rready));
      if (rid !== id) $fatal(1, "csr: RID %0d, sent %0d", rid, id);
      if (rresp !== want) $fatal(1, "csr: RRESP %0d at %h, expected %0d", rresp, a, want);
      if (rlast !== (b == len)) $fatal(1, "csr: RLAST %0d on beat %0d of %0d", rlast, b, len);
      if (rdata[63:32] !== rdata[31:0]) $fatal(1, "csr: read data not in both lanes");
      got_o = a[2] ? rdata[63:32] : rdata[31:0];
    end
  endtask

  int n_rd_done = 0, n_wr_done = 0, n_bad = 0;
  // the write in progress: a read racing it may see the old or the new value
  int pend_r = -1;
  logic [31:0] pend_d;
  initial begin
    repeat (3) @(posedge clk);
    rst_n = 1'b1;
    fork
      // write thread: registers 1024..2047 (page 1), plus refused writes
      begin
        for (int n = 0; n < 400; n++) begin
          int r, kind;
          logic [31:0] d;
          r = $urandom_range(1024, 2047);
          d = $urandom;
          kind = $urandom_range(0, 9);
          case (kind)
            0: begin  // 64-bit write: refused
              axi_write(64'(r * 4), d, 8'hff, 0, 2'b10); n_bad++;
            end
            1: begin  // strobes of the other half: refused
              axi_write(64'(r * 4), d, (r % 2) ? 8'h0f : 8'hf0, 0, 2'b10); n_bad++;
            end
            2: begin  // a 3-beat burst: refused, all beats taken
              axi_write(64'(r * 4), d, (r % 2) ? 8'hf0 : 8'h0f, 2, 2'b10); n_bad++;
            end
            default: begin
              pend_r = r;
              pend_d = d;
              // high address bits beyond BAR0 are ignored
              axi_write({32'h0000_0001, 19'($urandom), 13'(r * 4)}, d,
                        (r % 2) ? 8'hf0 : 8'h0f, 0, 2'b00);
              model[r] = d;
              pend_r = -1;
            end
          endcase
          n_wr_done++;
        end
      end
      // read thread: reads both halves (page 0 is never written: its reset values)
      begin
        for (int n = 0; n < 400; n++) begin
          int r, kind;
          logic [31:0] got;
          slow_rsp = (n >= 200);
          r = $urandom_range(0, 2047);
          // some reads of the registers just written, so reads see writes
          if (n % 3 == 0 && pend_r >= 0) r = pend_r;
          kind = $urandom_range(0, 9);
          case (kind)
            0: begin axi_read(64'(r * 4), 3, 3'd2, 2'b10, got); n_bad++; end
            1: begin axi_read(64'(r * 4), 0, 3'd3, 2'b10, got); n_bad++; end
            default: begin
              logic [31:0] old_v;
              logic        racing;
              old_v  = model[r];
              racing = (pend_r == r);
              axi_read(64'(r * 4), 0, 3'd2, 2'b00, got);
              if (got !== old_v && got !== model[r] && !(racing && got === pend_d) &&
                  !(pend_r == r && got === pend_d))
                $fatal(1, "csr: read %h from register %0d, expected %h", got, r, model[r]);
              if (got === 32'hffff_ffff) $fatal(1, "csr: read answered without CSR data");
            end
          endcase
          n_rd_done++;
        end
      end
    join
    repeat (5) @(posedge clk);
    for (int r = 0; r < 2048; r++)
      if (regs[r] !== model[r]) $fatal(1, "csr: register %0d holds %h, expected %h", r, regs[r], model[r]);
    if (n_err != n_bad) $fatal(1, "csr: %0d error pulses for %0d refused accesses", n_err, n_bad);
    if (n_csr_rd + n_csr_wr + n_bad != 800) $fatal(1, "csr: %0d CSR requests for %0d accesses",
                                                n_csr_rd + n_csr_wr, 800 - n_bad);
    $display("tb_axi_csr_slave: %0d CSR reads, %0d CSR writes, %0d refused", n_csr_rd, n_csr_wr, n_bad);
    $display("PASS");
    $finish;
  end
endmodule
