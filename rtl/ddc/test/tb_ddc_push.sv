// Self-checking test of ddc_push: a complete push is taken and its words come out right;
// every misuse is rejected with the accept/reject pulses (exactly one per trigger):
// incomplete descriptor window, inline bytes not written, doorbell not adding exactly one
// descriptor, push while pending or held (window writes then ignored: the held words stay
// intact); the state machine frees only on take+release or a ring reset; an inline
// length above INLINE_MAX is passed on (the read engine fails it).
module tb_ddc_push;
  import fasthsl_pkg::*;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic             req_valid = 1'b0, req_write = 1'b0;
  logic [11:0]      req_addr = '0;
  logic [31:0]      req_wdata = '0;
  logic [15:0]      lme_size = 16'd8, lme_prod = 16'd0;
  logic             flush = 1'b0;
  logic             push_valid, push_take = 1'b0, push_release = 1'b0;
  logic [15:0]      push_slot;
  logic [63:0]      push_local, push_w2;
  logic [79:0]      push_remote;
  logic [31:0]      push_msg_id;
  logic [6:0][63:0] push_data;
  logic             free, accept, reject;

  ddc_push dut (
    .clk_i          (clk),
    .rst_ni         (rst_n),
    .csr_req_valid_i(req_valid),
    .csr_req_write_i(req_write),
    .csr_req_addr_i (req_addr),
    .csr_req_wdata_i(req_wdata),
    .lme_size_i     (lme_size),
    .lme_prod_i     (lme_prod),
    .flush_i        (flush),
    .push_valid_o   (push_valid),
    .push_slot_o    (push_slot),
    .push_local_o   (push_local),
    .push_remote_o  (push_remote),
    .push_w2_o      (push_w2),
    .push_msg_id_o  (push_msg_id),
    .push_take_i    (push_take),
    .push_data_o    (push_data),
    .push_release_i (push_release),
    .free_o         (free),
    .accept_o       (accept),
    .reject_o       (reject)
  );

  int n_accept = 0, n_reject = 0;
`include "ddc_tb_check.svh"

  // Pulse counters, sampled on every rising edge.
  always @(posedge clk) begin
    if (accept) n_accept++;
    if (reject) n_reject++;
    `CHECK(!(accept && reject), "accept and reject together")
  end

  // One write; a trigger also moves the behavioural LME_PROD as the CSR block would.
  task automatic wr(logic [15:0] a, logic [31:0] d);
    @(negedge clk);
    req_valid = 1'b1; req_write = 1'b1; req_addr = a[11:0]; req_wdata = d;
    @(negedge clk);
    req_valid = 1'b0; req_write = 1'b0;
    if (a == PUSH_DESC_OFFSET + 16'(4 * 7) && d[15:0] < lme_size) lme_prod = d[15:0];
  endtask

  function automatic logic [15:0] next(logic [15:0] p);
    return (p + 16'd1 == lme_size) ? 16'd0 : p + 16'd1;
  endfunction

  logic [63:0] w[4];
  logic [31:0] data[14];

  function automatic void randomize_desc(logic inl, int len);
    for (int i = 0; i < 4; i++) w[i] = {$urandom(), $urandom()};
    w[2][31:0] = 32'(len);
    w[2][48 + DESC_FLAG_INLINE_BIT] = inl;
    for (int i = 0; i < 14; i++) data[i] = $urandom();
  endfunction

  // Writes n_data PUSH_DATA registers, descriptor halves 0..6 except `skip`, then the
  // trigger with value `db`.
  task automatic push(int n_data, int skip, logic [31:0] db);
    for (int i = 0; i < n_data; i++) wr(PUSH_DATA_OFFSET + 16'(4 * i), data[i]);
    for (int i = 0; i < 7; i++) begin
      if (i != skip) wr(PUSH_DESC_OFFSET + 16'(4 * i), i[0] ? w[i / 2][63:32] : w[i / 2][31:0]);
    end
    // Trigger bits 31:16: the descriptor's key (word 3 bits 63:48, where the trigger sits).
    wr(PUSH_DESC_OFFSET + 16'(4 * 7), {w[3][63:48], db[15:0]});
  endtask

  // The TX path's remote bus: {key, address bits 47:0}.
  function automatic logic [79:0] exp_remote();
    return {w[3][63:48], w[1]};
  endfunction

  task automatic expect_counts(int a, int r, string what);
    @(negedge clk);
    `CHECK(n_accept == a && n_reject == r,
           $sformatf("%s: %0d accepted / %0d rejected, want %0d / %0d", what, n_accept, n_reject, a, r))
  endtask

  task automatic check_outputs(logic [15:0] slot, int n_data);
    `CHECK(push_valid, "pushed descriptor not pending")
    `CHECK(push_slot == slot, $sformatf("slot %0d, want %0d", push_slot, slot))
    `CHECK(push_local == w[0] && push_remote == exp_remote() && push_w2 == w[2] &&
           push_msg_id == w[3][31:0], "descriptor words differ")
    for (int i = 0; i < n_data; i++) begin
      `CHECK(push_data[i / 2][32 * (i % 2) +: 32] == data[i], $sformatf("PUSH_DATA[%0d] differs", i))
    end
  endtask

  task automatic take_release();
    @(negedge clk); push_take = 1'b1;
    @(negedge clk); push_take = 1'b0;
    `CHECK(!push_valid && !free, "held after take")
    repeat (3) @(negedge clk);
    push_release = 1'b1;
    @(negedge clk); push_release = 1'b0;
    `CHECK(free, "not free after release")
  endtask

  initial begin
    int a = 0, r = 0;
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    @(negedge clk);
    `CHECK(free && !push_valid, "not free after reset")

    // 1. Plain push (no inline), then inline pushes of every length class.
    randomize_desc(1'b0, 100);
    push(0, -1, 32'(next(lme_prod)));
    expect_counts(++a, r, "plain push");
    check_outputs(16'(lme_prod - 1), 0);
    `CHECK(!free, "free while pending")
    take_release();
    for (int len = 1; len <= 64; len += 7) begin
      int need = (len > 8) ? (len - 8 + 3) / 4 : 0;
      logic [15:0] slot = lme_prod;
      randomize_desc(1'b1, len);
      push(need, -1, 32'(next(lme_prod)));
      expect_counts(++a, r, $sformatf("inline push of %0d bytes", len));
      check_outputs(slot, need);
      take_release();
    end

    // 2. Each missing descriptor half is rejected; the next complete push works.
    for (int skip = 0; skip < 7; skip++) begin
      randomize_desc(1'b0, 16);
      push(0, skip, 32'(next(lme_prod)));
      expect_counts(a, ++r, $sformatf("descriptor half %0d missing", skip));
      `CHECK(free && !push_valid, "rejected push left state")
    end

    // 3. Inline bytes not all written: rejected. Inline length above INLINE_MAX: taken.
    randomize_desc(1'b1, 40);
    push(7, -1, 32'(next(lme_prod)));   // 40 bytes need 8 registers
    expect_counts(a, ++r, "inline data incomplete");
    randomize_desc(1'b1, 65);
    push(14, -1, 32'(next(lme_prod)));
    expect_counts(++a, r, "inline length above the window passes on");
    take_release();

    // 4. Doorbell adding zero or two descriptors, or out of range: rejected.
    randomize_desc(1'b0, 8);
    push(0, -1, 32'(lme_prod));
    expect_counts(a, ++r, "doorbell adds nothing");
    push(0, -1, 32'(next(next(lme_prod))));
    expect_counts(a, ++r, "doorbell adds two");
    push(0, -1, 32'(lme_size));
    expect_counts(a, ++r, "doorbell out of range");

    // 5. Busy: a second push while pending is rejected and does not touch the held words;
    //    the same while held.
    begin
      logic [63:0] keep[4];
      logic [15:0] slot = lme_prod;
      randomize_desc(1'b1, 64);
      push(14, -1, 32'(next(lme_prod)));
      expect_counts(++a, r, "first push");
      keep = w;
      randomize_desc(1'b0, 32);
      push(14, -1, 32'(next(lme_prod)));
      expect_counts(a, ++r, "push while pending");
      w = keep;
      `CHECK(push_local == w[0] && push_w2 == w[2], "pending words overwritten")
      @(negedge clk); push_take = 1'b1;
      @(negedge clk); push_take = 1'b0;
      randomize_desc(1'b0, 32);
      push(0, -1, 32'(next(lme_prod)));
      expect_counts(a, ++r, "push while held");
      w = keep;
      `CHECK(push_local == w[0] && push_remote == exp_remote() && push_w2 == w[2], "held words overwritten")
      `CHECK(slot != lme_prod, "doorbells moved the producer")
      push_release = 1'b1;
      @(negedge clk); push_release = 1'b0;
      `CHECK(free, "not free after release")
      // The window was written while busy: those writes do not count, so a trigger
      // straight away is rejected as incomplete.
      wr(PUSH_DESC_OFFSET + 16'(4 * 7), 32'(next(lme_prod)));
      expect_counts(a, ++r, "trigger with nothing written since busy");
    end

    // 6. Ring reset frees a pending push.
    randomize_desc(1'b0, 8);
    push(0, -1, 32'(next(lme_prod)));
    expect_counts(++a, r, "push before ring reset");
    @(negedge clk); flush = 1'b1;
    @(negedge clk); flush = 1'b0;
    `CHECK(free && !push_valid, "ring reset did not free the push path")
    push(0, -1, 32'(next(lme_prod)));
    expect_counts(++a, r, "push after ring reset");
    take_release();

    // 7. Other offsets (CSR registers, unaligned) touch nothing.
    wr(16'h002C, 32'd1);
    wr(PUSH_DESC_OFFSET + 16'(4 * 7) + 16'd2, 32'(next(lme_prod)));
    expect_counts(a, r, "non-window writes");

    if (errors != 0) $fatal(1, "tb_ddc_push: %0d errors", errors);
    $display("tb_ddc_push: PASS (%0d accepted, %0d rejected)", n_accept, n_reject);
    $finish;
  end
endmodule
