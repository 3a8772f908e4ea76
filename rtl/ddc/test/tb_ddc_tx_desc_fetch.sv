// Checks ddc_tx_desc_fetch against a host ring model: reads go to base + 32*slot in ring
// order, wrap at the ring size, never pass the producer index, never exceed DescDepth
// descriptors fetched-but-not-taken (and do reach it: prefetch), stop while disabled or
// with no ring; descriptors come out in order with the right fields; a ring reset restarts
// at slot 0 of the new ring with the old responses dropped (as the NIC top drops them).
// Pushed descriptors (a behavioural push window with contents different from the ring
// slot) replace the read of their slot, enter in ring order only when no read is owed,
// and are marked pushed; the INLINE flag bit comes out for both kinds.
module tb_ddc_tx_desc_fetch;
  localparam int DescDepth = 4;

  logic        clk = 1'b0;
  logic        rst_n = 1'b0;
  logic        run = 1'b0;
  logic        flush = 1'b0, drain = 1'b0;
  logic        enable = 1'b1;
  logic [63:0] lme_base = 64'h0000_0001_0000_0000;
  logic [15:0] lme_size = 16'd0, lme_prod = 16'd0;
  logic        req_valid, req_ready = 1'b0;
  logic [63:0] req_addr;
  logic        rsp_valid = 1'b0;
  logic [63:0] rsp_data = '0;
  logic        desc_valid, desc_ready = 1'b0;
  logic [63:0] desc_local, desc_remote;
  logic [31:0] desc_len, desc_msg_id;
  logic [15:0] desc_dest;
  logic [7:0]  desc_flags;
  logic        idle;
  logic        desc_inline, desc_pushed;
  logic        push_valid = 1'b0, push_take;
  logic [15:0] push_slot = '0;
  logic [63:0] push_local = '0, push_remote = '0, push_w2 = '0;
  logic [31:0] push_msg_id = '0;

  always #5 clk = ~clk;

  ddc_tx_desc_fetch #(
    .DescDepth(DescDepth)
  ) dut (
    .clk_i        (clk),
    .rst_ni       (rst_n),
    .flush_i      (flush),
    .drain_i      (drain),
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

  logic [63:0] mem[logic [63:0]];
  logic [63:0] exp_words[$];   // 4 words per posted descriptor, ring order
  logic [63:0] rsp_words[$];   // words the host owes, in order
  longint      rsp_due[$];     // first-beat cycle of each read
  int          errors = 0;
  longint      cycle = 0;
  int          posted = 0, fetched = 0, taken = 0, fetch_slot = 0;
  int          p_req = 100, p_take = 100, p_gap = 0, lat = 30;
  int          beat_in_read = 0;
  int          p_push = 0, pushes_taken = 0;
  bit          exp_pushed[$];
  bit          clr_push = 1'b0;

  task automatic fail(string m);
    $display("FAIL @%0d: %s", cycle, m);
    errors++;
    if (errors > 10) $fatal(1, "tb_ddc_tx_desc_fetch: too many errors");
  endtask

  task automatic post();
    logic [63:0] a = lme_base + 64'(32 * int'(lme_prod));
    bit push = !push_valid && ($urandom_range(0, 99) < p_push);
    for (int w = 0; w < 4; w++) begin
      mem[a + 64'(8 * w)] = {$urandom(), $urandom()};
      if (!push) exp_words.push_back(mem[a + 64'(8 * w)]);
    end
    if (push) begin
      push_local  = {$urandom(), $urandom()};
      push_remote = {$urandom(), $urandom()};
      push_w2     = {$urandom(), $urandom()};
      push_msg_id = $urandom();
      push_slot   = lme_prod;
      push_valid  = 1'b1;
      exp_words.push_back(push_local);
      exp_words.push_back(push_remote);
      exp_words.push_back(push_w2);
      // A pushed remote is already {key, address} (ddc_push): word 3's key is its top.
      exp_words.push_back({push_remote[63:48], 16'h0, push_msg_id});
    end
    exp_pushed.push_back(push);
    posted++;
    lme_prod = 16'((int'(lme_prod) + 1) % int'(lme_size));
  endtask

  always begin
    @(negedge clk);
    req_ready  = ($urandom_range(0, 99) < p_req);
    desc_ready = ($urandom_range(0, 99) < p_take);
    // While draining, the top drops whatever the host still sends.
    rsp_valid  = !drain && (rsp_due.size() != 0) && (rsp_due[0] <= cycle) && ($urandom_range(0, 99) >= p_gap);
    rsp_data   = rsp_valid ? rsp_words[0] : 64'hx;
    #4;
    if (run) begin
      if (rsp_valid) begin
        void'(rsp_words.pop_front());
        if (++beat_in_read == 4) begin
          beat_in_read = 0;
          void'(rsp_due.pop_front());
        end
      end
      if (req_valid && req_ready) begin
        if (!enable) fail("read while disabled");
        if (fetched >= posted) fail("read past the producer index");
        if (req_addr !== lme_base + 64'(32 * fetch_slot)) fail($sformatf("read %h, want slot %0d", req_addr, fetch_slot));
        if (push_valid && int'(push_slot) == fetch_slot) fail("ring read of the pushed slot");
        for (int w = 0; w < 4; w++) rsp_words.push_back(mem[req_addr + 64'(8 * w)]);
        rsp_due.push_back(cycle + lat);
        fetched++;
        fetch_slot = (fetch_slot + 1) % int'(lme_size);
        if (fetched - taken > DescDepth) fail("more than DescDepth descriptors ahead");
      end
      if (push_take) begin
        if (!push_valid) fail("push taken while none pending");
        if (int'(push_slot) != fetch_slot) fail($sformatf("push of slot %0d taken at slot %0d", push_slot, fetch_slot));
        if (rsp_words.size() != 0) fail("push taken while ring reads are owed (order)");
        if (fetched >= posted) fail("push taken past the producer index");
        fetched++;
        pushes_taken++;
        fetch_slot = (fetch_slot + 1) % int'(lme_size);
        clr_push = 1'b1;
      end
      if (desc_valid && desc_ready) begin
        if (exp_words.size() < 4) fail("unexpected descriptor");
        else begin
          logic [63:0] w0, w1, w2, w3;
          w0 = exp_words.pop_front(); w1 = exp_words.pop_front();
          w2 = exp_words.pop_front(); w3 = exp_words.pop_front();
          if (desc_local !== w0 || desc_remote !== {w3[63:48], w1[47:0]} || desc_len !== w2[31:0] || desc_dest !== w2[47:32] ||
              desc_flags !== w2[55:48] || desc_msg_id !== w3[31:0]) begin
            fail($sformatf("descriptor %0d fields differ", taken));
          end
          if (desc_inline !== w2[56]) fail($sformatf("descriptor %0d inline flag", taken));
          if (desc_pushed !== exp_pushed.pop_front()) fail($sformatf("descriptor %0d pushed flag", taken));
        end
        taken++;
      end
    end
    @(posedge clk);
    // The push window leaves "pending" just after the edge that took it.
    #1;
    if (clr_push) push_valid = 1'b0;
    clr_push = 1'b0;
    cycle++;
  end

  initial begin
    #50_000_000;
    $fatal(1, "tb_ddc_tx_desc_fetch: watchdog (posted %0d fetched %0d taken %0d)", posted, fetched, taken);
  end

  task automatic wait_done(int limit);
    int t = 0;
    while (taken < posted && t < limit) begin
      @(negedge clk);
      t++;
    end
    if (t >= limit) fail($sformatf("timeout: %0d of %0d taken", taken, posted));
    repeat (lat + 10) @(negedge clk);
    if (req_valid || desc_valid) fail("activity with the ring empty");
  endtask

  task automatic ring_reset(logic [63:0] base, int size);
    @(negedge clk);
    flush = 1'b1; drain = 1'b1;
    lme_base = base; lme_size = 16'(size); lme_prod = '0;
    @(negedge clk);
    flush = 1'b0;
    // The top drops every response still owed and drains the queue.
    rsp_words.delete(); rsp_due.delete(); beat_in_read = 0;
    exp_words.delete();
    exp_pushed.delete();
    push_valid = 1'b0;
    posted = 0; fetched = 0; taken = 0; fetch_slot = 0;
    while (!idle) @(negedge clk);
    drain = 1'b0;
  endtask

  initial begin
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    run = 1'b1;

    // No ring: nothing happens even with a producer index.
    repeat (20) @(negedge clk);
    if (req_valid) fail("read with no ring");

    // Prefetch: with the consumer stalled, exactly DescDepth reads go out, then none.
    ring_reset(64'h0000_0001_0000_0000, 16);
    p_take = 0;
    for (int i = 0; i < 10; i++) post();
    repeat (200) @(negedge clk);
    if (fetched != DescDepth) fail($sformatf("prefetched %0d, want %0d", fetched, DescDepth));
    p_take = 100;
    wait_done(10000);

    // Random, wrapping small rings, stalls everywhere.
    for (int k = 0; k < 6; k++) begin
      int size = (k < 3) ? 2 + k : $urandom_range(5, 40);
      ring_reset(64'h0000_0002_0000_0000 + 64'(k) * 64'h1_0000, size);
      p_req = 60; p_take = 50; p_gap = 10; lat = $urandom_range(3, 130);
      p_push = (k % 2 == 0) ? 40 : 0;
      for (int i = 0; i < 80; i++) begin
        while ((int'(lme_prod) + 1) % size == (taken % size)) @(negedge clk);
        post();
        if ($urandom_range(0, 3) == 0) repeat ($urandom_range(1, 100)) @(negedge clk);
      end
      wait_done(100000);
    end

    // Push-only traffic: one descriptor at a time, none read from the ring.
    ring_reset(64'h0000_0005_0000_0000, 4);
    p_req = 100; p_take = 100; p_gap = 0; lat = 50; p_push = 100;
    for (int i = 0; i < 10; i++) begin
      post();
      wait_done(1000);
    end
    if (pushes_taken < 10) fail($sformatf("only %0d of 10 pushes taken", pushes_taken));
    p_push = 0;

    // Disabled: no reads; then they go.
    ring_reset(64'h0000_0003_0000_0000, 8);
    p_req = 100; p_take = 100; p_gap = 0; lat = 20;
    enable = 1'b0;
    for (int i = 0; i < 5; i++) post();
    repeat (100) @(negedge clk);
    if (fetched != 0) fail("fetched while disabled");
    enable = 1'b1;
    wait_done(10000);

    // Ring resets with reads in flight; the new ring must come out clean.
    for (int k = 0; k < 20; k++) begin
      p_req = 70; p_take = 40; p_gap = 5;
      for (int i = 0; i < 6; i++) post();
      repeat ($urandom_range(0, 80)) @(negedge clk);
      ring_reset(64'h0000_0004_0000_0000 + 64'(k) * 64'h1_0000, 7);
      for (int i = 0; i < 5; i++) post();
      wait_done(10000);
    end

    if (pushes_taken < 20) fail($sformatf("only %0d pushes exercised", pushes_taken));
    if (errors != 0) $fatal(1, "tb_ddc_tx_desc_fetch: %0d errors", errors);
    $display("tb_ddc_tx_desc_fetch: PASS");
    $finish;
  end
endmodule
