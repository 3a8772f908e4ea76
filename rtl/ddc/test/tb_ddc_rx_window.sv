// Self-checking test of ddc_rx_window: the table's CSR side (read-back, masks, which
// offsets are its own and writable), the check against a reference model (directed cases
// for every refusal reason and the range edges, then random tables and packets with new
// packet fields every cycle, so the two-stage pipeline is checked at full rate), the
// refusal log and counters, and a reset in the middle of a run.
module tb_ddc_rx_window;
  import fasthsl_pkg::*;

  localparam int unsigned NWin = WIN_CTRL_COUNT;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic        req_valid = 1'b0, req_write = 1'b0;
  logic [11:0] req_addr = '0;
  logic [31:0] req_wdata = '0;
  logic        hit, wr_ok;
  logic [31:0] rdata;
  logic [3:0]  ptype = '0;
  logic [15:0] src = '0, key = '0, plen = '0;
  logic [47:0] paddr = '0;
  logic [2:0]  ctx = '0;
  logic [31:0] msg_id = '0;
  win_rej_e    rej;
  logic        reject = 1'b0;
  win_rej_e    reject_reason = WIN_REJ_NONE;
  logic        win_reject;

  ddc_rx_window dut (
    .clk_i          (clk),
    .rst_ni         (rst_n),
    .csr_req_valid_i(req_valid),
    .csr_req_write_i(req_write),
    .csr_req_addr_i (req_addr),
    .csr_req_wdata_i(req_wdata),
    .csr_hit_o      (hit),
    .csr_wr_ok_o    (wr_ok),
    .csr_rdata_o    (rdata),
    .pkt_ptype_i    (ptype),
    .pkt_src_i      (src),
    .pkt_key_i      (key),
    .pkt_addr_i     (paddr),
    .pkt_len_i      (plen),
    .pkt_ctx_i      (ctx),
    .pkt_msg_id_i   (msg_id),
    .rej_o          (rej),
    .reject_i       (reject),
    .reject_reason_i(reject_reason),
    .win_reject_o   (win_reject)
  );

`include "ddc_tb_check.svh"

  // ---- model of the table ----
  logic [47:0] m_base[NWin];
  logic [31:0] m_len[NWin];
  win_ctrl_t   m_ctrl[NWin];
  bit          m_enforce = 0;

  function automatic win_rej_e model(logic [3:0] pt, logic [15:0] k, logic [47:0] a,
                                     logic [15:0] l, logic [2:0] c);
    win_ctrl_t w = m_ctrl[k[3:0]];
    bit perm;
    longint unsigned lo, hi, end_;
    if (!m_enforce) return WIN_REJ_NONE;
    // Header-only types (ACK, NACK) write nothing: not the table's business.
    if (pt != PTYPE_WRITE && pt != PTYPE_BCAST) return WIN_REJ_NONE;
    if (!w.valid) return WIN_REJ_INVALID;
    if (w.tag != k[15:4]) return WIN_REJ_KEY;
    if (w.owner != c) return WIN_REJ_CTX;
    perm = (pt == PTYPE_BCAST) ? w.bcast : w.write;
    if (!perm) return WIN_REJ_PERM;
    // 64-bit arithmetic: no wrap for 48-bit addresses and 32-bit lengths.
    lo   = 64'(m_base[k[3:0]]);
    hi   = lo + 64'(m_len[k[3:0]]);
    end_ = 64'(a) + 64'(l);
    if (64'(a) < lo || end_ > hi) return WIN_REJ_RANGE;
    return WIN_REJ_NONE;
  endfunction

  // ---- bus ----
  task automatic wr(logic [15:0] a, logic [31:0] d);
    @(negedge clk);
    req_valid = 1'b1;
    req_write = 1'b1;
    req_addr  = a[11:0];
    req_wdata = d;
    @(negedge clk);
    req_valid = 1'b0;
    req_write = 1'b0;
  endtask

  // Combinational read: the block answers in the cycle of the request.
  task automatic rd(logic [15:0] a, output logic [31:0] d, output logic h, output logic w);
    @(negedge clk);
    req_valid = 1'b1;
    req_write = 1'b0;
    req_addr  = a[11:0];
    #1;
    d = rdata;
    h = hit;
    w = wr_ok;
    @(negedge clk);
    req_valid = 1'b0;
  endtask

  function automatic logic [15:0] tbl(int i, int r);
    return WIN_BASE_LO_OFFSET + 16'(i * WIN_BASE_LO_STRIDE + 4 * r);
  endfunction

  task automatic set_win(int i, logic [47:0] base, logic [31:0] len, win_ctrl_t c);
    wr(tbl(i, 0), base[31:0]);
    wr(tbl(i, 1), 32'(base[47:32]));
    wr(tbl(i, 2), len);
    wr(tbl(i, 3), c);
    m_base[i] = base;
    m_len[i]  = len;
    m_ctrl[i] = c;
  endtask

  task automatic set_enforce(bit e);
    wr(WIN_CFG_OFFSET, 32'(e));
    m_enforce = e;
  endtask

  function automatic win_ctrl_t mkctrl(bit v, bit w, bit b, logic [2:0] o, logic [11:0] t);
    win_ctrl_t c = '0;
    c.valid = v; c.write = w; c.bcast = b; c.owner = o; c.tag = t;
    return c;
  endfunction

  // One packet presented alone: fields held, verdict after two cycles.
  task automatic check1(string what, logic [3:0] pt, logic [15:0] k, logic [47:0] a,
                        logic [15:0] l, logic [2:0] c, win_rej_e exp);
    @(negedge clk);
    ptype = pt; key = k; paddr = a; plen = l; ctx = c;
    @(negedge clk);
    @(negedge clk);
    `CHECK(rej == exp, $sformatf("%s: verdict %s, expected %s", what, rej.name(), exp.name()))
    `CHECK(exp == model(pt, k, a, l, c), $sformatf("%s: model disagrees with the case", what))
  endtask

  // ---- CSR side ----
  task automatic t_csr();
    logic [31:0] d;
    logic h, w;
    for (int i = 0; i < int'(NWin); i++) begin
      for (int r = 0; r < 4; r++) begin
        rd(tbl(i, r), d, h, w);
        `CHECK(h && w && d == 0, $sformatf("window %0d reg %0d after reset: %h %b%b", i, r, d, h, w))
      end
    end
    wr(tbl(5, 0), 32'hDEAD_BEE8);
    wr(tbl(5, 1), 32'hFFFF_1234);
    wr(tbl(5, 2), 32'h8765_4321);
    wr(tbl(5, 3), 32'hFFFF_FFFF);
    rd(tbl(5, 0), d, h, w);
    `CHECK(d == 32'hDEAD_BEE8, "BASE_LO read-back")
    rd(tbl(5, 1), d, h, w);
    `CHECK(d == 32'h0000_1234, "BASE_HI keeps 16 bits")
    rd(tbl(5, 2), d, h, w);
    `CHECK(d == 32'h8765_4321, "LEN read-back")
    rd(tbl(5, 3), d, h, w);
    `CHECK(d == 32'hFFF0_0077, $sformatf("CTRL reserved bits must read 0: %h", d))
    rd(tbl(4, 3), d, h, w);
    `CHECK(d == 0, "neighbour window untouched")
    wr(tbl(5, 3), 0);
    rd(WIN_CFG_OFFSET, d, h, w);
    `CHECK(h && w && d == 0, "WIN_CFG reset")
    wr(WIN_CFG_OFFSET, 32'hFFFF_FFFF);
    rd(WIN_CFG_OFFSET, d, h, w);
    `CHECK(d == 1, "WIN_CFG is one bit")
    wr(WIN_CFG_OFFSET, 0);
    rd(WIN_REJ_INFO_OFFSET, d, h, w);
    `CHECK(h && w, "WIN_REJ_INFO writable (w1c)")
    begin
      logic [15:0] ro[6] = '{WIN_REJ_MSG_ID_OFFSET, WIN_REJ_ADDR_LO_OFFSET,
                             WIN_REJ_ADDR_HI_OFFSET, CNT_RX_REJECT_KEY_OFFSET,
                             CNT_RX_REJECT_PERM_OFFSET, CNT_RX_REJECT_RANGE_OFFSET};
      logic [15:0] other[6] = '{16'h0DC, 16'h0F4, 16'h2FC, 16'h0FC, 16'h18C, 16'h302};
      foreach (ro[k]) begin
        rd(ro[k], d, h, w);
        `CHECK(h && !w && d == 0, $sformatf("%03h: read-only, 0 after reset", ro[k]))
      end
      // Not this block's: around its ranges, the next counter, an unaligned offset.
      foreach (other[k]) begin
        rd(other[k], d, h, w);
        `CHECK(!h && !w, $sformatf("%03h claimed by the window block", other[k]))
      end
    end
  endtask

  // ---- directed checks ----
  task automatic t_directed();
    win_ctrl_t c3 = mkctrl(1, 1, 0, 3'd0, 12'hABC);
    win_ctrl_t c7 = mkctrl(1, 0, 1, 3'd5, 12'h123);
    logic [15:0] k3 = {12'hABC, 4'd3};
    logic [15:0] k7 = {12'h123, 4'd7};
    set_win(3, 48'h0000_1000_0000, 32'h1_0000, c3);
    set_win(7, 48'hFFFF_FFFF_F000, 32'h1000, c7);
    // Enforcement off: anything passes, even a key naming no window.
    set_enforce(0);
    check1("off: no window", PTYPE_WRITE, 16'h0001, 48'h0, 16'd8, 3'd0, WIN_REJ_NONE);
    check1("off: out of range", PTYPE_WRITE, k3, 48'h0, 16'd8, 3'd0, WIN_REJ_NONE);
    set_enforce(1);
    check1("inside", PTYPE_WRITE, k3, 48'h0000_1000_0100, 16'd64, 3'd0, WIN_REJ_NONE);
    check1("first byte", PTYPE_WRITE, k3, 48'h0000_1000_0000, 16'd1, 3'd0, WIN_REJ_NONE);
    check1("exact end", PTYPE_WRITE, k3, 48'h0000_1000_FC00, 16'd1024, 3'd0, WIN_REJ_NONE);
    check1("straddles end", PTYPE_WRITE, k3, 48'h0000_1000_FC01, 16'd1024, 3'd0, WIN_REJ_RANGE);
    check1("starts at end", PTYPE_WRITE, k3, 48'h0000_1001_0000, 16'd1, 3'd0, WIN_REJ_RANGE);
    check1("below base", PTYPE_WRITE, k3, 48'h0000_0FFF_FFFF, 16'd8, 3'd0, WIN_REJ_RANGE);
    check1("wraps below", PTYPE_WRITE, k3, 48'hFFFF_FFFF_FFF8, 16'd8, 3'd0, WIN_REJ_RANGE);
    check1("wrong tag", PTYPE_WRITE, {12'hABD, 4'd3}, 48'h0000_1000_0100, 16'd8, 3'd0,
           WIN_REJ_KEY);
    check1("other index, same tag", PTYPE_WRITE, {12'hABC, 4'd4}, 48'h0000_1000_0100, 16'd8,
           3'd0, WIN_REJ_INVALID);
    check1("wrong context", PTYPE_WRITE, k3, 48'h0000_1000_0100, 16'd8, 3'd1, WIN_REJ_CTX);
    check1("bcast, write-only window", PTYPE_BCAST, k3, 48'h0000_1000_0100, 16'd8, 3'd0,
           WIN_REJ_PERM);
    check1("ack passes, whatever its key", PTYPE_ACK, 16'h0000, 48'h0, 16'd0, 3'd7,
           WIN_REJ_NONE);
    check1("nack passes", PTYPE_NACK_REJECT, k3, 48'hFFFF_FFFF_FFFF, 16'd8, 3'd0,
           WIN_REJ_NONE);
    check1("bcast window at 2^48", PTYPE_BCAST, k7, 48'hFFFF_FFFF_FFC0, 16'd64, 3'd5,
           WIN_REJ_NONE);
    check1("write into bcast-only window", PTYPE_WRITE, k7, 48'hFFFF_FFFF_FFC0, 16'd64, 3'd5,
           WIN_REJ_PERM);
    check1("past 2^48", PTYPE_BCAST, k7, 48'hFFFF_FFFF_FFC8, 16'd64, 3'd5, WIN_REJ_RANGE);
    // Packet longer than the window; a zero-length window accepts nothing.
    set_win(3, 48'h0000_1000_0000, 32'd16, c3);
    check1("longer than window", PTYPE_WRITE, k3, 48'h0000_1000_0000, 16'd24, 3'd0,
           WIN_REJ_RANGE);
    set_win(3, 48'h0000_1000_0000, 32'd0, c3);
    check1("empty window", PTYPE_WRITE, k3, 48'h0000_1000_0000, 16'd1, 3'd0, WIN_REJ_RANGE);
    // Disabled (deregistered) window: its old key no longer works.
    set_win(3, 48'h0000_1000_0000, 32'h1_0000, mkctrl(0, 1, 1, 3'd0, 12'hABC));
    check1("disabled window", PTYPE_WRITE, k3, 48'h0000_1000_0100, 16'd8, 3'd0,
           WIN_REJ_INVALID);
  endtask

  // ---- random table and packets, new fields every cycle ----
  task automatic t_random();
    win_rej_e exp_q[$];
    int n_ok = 0;
    int n_rej[int];
    set_enforce(1);
    for (int round = 0; round < 20; round++) begin
      for (int i = 0; i < int'(NWin); i++) begin
        logic [47:0] b = {16'($urandom_range(0, 3)), $urandom()};
        set_win(i, b, $urandom_range(0, 8) == 0 ? 32'($urandom_range(0, 64)) :
                      32'($urandom_range(0, 1 << 20)),
                mkctrl($urandom_range(0, 7) != 0, $urandom_range(0, 3) != 0,
                       $urandom_range(0, 1), 3'($urandom_range(0, 7) == 0),
                       12'($urandom_range(0, 3))));
      end
      exp_q.delete();
      for (int p = 0; p < 500; p++) begin
        int w = $urandom_range(0, NWin - 1);
        logic [15:0] l = 16'($urandom_range(1, 1024));
        logic [47:0] a;
        int          how = $urandom_range(0, 3);
        unique case (how)
          0:       a = m_base[w] + 48'($urandom_range(0, 1 << 20));
          1:       a = m_base[w] + 48'(m_len[w]) - 48'(l) + 48'($urandom_range(0, 3)) - 48'd1;
          2:       a = m_base[w] - 48'($urandom_range(0, 2));
          default: a = {16'($urandom_range(0, 3)), $urandom()};
        endcase
        @(negedge clk);
        ptype = $urandom_range(0, 3) == 0 ? PTYPE_BCAST :
                $urandom_range(0, 15) == 0 ? PTYPE_ACK : PTYPE_WRITE;
        key   = {12'($urandom_range(0, 3)), 4'(w)};
        paddr = a;
        plen  = l;
        ctx   = 3'($urandom_range(0, 7) == 0);
        exp_q.push_back(model(ptype, key, paddr, plen, ctx));
        if (exp_q.size() > 2) begin
          win_rej_e e = exp_q.pop_front();
          `CHECK(rej == e, $sformatf("random: verdict %s, expected %s", rej.name(), e.name()))
          if (e == WIN_REJ_NONE) n_ok++;
          else n_rej[int'(e)]++;
        end
      end
    end
    // The random mix must reach every outcome, or it proves little.
    `CHECK(n_ok > 100, $sformatf("random: only %0d accepted", n_ok))
    for (int r = int'(WIN_REJ_INVALID); r <= int'(WIN_REJ_RANGE); r++) begin
      `CHECK(n_rej.exists(r) && n_rej[r] > 20, $sformatf("random: reason %0d too rare", r))
    end
  endtask

  // ---- refusal log and counters ----
  task automatic pulse_reject(win_rej_e why, logic [15:0] s, logic [31:0] id, logic [15:0] k,
                              logic [47:0] a, logic [3:0] pt);
    @(negedge clk);
    src = s; msg_id = id; key = k; paddr = a; ptype = pt;
    reject = 1'b1;
    reject_reason = why;
    #1;
    `CHECK(win_reject == (why != WIN_REJ_RXWIN), "win_reject_o for a table refusal only")
    @(negedge clk);
    reject = 1'b0;
  endtask

  task automatic expect_reg(logic [15:0] a, logic [31:0] exp, string what);
    logic [31:0] d;
    logic h, w;
    rd(a, d, h, w);
    `CHECK(d == exp, $sformatf("%s: %03h = %h, expected %h", what, a, d, exp))
  endtask

  task automatic t_log();
    win_rej_info_t info;
    logic [31:0] c_key, c_perm, c_range;
    logic h, w;
    rd(CNT_RX_REJECT_KEY_OFFSET, c_key, h, w);
    rd(CNT_RX_REJECT_PERM_OFFSET, c_perm, h, w);
    rd(CNT_RX_REJECT_RANGE_OFFSET, c_range, h, w);
    expect_reg(WIN_REJ_INFO_OFFSET, 0, "log empty after reset");
    pulse_reject(WIN_REJ_KEY, 16'h0102, 32'hCAFE_0001, 16'hBEEF, 48'h1234_5678_9ABC, PTYPE_WRITE);
    pulse_reject(WIN_REJ_RANGE, 16'h0303, 32'hCAFE_0002, 16'h1111, 48'h1, PTYPE_BCAST);
    info = '{valid: 1'b1, rsvd24: '0, ptype: PTYPE_WRITE, reason: WIN_REJ_KEY, src: 16'h0102};
    expect_reg(WIN_REJ_INFO_OFFSET, info, "first refusal logged, second not");
    expect_reg(WIN_REJ_MSG_ID_OFFSET, 32'hCAFE_0001, "log msg_id");
    expect_reg(WIN_REJ_ADDR_LO_OFFSET, 32'h5678_9ABC, "log addr lo");
    expect_reg(WIN_REJ_ADDR_HI_OFFSET, 32'hBEEF_1234, "log key | addr hi");
    wr(WIN_REJ_INFO_OFFSET, 32'h7FFF_FFFF);
    expect_reg(WIN_REJ_INFO_OFFSET, info, "only bit 31 clears the log");
    wr(WIN_REJ_INFO_OFFSET, 32'h8000_0000);
    expect_reg(WIN_REJ_INFO_OFFSET, 0, "log cleared");
    pulse_reject(WIN_REJ_RXWIN, 16'h0004, 32'h0000_0044, 16'h0, 48'h44, PTYPE_WRITE);
    pulse_reject(WIN_REJ_PERM, 16'h0005, 32'h0000_0055, 16'h0, 48'h55, PTYPE_WRITE);
    pulse_reject(WIN_REJ_INVALID, 16'h0006, 32'h0000_0066, 16'h0, 48'h66, PTYPE_WRITE);
    pulse_reject(WIN_REJ_CTX, 16'h0007, 32'h0000_0077, 16'h0, 48'h77, PTYPE_WRITE);
    info = '{valid: 1'b1, rsvd24: '0, ptype: PTYPE_WRITE, reason: WIN_REJ_RXWIN, src: 16'h0004};
    expect_reg(WIN_REJ_INFO_OFFSET, info, "an RXWIN refusal is logged too");
    expect_reg(WIN_REJ_MSG_ID_OFFSET, 32'h44, "log msg_id of the RXWIN refusal");
    expect_reg(CNT_RX_REJECT_KEY_OFFSET, c_key + 3, "KEY counts INVALID, KEY, CTX");
    expect_reg(CNT_RX_REJECT_PERM_OFFSET, c_perm + 1, "PERM counter");
    expect_reg(CNT_RX_REJECT_RANGE_OFFSET, c_range + 1, "RANGE counter (RXWIN not counted)");
    // A refusal in the cycle the log is cleared is kept.
    @(negedge clk);
    req_valid = 1'b1; req_write = 1'b1; req_addr = WIN_REJ_INFO_OFFSET[11:0];
    req_wdata = 32'h8000_0000;
    src = 16'h0009; msg_id = 32'h99; reject = 1'b1; reject_reason = WIN_REJ_RANGE;
    @(negedge clk);
    req_valid = 1'b0; req_write = 1'b0; reject = 1'b0;
    info = '{valid: 1'b1, rsvd24: '0, ptype: PTYPE_WRITE, reason: WIN_REJ_RANGE, src: 16'h0009};
    expect_reg(WIN_REJ_INFO_OFFSET, info, "refusal in the clearing cycle kept");
  endtask

  // A reset in the middle of a run: every table register reads zero again and every
  // window is invalid, for the lookup too. The table lives in distributed RAM, which a
  // reset does not clear (the `written` bits must).
  task automatic t_reset();
    set_enforce(1'b1);
    for (int i = 0; i < int'(NWin); i++) begin
      set_win(i, {16'(i + 1), 32'h1000 * (i + 1)}, 32'h1000, mkctrl(1, 1, 1, 3'(i), 12'(i + 7)));
    end
    check1("window 5 valid before the reset", PTYPE_WRITE, {12'd12, 4'd5},
           {16'd6, 32'h6000}, 16'd8, 3'd5, WIN_REJ_NONE);
    @(negedge clk);
    rst_n = 1'b0;
    @(negedge clk);
    rst_n = 1'b1;
    for (int i = 0; i < int'(NWin); i++) begin
      m_base[i] = '0;
      m_len[i]  = '0;
      m_ctrl[i] = '0;
      for (int r = 0; r < 4; r++) expect_reg(tbl(i, r), 32'h0, "table after a reset mid-run");
    end
    m_enforce = 1'b0;
    set_enforce(1'b1);
    check1("window 5 invalid after the reset", PTYPE_WRITE, {12'd12, 4'd5},
           {16'd6, 32'h6000}, 16'd8, 3'd5, WIN_REJ_INVALID);
    // Only the control written again: base and length read as their reset value, zero.
    wr(tbl(5, 3), mkctrl(1, 1, 1, 3'd5, 12'd12));
    m_ctrl[5] = mkctrl(1, 1, 1, 3'd5, 12'd12);
    expect_reg(tbl(5, 0), 32'h0, "base of a window whose control alone was rewritten");
    check1("a window of length 0 after the reset", PTYPE_WRITE, {12'd12, 4'd5},
           {16'd6, 32'h6000}, 16'd8, 3'd5, WIN_REJ_RANGE);
  endtask

  initial begin
    for (int i = 0; i < int'(NWin); i++) begin
      m_base[i] = '0;
      m_len[i]  = '0;
      m_ctrl[i] = '0;
    end
    repeat (3) @(posedge clk);
    rst_n = 1'b1;
    t_csr();
    t_directed();
    t_random();
    t_log();
    t_reset();
    if (errors != 0) $fatal(1, "tb_ddc_rx_window: %0d errors", errors);
    $display("tb_ddc_rx_window: PASS");
    $finish;
  end
endmodule
