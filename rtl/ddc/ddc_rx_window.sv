// Receive window table: keyed, per-packet protection of incoming remote writes
// (docs/WINDOWS.md).
//
// 16 windows (WIN_BASE_LO/HI, WIN_LEN, WIN_CTRL). A packet's 16-bit key selects its window
// directly with key[3:0], so there is no associative search; key[15:4] must equal the
// window's tag, which the driver draws at random, so knowing a window's index is not
// enough to write into it. With WIN_CFG.ENFORCE set, a WRITE or BCAST packet is accepted
// only if, in this order (the first failing check names the refusal):
//   INVALID  the window key[3:0] is valid,
//   KEY      its tag equals key[15:4],
//   CTX      its owner is the packet's destination context,
//   PERM     it allows the packet type (write, bcast),
//   RANGE    [addr, addr + len) lies inside [base, base + len).
// With ENFORCE clear every packet passes here (the outer RXWIN check in ddc_rx_ingress
// still applies), which is the behaviour of cards before the table existed. Packets that
// write nothing (ACK, NACK: header only) are not the table's business either: they pass.
//
// Two register stages: the window is selected and its key, context and permission
// compared in the first, the range compared in the second. The ingress holds a packet's
// header fields from the cycle after header flit 1 until the packet's verdict, and the
// shortest valid packet ends three flits later, so the verdict never waits for the table.
//
// The CSR side (snooped like ddc_push; ddc_csr answers with csr_rdata_o when csr_hit_o)
// also holds WIN_CFG, the refusal log WIN_REJ_* and the CNT_RX_REJECT_* counters, so the
// window block is one piece. The log keeps the first refusal (RXWIN refusals included)
// until software writes 1 to WIN_REJ_INFO bit 31; later refusals are only counted.
module ddc_rx_window
  import fasthsl_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,
  // CSR bus (snooped)
  input  logic        csr_req_valid_i,
  input  logic        csr_req_write_i,
  input  logic [11:0] csr_req_addr_i,
  input  logic [31:0] csr_req_wdata_i,
  output logic        csr_hit_o,       // the address is one of this block's registers
  output logic        csr_wr_ok_o,     // ... and writable
  output logic [31:0] csr_rdata_o,     // its value (combinational)
  // packet under check, from the ingress's header registers
  input  logic [3:0]  pkt_ptype_i,
  input  logic [15:0] pkt_src_i,
  input  logic [15:0] pkt_key_i,
  input  logic [47:0] pkt_addr_i,
  input  logic [15:0] pkt_len_i,
  input  logic [2:0]  pkt_ctx_i,
  input  logic [31:0] pkt_msg_id_i,
  // verdict, two cycles after the packet fields
  output win_rej_e    rej_o,
  // refusal event (one-cycle pulse while the pkt_* fields still hold the packet)
  input  logic        reject_i,
  input  win_rej_e    reject_reason_i,
  output logic        win_reject_o      // a refusal by the table (not RXWIN): ERR bit
);
  localparam int unsigned NWin = WIN_CTRL_COUNT;

  // ---- table ----
  // The table lives in distributed RAM: a packet reads one window by key[3:0] and a CSR
  // read one register, never all of them at once, so registers and their 16-way
  // multiplexers (two read ports of 112 bits) were not needed. RAM has no reset: a
  // register not written since reset reads as its reset value, zero (a window invalid),
  // by its `written` bit, for the packet's lookup as for the CSR read.
  localparam int unsigned WinW = $clog2(NWin);
  (* ram_style = "distributed" *) logic [31:0] base_lo_mem [NWin];
  (* ram_style = "distributed" *) logic [15:0] base_hi_mem [NWin];
  (* ram_style = "distributed" *) logic [31:0] len_mem     [NWin];
  (* ram_style = "distributed" *) win_ctrl_t   ctrl_mem    [NWin];
  // Per register of the window (tbl_reg: base lo, base hi, len, ctrl) and window.
  logic [3:0][NWin-1:0] written_q;

  function automatic logic [31:0] win_base_lo(logic [WinW-1:0] w);
    return written_q[0][w] ? base_lo_mem[w] : 32'h0;
  endfunction
  function automatic logic [15:0] win_base_hi(logic [WinW-1:0] w);
    return written_q[1][w] ? base_hi_mem[w] : 16'h0;
  endfunction
  function automatic logic [31:0] win_len(logic [WinW-1:0] w);
    return written_q[2][w] ? len_mem[w] : 32'h0;
  endfunction
  function automatic win_ctrl_t win_ctrl(logic [WinW-1:0] w);
    return written_q[3][w] ? ctrl_mem[w] : '0;
  endfunction
  logic                  enforce_q;

  logic [15:0] addr;
  logic        wr, aligned, in_tbl;
  logic [3:0]  tbl_idx;
  logic [1:0]  tbl_reg;
  assign addr    = {4'h0, csr_req_addr_i};
  assign wr      = csr_req_valid_i && csr_req_write_i;
  assign aligned = (addr[1:0] == 2'b00);
  assign in_tbl  = aligned && (addr >= WIN_BASE_LO_OFFSET) &&
                   (addr < WIN_BASE_LO_OFFSET + 16'(NWin * WIN_BASE_LO_STRIDE));
  assign tbl_idx = addr[7:4];
  assign tbl_reg = addr[3:2];

  // Reserved bits of WIN_CTRL read as 0.
  localparam win_ctrl_t CtrlMask = '{tag: '1, rsvd7: '0, owner: '1, rsvd3: '0,
                                     bcast: 1'b1, write: 1'b1, valid: 1'b1};

  // ---- refusal log and counters ----
  win_rej_info_t rej_info_q;
  logic [31:0]   rej_msg_id_q;
  logic [47:0]   rej_addr_q;
  logic [15:0]   rej_key_q;
  logic [31:0]   cnt_key_q, cnt_perm_q, cnt_range_q;

  always_comb begin
    csr_hit_o   = 1'b1;
    csr_wr_ok_o = 1'b1;
    csr_rdata_o = '0;
    if (in_tbl) begin
      unique case (tbl_reg)
        2'd0:    csr_rdata_o = win_base_lo(tbl_idx);
        2'd1:    csr_rdata_o = 32'(win_base_hi(tbl_idx));
        2'd2:    csr_rdata_o = win_len(tbl_idx);
        default: csr_rdata_o = win_ctrl(tbl_idx);
      endcase
    end else begin
      unique case (addr)
        WIN_CFG_OFFSET:         csr_rdata_o = 32'(enforce_q);
        WIN_REJ_INFO_OFFSET:    csr_rdata_o = rej_info_q;
        WIN_REJ_MSG_ID_OFFSET: begin
          csr_rdata_o = rej_msg_id_q;
          csr_wr_ok_o = 1'b0;
        end
        WIN_REJ_ADDR_LO_OFFSET: begin
          csr_rdata_o = rej_addr_q[31:0];
          csr_wr_ok_o = 1'b0;
        end
        WIN_REJ_ADDR_HI_OFFSET: begin
          csr_rdata_o = {rej_key_q, rej_addr_q[47:32]};
          csr_wr_ok_o = 1'b0;
        end
        CNT_RX_REJECT_KEY_OFFSET: begin
          csr_rdata_o = cnt_key_q;
          csr_wr_ok_o = 1'b0;
        end
        CNT_RX_REJECT_PERM_OFFSET: begin
          csr_rdata_o = cnt_perm_q;
          csr_wr_ok_o = 1'b0;
        end
        CNT_RX_REJECT_RANGE_OFFSET: begin
          csr_rdata_o = cnt_range_q;
          csr_wr_ok_o = 1'b0;
        end
        default: begin
          csr_hit_o   = 1'b0;
          csr_wr_ok_o = 1'b0;
        end
      endcase
    end
  end

  logic wr_tbl, wr_cfg, wr_info;
  assign wr_tbl  = wr && in_tbl;
  assign wr_cfg  = wr && (addr == WIN_CFG_OFFSET);
  assign wr_info = wr && (addr == WIN_REJ_INFO_OFFSET);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      written_q <= '0;
      enforce_q <= 1'b0;
    end else begin
      if (wr_cfg) enforce_q <= csr_req_wdata_i[WIN_CFG_ENFORCE_BIT];
      if (wr_tbl) written_q[tbl_reg][tbl_idx] <= 1'b1;
    end
  end

  // ---- check, stage 1: select by key[3:0]; key, context, permission ----
  always_ff @(posedge clk_i) begin
    if (wr_tbl) begin
      unique case (tbl_reg)
        2'd0:    base_lo_mem[tbl_idx] <= csr_req_wdata_i;
        2'd1:    base_hi_mem[tbl_idx] <= csr_req_wdata_i[15:0];
        2'd2:    len_mem[tbl_idx]     <= csr_req_wdata_i;
        default: ctrl_mem[tbl_idx]    <= win_ctrl_t'(csr_req_wdata_i & 32'(CtrlMask));
      endcase
    end
  end

  win_ctrl_t   sel_ctrl;
  win_rej_e    s1_rej_q, s1_rej_d;
  logic        s1_writes_q;
  logic [47:0] s1_base_q, s1_addr_q;
  logic [31:0] s1_wlen_q;
  logic [15:0] s1_plen_q;
  logic        perm_ok, writes;
  always_comb begin
    sel_ctrl = win_ctrl(pkt_key_i[3:0]);
    writes   = (pkt_ptype_i == PTYPE_WRITE) || (pkt_ptype_i == PTYPE_BCAST);
    perm_ok  = (pkt_ptype_i == PTYPE_BCAST) ? sel_ctrl.bcast : sel_ctrl.write;
    if (!enforce_q || !writes)              s1_rej_d = WIN_REJ_NONE;
    else if (!sel_ctrl.valid)               s1_rej_d = WIN_REJ_INVALID;
    else if (sel_ctrl.tag != pkt_key_i[15:4]) s1_rej_d = WIN_REJ_KEY;
    else if (sel_ctrl.owner != pkt_ctx_i)   s1_rej_d = WIN_REJ_CTX;
    else if (!perm_ok)                      s1_rej_d = WIN_REJ_PERM;
    else                                    s1_rej_d = WIN_REJ_NONE;
  end

  // ---- stage 2: range, written without addr + len so nothing can wrap ----
  win_rej_e    s2_rej_q, s2_rej_d;
  logic [47:0] off;
  logic [31:0] room;
  logic        range_ok;
  always_comb begin
    off      = s1_addr_q - s1_base_q;
    room     = s1_wlen_q - 32'(s1_plen_q);
    range_ok = (s1_addr_q >= s1_base_q) && (s1_wlen_q >= 32'(s1_plen_q)) &&
               (off <= 48'(room));
    s2_rej_d = s1_rej_q;
    if (enforce_q && s1_writes_q && s1_rej_q == WIN_REJ_NONE && !range_ok) begin
      s2_rej_d = WIN_REJ_RANGE;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_rej_q    <= WIN_REJ_NONE;
      s1_writes_q <= 1'b0;
      s1_base_q   <= '0;
      s1_addr_q   <= '0;
      s1_wlen_q   <= '0;
      s1_plen_q   <= '0;
      s2_rej_q    <= WIN_REJ_NONE;
    end else begin
      s1_rej_q    <= s1_rej_d;
      s1_writes_q <= writes;
      s1_base_q   <= {win_base_hi(pkt_key_i[3:0]), win_base_lo(pkt_key_i[3:0])};
      s1_addr_q   <= pkt_addr_i;
      s1_wlen_q   <= win_len(pkt_key_i[3:0]);
      s1_plen_q   <= pkt_len_i;
      s2_rej_q    <= s2_rej_d;
    end
  end

  assign rej_o = s2_rej_q;

  logic unused_sel;
  assign unused_sel = ^{sel_ctrl.rsvd7, sel_ctrl.rsvd3};

  // ---- refusal log and counters ----
  logic log_clr, log_now;
  assign log_clr      = wr_info && csr_req_wdata_i[31];
  assign log_now      = reject_i && (!rej_info_q.valid || log_clr);
  assign win_reject_o = reject_i && (reject_reason_i != WIN_REJ_RXWIN);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rej_info_q   <= '0;
      rej_msg_id_q <= '0;
      rej_addr_q   <= '0;
      rej_key_q    <= '0;
      cnt_key_q    <= '0;
      cnt_perm_q   <= '0;
      cnt_range_q  <= '0;
    end else begin
      // A refusal in the clearing cycle wins: it is logged, not lost.
      if (log_clr) rej_info_q <= '0;
      if (log_now) begin
        rej_info_q   <= '{valid: 1'b1, rsvd24: '0, ptype: pkt_ptype_i,
                          reason: 4'(reject_reason_i), src: pkt_src_i};
        rej_msg_id_q <= pkt_msg_id_i;
        rej_addr_q   <= pkt_addr_i;
        rej_key_q    <= pkt_key_i;
      end
      if (reject_i) begin
        unique case (reject_reason_i)
          WIN_REJ_INVALID, WIN_REJ_KEY, WIN_REJ_CTX: cnt_key_q <= cnt_key_q + 32'd1;
          WIN_REJ_PERM:  cnt_perm_q  <= cnt_perm_q + 32'd1;
          WIN_REJ_RANGE: cnt_range_q <= cnt_range_q + 32'd1;
          default: ;
        endcase
      end
    end
  end

endmodule
