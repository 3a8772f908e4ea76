// Context register pages: the LME/LMR rings and doorbells of contexts 1..CTX_COUNT-1, and
// every page's ID.
//
// Each context has its own 4 KiB page of BAR0 (contract "ctx" block, CTX_PAGE_BASE +
// n * CTX_PAGE_STRIDE), so a process maps only its own page; every register of the page
// belongs to that context, nothing global is reachable from it. Context 0's rings are
// page 0's registers (ddc_csr): the caller sends context 0's ring offsets there; here
// context 0's page has only its ID, and a page past the last context (req_ctx_i >=
// CTX_COUNT) has nothing.
//
// Same access rules as page 0: a rejected access (undefined offset, write to a read-only
// register, bad value, index out of range) changes nothing and pulses its ERR_STATUS bit
// on err_o (bits in ERR_STATUS order: CSR_BAD_ADDR, CSR_BAD_VALUE, LME_PROD_RANGE,
// LMR_CONS_RANGE); ddc_csr sets the bits and counts them. A read answers exactly one cycle
// later; an undefined one answers 0xFFFFFFFF.
//
// Two differences from page 0, both so that one process can never disturb another:
// - LME_SIZE may be 0 (the context sends nothing; also the reset value), and a write is
//   refused (CSR_BAD_VALUE) while the context has descriptors not yet completed
//   (LME_PROD != LME_CONS): no descriptor of it is then anywhere in the TX pipeline, so
//   its reset pulse only restarts its own indices and never needs the pipeline flush
//   that page 0's ring reset does.
// - LMR_SIZE may be 0: the context receives nothing (rx_en_o clear), its packets are
//   dropped and counted (CNT_RX_DROP_CTX) instead of stalling everyone's reception.
module ddc_ctx_csr
  import fasthsl_pkg::*;
(
  input  logic                             clk_i,
  input  logic                             rst_ni,
  // Page 0's ring reset restarts the whole TX, every context's indices with it.
  input  logic                             tx_reset_i,
  // Context page bus: req_ctx_i is the page's context, req_addr_i the offset inside the
  // page. At most one request per cycle, always accepted.
  input  logic                             req_valid_i,
  input  logic                             req_write_i,
  input  logic [3:0]                       req_ctx_i,
  input  logic [11:0]                      req_addr_i,
  input  logic [31:0]                      req_wdata_i,
  output logic                             rsp_valid_o,
  output logic [31:0]                      rsp_rdata_o,
  // per-context ring state (index 0 unused: context 0 lives in ddc_csr)
  output logic [CTX_COUNT-1:0][63:0]       lme_base_o,
  output logic [CTX_COUNT-1:0][15:0]       lme_size_o,
  output logic [CTX_COUNT-1:0][15:0]       lme_prod_o,
  output logic [CTX_COUNT-1:0]             lme_reset_o,   // registered pulse, as ddc_csr's
  input  logic [CTX_COUNT-1:0][15:0]       lme_cons_i,
  output logic [CTX_COUNT-1:0][63:0]       lmr_base_o,
  output logic [CTX_COUNT-1:0][15:0]       lmr_size_o,
  output logic [CTX_COUNT-1:0][15:0]       lmr_cons_o,
  output logic [CTX_COUNT-1:0]             lmr_reset_o,
  input  logic [CTX_COUNT-1:0][15:0]       lmr_prod_i,
  output logic [CTX_COUNT-1:0]             rx_en_o,       // LMR ring configured
  // rejected access: one-cycle pulse of its ERR_STATUS bit (bits 3:0)
  output logic [3:0]                       err_o
);
  localparam int unsigned ErrBadAddr   = 0;
  localparam int unsigned ErrBadValue  = 1;
  localparam int unsigned ErrProdRange = 2;
  localparam int unsigned ErrConsRange = 3;

  logic [CTX_COUNT-1:0][63:0] lme_base_q, lme_base_d, lmr_base_q, lmr_base_d;
  logic [CTX_COUNT-1:0][15:0] lme_size_q, lme_size_d, lme_prod_q, lme_prod_d;
  logic [CTX_COUNT-1:0][15:0] lmr_size_q, lmr_size_d, lmr_cons_q, lmr_cons_d;
  logic [CTX_COUNT-1:0]       lme_reset_q, lme_reset_d, lmr_reset_q, lmr_reset_d;
  logic                       rsp_valid_q;
  logic [31:0]                rsp_rdata_q, rsp_rdata_d;
  logic [3:0]                 err_q, err_d;

  logic [15:0] addr;
  logic [31:0] wdata;
  logic        req_write, req_read, ctx_ok, page_ok;
  assign addr      = {4'h0, req_addr_i};
  assign wdata     = req_wdata_i;
  // Context 0's ring registers are not here (index 0 of the arrays stays unused).
  assign page_ok   = 32'(req_ctx_i) < CTX_COUNT;
  assign ctx_ok    = page_ok && (req_ctx_i != 4'd0);
  assign req_write = req_valid_i && req_write_i;
  assign req_read  = req_valid_i && !req_write_i;

  logic ring_size_ok;
  assign ring_size_ok = (wdata <= 32'(RING_SIZE_MAX));

  logic [2:0] c;
  assign c = req_ctx_i[2:0];

  // A write's checks against the context's own registers are made for every context
  // beside the page's decode, which then only picks one: after it, the 16-bit compares
  // came behind the decode's long wires (the block's worst path alone, docs/SYNTH.md
  // session 53).
  logic [CTX_COUNT-1:0] ctx_drained, prod_in_range, cons_in_range;
  always_comb begin
    for (int unsigned k = 0; k < CTX_COUNT; k++) begin
      ctx_drained[k]   = (lme_prod_q[k] == lme_cons_i[k]);
      prod_in_range[k] = (wdata < 32'(lme_size_q[k]));
      cons_in_range[k] = (wdata < 32'(lmr_size_q[k]));
    end
  end

  // ---- reads ----
  logic rd_known;
  always_comb begin
    rd_known    = ctx_ok;
    rsp_rdata_d = '0;
    unique case (addr)
      CTX_ID_OFFSET: begin
        rd_known    = page_ok;
        rsp_rdata_d = 32'(c);
      end
      CTX_LME_BASE_LO_OFFSET: rsp_rdata_d = lme_base_q[c][31:0];
      CTX_LME_BASE_HI_OFFSET: rsp_rdata_d = lme_base_q[c][63:32];
      CTX_LME_SIZE_OFFSET:    rsp_rdata_d = 32'(lme_size_q[c]);
      CTX_LME_PROD_OFFSET:    rsp_rdata_d = 32'(lme_prod_q[c]);
      CTX_LME_CONS_OFFSET:    rsp_rdata_d = 32'(lme_cons_i[c]);
      CTX_LMR_BASE_LO_OFFSET: rsp_rdata_d = lmr_base_q[c][31:0];
      CTX_LMR_BASE_HI_OFFSET: rsp_rdata_d = lmr_base_q[c][63:32];
      CTX_LMR_SIZE_OFFSET:    rsp_rdata_d = 32'(lmr_size_q[c]);
      CTX_LMR_PROD_OFFSET:    rsp_rdata_d = 32'(lmr_prod_i[c]);
      CTX_LMR_CONS_OFFSET:    rsp_rdata_d = 32'(lmr_cons_q[c]);
      default:                rd_known = 1'b0;
    endcase
    if (!rd_known) rsp_rdata_d = 32'hFFFF_FFFF;
  end

  // ---- writes ----
  always_comb begin
    lme_base_d  = lme_base_q;
    lme_size_d  = lme_size_q;
    lme_prod_d  = lme_prod_q;
    lmr_base_d  = lmr_base_q;
    lmr_size_d  = lmr_size_q;
    lmr_cons_d  = lmr_cons_q;
    lme_reset_d = '0;
    lmr_reset_d = '0;
    err_d       = '0;

    if (req_read && !rd_known) err_d[ErrBadAddr] = 1'b1;

    if (req_write && !ctx_ok) begin
      err_d[ErrBadAddr] = 1'b1;
    end else if (req_write) begin
      unique case (addr)
        CTX_LME_BASE_LO_OFFSET: lme_base_d[c][31:0]  = wdata;
        CTX_LME_BASE_HI_OFFSET: lme_base_d[c][63:32] = wdata;
        CTX_LME_SIZE_OFFSET: begin
          if (ring_size_ok && ctx_drained[c]) begin
            lme_size_d[c]  = wdata[15:0];
            lme_prod_d[c]  = '0;
            lme_reset_d[c] = 1'b1;
          end else begin
            err_d[ErrBadValue] = 1'b1;
          end
        end
        CTX_LME_PROD_OFFSET: begin
          if (prod_in_range[c]) lme_prod_d[c] = wdata[15:0];
          else                    err_d[ErrProdRange] = 1'b1;
        end
        CTX_LMR_BASE_LO_OFFSET: lmr_base_d[c][31:0]  = wdata;
        CTX_LMR_BASE_HI_OFFSET: lmr_base_d[c][63:32] = wdata;
        CTX_LMR_SIZE_OFFSET: begin
          if (ring_size_ok) begin
            lmr_size_d[c]  = wdata[15:0];
            lmr_cons_d[c]  = '0;
            lmr_reset_d[c] = 1'b1;
          end else begin
            err_d[ErrBadValue] = 1'b1;
          end
        end
        CTX_LMR_CONS_OFFSET: begin
          if (cons_in_range[c]) lmr_cons_d[c] = wdata[15:0];
          else                    err_d[ErrConsRange] = 1'b1;
        end
        // ID, LME_CONS, LMR_PROD (read-only) and undefined offsets
        default: err_d[ErrBadAddr] = 1'b1;
      endcase
    end
    // Wins over a doorbell in the same cycle: the TX forgets every context's ring.
    if (tx_reset_i) lme_prod_d = '0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lme_base_q  <= '0;
      lme_size_q  <= '0;
      lme_prod_q  <= '0;
      lmr_base_q  <= '0;
      lmr_size_q  <= '0;
      lmr_cons_q  <= '0;
      lme_reset_q <= '0;
      lmr_reset_q <= '0;
      err_q       <= '0;
      rsp_valid_q <= 1'b0;
      rsp_rdata_q <= '0;
    end else begin
      lme_base_q  <= lme_base_d;
      lme_size_q  <= lme_size_d;
      lme_prod_q  <= lme_prod_d;
      lmr_base_q  <= lmr_base_d;
      lmr_size_q  <= lmr_size_d;
      lmr_cons_q  <= lmr_cons_d;
      lme_reset_q <= lme_reset_d;
      lmr_reset_q <= lmr_reset_d;
      err_q       <= err_d;
      rsp_valid_q <= req_read;
      if (req_read) rsp_rdata_q <= rsp_rdata_d;
    end
  end

  assign rsp_valid_o = rsp_valid_q;
  assign rsp_rdata_o = rsp_rdata_q;
  assign err_o       = err_q;

  always_comb begin
    for (int unsigned i = 0; i < CTX_COUNT; i++) begin
      // Ring bases are 32-byte aligned (one entry); the low bits are kept for read-back.
      lme_base_o[i] = {lme_base_q[i][63:5], 5'b0};
      lmr_base_o[i] = {lmr_base_q[i][63:5], 5'b0};
      rx_en_o[i]    = (i != 0) && (lmr_size_q[i] != '0);
    end
  end
  assign lme_size_o  = lme_size_q;
  assign lme_prod_o  = lme_prod_q;
  assign lme_reset_o = lme_reset_q;
  assign lmr_size_o  = lmr_size_q;
  assign lmr_cons_o  = lmr_cons_q;
  assign lmr_reset_o = lmr_reset_q;

endmodule
