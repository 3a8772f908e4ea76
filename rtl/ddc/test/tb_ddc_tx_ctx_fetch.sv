// Testbench for ddc_tx_ctx_fetch: descriptor fetch from 8 LME rings, round robin.
//
// Host model: each context has its own ring in memory; DMA read requests are taken with
// random ready and answered in order after a random latency with random gaps. A random
// driver posts descriptors on random contexts (never more than the ring holds), pushes
// some of context 0's through the push window, and resets idle contexts' rings. The
// consumer takes descriptors with random ready. Checked: every context's descriptors come
// out exactly once, in its ring order, with its context tag and the content of its slot
// (a pushed one with the window's content and desc_pushed); read addresses name the
// right slot of the right ring. Fairness: with every ring holding a backlog before the
// NIC is enabled, the output visits the contexts strictly in turn.
module tb_ddc_tx_ctx_fetch;
  import fasthsl_pkg::*;

  localparam int unsigned NumCtx    = CTX_COUNT;
  localparam int unsigned DescDepth = 16;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic                     flush = 1'b0, drain = 1'b0, enable = 1'b0;
  logic [NumCtx-1:0]        ctx_reset = '0;
  logic [NumCtx-1:0][63:0]  lme_base;
  logic [NumCtx-1:0][15:0]  lme_size = '0, lme_prod = '0;
  logic                     push_valid = 1'b0, push_take;
  logic [15:0]              push_slot = '0;
  logic [63:0]              push_local = '0, push_w2 = '0;
  logic [79:0]              push_remote = '0;
  logic [31:0]              push_msg_id = '0;
  logic                     req_valid, req_ready = 1'b0;
  logic [63:0]              req_addr;
  logic                     rsp_valid = 1'b0;
  logic [63:0]              rsp_data = '0;
  logic                     desc_valid, desc_ready = 1'b0;
  logic [2:0]               desc_ctx;
  logic [63:0]              desc_local;
  logic [79:0]              desc_remote;
  logic [31:0]              desc_len, desc_msg_id;
  logic [15:0]              desc_dest;
  logic [7:0]               desc_flags;
  logic                     desc_inline, desc_pushed, idle;

  ddc_tx_ctx_fetch #(
    .DescDepth(DescDepth),
    .NumCtx   (NumCtx)
  ) dut (
    .clk_i        (clk),
    .rst_ni       (rst_n),
    .flush_i      (flush),
    .drain_i      (drain),
    .ctx_reset_i  (ctx_reset),
    .enable_i     (enable),
    .lme_base_i   (lme_base),
    .lme_size_i   (lme_size),
    .lme_prod_i   (lme_prod),
    .push_valid_i (push_valid),
    .push_slot_i  (push_slot),
    .push_local_i (push_local),
    .push_remote_i(push_remote),
    .push_w2_i    (push_w2),
    .push_msg_id_i(push_msg_id),
    .push_take_o  (push_take),
    .req_valid_o  (req_valid),
    .req_ready_i  (req_ready),
    .req_addr_o   (req_addr),
    .rsp_valid_i  (rsp_valid),
    .rsp_data_i   (rsp_data),
    .desc_valid_o (desc_valid),
    .desc_ready_i (desc_ready),
    .desc_ctx_o   (desc_ctx),
    .desc_local_o (desc_local),
    .desc_remote_o(desc_remote),
    .desc_len_o   (desc_len),
    .desc_dest_o  (desc_dest),
    .desc_flags_o (desc_flags),
    .desc_msg_id_o(desc_msg_id),
    .desc_inline_o(desc_inline),
    .desc_pushed_o(desc_pushed),
    .idle_o       (idle)
  );

  int errors = 0;
  `define CHECK(cond, msg) if (!(cond)) begin errors++; $display("ERROR @%0t: %s", $time, msg); end

  always_comb begin
    for (int k = 0; k < NumCtx; k++) lme_base[k] = 64'h1000_0000 + 64'(k) * 64'h1_0000;
  end

  // ---- host memory and the descriptors expected per context ----
  typedef struct packed {
    logic [63:0] w0, w1, w2, w3;
    logic        pushed;
  } desc_t;

  logic [63:0] mem[logic [63:0]];
  desc_t       exp_q[NumCtx][$];
  int          posted[NumCtx], taken[NumCtx];
  int          seq = 0;
  int          ctx_trace[$];   // contexts in output order

  function automatic desc_t make_desc(int ctx);
    desc_t d;
    d.w0 = {8'(ctx), 24'($urandom()), 32'(seq)};
    d.w1 = {$urandom(), $urandom()};
    d.w2 = {8'($urandom() & 32'h0000_00FE), 8'($urandom()), 16'($urandom()), $urandom()};
    d.w3 = {32'h0, 32'(seq)};
    d.pushed = 1'b0;
    seq++;
    return d;
  endfunction

  // Posts one descriptor on context k (the caller checks there is room); maybe pushed.
  task automatic post(int k, bit try_push);
    desc_t       d = make_desc(k);
    logic [63:0] a = lme_base[k] + 64'(32 * int'(lme_prod[k]));
    mem[a] = d.w0; mem[a + 8] = d.w1; mem[a + 16] = d.w2; mem[a + 24] = d.w3;
    if (try_push && k == 0 && !push_valid) begin
      // The window's copy differs from the ring's, so the output shows which was used.
      d.w0 = ~d.w0;
      d.w3 = {32'h0, 32'h8000_0000 | 32'(seq - 1)};
      d.pushed = 1'b1;
      push_slot   = lme_prod[0];
      push_local  = d.w0;
      push_remote = {d.w3[63:48], d.w1};
      push_w2     = d.w2;
      push_msg_id = d.w3[31:0];
      push_valid  = 1'b1;
    end
    exp_q[k].push_back(d);
    posted[k]++;
    lme_prod[k] = (lme_prod[k] + 16'd1 == lme_size[k]) ? '0 : lme_prod[k] + 16'd1;
  endtask

  function automatic int outstanding(int k);
    return posted[k] - taken[k];
  endfunction

  // ---- DMA read model: in order, random latency and gaps ----
  typedef struct {
    logic [63:0] addr;
    longint      due;
  } rd_t;
  rd_t    rdq[$];
  longint cycle = 0;
  int     ready_pct = 70, gap_pct = 20, cons_pct = 70;
  int     beat = 0;

  always @(posedge clk) begin
    cycle <= cycle + 1;
    if (push_valid && push_take) push_valid <= 1'b0;
    if (req_valid && req_ready) begin
      rd_t r;
      bit  ok = 1'b0;
      for (int k = 0; k < NumCtx; k++) begin
        if (req_addr >= lme_base[k] && req_addr < lme_base[k] + 64'(32 * int'(lme_size[k])) &&
            req_addr[4:0] == 5'd0) ok = 1'b1;
      end
      `CHECK(ok, $sformatf("read %h is no slot of a configured ring", req_addr))
      r.addr = req_addr;
      r.due  = cycle + $urandom_range(2, 40);
      rdq.push_back(r);
    end
    if (desc_valid && desc_ready) begin
      int    k = int'(desc_ctx);
      desc_t e;
      if (exp_q[k].size() == 0) begin
        `CHECK(0, $sformatf("context %0d: descriptor %h nobody posted", k, desc_msg_id))
      end else begin
        e = exp_q[k].pop_front();
        `CHECK(desc_local == e.w0 && desc_remote == {e.w3[63:48], e.w1} && desc_msg_id == e.w3[31:0] &&
               desc_len == e.w2[31:0] && desc_dest == e.w2[47:32] &&
               desc_flags == e.w2[55:48] && desc_inline == e.w2[48 + DESC_FLAG_INLINE_BIT] &&
               desc_pushed == e.pushed,
               $sformatf("context %0d: got msg %h pushed %0b, expected msg %h pushed %0b", k,
                         desc_msg_id, desc_pushed, e.w3[31:0], e.pushed))
        taken[k]++;
        ctx_trace.push_back(k);
      end
    end
  end

  // Response beats, driven between edges.
  always @(negedge clk) begin
    req_ready  <= $urandom_range(0, 99) < ready_pct;
    desc_ready <= $urandom_range(0, 99) < cons_pct;
    rsp_valid  <= 1'b0;
    if (rdq.size() != 0 && rdq[0].due <= cycle && $urandom_range(0, 99) >= gap_pct) begin
      logic [63:0] a = rdq[0].addr + 64'(8 * beat);
      rsp_valid <= 1'b1;
      rsp_data  <= mem.exists(a) ? mem[a] : 64'hDEAD_BEEF_DEAD_BEEF;
      beat = beat + 1;
      if (beat == 4) begin
        beat = 0;
        void'(rdq.pop_front());
      end
    end
  end

  task automatic wait_drained(string what);
    int t = 0;
    bit busy = 1'b1;
    while (busy && t < 200000) begin
      @(negedge clk);
      t++;
      busy = rdq.size() != 0 || push_valid || !idle;
      for (int k = 0; k < NumCtx; k++) if (exp_q[k].size() != 0) busy = 1'b1;
    end
    `CHECK(!busy, $sformatf("%s: not drained", what))
    for (int k = 0; k < NumCtx; k++) begin
      `CHECK(exp_q[k].size() == 0, $sformatf("%s: context %0d: %0d descriptors never came",
                                             what, k, exp_q[k].size()))
    end
  endtask

  initial begin
    for (int k = 0; k < NumCtx; k++) begin
      posted[k] = 0;
      taken[k]  = 0;
    end
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    @(negedge clk);

    // ---- fairness: every ring holds a backlog before the NIC starts ----
    for (int k = 0; k < NumCtx; k++) lme_size[k] = 16'd16;
    for (int n = 0; n < 12; n++) for (int k = 0; k < NumCtx; k++) post(k, 1'b0);
    ready_pct = 100; gap_pct = 0; cons_pct = 100;
    @(negedge clk);
    enable = 1'b1;
    wait_drained("fairness");
    `CHECK(ctx_trace.size() == 12 * NumCtx, $sformatf("fairness: %0d descriptors", ctx_trace.size()))
    for (int i = 1; i < ctx_trace.size(); i++) begin
      `CHECK(ctx_trace[i] == (ctx_trace[i - 1] + 1) % NumCtx,
             $sformatf("fairness: output %0d from context %0d after context %0d", i,
                       ctx_trace[i], ctx_trace[i - 1]))
    end

    // ---- random posting, pushes on context 0, resets of idle contexts ----
    ready_pct = 70; gap_pct = 20; cons_pct = 70;
    for (int n = 0; n < 6000; n++) begin
      int k = $urandom_range(0, NumCtx - 1);
      @(negedge clk);
      if ($urandom_range(0, 3) == 0) begin
        if (outstanding(k) < int'(lme_size[k]) - 1) post(k, $urandom_range(0, 2) == 0);
      end else if ($urandom_range(0, 199) == 0 && outstanding(k) == 0 &&
                   !(k == 0 && push_valid)) begin
        // An idle context resets its ring, maybe to another size (ddc_ctx_csr's rule:
        // only while nothing of it is outstanding).
        lme_size[k]  = 16'($urandom_range(2, 16));
        lme_prod[k]  = '0;
        ctx_reset[k] = 1'b1;
        @(negedge clk);
        ctx_reset[k] = 1'b0;
      end
      if (n % 1500 == 0) begin
        ready_pct = $urandom_range(20, 100);
        gap_pct   = $urandom_range(0, 60);
        cons_pct  = $urandom_range(10, 100);
      end
    end
    wait_drained("random");

    begin
      int total = 0;
      for (int k = 0; k < NumCtx; k++) total += taken[k];
      $display("%0d descriptors from %0d contexts", total, NumCtx);
    end
    if (errors == 0) $display("PASS tb_ddc_tx_ctx_fetch");
    else $fatal(1, "tb_ddc_tx_ctx_fetch: %0d errors", errors);
    $finish;
  end

endmodule
