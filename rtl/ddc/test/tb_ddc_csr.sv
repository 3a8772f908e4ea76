// Self-checking test of ddc_csr: reset values, rw/ro/rw1c behaviour, every rejection
// (undefined or unaligned offset, write to a read-only register, bad MTU or ring size,
// ring index out of range) bumping CNT_CSR_ERR and its ERR_STATUS bit while leaving every
// other register unchanged, ring reset pulses, interrupt logic, event counters, and the
// one-cycle read response (checked on every cycle by a monitor). Push window: writes are
// accepted and change nothing but LME_PROD on the trigger (checked like an LME_PROD
// write), reads are rejected; PUSH_STATUS, the push counters and ERR_STATUS.PUSH_REJECT.
// Interrupt coalescing through the registers: count and time thresholds per source, masks
// gate only the line, an ack keeps pending events, a ring size write drops them, ERROR is
// never coalesced (the coalescer itself is checked cycle by cycle in tb_ddc_int_coal).
module tb_ddc_csr;
  import fasthsl_pkg::*;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  logic run = 1'b0;
  always #5 clk = ~clk;

  logic        req_valid = 1'b0, req_write = 1'b0;
  logic [11:0] req_addr = '0;
  logic [31:0] req_wdata = '0;
  logic        rsp_valid;
  logic [31:0] rsp_rdata;
  logic        enable;
  logic [15:0] node_id, mtu, dest_lo, dest_hi, lme_size, lme_prod, lmr_size, lmr_cons;
  logic [63:0] lme_base, lmr_base, rxwin_base, rxwin_size;
  logic        lme_reset, lmr_reset, irq;
  logic [15:0] lme_cons = 16'h0123, lmr_prod = 16'h0456;
  // event inputs: desc_done, desc_err, desc_irq, pkt_sent, rx_pkt, rx_msg, rx_msg_irq,
  // drop_crc, drop_dest, drop_malformed, drop_window, push_accept, push_reject, dma_rd_err,
  // rx_msg_expired, rx_track_full, ack_tx, nack_tx, ack_rx, nack_rx, drop_ctx, rx_dup,
  // rx_seq_evict, rx_early_nack, rx_lmr_full
  logic [24:0] ev = '0;
  logic [1:0]  ans_drop = '0;
  logic        ack_off, sender_wait;
  logic [15:0] rel_timeout;
  logic        dedup, early_nack;
  logic [3:0]  rel_retries;
  logic [4:0]  tx_quantum;
  logic        rel_retx = 1'b0;
  logic [4:0]  rel_timeouts = '0;
  logic [3:0]  ctx_err = '0;   // rejections on the context pages (ddc_ctx_csr)
  logic [2:0]  lme_ctx = '0, lmr_ctx = '0;   // contexts of the desc_irq / rx_msg_irq events
  logic        push_free = 1'b1;
  // ddc_rx_window's side of the bus (its own registers are tested in tb_ddc_rx_window)
  logic        win_hit = 1'b0, win_wr_ok = 1'b0, win_reject = 1'b0;
  logic [31:0] win_rdata = '0;

  ddc_csr dut (
    .clk_i              (clk),
    .rst_ni             (rst_n),
    .csr_req_valid_i    (req_valid),
    .csr_req_write_i    (req_write),
    .csr_req_addr_i     (req_addr),
    .csr_req_wdata_i    (req_wdata),
    .csr_rsp_valid_o    (rsp_valid),
    .csr_rsp_rdata_o    (rsp_rdata),
    .enable_o           (enable),
    .node_id_o          (node_id),
    .mtu_o              (mtu),
    .dest_lo_o          (dest_lo),
    .dest_hi_o          (dest_hi),
    .lme_base_o         (lme_base),
    .lme_size_o         (lme_size),
    .lme_prod_o         (lme_prod),
    .lme_reset_o        (lme_reset),
    .lme_cons_i         (lme_cons),
    .lmr_base_o         (lmr_base),
    .lmr_size_o         (lmr_size),
    .lmr_cons_o         (lmr_cons),
    .lmr_reset_o        (lmr_reset),
    .lmr_prod_i         (lmr_prod),
    .rxwin_base_o       (rxwin_base),
    .rxwin_size_o       (rxwin_size),
    .ack_off_o          (ack_off),
    .sender_wait_o      (sender_wait),
    .rel_timeout_o      (rel_timeout),
    .dedup_o            (dedup),
    .early_nack_o       (early_nack),
    .rel_retries_o      (rel_retries),
    .tx_quantum_o       (tx_quantum),
    .tx_desc_done_i     (ev[0]),
    .tx_desc_err_i      (ev[1]),
    .tx_desc_irq_i      (ev[2]),
    .tx_desc_irq_ctx_i  (lme_ctx),
    .tx_pkt_sent_i      (ev[3]),
    .rx_pkt_i           (ev[4]),
    .rx_msg_i           (ev[5]),
    .rx_msg_irq_i       (ev[6]),
    .rx_msg_irq_ctx_i   (lmr_ctx),
    .rx_drop_crc_i      (ev[7]),
    .rx_drop_dest_i     (ev[8]),
    .rx_drop_malformed_i(ev[9]),
    .rx_drop_window_i   (ev[10]),
    .push_free_i        (push_free),
    .push_accept_i      (ev[11]),
    .push_reject_i      (ev[12]),
    .dma_rd_err_i       (ev[13]),
    .rx_msg_expired_i   (ev[14]),
    .rx_track_full_i    (ev[15]),
    .ack_tx_i           (ev[16]),
    .nack_tx_i          (ev[17]),
    .ack_rx_i           (ev[18]),
    .nack_rx_i          (ev[19]),
    .ans_drop_i         (ans_drop),
    .rel_retx_i         (rel_retx),
    .rel_timeouts_i     (rel_timeouts),
    .win_hit_i          (win_hit),
    .win_wr_ok_i        (win_wr_ok),
    .win_rdata_i        (win_rdata),
    .win_reject_i       (win_reject),
    .rx_drop_ctx_i      (ev[20]),
    .rx_dup_i           (ev[21]),
    .rx_seq_evict_i     (ev[22]),
    .rx_early_nack_i    (ev[23]),
    .rx_lmr_full_i      (ev[24]),
    .ctx_csr_err_i      (ctx_err),
    .irq_o              (irq)
  );

`include "ddc_tb_check.svh"

  // ---- the register map as the test knows it ----
  typedef enum int { RW, RO, RW1C } acc_e;
  typedef struct {
    string       name;
    logic [11:0] off;
    acc_e        acc;
    logic [31:0] rst;
    logic [31:0] mask;   // writable/readable bits
  } reg_t;
  reg_t regs[$];

  function automatic void add(string n, logic [15:0] o, acc_e a, logic [31:0] r, logic [31:0] m);
    reg_t x;
    x.name = n; x.off = o[11:0]; x.acc = a; x.rst = r; x.mask = m;
    regs.push_back(x);
  endfunction

  function automatic int find(logic [15:0] o);
    foreach (regs[i]) if (regs[i].off == o[11:0]) return i;
    return -1;
  endfunction

  // ---- read response monitor: valid exactly one cycle after each read ----
  logic exp_rsp = 1'b0;
  always @(posedge clk) begin
    if (run) begin
      `CHECK(rsp_valid == exp_rsp, $sformatf("rsp_valid %0b, expected %0b", rsp_valid, exp_rsp))
    end
    exp_rsp = req_valid && !req_write;
  end

  // Bus driven on the falling edge, response sampled on the next falling edge.
  task automatic wr(logic [15:0] a, logic [31:0] d);
    @(negedge clk);
    req_valid <= 1'b1;
    req_write <= 1'b1;
    req_addr  <= a[11:0];
    req_wdata <= d;
    @(negedge clk);
    req_valid <= 1'b0;
    req_write <= 1'b0;
  endtask

  task automatic rd(logic [15:0] a, output logic [31:0] d);
    @(negedge clk);
    req_valid <= 1'b1;
    req_write <= 1'b0;
    req_addr  <= a[11:0];
    req_wdata <= $urandom();
    @(negedge clk);
    req_valid <= 1'b0;
    `CHECK(rsp_valid, "no read response")
    d = rsp_rdata;
  endtask

  task automatic expect_rd(logic [15:0] a, logic [31:0] exp, string what);
    logic [31:0] d;
    rd(a, d);
    `CHECK(d == exp, $sformatf("%s: read %03h = %h, expected %h", what, a, d, exp))
  endtask

  task automatic pulse(int idx, int times);
    for (int i = 0; i < times; i++) begin
      @(negedge clk);
      ev[idx] = 1'b1;
      @(negedge clk);
      ev[idx] = 1'b0;
    end
  endtask

  // Snapshot of every register; the counters that rejections touch are compared apart.
  logic [31:0] snap[int];
  task automatic take(output logic [31:0] s[int]);
    s.delete();
    foreach (regs[i]) begin
      logic [31:0] d;
      rd({4'h0, regs[i].off}, d);
      s[i] = d;
    end
  endtask

  // A rejected access: the error counter +1, the given ERR_STATUS bit set, nothing else.
  task automatic expect_reject(string what, bit is_write, logic [15:0] a, logic [31:0] d,
                               int err_bit);
    logic [31:0] s0[int], s1[int];
    logic [31:0] rdv;
    int i_cnt = find(CNT_CSR_ERR_OFFSET), i_err = find(ERR_STATUS_OFFSET);
    int i_int = find(INT_STATUS_OFFSET);
    wr(ERR_STATUS_OFFSET, 32'h1007F);
    take(s0);
    `CHECK(s0[i_err] == 0, "ERR_STATUS did not clear")
    if (is_write) wr(a, d);
    else begin
      rd(a, rdv);
      `CHECK(rdv == 32'hFFFF_FFFF, $sformatf("%s: read returned %h", what, rdv))
    end
    take(s1);
    foreach (regs[i]) begin
      if (i == i_cnt) begin
        `CHECK(s1[i] == s0[i] + 1, $sformatf("%s: CNT_CSR_ERR %0d -> %0d", what,
                                                    s0[i], s1[i]))
      end else if (i == i_err) begin
        `CHECK(s1[i] == (32'h1 << err_bit), $sformatf("%s: ERR_STATUS %h", what, s1[i]))
      end else if (i == i_int) begin
        `CHECK(s1[i] == (s0[i] | 32'h4), $sformatf("%s: INT_STATUS %h", what, s1[i]))
      end else begin
        `CHECK(s1[i] == s0[i], $sformatf("%s: %s changed %h -> %h", what,
                                                regs[i].name, s0[i], s1[i]))
      end
    end
  endtask

  // An accepted write: only the target (and the given side effects) change.
  task automatic expect_accept(string what, logic [15:0] a, logic [31:0] d);
    logic [31:0] v;
    int i = find(a);
    logic [31:0] cnt0, cnt1;
    rd(CNT_CSR_ERR_OFFSET, cnt0);
    wr(a, d);
    rd(a, v);
    `CHECK(v == (d & regs[i].mask), $sformatf("%s: wrote %h, read %h", what, d, v))
    rd(CNT_CSR_ERR_OFFSET, cnt1);
    `CHECK(cnt1 == cnt0, $sformatf("%s: counted as an error", what))
  endtask

  logic [31:0] bad_mtu[9] = '{32'd0, 32'd4, 32'd7, 32'd12, 32'd1020, 32'd1032,
                             32'(MTU_MAX + 8), 32'h0001_0008, 32'hFFFF_FFF8};
  // gaps in the map, the end of the page, and unaligned offsets of defined registers
  logic [15:0] und[18] = '{16'h018, 16'h01C, 16'h038, 16'h03C, 16'h054, 16'h070, 16'h07C,
                           16'h08C, 16'h0FC, 16'h16C, 16'h1FC, 16'h258, 16'hFFC, 16'h001,
                           16'h006, 16'h00B, 16'h103, 16'h202};

  // reset values
  task automatic t_reset_values();
    logic [31:0] d;
    foreach (regs[i]) expect_rd({4'h0, regs[i].off}, regs[i].rst, {"reset ", regs[i].name});
    `CHECK(!enable && node_id == 0 && mtu == 16'(MTU_MAX) && dest_lo == 0 &&
           dest_hi == 16'hFFFF && lme_size == 0 && lmr_size == 0 && !irq, "reset outputs")
  endtask

  // back-to-back reads, one per cycle
  task automatic t_back_to_back_reads_one_per_cycle();
    logic [31:0] d;
    @(negedge clk);
    for (int i = 0; i < regs.size(); i++) begin
      req_valid <= 1'b1;
      req_write <= 1'b0;
      req_addr  <= regs[i].off;
      @(negedge clk);
      `CHECK(rsp_valid && rsp_rdata == regs[i].rst, $sformatf("streamed read of %s",
                                                                regs[i].name))
    end
    req_valid <= 1'b0;
    @(negedge clk);
    `CHECK(!rsp_valid, "response without a request")
  endtask

  // rw registers: random values round-trip, outputs follow
  task automatic t_rw_registers_random_values_round_trip_outputs_follow();
    logic [31:0] d;
    for (int n = 0; n < 20; n++) begin
      foreach (regs[i]) begin
        logic [31:0] v = $urandom();
        if (regs[i].acc != RW) continue;
        if (regs[i].off inside {MTU_OFFSET[11:0], LME_SIZE_OFFSET[11:0], LMR_SIZE_OFFSET[11:0],
                                LME_PROD_OFFSET[11:0], LMR_CONS_OFFSET[11:0],
                                TX_QUANTUM_OFFSET[11:0]}) continue;
        expect_accept(regs[i].name, {4'h0, regs[i].off}, v);
      end
    end
    wr(NODE_ID_OFFSET, 32'hABCD_1234);
    wr(CTRL_OFFSET, 32'hFFFF_FFFF);
    wr(DEST_RANGE_OFFSET, 32'h0030_0010);
    wr(LME_BASE_LO_OFFSET, 32'h8765_433F);
    wr(LME_BASE_HI_OFFSET, 32'h0000_0012);
    wr(LMR_BASE_LO_OFFSET, 32'h1111_1125);
    wr(LMR_BASE_HI_OFFSET, 32'h2222_2222);
    wr(RXWIN_BASE_LO_OFFSET, 32'h3333_3333);
    wr(RXWIN_BASE_HI_OFFSET, 32'h4444_4444);
    wr(RXWIN_SIZE_LO_OFFSET, 32'h5555_5555);
    wr(RXWIN_SIZE_HI_OFFSET, 32'h6666_6666);
    wr(REL_CTRL_OFFSET, 32'hFFFF_FFFE);
    @(negedge clk);
    `CHECK(!ack_off && sender_wait && dedup && early_nack,
           "REL_CTRL.ACK_OFF output clear, SENDER_WAIT, DEDUP, EARLY_NACK set")
    wr(REL_CTRL_OFFSET, 32'h0000_0001);
    @(negedge clk);
    `CHECK(ack_off && !sender_wait && !dedup && !early_nack,
           "REL_CTRL.ACK_OFF output set, SENDER_WAIT, DEDUP, EARLY_NACK clear")
    wr(REL_CTRL_OFFSET, 32'h0000_0008);
    @(negedge clk);
    `CHECK(!ack_off && !sender_wait && !dedup && early_nack, "REL_CTRL.EARLY_NACK alone")
    wr(REL_RETRIES_OFFSET, 32'hFFFF_FFF9);
    @(negedge clk);
    `CHECK(rel_retries == 4'd9, "REL_RETRIES output")
    wr(REL_TIMEOUT_OFFSET, 32'hFFFF_0007);
    @(negedge clk);
    `CHECK(rel_timeout == 16'd7, "REL_TIMEOUT output")
    wr(REL_RETRIES_OFFSET, 32'hFFFF_FFF5);
    @(negedge clk);
    `CHECK(rel_retries == 4'd5, "REL_RETRIES output")
    `CHECK(node_id == 16'h1234 && enable && dest_lo == 16'h0010 && dest_hi == 16'h0030,
           "config outputs")
    `CHECK(lme_base == 64'h0000_0012_8765_4320 && lmr_base == 64'h2222_2222_1111_1120,
           "ring bases (32-byte aligned on the outputs)")
    expect_rd(LME_BASE_LO_OFFSET, 32'h8765_433F, "LME_BASE_LO reads back as written");
    `CHECK(rxwin_base == 64'h4444_4444_3333_3333 && rxwin_size == 64'h6666_6666_5555_5555,
           "window outputs")
    expect_rd(LME_CONS_OFFSET, 32'h0123, "LME_CONS from TX");
    expect_rd(LMR_PROD_OFFSET, 32'h0456, "LMR_PROD from RX");
    lme_cons = 16'hBEEF;
    lmr_prod = 16'hCAFE;
    expect_rd(LME_CONS_OFFSET, 32'hBEEF, "LME_CONS follows TX");
    expect_rd(LMR_PROD_OFFSET, 32'hCAFE, "LMR_PROD follows RX");
  endtask

  // MTU
  task automatic t_mtu();
    logic [31:0] d;
    foreach (bad_mtu[k]) expect_reject($sformatf("MTU=%0d", bad_mtu[k]), 1, MTU_OFFSET,
                                       bad_mtu[k], 1);
    expect_accept("MTU=8", MTU_OFFSET, 8);
    expect_accept("MTU=512", MTU_OFFSET, 512);
    expect_accept("MTU=MAX", MTU_OFFSET, MTU_MAX);
    `CHECK(mtu == 16'(MTU_MAX), "mtu output")
  endtask

  // TX_QUANTUM: 0 or 6..24, anything else refused and the old value kept
  task automatic t_tx_quantum();
    logic [31:0] bad_q[7] = '{32'd1, 32'd5, 32'd25, 32'd31, 32'd32, 32'h0000_0106,
                             32'hFFFF_FFFF};
    `CHECK(tx_quantum == 5'(TX_QUANTUM_RESET), "TX_QUANTUM output at reset")
    expect_accept("TX_QUANTUM=6", TX_QUANTUM_OFFSET, 6);
    `CHECK(tx_quantum == 5'd6, "TX_QUANTUM output 6")
    foreach (bad_q[k]) expect_reject($sformatf("TX_QUANTUM=%0d", bad_q[k]), 1,
                                     TX_QUANTUM_OFFSET, bad_q[k], 1);
    `CHECK(tx_quantum == 5'd6, "TX_QUANTUM kept after refused writes")
    expect_accept("TX_QUANTUM=24", TX_QUANTUM_OFFSET, 24);
    expect_accept("TX_QUANTUM=0", TX_QUANTUM_OFFSET, 0);
    `CHECK(tx_quantum == 5'd0, "TX_QUANTUM output 0 (off)")
    expect_accept("TX_QUANTUM=reset", TX_QUANTUM_OFFSET, TX_QUANTUM_RESET);
  endtask

  // ring sizes and indices
  task automatic t_ring_sizes_and_indices();
    logic [31:0] d;
    wr(LME_SIZE_OFFSET, 16);
    wr(LME_PROD_OFFSET, 5);
    wr(LMR_SIZE_OFFSET, 32);
    wr(LMR_CONS_OFFSET, 7);
    expect_rd(LME_PROD_OFFSET, 5, "LME_PROD");
    expect_rd(LMR_CONS_OFFSET, 7, "LMR_CONS");
    `CHECK(lme_prod == 5 && lmr_cons == 7 && lme_size == 16 && lmr_size == 32, "ring outputs")
    expect_reject("LME_SIZE=0", 1, LME_SIZE_OFFSET, 0, 1);
    expect_reject("LME_SIZE=MAX+1", 1, LME_SIZE_OFFSET, RING_SIZE_MAX + 1, 1);
    expect_reject("LME_SIZE=0x10010", 1, LME_SIZE_OFFSET, 32'h0001_0010, 1);
    expect_reject("LMR_SIZE=0", 1, LMR_SIZE_OFFSET, 0, 1);
    expect_reject("LMR_SIZE=MAX+1", 1, LMR_SIZE_OFFSET, RING_SIZE_MAX + 1, 1);
    expect_reject("LMR_SIZE=0x10010", 1, LMR_SIZE_OFFSET, 32'h0001_0010, 1);
    expect_reject("LME_PROD=size", 1, LME_PROD_OFFSET, 16, 2);
    expect_reject("LME_PROD=big", 1, LME_PROD_OFFSET, 32'h0001_0003, 2);
    expect_reject("LMR_CONS=size", 1, LMR_CONS_OFFSET, 32, 3);
    expect_reject("LMR_CONS=big", 1, LMR_CONS_OFFSET, 32'h8000_0001, 3);
    expect_accept("LME_PROD=15", LME_PROD_OFFSET, 15);
    expect_accept("LMR_CONS=31", LMR_CONS_OFFSET, 31);
    // A size write resets the ring indices and pulses the reset, for one cycle, visible
    // together with the new size.
    begin
      int lme_pulses = 0, lmr_pulses = 0;
      fork
        begin
          wr(LME_SIZE_OFFSET, RING_SIZE_MAX);
          wr(LMR_SIZE_OFFSET, 1);
          repeat (3) @(negedge clk);
        end
        begin
          repeat (8) begin
            @(posedge clk);
            if (lme_reset) begin
              lme_pulses++;
              `CHECK(lme_size == 16'(RING_SIZE_MAX) && lme_prod == 0, "lme_reset with new size")
            end
            if (lmr_reset) begin
              lmr_pulses++;
              `CHECK(lmr_size == 1 && lmr_cons == 0, "lmr_reset with new size")
            end
          end
        end
      join
      `CHECK(lme_pulses == 1 && lmr_pulses == 1, $sformatf("reset pulses %0d/%0d", lme_pulses,
                                                           lmr_pulses))
    end
    expect_rd(LME_PROD_OFFSET, 0, "LME_PROD after LME_SIZE write");
    expect_rd(LMR_CONS_OFFSET, 0, "LMR_CONS after LMR_SIZE write");
    expect_rd(LME_SIZE_OFFSET, RING_SIZE_MAX, "LME_SIZE max");
    expect_reject("LMR_CONS=1 (size 1)", 1, LMR_CONS_OFFSET, 1, 3);
    expect_accept("LME_PROD=MAX-1", LME_PROD_OFFSET, RING_SIZE_MAX - 1);
    // A rejected size write leaves the indices alone.
    wr(LME_PROD_OFFSET, 77);
    expect_reject("LME_SIZE=0 keeps prod", 1, LME_SIZE_OFFSET, 0, 1);
    expect_rd(LME_PROD_OFFSET, 77, "LME_PROD after rejected size");
  endtask

  // read-only registers
  task automatic t_read_only_registers();
    logic [31:0] d;
    foreach (regs[i]) begin
      if (regs[i].acc == RO) expect_reject({"write ", regs[i].name}, 1, {4'h0, regs[i].off},
                                           $urandom(), 0);
    end
  endtask

  // undefined offsets, read and write
  task automatic t_undefined_offsets_read_and_write();
    logic [31:0] d;
    foreach (und[k]) begin
      expect_reject($sformatf("read %03h", und[k]), 0, und[k], 0, 0);
      expect_reject($sformatf("write %03h", und[k]), 1, und[k], $urandom(), 0);
    end
  endtask

  // ddc_rx_window's registers: read data comes from it, its writable ones are no error,
  // its read-only ones are; a table refusal sets ERR_STATUS.WIN_REJECT (and ERROR).
  task automatic t_window_block();
    logic [31:0] d;
    int i_cnt = find(CNT_CSR_ERR_OFFSET);
    logic [31:0] c0[int], c1[int];
    win_hit   = 1'b1;
    win_rdata = 32'hA5C3_0F17;
    expect_rd(WIN_CTRL_OFFSET, 32'hA5C3_0F17, "window block read");
    take(c0);
    win_wr_ok = 1'b1;
    wr(WIN_CTRL_OFFSET, 32'h1);
    take(c1);
    `CHECK(c1[i_cnt] == c0[i_cnt], "write to a writable window register counted as error")
    win_wr_ok = 1'b0;
    wr(WIN_REJ_MSG_ID_OFFSET, 32'h1);
    take(c1);
    `CHECK(c1[i_cnt] == c0[i_cnt] + 1, "write to a read-only window register not rejected")
    win_hit = 1'b0;
    wr(ERR_STATUS_OFFSET, 32'h1007F);
    @(negedge clk);
    win_reject = 1'b1;
    @(negedge clk);
    win_reject = 1'b0;
    expect_rd(ERR_STATUS_OFFSET, 32'h1_0000, "WIN_REJECT");
    expect_rd(INT_STATUS_OFFSET, 32'h4, "ERROR follows WIN_REJECT");
    wr(ERR_STATUS_OFFSET, 32'h1_0000);
    expect_rd(ERR_STATUS_OFFSET, 32'h0, "WIN_REJECT cleared");
  endtask

  // push window: reads rejected; writes accepted, only the trigger moves LME_PROD
  task automatic t_push_window();
    logic [31:0] s0[int], s1[int];
    logic [15:0] win[4] = '{PUSH_DESC_OFFSET, PUSH_DESC_OFFSET + 16'h18, PUSH_DATA_OFFSET,
                            PUSH_DATA_OFFSET + 16'(4 * (PUSH_DATA_COUNT - 1))};
    int i_prod = find(LME_PROD_OFFSET);
    for (int k = 0; k < 4; k++) begin : g_rd
      expect_reject($sformatf("read push window %03h", win[k]), 0, win[k], 0, 0);
    end
    wr(LME_SIZE_OFFSET, 8);
    take(s0);
    for (int k = 0; k < 7; k++) begin : g_wd
      wr(PUSH_DESC_OFFSET + 16'(4 * k), $urandom());
    end
    for (int k = 0; k < int'(PUSH_DATA_COUNT); k++) begin : g_wdata
      wr(PUSH_DATA_OFFSET + 16'(4 * k), $urandom());
    end
    take(s1);
    for (int i = 0; i < regs.size(); i++) begin : g_cmp
      `CHECK(s1[i] == s0[i], $sformatf("push window write changed %s", regs[i].name))
    end
    wr(PUSH_DESC_OFFSET + 16'h1C, 32'd3);
    take(s1);
    for (int i = 0; i < regs.size(); i++) begin : g_cmp2
      if (i == i_prod) begin
        `CHECK(s1[i] == 3, $sformatf("trigger: LME_PROD %0d, want 3", s1[i]))
      end else begin
        `CHECK(s1[i] == s0[i], $sformatf("trigger changed %s", regs[i].name))
      end
    end
    `CHECK(lme_prod == 3, "trigger: lme_prod output")
    // Bits 31:16 of the trigger are the pushed descriptor's key, not part of LME_PROD.
    wr(PUSH_DESC_OFFSET + 16'h1C, 32'hBEEF_0002);
    expect_rd(LME_PROD_OFFSET, 2, "trigger with a key in bits 31:16");
    wr(PUSH_DESC_OFFSET + 16'h1C, 32'd3);
    expect_reject("trigger out of range", 1, PUSH_DESC_OFFSET + 16'h1C, 8, 2);
    expect_rd(LME_PROD_OFFSET, 3, "LME_PROD after rejected trigger");
    push_free = 1'b0;
    expect_rd(PUSH_STATUS_OFFSET, 0, "PUSH_STATUS busy");
    push_free = 1'b1;
    expect_rd(PUSH_STATUS_OFFSET, 1, "PUSH_STATUS free");
  endtask

  // interrupts
  task automatic t_interrupts();
    logic [31:0] d;
    wr(INT_COAL_LME_DONE_OFFSET, 32'h0);
    wr(INT_COAL_LMR_NEW_OFFSET, 32'h0);
    wr(ERR_STATUS_OFFSET, 32'h1007F);
    wr(INT_STATUS_OFFSET, 32'h7);
    wr(INT_MASK_OFFSET, 32'h0);
    expect_rd(INT_STATUS_OFFSET, 0, "INT_STATUS clear");
    pulse(2, 1);                                   // desc with IRQ_LOCAL done
    expect_rd(INT_STATUS_OFFSET, 32'h1, "LME_DONE set");
    `CHECK(!irq, "irq while masked")
    wr(INT_MASK_OFFSET, 32'h1);
    @(negedge clk);
    `CHECK(irq, "irq with LME_DONE unmasked")
    pulse(6, 1);                                   // LMR entry with IRQ_REMOTE
    expect_rd(INT_STATUS_OFFSET, 32'h3, "LMR_NEW set");
    wr(INT_STATUS_OFFSET, 32'h1);
    expect_rd(INT_STATUS_OFFSET, 32'h2, "LME_DONE cleared by w1c, LMR_NEW kept");
    @(negedge clk);
    `CHECK(!irq, "irq after clearing the unmasked bit")
    wr(INT_MASK_OFFSET, 32'h2);
    @(negedge clk);
    `CHECK(irq, "irq with LMR_NEW unmasked")
    wr(INT_STATUS_OFFSET, 32'h2);
    @(negedge clk);
    `CHECK(!irq, "irq after clearing LMR_NEW")
    // ERROR mirrors ERR_STATUS and is not cleared by w1c while an error is pending
    wr(INT_MASK_OFFSET, 32'h4);
    pulse(9, 1);                                   // an RX drop
    expect_rd(ERR_STATUS_OFFSET, 32'h20, "RX_DROP");
    expect_rd(INT_STATUS_OFFSET, 32'h4, "ERROR follows ERR_STATUS");
    `CHECK(irq, "irq on error")
    wr(INT_STATUS_OFFSET, 32'h4);
    expect_rd(INT_STATUS_OFFSET, 32'h4, "ERROR stays while ERR_STATUS != 0");
    pulse(1, 1);                                   // descriptor error
    expect_rd(ERR_STATUS_OFFSET, 32'h30, "DESC_ERROR sticky next to RX_DROP");
    wr(ERR_STATUS_OFFSET, 32'h20);
    expect_rd(ERR_STATUS_OFFSET, 32'h10, "w1c clears only the written bit");
    wr(ERR_STATUS_OFFSET, 32'h10);
    expect_rd(INT_STATUS_OFFSET, 32'h0, "ERROR gone with ERR_STATUS");
    `CHECK(!irq, "irq after clearing errors")
    // An event in the same cycle as the w1c of its bit wins.
    @(negedge clk);
    req_valid <= 1'b1;
    req_write <= 1'b1;
    req_addr  <= INT_STATUS_OFFSET[11:0];
    req_wdata <= 32'h3;
    ev[2] = 1'b1;
    ev[6] = 1'b1;
    ev[7] = 1'b1;
    @(negedge clk);
    req_valid <= 1'b0;
    ev = '0;
    expect_rd(INT_STATUS_OFFSET, 32'h7, "events beat a simultaneous clear");
    wr(ERR_STATUS_OFFSET, 32'h1007F);
    wr(INT_STATUS_OFFSET, 32'h7);
    // Per-context bits (contexts 1..7): set at once next to the coalesced ones, their own
    // mask bits, write 1 to clear; context 0 has none.
    wr(INT_MASK_OFFSET, 32'h0);
    lme_ctx = 3'd3;
    pulse(2, 1);
    lmr_ctx = 3'd5;
    pulse(6, 1);
    lme_ctx = 3'd0;
    pulse(2, 1);
    lmr_ctx = 3'd0;
    expect_rd(INT_STATUS_OFFSET, 32'h20_0803, "CTX_LME_DONE[3], CTX_LMR_NEW[5], none for context 0");
    `CHECK(!irq, "irq with every bit masked")
    wr(INT_MASK_OFFSET, 32'h00_0400);              // context 2's LME_DONE: not pending
    `CHECK(!irq, "irq from another context's mask bit")
    wr(INT_MASK_OFFSET, 32'h20_0000);              // context 5's LMR_NEW
    @(negedge clk);
    `CHECK(irq, "no irq from CTX_LMR_NEW[5]")
    wr(INT_STATUS_OFFSET, 32'h20_0000);
    expect_rd(INT_STATUS_OFFSET, 32'h00_0803, "w1c of CTX_LMR_NEW[5] only");
    `CHECK(!irq, "irq after clearing CTX_LMR_NEW[5]")
    wr(INT_STATUS_OFFSET, 32'hFF_FF07);
    expect_rd(INT_STATUS_OFFSET, 32'h0, "all clear");
    wr(INT_MASK_OFFSET, 32'h0);
  endtask

  // Coalescing through the register file: per-source thresholds, masks gate only the
  // line, acknowledging keeps pending events, a ring reset drops them, ERROR immediate.
  task automatic t_int_coalescing();
    int unsigned t0;
    wr(ERR_STATUS_OFFSET, 32'h1007F);
    wr(INT_STATUS_OFFSET, 32'h7);
    wr(INT_MASK_OFFSET, 32'h3);
    // LME_DONE: count 4 (time far away); LMR_NEW: immediate.
    wr(INT_COAL_LME_DONE_OFFSET, {16'hFFFF, 16'd4});
    wr(INT_COAL_LMR_NEW_OFFSET, 32'h0);
    pulse(2, 3);
    expect_rd(INT_STATUS_OFFSET, 32'h0, "3 LME events under count 4");
    `CHECK(!irq, "irq before the count threshold")
    pulse(6, 1);
    expect_rd(INT_STATUS_OFFSET, 32'h2, "LMR_NEW not coalesced");
    wr(INT_STATUS_OFFSET, 32'h2);
    pulse(2, 1);
    expect_rd(INT_STATUS_OFFSET, 32'h1, "4th LME event signals");
    `CHECK(irq, "irq at the count threshold")
    wr(INT_STATUS_OFFSET, 32'h1);
    @(negedge clk);
    `CHECK(!irq, "irq after ack")
    // Acknowledging does not drop pending events: 2 before the ack, 2 after -> signal.
    pulse(2, 2);
    wr(INT_STATUS_OFFSET, 32'h1);
    pulse(2, 2);
    expect_rd(INT_STATUS_OFFSET, 32'h1, "events pending across an ack still count");
    wr(INT_STATUS_OFFSET, 32'h1);
    // Masked source: counted and signalled into INT_STATUS, line stays low until unmasked.
    wr(INT_MASK_OFFSET, 32'h2);
    pulse(2, 4);
    expect_rd(INT_STATUS_OFFSET, 32'h1, "masked source still sets INT_STATUS");
    `CHECK(!irq, "masked source raised the line")
    wr(INT_MASK_OFFSET, 32'h3);
    @(negedge clk);
    `CHECK(irq, "unmasking a signalled source raises the line")
    wr(INT_STATUS_OFFSET, 32'h1);
    // Time threshold: LMR_NEW count 100, time 40 cycles from the first event.
    wr(INT_COAL_LMR_NEW_OFFSET, {16'd40, 16'd100});
    @(negedge clk);
    ev[6] = 1'b1;
    @(negedge clk);
    ev[6] = 1'b0;
    t0 = 0;
    while (!irq && t0 < 100) begin
      @(negedge clk);
      t0++;
    end
    // The event is seen at the edge ending its cycle (age 0); INT_STATUS is set at the
    // edge ending cycle 40, visible on the line one cycle later: 40 falling edges here.
    `CHECK(t0 == 40, $sformatf("time threshold 40: line rose after %0d cycles", t0))
    wr(INT_STATUS_OFFSET, 32'h2);
    // A ring reset drops pending events: 3 LME events, LME_SIZE write, 1 more -> quiet.
    pulse(2, 3);
    wr(LME_SIZE_OFFSET, 32'd16);
    pulse(2, 1);
    expect_rd(INT_STATUS_OFFSET, 32'h0, "LME_SIZE write dropped pending LME events");
    pulse(2, 3);
    expect_rd(INT_STATUS_OFFSET, 32'h1, "count restarts after the ring reset");
    // ERROR is never coalesced.
    wr(INT_MASK_OFFSET, 32'h4);
    pulse(7, 1);
    @(negedge clk);
    `CHECK(irq, "ERROR raises the line at once")
    wr(ERR_STATUS_OFFSET, 32'h1007F);
    wr(INT_STATUS_OFFSET, 32'h7);
    wr(INT_COAL_LME_DONE_OFFSET, 32'h0);
    wr(INT_COAL_LMR_NEW_OFFSET, 32'h0);
    wr(INT_MASK_OFFSET, 32'h0);
  endtask

  // counters
  task automatic t_counters();
    logic [31:0] d;
    begin
      int n[21];
      int nd;
      logic [31:0] c0[int];
      logic [15:0] offs[21] = '{CNT_TX_DESC_OFFSET, CNT_TX_PKTS_OFFSET, CNT_RX_PKTS_OFFSET,
                                CNT_RX_MSGS_OFFSET, CNT_DESC_ERR_OFFSET, CNT_CSR_ERR_OFFSET,
                                CNT_RX_CRC_ERR_OFFSET, CNT_RX_DROP_DEST_OFFSET,
                                CNT_RX_DROP_MALFORMED_OFFSET, CNT_RX_DROP_WINDOW_OFFSET,
                                CNT_PUSH_OFFSET, CNT_PUSH_REJECT_OFFSET,
                                CNT_DMA_RD_ERR_OFFSET,
                                CNT_RX_MSG_EXPIRED_OFFSET, CNT_RX_TRACK_FULL_OFFSET,
                                CNT_ACK_TX_OFFSET, CNT_NACK_TX_OFFSET, CNT_ACK_RX_OFFSET,
                                CNT_NACK_RX_OFFSET, CNT_ANS_DROP_OFFSET,
                                CNT_RX_DROP_CTX_OFFSET};
      for (int k = 0; k < 21; k++) rd(offs[k], c0[k]);
      wr(ERR_STATUS_OFFSET, 32'h1007F);
      for (int k = 0; k < 21; k++) begin
        n[k] = $urandom_range(0, 9);
        pulse(k, n[k]);
      end
      // answer drops come as a count per cycle (up to two queues full at once)
      nd = 0;
      for (int k = 0; k < 6; k++) begin
        @(negedge clk);
        ans_drop = 2'($urandom_range(0, 2));
        nd += int'(ans_drop);
      end
      @(negedge clk);
      ans_drop = '0;
      // desc_done and desc_err both count a completed descriptor: TX pulses them together
      // for an error, so pulse desc_err alone here and check each path.
      expect_rd(CNT_TX_DESC_OFFSET, c0[0] + n[0] + n[1], "CNT_TX_DESC");
      expect_rd(CNT_TX_PKTS_OFFSET, c0[1] + n[3], "CNT_TX_PKTS");
      expect_rd(CNT_RX_PKTS_OFFSET, c0[2] + n[4], "CNT_RX_PKTS");
      expect_rd(CNT_RX_MSGS_OFFSET, c0[3] + n[5], "CNT_RX_MSGS");
      expect_rd(CNT_DESC_ERR_OFFSET, c0[4] + n[1], "CNT_DESC_ERR");
      expect_rd(CNT_CSR_ERR_OFFSET, c0[5], "CNT_CSR_ERR");
      expect_rd(CNT_RX_CRC_ERR_OFFSET, c0[6] + n[7], "CNT_RX_CRC_ERR");
      expect_rd(CNT_RX_DROP_DEST_OFFSET, c0[7] + n[8], "CNT_RX_DROP_DEST");
      expect_rd(CNT_RX_DROP_MALFORMED_OFFSET, c0[8] + n[9], "CNT_RX_DROP_MALFORMED");
      expect_rd(CNT_RX_DROP_WINDOW_OFFSET, c0[9] + n[10], "CNT_RX_DROP_WINDOW");
      expect_rd(CNT_PUSH_OFFSET, c0[10] + n[11], "CNT_PUSH");
      expect_rd(CNT_PUSH_REJECT_OFFSET, c0[11] + n[12], "CNT_PUSH_REJECT");
      expect_rd(CNT_DMA_RD_ERR_OFFSET, c0[12] + n[13], "CNT_DMA_RD_ERR");
      expect_rd(CNT_RX_MSG_EXPIRED_OFFSET, c0[13] + n[14], "CNT_RX_MSG_EXPIRED");
      expect_rd(CNT_RX_TRACK_FULL_OFFSET, c0[14] + n[15], "CNT_RX_TRACK_FULL");
      expect_rd(CNT_ACK_TX_OFFSET, c0[15] + n[16], "CNT_ACK_TX");
      expect_rd(CNT_NACK_TX_OFFSET, c0[16] + n[17], "CNT_NACK_TX");
      expect_rd(CNT_ACK_RX_OFFSET, c0[17] + n[18], "CNT_ACK_RX");
      expect_rd(CNT_NACK_RX_OFFSET, c0[18] + n[19], "CNT_NACK_RX");
      expect_rd(CNT_ANS_DROP_OFFSET, c0[19] + nd, "CNT_ANS_DROP");
      expect_rd(CNT_RX_DROP_CTX_OFFSET, c0[20] + n[20], "CNT_RX_DROP_CTX");
      begin
        logic [31:0] d0, e0;
        int nu, ne;
        rd(CNT_RX_DUP_OFFSET, d0);
        rd(CNT_RX_SEQ_EVICT_OFFSET, e0);
        nu = $urandom_range(1, 9);
        ne = $urandom_range(1, 9);
        pulse(21, nu);
        pulse(22, ne);
        expect_rd(CNT_RX_DUP_OFFSET, d0 + 32'(nu), "CNT_RX_DUP");
        expect_rd(CNT_RX_SEQ_EVICT_OFFSET, e0 + 32'(ne), "CNT_RX_SEQ_EVICT");
      end
      // retransmissions (pulses) and answer timeouts (a count per cycle)
      begin
        logic [31:0] r0, t0;
        int nr = 0, nt = 0;
        rd(CNT_RETX_OFFSET, r0);
        rd(CNT_REL_TIMEOUT_OFFSET, t0);
        for (int k = 0; k < 8; k++) begin
          @(negedge clk);
          rel_retx = 1'($urandom_range(0, 1));
          rel_timeouts = 5'($urandom_range(0, 16));
          nr += int'(rel_retx);
          nt += int'(rel_timeouts);
        end
        @(negedge clk);
        rel_retx = 1'b0;
        rel_timeouts = '0;
        expect_rd(CNT_RETX_OFFSET, r0 + nr, "CNT_RETX");
        expect_rd(CNT_REL_TIMEOUT_OFFSET, t0 + nt, "CNT_REL_TIMEOUT");
      end
      rd(ERR_STATUS_OFFSET, d);
      `CHECK(d[6] == (n[12] != 0), $sformatf("ERR_STATUS.PUSH_REJECT %b after %0d rejects", d[6], n[12]))
      `CHECK(d[5:0] == {(n[7] + n[8] + n[9] + n[10] + n[16]) != 0, n[1] != 0, 4'b0},
             "ERR_STATUS after counters")
      // done and err in the same cycle are one descriptor
      rd(CNT_TX_DESC_OFFSET, c0[0]);
      @(negedge clk);
      ev[0] = 1'b1;
      ev[1] = 1'b1;
      @(negedge clk);
      ev = '0;
      expect_rd(CNT_TX_DESC_OFFSET, c0[0] + 1, "done+err counts one descriptor");
      // Rejections on the context pages set the same ERR_STATUS bits and count.
      rd(CNT_CSR_ERR_OFFSET, c0[5]);
      wr(ERR_STATUS_OFFSET, 32'h7F);
      @(negedge clk);
      ctx_err = 4'b0100;
      @(negedge clk);
      ctx_err = 4'b0001;
      @(negedge clk);
      ctx_err = '0;
      expect_rd(CNT_CSR_ERR_OFFSET, c0[5] + 2, "CNT_CSR_ERR counts context-page rejections");
      rd(ERR_STATUS_OFFSET, d);
      `CHECK(d[3:0] == 4'b0101, $sformatf("ERR_STATUS %h after context-page rejections", d))
      wr(ERR_STATUS_OFFSET, 32'h7F);
      // early NACKs, and context messages dropped on a full LMR ring (an RX drop)
      begin
        logic [31:0] a0, f0;
        int na, nf;
        rd(CNT_RX_EARLY_NACK_OFFSET, a0);
        rd(CNT_RX_LMR_FULL_OFFSET, f0);
        wr(ERR_STATUS_OFFSET, 32'h7F);
        na = $urandom_range(1, 9);
        nf = $urandom_range(1, 9);
        pulse(23, na);
        rd(ERR_STATUS_OFFSET, d);
        `CHECK(d[5] == 1'b0, "ERR_STATUS.RX_DROP set by an early NACK")
        pulse(24, nf);
        expect_rd(CNT_RX_EARLY_NACK_OFFSET, a0 + 32'(na), "CNT_RX_EARLY_NACK");
        expect_rd(CNT_RX_LMR_FULL_OFFSET, f0 + 32'(nf), "CNT_RX_LMR_FULL");
        rd(ERR_STATUS_OFFSET, d);
        `CHECK(d[5] == 1'b1, "ERR_STATUS.RX_DROP not set by a full LMR ring's drop")
      end
    end
  endtask

  initial begin
    logic [31:0] d;
    add("ID",            ID_OFFSET,            RO,   ID_MAGIC,          '1);
    add("VERSION",       VERSION_OFFSET,       RO,   CONTRACT_VERSION,  '1);
    add("NODE_ID",       NODE_ID_OFFSET,       RW,   0,                 32'hFFFF);
    add("CTRL",          CTRL_OFFSET,          RW,   0,                 32'h1);
    add("MTU",           MTU_OFFSET,           RW,   MTU_MAX,           32'hFFFF);
    add("DEST_RANGE",    DEST_RANGE_OFFSET,    RW,   32'hFFFF_0000,     '1);
    add("LME_BASE_LO",   LME_BASE_LO_OFFSET,   RW,   0,                 '1);
    add("LME_BASE_HI",   LME_BASE_HI_OFFSET,   RW,   0,                 '1);
    add("LME_SIZE",      LME_SIZE_OFFSET,      RW,   0,                 32'hFFFF);
    add("LME_PROD",      LME_PROD_OFFSET,      RW,   0,                 32'hFFFF);
    add("LME_CONS",      LME_CONS_OFFSET,      RO,   32'h0123,          32'hFFFF);
    add("PUSH_STATUS",   PUSH_STATUS_OFFSET,   RO,   1,                 32'h1);
    add("LMR_BASE_LO",   LMR_BASE_LO_OFFSET,   RW,   0,                 '1);
    add("LMR_BASE_HI",   LMR_BASE_HI_OFFSET,   RW,   0,                 '1);
    add("LMR_SIZE",      LMR_SIZE_OFFSET,      RW,   0,                 32'hFFFF);
    add("LMR_PROD",      LMR_PROD_OFFSET,      RO,   32'h0456,          32'hFFFF);
    add("LMR_CONS",      LMR_CONS_OFFSET,      RW,   0,                 32'hFFFF);
    add("RXWIN_BASE_LO", RXWIN_BASE_LO_OFFSET, RW,   0,                 '1);
    add("RXWIN_BASE_HI", RXWIN_BASE_HI_OFFSET, RW,   0,                 '1);
    add("RXWIN_SIZE_LO", RXWIN_SIZE_LO_OFFSET, RW,   0,                 '1);
    add("RXWIN_SIZE_HI", RXWIN_SIZE_HI_OFFSET, RW,   0,                 '1);
    add("INT_STATUS",    INT_STATUS_OFFSET,    RW1C, 0,                 32'hFFFF07);
    add("INT_MASK",      INT_MASK_OFFSET,      RW,   0,                 32'hFFFFFF);
    add("INT_COAL_LME_DONE", INT_COAL_LME_DONE_OFFSET, RW, 0,             '1);
    add("INT_COAL_LMR_NEW", INT_COAL_LMR_NEW_OFFSET, RW, 0,               '1);
    add("ERR_STATUS",    ERR_STATUS_OFFSET,    RW1C, 0,                 32'h1007F);
    add("CNT_TX_DESC",   CNT_TX_DESC_OFFSET,   RO,   0,                 '1);
    add("CNT_TX_PKTS",   CNT_TX_PKTS_OFFSET,   RO,   0,                 '1);
    add("CNT_RX_PKTS",   CNT_RX_PKTS_OFFSET,   RO,   0,                 '1);
    add("CNT_RX_MSGS",   CNT_RX_MSGS_OFFSET,   RO,   0,                 '1);
    add("CNT_DESC_ERR",  CNT_DESC_ERR_OFFSET,  RO,   0,                 '1);
    add("CNT_CSR_ERR",   CNT_CSR_ERR_OFFSET,   RO,   0,                 '1);
    add("CNT_RX_CRC_ERR", CNT_RX_CRC_ERR_OFFSET, RO, 0,                 '1);
    add("CNT_RX_DROP_DEST", CNT_RX_DROP_DEST_OFFSET, RO, 0,             '1);
    add("CNT_RX_DROP_MALFORMED", CNT_RX_DROP_MALFORMED_OFFSET, RO, 0,   '1);
    add("CNT_RX_DROP_WINDOW", CNT_RX_DROP_WINDOW_OFFSET, RO, 0,         '1);
    add("CNT_PUSH",      CNT_PUSH_OFFSET,      RO,   0,                 '1);
    add("CNT_PUSH_REJECT", CNT_PUSH_REJECT_OFFSET, RO, 0,               '1);
    add("CNT_DMA_RD_ERR", CNT_DMA_RD_ERR_OFFSET, RO, 0,                 '1);
    add("CNT_RX_MSG_EXPIRED", CNT_RX_MSG_EXPIRED_OFFSET, RO, 0,         '1);
    add("CNT_RX_TRACK_FULL", CNT_RX_TRACK_FULL_OFFSET, RO, 0,           '1);
    add("REL_CTRL",      REL_CTRL_OFFSET,      RW,   0,                 32'hF);
    add("REL_TIMEOUT",   REL_TIMEOUT_OFFSET,   RW,   256,               32'hFFFF);
    add("REL_RETRIES",   REL_RETRIES_OFFSET,   RW,   0,                 32'hF);
    add("TX_QUANTUM",    TX_QUANTUM_OFFSET,    RW,   TX_QUANTUM_RESET,  32'h1F);
    add("CNT_ACK_TX",    CNT_ACK_TX_OFFSET,    RO,   0,                 '1);
    add("CNT_NACK_TX",   CNT_NACK_TX_OFFSET,   RO,   0,                 '1);
    add("CNT_ACK_RX",    CNT_ACK_RX_OFFSET,    RO,   0,                 '1);
    add("CNT_NACK_RX",   CNT_NACK_RX_OFFSET,   RO,   0,                 '1);
    add("CNT_ANS_DROP",  CNT_ANS_DROP_OFFSET,  RO,   0,                 '1);
    add("CNT_RX_DROP_CTX", CNT_RX_DROP_CTX_OFFSET, RO, 0,               '1);
    add("CNT_RX_DUP",    CNT_RX_DUP_OFFSET,    RO,   0,                 '1);
    add("CNT_RX_SEQ_EVICT", CNT_RX_SEQ_EVICT_OFFSET, RO, 0,             '1);
    add("CNT_RETX",      CNT_RETX_OFFSET,      RO,   0,                 '1);
    add("CNT_REL_TIMEOUT", CNT_REL_TIMEOUT_OFFSET, RO, 0,               '1);
    add("CNT_RX_EARLY_NACK", CNT_RX_EARLY_NACK_OFFSET, RO, 0,           '1);
    add("CNT_RX_LMR_FULL", CNT_RX_LMR_FULL_OFFSET, RO, 0,               '1);

    repeat (3) @(posedge clk);
    rst_n = 1'b1;
    @(negedge clk);
    run = 1'b1;

    t_reset_values();
    t_back_to_back_reads_one_per_cycle();
    t_rw_registers_random_values_round_trip_outputs_follow();
    t_mtu();
    t_tx_quantum();
    t_ring_sizes_and_indices();
    t_read_only_registers();
    t_undefined_offsets_read_and_write();
    t_push_window();
    t_window_block();
    t_interrupts();
    t_int_coalescing();
    t_counters();

    if (errors != 0) $fatal(1, "tb_ddc_csr: %0d errors", errors);
    $display("tb_ddc_csr: PASS");
    $finish;
  end
endmodule
