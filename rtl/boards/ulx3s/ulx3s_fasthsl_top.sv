// FastHSL on a Radiona ULX3S (ECP5 LFE5U-85F): the 8-port RCUBE router with
//   ports 0..3  board-to-board links (phy_link) on headers J1/J2, see docs/BOARDS.md
//   port 4      test traffic source/sink (board_traffic)
//   ports 5..7  unused: no traffic in, and anything routed to them is swallowed
// and a UART command bridge (FTDI USB serial, 115200 8N1) to the router's config page
// (addresses 0x0000-0x0FFF) and this board's registers (0x1000-0x1FFF, below).
// LEDs: 0..3 link up per PHY, 4 traffic (source or sink), 5 error seen in the last
// ~0.4 s (bad frame, link loss, bad test packet, bad UART command), 6 traffic source
// running, 7 heartbeat.
//
// Board registers (byte offsets from 0x1000; unmapped addresses read 0xFFFFFFFF):
//   0x000 BRD_ID      'ULX3' (0x554C5833)     0x004 BRD_STATUS [3:0] link up, [8] source busy
//   0x008 UART_ERR    dropped UART commands   0x010+4k BAD_FRAMES of PHY k
//   0x020+4k LINK_DOWNS of PHY k              0x030+4k TX_DROPS of PHY k (flits discarded)
//   0x040 TG_CTRL     write 1: start, 2: stop
//   0x044 TG_DEST, 0x048 TG_LEN (flits), 0x04C TG_COUNT (0: until stop), 0x050 TG_SRC
//   0x054 TG_SENT, 0x058 TG_RCVD (good packets), 0x05C TG_ERR (bad packets)
module ulx3s_fasthsl_top #(
  parameter int unsigned CLK_HZ        = 40_000_000,   // must match the PLL dividers
  parameter int unsigned PLL_CLKI_DIV  = 5,
  parameter int unsigned PLL_CLKFB_DIV = 8,
  parameter int unsigned PLL_CLKOP_DIV = 15,
  parameter int unsigned BAUD          = 115_200,
  parameter int unsigned BUF_DEPTH     = 16,
  // FIFO inputs: the VOQ/iSLIP organisation does not close timing on the ECP5 at this
  // clock (docs/BOARDS.md), and a board's test traffic does not need its throughput
  parameter bit          ROUTER_VOQ    = 1'b0,
  parameter int unsigned WDOG_CYCLES   = 256,
  parameter int unsigned SILENT_CYCLES = 2048,
  parameter int unsigned LED_HOLD_W    = 24,            // error/activity LED hold, 2^N cycles
  parameter int unsigned HEART_W       = 26
) (
  input  logic        clk_25mhz_i,
  input  logic        btn_pwr_ni,     // btn[0], PWR: held = reset
  output logic [7:0]  led_o,
  output logic        ftdi_rxd_o,     // FPGA -> PC
  input  logic        ftdi_txd_i,     // PC -> FPGA
  // links: PHY k on lk_*[k], lanes 4k..4k+3
  output logic [3:0]  lk_tx_clk_o,
  output logic [3:0]  lk_tx_frame_o,
  output logic [15:0] lk_tx_lane_o,
  input  logic [3:0]  lk_rx_clk_i,
  input  logic [3:0]  lk_rx_frame_i,
  input  logic [15:0] lk_rx_lane_i
);
  import fasthsl_link_pkg::*;

  localparam int unsigned NPorts = 8;
  localparam int unsigned NPhy   = 4;
  localparam int unsigned TgPort = 4;

  if (64'(CLK_HZ) * PLL_CLKI_DIV != 64'(25_000_000) * PLL_CLKFB_DIV) begin : gen_clk_check
    $error("ulx3s_fasthsl_top: CLK_HZ does not match the PLL dividers");
  end

  // ---- clock and reset ----
  logic clk, pll_locked, rst_n;

  ulx3s_pll #(
    .CLKI_DIV (PLL_CLKI_DIV),
    .CLKFB_DIV(PLL_CLKFB_DIV),
    .CLKOP_DIV(PLL_CLKOP_DIV)
  ) u_pll (
    .clk_i   (clk_25mhz_i),
    .clk_o   (clk),
    .locked_o(pll_locked)
  );

  // Flops start at 0 after configuration, so this also gives the power-on reset.
  phy_rst_sync u_rst (
    .clk_i (clk),
    .rst_ni(pll_locked && btn_pwr_ni),
    .rst_no(rst_n)
  );

  // ---- router ----
  link_flit_t [NPorts-1:0] r_in_flit, r_out_flit;
  logic [NPorts-1:0]       r_in_credit, r_out_credit;
  logic                    cfg_valid, cfg_write, cfg_rsp_valid;
  logic [11:0]             cfg_addr;
  logic [31:0]             cfg_wdata, cfg_rsp_rdata;

  rcube_router #(
    .NPORTS   (NPorts),
    .BUF_DEPTH(BUF_DEPTH),
    .VOQ      (ROUTER_VOQ)
  ) u_router (
    .clk_i          (clk),
    .rst_ni         (rst_n),
    .in_flit_i      (r_in_flit),
    .in_credit_o    (r_in_credit),
    .out_flit_o     (r_out_flit),
    .out_credit_i   (r_out_credit),
    .cfg_req_valid_i(cfg_valid),
    .cfg_req_write_i(cfg_write),
    .cfg_req_addr_i (cfg_addr),
    .cfg_req_wdata_i(cfg_wdata),
    .cfg_rsp_valid_o(cfg_rsp_valid),
    .cfg_rsp_rdata_o(cfg_rsp_rdata)
  );

  // ---- links ----
  logic [NPhy-1:0] up, bad_frame, link_down, tx_drop;

  for (genvar k = 0; k < NPhy; k++) begin : gen_phy
    phy_link #(
      .WDOG_CYCLES  (WDOG_CYCLES),
      .SILENT_CYCLES(SILENT_CYCLES)
    ) u_phy (
      .clk_i      (clk),
      .rst_ni     (rst_n),
      .tx_flit_i  (r_out_flit[k]),
      .tx_credit_o(r_out_credit[k]),
      .rx_flit_o  (r_in_flit[k]),
      .rx_credit_i(r_in_credit[k]),
      .tx_frame_o (lk_tx_frame_o[k]),
      .tx_lane_o  (lk_tx_lane_o[4*k +: 4]),
      .rx_clk_i   (lk_rx_clk_i[k]),
      .rx_frame_i (lk_rx_frame_i[k]),
      .rx_lane_i  (lk_rx_lane_i[4*k +: 4]),
      .link_up_o  (up[k]),
      .bad_frame_o(bad_frame[k]),
      .link_down_o(link_down[k]),
      .tx_drop_o  (tx_drop[k])
    );

    ulx3s_clk_fwd u_clk_fwd (
      .clk_i(clk),
      .clk_o(lk_tx_clk_o[k])
    );
  end

  // ---- unused ports: idle inputs, outputs drained (one credit, returned per flit) ----
  for (genvar p = TgPort + 1; p < NPorts; p++) begin : gen_unused
    assign r_in_flit[p] = LINK_FLIT_IDLE;
    link_credit_return #(
      .DEPTH(1)
    ) u_sink (
      .clk_i       (clk),
      .rst_ni      (rst_n),
      .slot_freed_i(r_out_flit[p].valid),
      .credit_o    (r_out_credit[p])
    );
  end
  logic unused_credit;
  assign unused_credit = ^r_in_credit[NPorts-1:TgPort+1];

  // ---- board registers ----
  logic        tg_start_q, tg_stop_q, tg_busy;
  logic [15:0] tg_dest_q, tg_src_q;
  logic [7:0]  tg_len_q;
  logic [31:0] tg_count_q, tg_sent, tg_rcvd, tg_err;

  board_traffic u_tg (
    .clk_i       (clk),
    .rst_ni      (rst_n),
    .out_flit_o  (r_in_flit[TgPort]),
    .out_credit_i(r_in_credit[TgPort]),
    .in_flit_i   (r_out_flit[TgPort]),
    .in_credit_o (r_out_credit[TgPort]),
    .start_i     (tg_start_q),
    .stop_i      (tg_stop_q),
    .src_i       (tg_src_q),
    .dest_i      (tg_dest_q),
    .len_i       (tg_len_q),
    .count_i     (tg_count_q),
    .busy_o      (tg_busy),
    .sent_o      (tg_sent),
    .rcvd_o      (tg_rcvd),
    .rx_err_o    (tg_err)
  );

  // ---- UART bridge ----
  logic        rx_valid, rx_ferr, tx_valid, tx_ready, br_err;
  logic [7:0]  rx_data, tx_data;
  logic        bus_valid, bus_write;
  logic [15:0] bus_addr;
  logic [31:0] bus_wdata;

  uart_rx #(
    .CLK_HZ(CLK_HZ),
    .BAUD  (BAUD)
  ) u_uart_rx (
    .clk_i      (clk),
    .rst_ni     (rst_n),
    .rx_i       (ftdi_txd_i),
    .valid_o    (rx_valid),
    .data_o     (rx_data),
    .frame_err_o(rx_ferr)
  );

  uart_tx #(
    .CLK_HZ(CLK_HZ),
    .BAUD  (BAUD)
  ) u_uart_tx (
    .clk_i  (clk),
    .rst_ni (rst_n),
    .valid_i(tx_valid),
    .ready_o(tx_ready),
    .data_i (tx_data),
    .tx_o   (ftdi_rxd_o)
  );

  logic        brd_rsp_valid_q;
  logic [31:0] brd_rsp_rdata_q;

  uart_cfg_bridge #(
    .TIMEOUT(CLK_HZ / 10)
  ) u_bridge (
    .clk_i      (clk),
    .rst_ni     (rst_n),
    .rx_valid_i (rx_valid),
    .rx_data_i  (rx_data),
    .tx_valid_o (tx_valid),
    .tx_ready_i (tx_ready),
    .tx_data_o  (tx_data),
    .req_valid_o(bus_valid),
    .req_write_o(bus_write),
    .req_addr_o (bus_addr),
    .req_wdata_o(bus_wdata),
    .rsp_valid_i(cfg_rsp_valid || brd_rsp_valid_q),
    .rsp_rdata_i(cfg_rsp_valid ? cfg_rsp_rdata : brd_rsp_rdata_q),
    .err_o      (br_err)
  );

  assign cfg_valid = bus_valid && (bus_addr[15:12] == 4'h0);
  assign cfg_write = bus_write;
  assign cfg_addr  = bus_addr[11:0];
  assign cfg_wdata = bus_wdata;

  // ---- counters ----
  logic [NPhy-1:0][31:0] bad_cnt_q, down_cnt_q, drop_cnt_q;
  logic [31:0]           uart_err_q;

  logic brd_sel, brd_wr;
  assign brd_sel = bus_valid && (bus_addr[15:12] != 4'h0);
  assign brd_wr  = bus_valid && bus_write && (bus_addr[15:12] == 4'h1);

  logic [31:0] brd_rdata;
  always_comb begin
    brd_rdata = 32'hFFFF_FFFF;
    if (bus_addr[15:12] == 4'h1) begin
      unique case (bus_addr[11:0])
        12'h000: brd_rdata = 32'h554C_5833;
        12'h004: brd_rdata = {23'b0, tg_busy, 4'b0, up};
        12'h008: brd_rdata = uart_err_q;
        12'h010, 12'h014, 12'h018, 12'h01C: brd_rdata = bad_cnt_q[bus_addr[3:2]];
        12'h020, 12'h024, 12'h028, 12'h02C: brd_rdata = down_cnt_q[bus_addr[3:2]];
        12'h030, 12'h034, 12'h038, 12'h03C: brd_rdata = drop_cnt_q[bus_addr[3:2]];
        12'h044: brd_rdata = {16'b0, tg_dest_q};
        12'h048: brd_rdata = {24'b0, tg_len_q};
        12'h04C: brd_rdata = tg_count_q;
        12'h050: brd_rdata = {16'b0, tg_src_q};
        12'h054: brd_rdata = tg_sent;
        12'h058: brd_rdata = tg_rcvd;
        12'h05C: brd_rdata = tg_err;
        default: brd_rdata = 32'hFFFF_FFFF;
      endcase
    end
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      brd_rsp_valid_q <= 1'b0;
      brd_rsp_rdata_q <= '0;
      tg_start_q      <= 1'b0;
      tg_stop_q       <= 1'b0;
      tg_dest_q       <= '0;
      tg_src_q        <= '0;
      tg_len_q        <= 8'd8;
      tg_count_q      <= '0;
      bad_cnt_q       <= '0;
      down_cnt_q      <= '0;
      drop_cnt_q      <= '0;
      uart_err_q      <= '0;
    end else begin
      brd_rsp_valid_q <= brd_sel && !bus_write;
      if (brd_sel && !bus_write) brd_rsp_rdata_q <= brd_rdata;
      tg_start_q <= brd_wr && (bus_addr[11:0] == 12'h040) && bus_wdata[0];
      tg_stop_q  <= brd_wr && (bus_addr[11:0] == 12'h040) && bus_wdata[1];
      if (brd_wr && bus_addr[11:0] == 12'h044) tg_dest_q  <= bus_wdata[15:0];
      if (brd_wr && bus_addr[11:0] == 12'h048) tg_len_q   <= bus_wdata[7:0];
      if (brd_wr && bus_addr[11:0] == 12'h04C) tg_count_q <= bus_wdata;
      if (brd_wr && bus_addr[11:0] == 12'h050) tg_src_q   <= bus_wdata[15:0];
      for (int unsigned ph = 0; ph < NPhy; ph++) begin
        if (bad_frame[ph]) bad_cnt_q[ph]  <= bad_cnt_q[ph] + 32'd1;
        if (link_down[ph]) down_cnt_q[ph] <= down_cnt_q[ph] + 32'd1;
        if (tx_drop[ph])   drop_cnt_q[ph] <= drop_cnt_q[ph] + 32'd1;
      end
      if (br_err || rx_ferr) uart_err_q <= uart_err_q + 32'd1;
    end
  end

  // ---- LEDs ----
  logic [LED_HOLD_W-1:0] err_hold_q, act_hold_q;
  logic [HEART_W-1:0]    heart_q;
  logic [31:0]           tg_err_prev_q;
  logic                  err_event, act_event;

  assign err_event = (|bad_frame) || (|link_down) || br_err || rx_ferr
                  || (tg_err != tg_err_prev_q);
  assign act_event = r_in_flit[TgPort].valid || r_out_flit[TgPort].valid;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      err_hold_q    <= '0;
      act_hold_q    <= '0;
      heart_q       <= '0;
      tg_err_prev_q <= '0;
    end else begin
      tg_err_prev_q <= tg_err;
      heart_q       <= heart_q + 1'b1;
      err_hold_q    <= err_event ? '1 : (err_hold_q != '0) ? err_hold_q - 1'b1 : '0;
      act_hold_q    <= act_event ? '1 : (act_hold_q != '0) ? act_hold_q - 1'b1 : '0;
    end
  end

  assign led_o = {heart_q[HEART_W-1], tg_busy, (err_hold_q != '0), (act_hold_q != '0), up};

endmodule
