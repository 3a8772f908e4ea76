// Checks ddc_tx_desc_check against the reference model (ddc_tb_desc_err.svh): every
// boundary of every check (length 0 / 1 / MSG_LEN_MAX / MSG_LEN_MAX + 1, a message ending
// exactly at 2^48 / one byte past it, a high bit of word 1 set, dest at DEST_LO - 1,
// DEST_LO, DEST_HI, DEST_HI + 1, broadcast ranges lo > hi and at both ends, inline
// lengths at and past INLINE_RING_MAX / INLINE_MAX, a retransmission's bad slot first of
// all), then random descriptors biased towards those boundaries; every code must appear.
module tb_ddc_tx_desc_check;
  import fasthsl_pkg::*;

  logic [31:0] len = '0;
  logic [63:0] w1 = '0;
  logic [15:0] dest = '0, dest_lo = 16'd20, dest_hi = 16'd40;
  logic [7:0]  flags = '0;
  logic        inl = 1'b0, pushed = 1'b0, bad = 1'b0;
  desc_err_e   err;

  ddc_tx_desc_check dut (
    .len_i      (len),
    .remote_w1_i(w1),
    .dest_i     (dest),
    .flags_i    (flags),
    .inline_i   (inl),
    .pushed_i   (pushed),
    .bad_i      (bad),
    .dest_lo_i  (dest_lo),
    .dest_hi_i  (dest_hi),
    .err_o      (err)
  );

`include "ddc_tb_check.svh"
`include "ddc_tb_desc_err.svh"

  int n_code[256];

  task automatic check_one(string what);
    logic [7:0] want;
    #1;
    want = tb_desc_err(len, w1, dest, flags, inl, pushed, bad, dest_lo, dest_hi);
    `CHECK(8'(err) == want, $sformatf("%s: len %0d w1 %h dest %h flags %h inl %0b pushed %0b bad %0b: code %0d, want %0d",
                                      what, len, w1, dest, flags, inl, pushed, bad, err, want))
    n_code[8'(err)]++;
  endtask

  // One good unicast descriptor, which each directed case then breaks in one way.
  task automatic good();
    len = 32'd100; w1 = 64'h0003_0000_1000_0000; dest = 16'd30; flags = '0;
    inl = 1'b0; pushed = 1'b0; bad = 1'b0;
  endtask

  function automatic logic [31:0] pick_len();
    unique case ($urandom_range(0, 7))
      0: return 32'($urandom_range(0, 2));
      1: return MSG_LEN_MAX + 32'($urandom_range(0, 2)) - 32'd1;
      2: return 32'($urandom_range(INLINE_RING_MAX - 1, INLINE_RING_MAX + 1));
      3: return 32'($urandom_range(INLINE_MAX - 1, INLINE_MAX + 1));
      4: return $urandom();
      default: return 32'($urandom_range(1, 5000));
    endcase
  endfunction

  initial begin
    good(); check_one("good");
    good(); bad = 1'b1; len = '0; check_one("bad slot first");
    good(); len = '0; check_one("zero length");
    good(); len = 32'd1; check_one("one byte");
    good(); len = MSG_LEN_MAX; check_one("MSG_LEN_MAX");
    good(); len = MSG_LEN_MAX + 1; check_one("MSG_LEN_MAX + 1");
    good(); w1 = 64'h0000_FFFF_FFFF_FF9C; check_one("ends at 2^48");
    good(); w1 = 64'h0000_FFFF_FFFF_FF9D; check_one("ends one past 2^48");
    good(); w1[51] = 1'b1; check_one("word 1 bit 51");
    good(); w1[63] = 1'b1; check_one("word 1 bit 63");
    good(); dest = dest_lo - 1; check_one("dest below");
    good(); dest = dest_lo; check_one("dest = DEST_LO");
    good(); dest = dest_hi; check_one("dest = DEST_HI");
    good(); dest = dest_hi + 1; check_one("dest above");
    good(); flags[DESC_FLAG_BCAST_BIT] = 1'b1; dest = {8'(dest_hi), 8'(dest_lo)};
    check_one("broadcast, whole range");
    good(); flags[DESC_FLAG_BCAST_BIT] = 1'b1; dest = {8'd25, 8'd26}; check_one("broadcast lo > hi");
    good(); flags[DESC_FLAG_BCAST_BIT] = 1'b1; dest = {8'(dest_hi), 8'(dest_lo - 1)};
    check_one("broadcast below");
    good(); flags[DESC_FLAG_BCAST_BIT] = 1'b1; dest = {8'(dest_hi + 1), 8'(dest_lo)};
    check_one("broadcast above");
    good(); inl = 1'b1; len = INLINE_RING_MAX; check_one("ring inline at max");
    good(); inl = 1'b1; len = INLINE_RING_MAX + 1; check_one("ring inline past max");
    good(); inl = 1'b1; pushed = 1'b1; len = INLINE_MAX; check_one("pushed inline at max");
    good(); inl = 1'b1; pushed = 1'b1; len = INLINE_MAX + 1; check_one("pushed inline past max");
    good(); flags[DESC_FLAG_BCAST_BIT] = 1'b1; dest = {8'(dest_hi), 8'(dest_lo)}; inl = 1'b1;
    len = INLINE_RING_MAX + 1; check_one("broadcast inline past max");

    for (int i = 0; i < 20000; i++) begin
      len = pick_len();
      w1 = ($urandom_range(0, 9) == 0) ? {$urandom(), $urandom()}
                                       : {13'h0, 51'({$urandom(), $urandom()})};
      if ($urandom_range(0, 3) == 0) w1[47:0] = 48'(49'h1_0000_0000_0000 - 49'(len)) +
                                                48'($urandom_range(0, 2)) - 48'd1;
      flags = 8'($urandom());
      dest = ($urandom_range(0, 1) == 0) ? 16'($urandom_range(int'(dest_lo) - 2, int'(dest_hi) + 2))
                                         : {8'($urandom_range(15, 45)), 8'($urandom_range(15, 45))};
      inl = ($urandom_range(0, 2) == 0);
      pushed = $urandom_range(0, 1);
      bad = ($urandom_range(0, 19) == 0);
      check_one("random");
    end
    $display("codes: ok %0d zero_len %0d len_too_big %0d addr_range %0d bcast_range %0d bad_dest %0d inline_len %0d retry_exhausted %0d",
             n_code[DESC_ERR_OK], n_code[DESC_ERR_ZERO_LEN], n_code[DESC_ERR_LEN_TOO_BIG],
             n_code[DESC_ERR_ADDR_RANGE], n_code[DESC_ERR_BCAST_RANGE], n_code[DESC_ERR_BAD_DEST],
             n_code[DESC_ERR_INLINE_LEN], n_code[DESC_ERR_RETRY_EXHAUSTED]);
    `CHECK(n_code[DESC_ERR_OK] > 100 && n_code[DESC_ERR_ZERO_LEN] > 100 &&
           n_code[DESC_ERR_LEN_TOO_BIG] > 100 && n_code[DESC_ERR_ADDR_RANGE] > 100 &&
           n_code[DESC_ERR_BCAST_RANGE] > 100 && n_code[DESC_ERR_BAD_DEST] > 100 &&
           n_code[DESC_ERR_INLINE_LEN] > 100 && n_code[DESC_ERR_RETRY_EXHAUSTED] > 100,
           "some check code too rare")
    tb_verdict();
    $finish;
  end

endmodule
