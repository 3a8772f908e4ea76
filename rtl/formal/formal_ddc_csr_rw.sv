// Formal harness for ddc_csr: read-back of the writable registers (bounded proof).
//
// The register table comes from the contract (target/formal/gen/formal_csr_spec.svh,
// written by run_formal.py). The plain rw register number SEL must read back the last
// value written to it, masked to its width (one job per register: a free register index
// made the solver take minutes instead of seconds). The registers with checked writes
// follow their contract rules, modelled here: MTU (multiple of 8 in 8..MTU_MAX, reset
// MTU_MAX), TX_QUANTUM (0 or 6..24, reset TX_QUANTUM_RESET), LME_SIZE / LMR_SIZE (1..RING_SIZE_MAX; a good write zeroes LME_PROD /
// LMR_CONS), LME_PROD / LMR_CONS (below the ring size, else rejected; the push trigger is
// an LME_PROD write). ID and VERSION read their constants. Every read is answered exactly
// one cycle later. Only the bus is connected: every event input and any input a later
// version adds is left open, which the flow turns into free inputs.
module formal_ddc_csr_rw
  import fasthsl_pkg::*;
#(
  parameter int unsigned SEL   = 0,
  // also check the registers with rules, ID and VERSION (in one of the jobs)
  parameter bit          RULES = 1'b1
) (
  input logic        clk_i,
  input logic        rst_ni,
  input logic        req_valid_i,
  input logic        req_write_i,
  input logic [11:0] req_addr_i,
  input logic [31:0] req_wdata_i
);
`include "formal_csr_spec.svh"

  logic        rsp_valid;
  logic [31:0] rsp_rdata;

  ddc_csr dut (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .csr_req_valid_i(req_valid_i),
    .csr_req_write_i(req_write_i),
    .csr_req_addr_i (req_addr_i),
    .csr_req_wdata_i(req_wdata_i),
    .csr_rsp_valid_o(rsp_valid),
    .csr_rsp_rdata_o(rsp_rdata),
    // No receive window block here: its registers are ddc_rx_window's (not proved by
    // this harness), so ddc_csr answers every other offset itself. Left open, these
    // inputs would let the solver claim any offset for the window block.
    .win_hit_i      (1'b0),
    .win_wr_ok_i    (1'b0),
    .win_rdata_i    (32'h0),
    .win_reject_i   (1'b0)
  );

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  // Reset only at the start: resets at any cycle multiplied the solver time by 3-8.
  // begin/end: a bare `else` after an assume would be its fail action, not the if's
  always_comb begin
    if (init_q) begin
      assume (!rst_ni);
    end else begin
      assume (rst_ni);
    end
  end

  logic [15:0] addr;
  logic [31:0] wdata;
  logic        wr, rd;
  assign addr       = {4'h0, req_addr_i};
  assign wdata      = req_wdata_i;
  assign wr         = req_valid_i && req_write_i;
  assign rd         = req_valid_i && !req_write_i;

  // ---- model ----
  logic        plain_known_q;
  logic [31:0] plain_q;
  logic        lme_size_known_q, lme_prod_known_q;
  logic        lmr_size_known_q, lmr_cons_known_q;
  logic [15:0] mtu_q, lme_size_q, lme_prod_q, lmr_size_q, lmr_cons_q;
  logic [4:0]  quantum_q;

  logic size_ok, mtu_ok, quantum_ok, lme_prod_wr;
  logic [31:0] prod_val;   // the index an LME_PROD write carries
  assign size_ok     = (wdata != '0) && (wdata <= 32'(RING_SIZE_MAX));
  assign mtu_ok      = (wdata >= 32'd8) && (wdata <= 32'(MTU_MAX)) && (wdata[2:0] == '0);
  assign quantum_ok  = (wdata == '0) || ((wdata >= 32'd6) && (wdata <= 32'd24));
  assign lme_prod_wr = wr && ((addr == LME_PROD_OFFSET) ||
                              (HAS_PROD_ALIAS && addr == PROD_ALIAS_OFFSET));
  // The push trigger carries the index in bits 15:0 (bits 31:16: the pushed key).
  assign prod_val    = (HAS_PROD_ALIAS && addr == PROD_ALIAS_OFFSET) ? {16'h0, wdata[15:0]}
                                                                     : wdata;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      plain_known_q    <= 1'b0;
      plain_q          <= '0;
      mtu_q            <= 16'(MTU_MAX);
      quantum_q        <= 5'(TX_QUANTUM_RESET);
      lme_size_known_q <= 1'b0;
      lme_size_q       <= '0;
      lme_prod_known_q <= 1'b0;
      lme_prod_q       <= '0;
      lmr_size_known_q <= 1'b0;
      lmr_size_q       <= '0;
      lmr_cons_known_q <= 1'b0;
      lmr_cons_q       <= '0;
    end else begin
      if (wr && addr == PLAIN_OFFSET[SEL]) begin
        plain_known_q <= 1'b1;
        plain_q       <= wdata & PLAIN_MASK[SEL];
      end
      if (wr && addr == MTU_OFFSET && mtu_ok) mtu_q <= wdata[15:0];
      if (wr && addr == TX_QUANTUM_OFFSET && quantum_ok) quantum_q <= wdata[4:0];
      // LME ring
      if (wr && addr == LME_SIZE_OFFSET && size_ok) begin
        lme_size_known_q <= 1'b1;
        lme_size_q       <= wdata[15:0];
        lme_prod_known_q <= 1'b1;
        lme_prod_q       <= '0;
      end
      if (lme_prod_wr) begin
        if (!lme_size_known_q) begin
          lme_prod_known_q <= 1'b0;
        end else if (prod_val < 32'(lme_size_q)) begin
          lme_prod_q <= prod_val[15:0];
        end
      end
      // LMR ring
      if (wr && addr == LMR_SIZE_OFFSET && size_ok) begin
        lmr_size_known_q <= 1'b1;
        lmr_size_q       <= wdata[15:0];
        lmr_cons_known_q <= 1'b1;
        lmr_cons_q       <= '0;
      end
      if (wr && addr == LMR_CONS_OFFSET) begin
        if (!lmr_size_known_q) begin
          lmr_cons_known_q <= 1'b0;
        end else if (wdata < 32'(lmr_size_q)) begin
          lmr_cons_q <= wdata[15:0];
        end
      end
    end
  end

  // expected answer to a read of addr, if the model knows it
  logic        exp_known;
  logic [31:0] exp_val;
  always_comb begin
    exp_known = RULES;
    exp_val   = '0;
    if (addr == PLAIN_OFFSET[SEL]) begin
      exp_known = plain_known_q;
      exp_val   = plain_q;
    end else if (!RULES) begin
      exp_known = 1'b0;
    end else if (addr == ID_OFFSET) begin
      exp_val = ID_MAGIC;
    end else if (addr == VERSION_OFFSET) begin
      exp_val = CONTRACT_VERSION;
    end else if (addr == MTU_OFFSET) begin
      exp_val = 32'(mtu_q);
    end else if (addr == TX_QUANTUM_OFFSET) begin
      exp_val = 32'(quantum_q);
    end else if (addr == LME_SIZE_OFFSET) begin
      exp_known = lme_size_known_q;
      exp_val   = 32'(lme_size_q);
    end else if (addr == LME_PROD_OFFSET) begin
      exp_known = lme_prod_known_q;
      exp_val   = 32'(lme_prod_q);
    end else if (addr == LMR_SIZE_OFFSET) begin
      exp_known = lmr_size_known_q;
      exp_val   = 32'(lmr_size_q);
    end else if (addr == LMR_CONS_OFFSET) begin
      exp_known = lmr_cons_known_q;
      exp_val   = 32'(lmr_cons_q);
    end else begin
      exp_known = 1'b0;
    end
  end

  logic        rd_q, chk_q;
  logic [31:0] chk_val_q;
  // Reads go only where the model knows what to expect (writes go anywhere): reads
  // elsewhere change nothing the model checks, and keeping them out keeps the solver off
  // the counters' side of the read multiplexer.
  always_comb if (rd) assume (exp_known);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_q      <= 1'b0;
      chk_q     <= 1'b0;
      chk_val_q <= '0;
    end else begin
      rd_q      <= rd;
      chk_q     <= rd && exp_known;
      chk_val_q <= exp_val;
    end
  end

  always_comb begin
    if (!init_q && rst_ni) begin
      assert (rsp_valid == rd_q);
      if (chk_q) assert (rsp_rdata == chk_val_q);
      cover (chk_q && plain_known_q && chk_val_q == plain_q && plain_q != '0);
      if (RULES) begin
        cover (chk_q && lme_prod_known_q && chk_val_q == 32'(lme_prod_q) && lme_prod_q != '0);
      end
    end
  end
endmodule
