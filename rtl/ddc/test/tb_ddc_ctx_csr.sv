// Testbench for ddc_ctx_csr: per-context ring registers on their own pages.
//
// A model of every context's registers takes random accesses (good and bad) to random
// contexts; after each one the whole register state of every context is compared, so a
// write that leaks into another context, or a rejected access that changes anything, is
// caught. Also: ID per page (context 0's page has only its ID here, pages past the last
// context nothing), reset values, rejected accesses (err_o bit, 0xFFFFFFFF read),
// LME_SIZE refused while the context has descriptors outstanding, reset pulses only for
// the written context, rx_en_o, base alignment of the outputs.
module tb_ddc_ctx_csr;
  import fasthsl_pkg::*;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic        req_valid = 1'b0, req_write = 1'b0, tx_reset = 1'b0;
  logic [3:0]  req_ctx = '0;
  logic [11:0] req_addr = '0;
  logic [31:0] req_wdata = '0;
  logic        rsp_valid;
  logic [31:0] rsp_rdata;
  logic [CTX_COUNT-1:0][63:0] lme_base, lmr_base;
  logic [CTX_COUNT-1:0][15:0] lme_size, lme_prod, lmr_size, lmr_cons;
  logic [CTX_COUNT-1:0][15:0] lme_cons = '0, lmr_prod = '0;
  logic [CTX_COUNT-1:0]       lme_reset, lmr_reset, rx_en;
  logic [3:0]                 err;

  ddc_ctx_csr dut (
    .clk_i      (clk),
    .rst_ni     (rst_n),
    .tx_reset_i (tx_reset),
    .req_valid_i(req_valid),
    .req_write_i(req_write),
    .req_ctx_i  (req_ctx),
    .req_addr_i (req_addr),
    .req_wdata_i(req_wdata),
    .rsp_valid_o(rsp_valid),
    .rsp_rdata_o(rsp_rdata),
    .lme_base_o (lme_base),
    .lme_size_o (lme_size),
    .lme_prod_o (lme_prod),
    .lme_reset_o(lme_reset),
    .lme_cons_i (lme_cons),
    .lmr_base_o (lmr_base),
    .lmr_size_o (lmr_size),
    .lmr_cons_o (lmr_cons),
    .lmr_reset_o(lmr_reset),
    .lmr_prod_i (lmr_prod),
    .rx_en_o    (rx_en),
    .err_o      (err)
  );

`include "ddc_tb_check.svh"

  // ---- model ----
  logic [63:0] m_lme_base[CTX_COUNT], m_lmr_base[CTX_COUNT];
  logic [15:0] m_lme_size[CTX_COUNT], m_lme_prod[CTX_COUNT];
  logic [15:0] m_lmr_size[CTX_COUNT], m_lmr_cons[CTX_COUNT];

  // Error bit the last access must have pulsed (-1: none), and reset pulses expected.
  int                   exp_err;
  logic [CTX_COUNT-1:0] exp_lme_reset, exp_lmr_reset;

  task automatic access(bit write, logic [3:0] ctx, logic [15:0] a, logic [31:0] d,
                        output logic [31:0] rdata);
    @(negedge clk);
    req_valid = 1'b1;
    req_write = write;
    req_ctx   = ctx;
    req_addr  = a[11:0];
    req_wdata = d;
    @(negedge clk);
    req_valid = 1'b0;
    // Response, error pulse and reset pulses all come one cycle after the request.
    `CHECK(rsp_valid == !write, $sformatf("rsp_valid %0b after a %s", rsp_valid,
                                          write ? "write" : "read"))
    rdata = rsp_rdata;
    for (int b = 0; b < 4; b++) begin
      `CHECK(err[b] == (b == exp_err), $sformatf("ctx %0d %s %03h: err %b, expected bit %0d",
                                                 ctx, write ? "wr" : "rd", a, err, exp_err))
    end
    `CHECK(lme_reset == exp_lme_reset, $sformatf("lme_reset %b, expected %b", lme_reset,
                                                 exp_lme_reset))
    `CHECK(lmr_reset == exp_lmr_reset, $sformatf("lmr_reset %b, expected %b", lmr_reset,
                                                 exp_lmr_reset))
    @(negedge clk);
    `CHECK(err == '0 && lme_reset == '0 && lmr_reset == '0, "pulses longer than one cycle")
    exp_err = -1;
    exp_lme_reset = '0;
    exp_lmr_reset = '0;
  endtask

  // The value a read of (ctx, a) must return, and whether the offset is defined.
  function automatic bit model_read(int ctx, logic [15:0] a, output logic [31:0] v);
    v = 32'hFFFF_FFFF;
    if (ctx >= CTX_COUNT) return 1'b0;
    if (ctx == 0) begin
      if (a != CTX_ID_OFFSET) return 1'b0;
      v = 0;
      return 1'b1;
    end
    unique case (a)
      CTX_ID_OFFSET:          v = 32'(ctx);
      CTX_LME_BASE_LO_OFFSET: v = m_lme_base[ctx][31:0];
      CTX_LME_BASE_HI_OFFSET: v = m_lme_base[ctx][63:32];
      CTX_LME_SIZE_OFFSET:    v = 32'(m_lme_size[ctx]);
      CTX_LME_PROD_OFFSET:    v = 32'(m_lme_prod[ctx]);
      CTX_LME_CONS_OFFSET:    v = 32'(lme_cons[ctx]);
      CTX_LMR_BASE_LO_OFFSET: v = m_lmr_base[ctx][31:0];
      CTX_LMR_BASE_HI_OFFSET: v = m_lmr_base[ctx][63:32];
      CTX_LMR_SIZE_OFFSET:    v = 32'(m_lmr_size[ctx]);
      CTX_LMR_PROD_OFFSET:    v = 32'(lmr_prod[ctx]);
      CTX_LMR_CONS_OFFSET:    v = 32'(m_lmr_cons[ctx]);
      default:                return 1'b0;
    endcase
    return 1'b1;
  endfunction

  // Applies a write to the model; sets the expected error bit and reset pulses.
  function automatic void model_write(int ctx, logic [15:0] a, logic [31:0] d);
    if (ctx == 0 || ctx >= CTX_COUNT) begin
      exp_err = 0;
      return;
    end
    unique case (a)
      CTX_LME_BASE_LO_OFFSET: m_lme_base[ctx][31:0]  = d;
      CTX_LME_BASE_HI_OFFSET: m_lme_base[ctx][63:32] = d;
      CTX_LME_SIZE_OFFSET: begin
        if (d <= 32'(RING_SIZE_MAX) && m_lme_prod[ctx] == lme_cons[ctx]) begin
          m_lme_size[ctx] = d[15:0];
          m_lme_prod[ctx] = '0;
          exp_lme_reset[ctx] = 1'b1;
        end else begin
          exp_err = 1;
        end
      end
      CTX_LME_PROD_OFFSET: begin
        if (d < 32'(m_lme_size[ctx])) m_lme_prod[ctx] = d[15:0];
        else                          exp_err = 2;
      end
      CTX_LMR_BASE_LO_OFFSET: m_lmr_base[ctx][31:0]  = d;
      CTX_LMR_BASE_HI_OFFSET: m_lmr_base[ctx][63:32] = d;
      CTX_LMR_SIZE_OFFSET: begin
        if (d <= 32'(RING_SIZE_MAX)) begin
          m_lmr_size[ctx] = d[15:0];
          m_lmr_cons[ctx] = '0;
          exp_lmr_reset[ctx] = 1'b1;
        end else begin
          exp_err = 1;
        end
      end
      CTX_LMR_CONS_OFFSET: begin
        if (d < 32'(m_lmr_size[ctx])) m_lmr_cons[ctx] = d[15:0];
        else                          exp_err = 3;
      end
      default: exp_err = 0;
    endcase
  endfunction

  // Outputs of every context against the model (index 0 is unused and stays 0).
  task automatic check_outputs(string what);
    for (int i = 1; i < CTX_COUNT; i++) begin
      `CHECK(lme_base[i] == {m_lme_base[i][63:5], 5'b0} && lmr_base[i] == {m_lmr_base[i][63:5], 5'b0},
             $sformatf("%s: ctx %0d bases %h %h", what, i, lme_base[i], lmr_base[i]))
      `CHECK(lme_size[i] == m_lme_size[i] && lme_prod[i] == m_lme_prod[i] &&
             lmr_size[i] == m_lmr_size[i] && lmr_cons[i] == m_lmr_cons[i],
             $sformatf("%s: ctx %0d size/prod %0d/%0d lmr size/cons %0d/%0d, model %0d/%0d %0d/%0d",
                       what, i, lme_size[i], lme_prod[i], lmr_size[i], lmr_cons[i],
                       m_lme_size[i], m_lme_prod[i], m_lmr_size[i], m_lmr_cons[i]))
      `CHECK(rx_en[i] == (m_lmr_size[i] != 0), $sformatf("%s: ctx %0d rx_en %0b", what, i,
                                                         rx_en[i]))
    end
    `CHECK(rx_en[0] == 1'b0, $sformatf("%s: rx_en[0] set", what))
    `CHECK(lme_size[0] == '0 && lmr_size[0] == '0 && lme_base[0] == '0,
           $sformatf("%s: context 0 registers changed", what))
  endtask

  // Every defined register of every context read back through the bus.
  task automatic check_readback(string what);
    logic [15:0] offs[11] = '{CTX_ID_OFFSET, CTX_LME_BASE_LO_OFFSET, CTX_LME_BASE_HI_OFFSET,
                              CTX_LME_SIZE_OFFSET, CTX_LME_PROD_OFFSET, CTX_LME_CONS_OFFSET,
                              CTX_LMR_BASE_LO_OFFSET, CTX_LMR_BASE_HI_OFFSET,
                              CTX_LMR_SIZE_OFFSET, CTX_LMR_PROD_OFFSET, CTX_LMR_CONS_OFFSET};
    for (int i = 1; i < CTX_COUNT; i++) begin
      foreach (offs[k]) begin
        logic [31:0] got, want;
        void'(model_read(i, offs[k], want));
        access(1'b0, 4'(i), offs[k], '0, got);
        `CHECK(got == want, $sformatf("%s: ctx %0d read %03h = %h, expected %h", what, i,
                                      offs[k], got, want))
      end
    end
  endtask

  // Offsets the random accesses pick from: the defined ones, undefined ones nearby.
  function automatic logic [15:0] rand_off();
    logic [15:0] offs[14] = '{CTX_ID_OFFSET, CTX_LME_BASE_LO_OFFSET, CTX_LME_BASE_HI_OFFSET,
                              CTX_LME_SIZE_OFFSET, CTX_LME_PROD_OFFSET, CTX_LME_CONS_OFFSET,
                              CTX_LMR_BASE_LO_OFFSET, CTX_LMR_BASE_HI_OFFSET,
                              CTX_LMR_SIZE_OFFSET, CTX_LMR_PROD_OFFSET, CTX_LMR_CONS_OFFSET,
                              16'h0004, 16'h0200, 16'h0FFC};
    return offs[$urandom_range(0, 13)];
  endfunction

  function automatic logic [31:0] rand_val(logic [15:0] a, int ctx);
    int c = $urandom_range(0, 9);
    if (a == CTX_LME_PROD_OFFSET || a == CTX_LMR_CONS_OFFSET) begin
      int sz = (ctx == 0 || ctx >= CTX_COUNT) ? 4 :
               int'((a == CTX_LME_PROD_OFFSET) ? m_lme_size[ctx] : m_lmr_size[ctx]);
      if (c < 8 && sz > 0) return 32'($urandom_range(0, sz - 1));
      return (c == 8) ? 32'(sz) : 32'h0001_0000 | 32'($urandom_range(0, 3));
    end
    if (a == CTX_LME_SIZE_OFFSET || a == CTX_LMR_SIZE_OFFSET) begin
      if (c < 7) return 32'($urandom_range(0, 64));
      if (c == 7) return 32'(RING_SIZE_MAX);
      return 32'(RING_SIZE_MAX + 1) + 32'($urandom_range(0, 5));
    end
    return $urandom();
  endfunction

  initial begin
    logic [31:0] d;
    exp_err = -1;
    exp_lme_reset = '0;
    exp_lmr_reset = '0;
    for (int i = 0; i < CTX_COUNT; i++) begin
      m_lme_base[i] = '0; m_lmr_base[i] = '0;
      m_lme_size[i] = '0; m_lme_prod[i] = '0;
      m_lmr_size[i] = '0; m_lmr_cons[i] = '0;
      lme_cons[i] = 16'($urandom_range(0, 3));
      lmr_prod[i] = 16'($urandom());
    end
    repeat (3) @(negedge clk);
    rst_n = 1'b1;

    // ---- reset values, ID per page ----
    check_outputs("reset");
    check_readback("reset");

    // ---- context 0 is not here; undefined offsets, read-only registers ----
    exp_err = 0;
    access(1'b0, 4'd0, CTX_LME_SIZE_OFFSET, '0, d);
    `CHECK(d == 32'hFFFF_FFFF, $sformatf("context 0 read %h", d))
    access(1'b0, 4'd0, CTX_ID_OFFSET, '0, d);
    `CHECK(d == 32'h0, $sformatf("context 0 ID %h", d))
    exp_err = 0;
    access(1'b0, 4'(CTX_COUNT), CTX_ID_OFFSET, '0, d);
    `CHECK(d == 32'hFFFF_FFFF, $sformatf("page past the last context: ID %h", d))
    exp_err = 0;
    access(1'b1, 4'd0, CTX_LME_BASE_LO_OFFSET, 32'h1234_5678, d);
    exp_err = 0;
    access(1'b1, 4'd15, CTX_LME_BASE_LO_OFFSET, 32'h1234_5678, d);
    exp_err = 0;
    access(1'b0, 4'd2, 16'h0004, '0, d);
    `CHECK(d == 32'hFFFF_FFFF, $sformatf("undefined offset read %h", d))
    exp_err = 0;
    access(1'b1, 4'd3, CTX_ID_OFFSET, 32'h7, d);
    exp_err = 0;
    access(1'b1, 4'd3, CTX_LME_CONS_OFFSET, 32'h1, d);
    exp_err = 0;
    access(1'b1, 4'd3, CTX_LMR_PROD_OFFSET, 32'h1, d);
    check_outputs("rejected accesses");

    // ---- LME_SIZE refused while descriptors are outstanding ----
    lme_cons[5] = '0;
    model_write(5, CTX_LME_SIZE_OFFSET, 32'd8);
    access(1'b1, 4'd5, CTX_LME_SIZE_OFFSET, 32'd8, d);
    model_write(5, CTX_LME_PROD_OFFSET, 32'd3);
    access(1'b1, 4'd5, CTX_LME_PROD_OFFSET, 32'd3, d);
    exp_err = 1;
    access(1'b1, 4'd5, CTX_LME_SIZE_OFFSET, 32'd16, d);
    `CHECK(lme_size[5] == 16'd8 && lme_prod[5] == 16'd3, "LME_SIZE taken while busy")
    lme_cons[5] = 16'd3;   // the NIC completed them
    model_write(5, CTX_LME_SIZE_OFFSET, 32'd16);
    access(1'b1, 4'd5, CTX_LME_SIZE_OFFSET, 32'd16, d);
    `CHECK(lme_size[5] == 16'd16 && lme_prod[5] == 16'd0, "LME_SIZE refused while idle")
    check_outputs("busy rule");

    // ---- random accesses to random contexts, whole state compared after each ----
    for (int n = 0; n < 4000; n++) begin
      int          ctx = ($urandom_range(0, 19) == 0) ? $urandom_range(0, 15) :
                                                             $urandom_range(1, CTX_COUNT - 1);
      logic [15:0] a = rand_off();
      bit          wr = $urandom_range(0, 1);
      // The NIC side moves: completions catch up with the producer now and then.
      if ($urandom_range(0, 7) == 0) begin
        int k = $urandom_range(1, CTX_COUNT - 1);
        lme_cons[k] = m_lme_prod[k];
        lmr_prod[k] = 16'($urandom());
      end
      if (wr) begin
        logic [31:0] v = rand_val(a, ctx);
        model_write(ctx, a, v);
        access(1'b1, 4'(ctx), a, v, d);
      end else begin
        logic [31:0] want;
        if (!model_read(ctx, a, want)) exp_err = 0;
        access(1'b0, 4'(ctx), a, '0, d);
        `CHECK(d == want, $sformatf("ctx %0d read %03h = %h, expected %h", ctx, a, d, want))
      end
      check_outputs($sformatf("random access %0d", n));
    end
    check_readback("after random");

    // ---- page 0's ring reset restarts every context's doorbell, and wins over one ----
    for (int k = 1; k < CTX_COUNT; k++) begin
      lme_cons[k] = m_lme_prod[k];
      model_write(k, CTX_LME_SIZE_OFFSET, 32'd8);
      access(1'b1, 4'(k), CTX_LME_SIZE_OFFSET, 32'd8, d);
      model_write(k, CTX_LME_PROD_OFFSET, 32'd5);
      access(1'b1, 4'(k), CTX_LME_PROD_OFFSET, 32'd5, d);
    end
    @(negedge clk);
    tx_reset  = 1'b1;
    req_valid = 1'b1;
    req_write = 1'b1;
    req_ctx   = 4'd2;
    req_addr  = CTX_LME_PROD_OFFSET[11:0];
    req_wdata = 32'd3;
    @(negedge clk);
    tx_reset  = 1'b0;
    req_valid = 1'b0;
    for (int k = 1; k < CTX_COUNT; k++) m_lme_prod[k] = '0;
    @(negedge clk);
    check_outputs("TX reset");

    if (errors == 0) $display("PASS tb_ddc_ctx_csr");
    else $fatal(1, "tb_ddc_ctx_csr: %0d errors", errors);
    $finish;
  end

endmodule
