// FastHSL node on an RHS Research LiteFury (Xilinx Artix-7 XC7A100T-L2FGG484E, M.2 2280
// card with a PCIe Gen2 x4 edge; pins: constraints/litefury/litefury_fasthsl.xdc).
//
//   PCIe  Xilinx XDMA in AXI Bridge mode (xdma_fasthsl, made by
//         constraints/litefury/xdma_ip.tcl): x4 at 2.5 GT/s, 64-bit AXI at 125 MHz,
//         BAR0 = the card's 8 KiB CSR space, MSI. Vendor/device id, BAR0 size and MSI
//         come from host/contract/contract.toml when the IP is made.
//   BAR0  M_AXI_B -> axi_csr_slave -> card_cdc -> fasthsl_card CSR bus
//   DMA   fasthsl_card DMA read/write -> card_cdc -> axi_dma_rd_master /
//         axi_dma_wr_master -> S_AXI_B (host memory)
//   IRQ   fasthsl_card irq_o -> card_cdc -> msi_from_irq -> MSI
//   core  fasthsl_card on its own clock (MMCM from the 125 MHz AXI clock,
//         125 * CORE_MULT / CORE_DIV MHz): the node core does not close timing at the
//         AXI clock (see docs/BOARDS.md), card_cdc crosses between the two.
//   links none: all four GTP lanes carry PCIe, and the LiteFury's 12-pin I/O connector
//         is not in any public constraints file (see docs/BOARDS.md). Router ports
//         1..7 are unused: no traffic in, and anything routed there is swallowed, so a
//         bad route cannot block the NIC. The NIC still reaches itself (port 0).
//   LEDs  active low (the vendor's sample designs light them with 0):
//         led_n[0] PCIe link up, led_n[1] core clock heartbeat (~1.2 Hz at 40 MHz),
//         led_n[2] interrupt pending, led_n[3] bridge error seen (DMA read/write error
//         response, stray response, refused BAR0 access), until reset.
//
// In simulation (no SYNTHESIS) the GT clock buffer and the MMCM are left out: the core
// runs on the AXI clock (card_cdc then crosses between two copies of one clock, which
// it must handle too); a simulation must provide xdma_fasthsl (e.g. a host model).
module litefury_fasthsl_top #(
  // core clock = 125 MHz * CORE_MULT / CORE_DIV (MMCM VCO = 125 * CORE_MULT MHz, which
  // must stay in 600..1200 MHz); the default gives 40 MHz, as on the ULX3S
  parameter real CORE_MULT = 8.0,
  parameter real CORE_DIV  = 25.0
) (
  input  logic       pcie_refclk_p,   // 100 MHz from the host, M.2 REFCLK
  input  logic       pcie_refclk_n,
  input  logic       pcie_perst_n,    // M.2 PERST#
  output logic       pcie_clkreq_n,   // M.2 CLKREQ#: held low (refclk always wanted)
  input  logic [3:0] pcie_rx_p,
  input  logic [3:0] pcie_rx_n,
  output logic [3:0] pcie_tx_p,
  output logic [3:0] pcie_tx_n,
  output logic [3:0] led_n
);
  import fasthsl_pkg::*;
  import fasthsl_link_pkg::*;

  localparam int unsigned NPorts = ROUTER_PORTS;
  localparam int unsigned IdW    = 4;

  assign pcie_clkreq_n = 1'b0;

  // MMCM limits (Artix-7 -2L, DS181): VCO 600..1200 MHz
  if (125.0 * CORE_MULT < 600.0 || 125.0 * CORE_MULT > 1200.0 || CORE_DIV < 1.0)
  begin : gen_mmcm_check
    $error("litefury_fasthsl_top: MMCM VCO (125 MHz * CORE_MULT) out of 600..1200 MHz");
  end

  // ---- PCIe bridge ----
  logic refclk, axi_clk, axi_rst_n, lnk_up;
  logic msi_req, msi_grant, msi_en;
  logic [2:0] msi_width;
  logic [4:0] msi_vec;

`ifdef SYNTHESIS
  logic refclk_div2, unused_refclk_div2;
  assign unused_refclk_div2 = refclk_div2;
  IBUFDS_GTE2 u_refclk_buf (
    .I    (pcie_refclk_p),
    .IB   (pcie_refclk_n),
    .CEB  (1'b0),
    .O    (refclk),
    .ODIV2(refclk_div2)
  );
`else
  assign refclk = pcie_refclk_p;
  logic unused_refclk_n;
  assign unused_refclk_n = pcie_refclk_n;
`endif

  // BAR0 master (bridge -> card)
  logic [IdW-1:0] bar_awid, bar_bid, bar_arid, bar_rid;
  logic [63:0]    bar_awaddr, bar_araddr, bar_wdata, bar_rdata;
  logic [7:0]     bar_awlen, bar_arlen, bar_wstrb;
  logic [2:0]     bar_awsize, bar_arsize, bar_awprot, bar_arprot;
  logic [1:0]     bar_awburst, bar_arburst, bar_bresp, bar_rresp;
  logic [3:0]     bar_awcache, bar_arcache;
  logic           bar_awvalid, bar_awready, bar_awlock, bar_wlast, bar_wvalid, bar_wready;
  logic           bar_bvalid, bar_bready, bar_arvalid, bar_arready, bar_arlock;
  logic           bar_rlast, bar_rvalid, bar_rready;
  // DMA slave (card -> host memory)
  logic [IdW-1:0] dma_awid, dma_bid, dma_arid, dma_rid;
  logic [63:0]    dma_awaddr, dma_araddr, dma_wdata, dma_rdata;
  logic [7:0]     dma_awlen, dma_arlen, dma_wstrb;
  logic [2:0]     dma_awsize, dma_arsize;
  logic [1:0]     dma_awburst, dma_arburst, dma_bresp, dma_rresp;
  logic           dma_awvalid, dma_awready, dma_wlast, dma_wvalid, dma_wready;
  logic           dma_bvalid, dma_bready, dma_arvalid, dma_arready;
  logic           dma_rlast, dma_rvalid, dma_rready;

  xdma_fasthsl u_xdma (
    .sys_clk         (refclk),
    .sys_rst_n       (pcie_perst_n),
    .user_lnk_up     (lnk_up),
    .pci_exp_txp     (pcie_tx_p),
    .pci_exp_txn     (pcie_tx_n),
    .pci_exp_rxp     (pcie_rx_p),
    .pci_exp_rxn     (pcie_rx_n),
    .axi_aclk        (axi_clk),
    .axi_aresetn     (axi_rst_n),
    .intx_msi_request(msi_req),
    .intx_msi_grant  (msi_grant),
    .msi_enable      (msi_en),
    .msi_vector_width(msi_width),
    .msi_vector_num  (msi_vec),
    .m_axib_awid     (bar_awid),
    .m_axib_awaddr   (bar_awaddr),
    .m_axib_awlen    (bar_awlen),
    .m_axib_awsize   (bar_awsize),
    .m_axib_awburst  (bar_awburst),
    .m_axib_awprot   (bar_awprot),
    .m_axib_awvalid  (bar_awvalid),
    .m_axib_awready  (bar_awready),
    .m_axib_awlock   (bar_awlock),
    .m_axib_awcache  (bar_awcache),
    .m_axib_wdata    (bar_wdata),
    .m_axib_wstrb    (bar_wstrb),
    .m_axib_wlast    (bar_wlast),
    .m_axib_wvalid   (bar_wvalid),
    .m_axib_wready   (bar_wready),
    .m_axib_bid      (bar_bid),
    .m_axib_bresp    (bar_bresp),
    .m_axib_bvalid   (bar_bvalid),
    .m_axib_bready   (bar_bready),
    .m_axib_arid     (bar_arid),
    .m_axib_araddr   (bar_araddr),
    .m_axib_arlen    (bar_arlen),
    .m_axib_arsize   (bar_arsize),
    .m_axib_arburst  (bar_arburst),
    .m_axib_arprot   (bar_arprot),
    .m_axib_arvalid  (bar_arvalid),
    .m_axib_arready  (bar_arready),
    .m_axib_arlock   (bar_arlock),
    .m_axib_arcache  (bar_arcache),
    .m_axib_rid      (bar_rid),
    .m_axib_rdata    (bar_rdata),
    .m_axib_rresp    (bar_rresp),
    .m_axib_rlast    (bar_rlast),
    .m_axib_rvalid   (bar_rvalid),
    .m_axib_rready   (bar_rready),
    .s_axib_awid     (dma_awid),
    .s_axib_awaddr   (dma_awaddr),
    .s_axib_awregion (4'd0),
    .s_axib_awlen    (dma_awlen),
    .s_axib_awsize   (dma_awsize),
    .s_axib_awburst  (dma_awburst),
    .s_axib_awvalid  (dma_awvalid),
    .s_axib_awready  (dma_awready),
    .s_axib_wdata    (dma_wdata),
    .s_axib_wstrb    (dma_wstrb),
    .s_axib_wlast    (dma_wlast),
    .s_axib_wvalid   (dma_wvalid),
    .s_axib_wready   (dma_wready),
    .s_axib_bid      (dma_bid),
    .s_axib_bresp    (dma_bresp),
    .s_axib_bvalid   (dma_bvalid),
    .s_axib_bready   (dma_bready),
    .s_axib_arid     (dma_arid),
    .s_axib_araddr   (dma_araddr),
    .s_axib_arregion (4'd0),
    .s_axib_arlen    (dma_arlen),
    .s_axib_arsize   (dma_arsize),
    .s_axib_arburst  (dma_arburst),
    .s_axib_arvalid  (dma_arvalid),
    .s_axib_arready  (dma_arready),
    .s_axib_rid      (dma_rid),
    .s_axib_rdata    (dma_rdata),
    .s_axib_rresp    (dma_rresp),
    .s_axib_rlast    (dma_rlast),
    .s_axib_rvalid   (dma_rvalid),
    .s_axib_rready   (dma_rready)
  );

  // ---- core clock and resets ----
  logic core_clk, core_locked;
`ifdef SYNTHESIS
  logic mmcm_fb, mmcm_clk0;
  logic [10:0] mmcm_nc;
  logic        unused_mmcm;
  assign unused_mmcm = ^mmcm_nc;
  MMCME2_BASE #(
    .CLKIN1_PERIOD   (8.0),
    .CLKFBOUT_MULT_F (CORE_MULT),
    .CLKOUT0_DIVIDE_F(CORE_DIV)
  ) u_mmcm (
    .CLKIN1   (axi_clk),
    .CLKFBIN  (mmcm_fb),
    .RST      (!axi_rst_n),
    .PWRDWN   (1'b0),
    .CLKFBOUT (mmcm_fb),
    .CLKFBOUTB(mmcm_nc[0]),
    .CLKOUT0  (mmcm_clk0),
    .CLKOUT0B (mmcm_nc[1]),
    .CLKOUT1  (mmcm_nc[2]),
    .CLKOUT1B (mmcm_nc[3]),
    .CLKOUT2  (mmcm_nc[4]),
    .CLKOUT2B (mmcm_nc[5]),
    .CLKOUT3  (mmcm_nc[6]),
    .CLKOUT3B (mmcm_nc[7]),
    .CLKOUT4  (mmcm_nc[8]),
    .CLKOUT5  (mmcm_nc[9]),
    .CLKOUT6  (mmcm_nc[10]),
    .LOCKED   (core_locked)
  );
  BUFG u_core_bufg (
    .I(mmcm_clk0),
    .O(core_clk)
  );
`else
  assign core_clk    = axi_clk;
  assign core_locked = 1'b1;
`endif

  // one reset source (bridge reset and clock lock), released in each domain
  logic rst_src_n, b_rst_n, c_rst_n;
  assign rst_src_n = axi_rst_n && core_locked;
  phy_rst_sync u_b_rst (
    .clk_i (axi_clk),
    .rst_ni(rst_src_n),
    .rst_no(b_rst_n)
  );
  phy_rst_sync u_c_rst (
    .clk_i (core_clk),
    .rst_ni(rst_src_n),
    .rst_no(c_rst_n)
  );

  // ---- bridge-clock side: AXI adapters ----
  logic        b_csr_req_valid, b_csr_req_write, b_csr_rsp_valid;
  logic [15:0] b_csr_req_addr;
  logic [31:0] b_csr_req_wdata, b_csr_rsp_rdata;
  logic        b_rd_req_valid, b_rd_req_ready, b_rd_rsp_valid, b_rd_rsp_ready;
  logic [63:0] b_rd_req_addr, b_rd_rsp_data;
  logic [5:0]  b_rd_req_beats;
  logic [7:0]  b_rd_req_tag, b_rd_rsp_tag;
  logic        b_rd_rsp_last, b_rd_rsp_err;
  logic        b_wr_valid, b_wr_ready;
  logic [63:0] b_wr_addr, b_wr_data;
  logic [7:0]  b_wr_strb;
  logic        b_irq;
  logic        csr_err, rd_err, rd_stray, wr_err, wr_stray, msi_sent;

  axi_csr_slave #(
    .ID_W  (IdW),
    .ADDR_W(16)
  ) u_bar0 (
    .clk_i          (axi_clk),
    .rst_ni         (b_rst_n),
    .s_axi_awvalid_i(bar_awvalid),
    .s_axi_awready_o(bar_awready),
    .s_axi_awid_i   (bar_awid),
    .s_axi_awaddr_i (bar_awaddr),
    .s_axi_awlen_i  (bar_awlen),
    .s_axi_wvalid_i (bar_wvalid),
    .s_axi_wready_o (bar_wready),
    .s_axi_wdata_i  (bar_wdata),
    .s_axi_wstrb_i  (bar_wstrb),
    .s_axi_bvalid_o (bar_bvalid),
    .s_axi_bready_i (bar_bready),
    .s_axi_bid_o    (bar_bid),
    .s_axi_bresp_o  (bar_bresp),
    .s_axi_arvalid_i(bar_arvalid),
    .s_axi_arready_o(bar_arready),
    .s_axi_arid_i   (bar_arid),
    .s_axi_araddr_i (bar_araddr),
    .s_axi_arlen_i  (bar_arlen),
    .s_axi_arsize_i (bar_arsize),
    .s_axi_rvalid_o (bar_rvalid),
    .s_axi_rready_i (bar_rready),
    .s_axi_rid_o    (bar_rid),
    .s_axi_rdata_o  (bar_rdata),
    .s_axi_rresp_o  (bar_rresp),
    .s_axi_rlast_o  (bar_rlast),
    .csr_req_valid_o(b_csr_req_valid),
    .csr_req_write_o(b_csr_req_write),
    .csr_req_addr_o (b_csr_req_addr),
    .csr_req_wdata_o(b_csr_req_wdata),
    .csr_rsp_valid_i(b_csr_rsp_valid),
    .csr_rsp_rdata_i(b_csr_rsp_rdata),
    .err_o          (csr_err)
  );

  axi_dma_rd_master #(
    .ID_W      (IdW),
    .MAX_BURSTS(32)
  ) u_dma_rd (
    .clk_i          (axi_clk),
    .rst_ni         (b_rst_n),
    .req_valid_i    (b_rd_req_valid),
    .req_ready_o    (b_rd_req_ready),
    .req_addr_i     (b_rd_req_addr),
    .req_beats_i    (b_rd_req_beats),
    .req_tag_i      (b_rd_req_tag),
    .rsp_valid_o    (b_rd_rsp_valid),
    .rsp_ready_i    (b_rd_rsp_ready),
    .rsp_data_o     (b_rd_rsp_data),
    .rsp_tag_o      (b_rd_rsp_tag),
    .rsp_last_o     (b_rd_rsp_last),
    .rsp_err_o      (b_rd_rsp_err),
    .m_axi_arvalid_o(dma_arvalid),
    .m_axi_arready_i(dma_arready),
    .m_axi_arid_o   (dma_arid),
    .m_axi_araddr_o (dma_araddr),
    .m_axi_arlen_o  (dma_arlen),
    .m_axi_arsize_o (dma_arsize),
    .m_axi_arburst_o(dma_arburst),
    .m_axi_rvalid_i (dma_rvalid),
    .m_axi_rready_o (dma_rready),
    .m_axi_rid_i    (dma_rid),
    .m_axi_rdata_i  (dma_rdata),
    .m_axi_rresp_i  (dma_rresp),
    .m_axi_rlast_i  (dma_rlast),
    .err_o          (rd_err),
    .stray_o        (rd_stray)
  );

  axi_dma_wr_master #(
    .ID_W      (IdW),
    .MAX_WRITES(32)
  ) u_dma_wr (
    .clk_i          (axi_clk),
    .rst_ni         (b_rst_n),
    .wr_valid_i     (b_wr_valid),
    .wr_ready_o     (b_wr_ready),
    .wr_addr_i      (b_wr_addr),
    .wr_data_i      (b_wr_data),
    .wr_strb_i      (b_wr_strb),
    .m_axi_awvalid_o(dma_awvalid),
    .m_axi_awready_i(dma_awready),
    .m_axi_awid_o   (dma_awid),
    .m_axi_awaddr_o (dma_awaddr),
    .m_axi_awlen_o  (dma_awlen),
    .m_axi_awsize_o (dma_awsize),
    .m_axi_awburst_o(dma_awburst),
    .m_axi_wvalid_o (dma_wvalid),
    .m_axi_wready_i (dma_wready),
    .m_axi_wdata_o  (dma_wdata),
    .m_axi_wstrb_o  (dma_wstrb),
    .m_axi_wlast_o  (dma_wlast),
    .m_axi_bvalid_i (dma_bvalid),
    .m_axi_bready_o (dma_bready),
    .m_axi_bid_i    (dma_bid),
    .m_axi_bresp_i  (dma_bresp),
    .err_o          (wr_err),
    .stray_o        (wr_stray)
  );

  msi_from_irq #(
    .RETRIGGER(125_000)   // 1 ms at 125 MHz
  ) u_msi (
    .clk_i           (axi_clk),
    .rst_ni          (b_rst_n),
    .irq_i           (b_irq),
    .msi_enable_i    (msi_en),
    .msi_request_o   (msi_req),
    .msi_grant_i     (msi_grant),
    .msi_vector_num_o(msi_vec),
    .sent_o          (msi_sent)
  );

  // ---- clock crossing ----
  logic        c_csr_req_valid, c_csr_req_write, c_csr_rsp_valid;
  logic [15:0] c_csr_req_addr;
  logic [31:0] c_csr_req_wdata, c_csr_rsp_rdata;
  logic        c_rd_req_valid, c_rd_req_ready, c_rd_rsp_valid, c_rd_rsp_ready;
  logic [63:0] c_rd_req_addr, c_rd_rsp_data;
  logic [5:0]  c_rd_req_beats;
  logic [7:0]  c_rd_req_tag, c_rd_rsp_tag;
  logic        c_rd_rsp_last, c_rd_rsp_err;
  logic        c_wr_valid, c_wr_ready;
  logic [63:0] c_wr_addr, c_wr_data;
  logic [7:0]  c_wr_strb;
  logic        c_irq;

  card_cdc #(
    .DMA_DEPTH(16)
  ) u_cdc (
    .b_clk_i             (axi_clk),
    .b_rst_ni            (b_rst_n),
    .b_csr_req_valid_i   (b_csr_req_valid),
    .b_csr_req_write_i   (b_csr_req_write),
    .b_csr_req_addr_i    (b_csr_req_addr),
    .b_csr_req_wdata_i   (b_csr_req_wdata),
    .b_csr_rsp_valid_o   (b_csr_rsp_valid),
    .b_csr_rsp_rdata_o   (b_csr_rsp_rdata),
    .b_dma_rd_req_valid_o(b_rd_req_valid),
    .b_dma_rd_req_ready_i(b_rd_req_ready),
    .b_dma_rd_req_addr_o (b_rd_req_addr),
    .b_dma_rd_req_beats_o(b_rd_req_beats),
    .b_dma_rd_req_tag_o  (b_rd_req_tag),
    .b_dma_rd_rsp_valid_i(b_rd_rsp_valid),
    .b_dma_rd_rsp_ready_o(b_rd_rsp_ready),
    .b_dma_rd_rsp_data_i (b_rd_rsp_data),
    .b_dma_rd_rsp_tag_i  (b_rd_rsp_tag),
    .b_dma_rd_rsp_last_i (b_rd_rsp_last),
    .b_dma_rd_rsp_err_i  (b_rd_rsp_err),
    .b_dma_wr_valid_o    (b_wr_valid),
    .b_dma_wr_ready_i    (b_wr_ready),
    .b_dma_wr_addr_o     (b_wr_addr),
    .b_dma_wr_data_o     (b_wr_data),
    .b_dma_wr_strb_o     (b_wr_strb),
    .b_irq_o             (b_irq),
    .c_clk_i             (core_clk),
    .c_rst_ni            (c_rst_n),
    .c_csr_req_valid_o   (c_csr_req_valid),
    .c_csr_req_write_o   (c_csr_req_write),
    .c_csr_req_addr_o    (c_csr_req_addr),
    .c_csr_req_wdata_o   (c_csr_req_wdata),
    .c_csr_rsp_valid_i   (c_csr_rsp_valid),
    .c_csr_rsp_rdata_i   (c_csr_rsp_rdata),
    .c_dma_rd_req_valid_i(c_rd_req_valid),
    .c_dma_rd_req_ready_o(c_rd_req_ready),
    .c_dma_rd_req_addr_i (c_rd_req_addr),
    .c_dma_rd_req_beats_i(c_rd_req_beats),
    .c_dma_rd_req_tag_i  (c_rd_req_tag),
    .c_dma_rd_rsp_valid_o(c_rd_rsp_valid),
    .c_dma_rd_rsp_ready_i(c_rd_rsp_ready),
    .c_dma_rd_rsp_data_o (c_rd_rsp_data),
    .c_dma_rd_rsp_tag_o  (c_rd_rsp_tag),
    .c_dma_rd_rsp_last_o (c_rd_rsp_last),
    .c_dma_rd_rsp_err_o  (c_rd_rsp_err),
    .c_dma_wr_valid_i    (c_wr_valid),
    .c_dma_wr_ready_o    (c_wr_ready),
    .c_dma_wr_addr_i     (c_wr_addr),
    .c_dma_wr_data_i     (c_wr_data),
    .c_dma_wr_strb_i     (c_wr_strb),
    .c_irq_i             (c_irq)
  );

  // ---- core ----
  link_flit_t [NPorts-1:1] lk_in_flit, lk_out_flit;
  logic       [NPorts-1:1] lk_in_credit, lk_out_credit;

  fasthsl_card u_card (
    .clk_i             (core_clk),
    .rst_ni            (c_rst_n),
    .csr_req_valid_i   (c_csr_req_valid),
    .csr_req_write_i   (c_csr_req_write),
    .csr_req_addr_i    (c_csr_req_addr),
    .csr_req_wdata_i   (c_csr_req_wdata),
    .csr_rsp_valid_o   (c_csr_rsp_valid),
    .csr_rsp_rdata_o   (c_csr_rsp_rdata),
    .dma_rd_req_valid_o(c_rd_req_valid),
    .dma_rd_req_ready_i(c_rd_req_ready),
    .dma_rd_req_addr_o (c_rd_req_addr),
    .dma_rd_req_beats_o(c_rd_req_beats),
    .dma_rd_req_tag_o  (c_rd_req_tag),
    .dma_rd_rsp_valid_i(c_rd_rsp_valid),
    .dma_rd_rsp_ready_o(c_rd_rsp_ready),
    .dma_rd_rsp_data_i (c_rd_rsp_data),
    .dma_rd_rsp_tag_i  (c_rd_rsp_tag),
    .dma_rd_rsp_last_i (c_rd_rsp_last),
    .dma_rd_rsp_err_i  (c_rd_rsp_err),
    .dma_wr_valid_o    (c_wr_valid),
    .dma_wr_ready_i    (c_wr_ready),
    .dma_wr_addr_o     (c_wr_addr),
    .dma_wr_data_o     (c_wr_data),
    .dma_wr_strb_o     (c_wr_strb),
    .irq_o             (c_irq),
    .link_in_flit_i    (lk_in_flit),
    .link_in_credit_o  (lk_in_credit),
    .link_out_flit_o   (lk_out_flit),
    .link_out_credit_i (lk_out_credit)
  );

  // ---- unused router ports: idle inputs, outputs drained (one credit, returned per flit)
  for (genvar p = 1; p < NPorts; p++) begin : gen_unused
    assign lk_in_flit[p] = LINK_FLIT_IDLE;
    link_credit_return #(
      .DEPTH(1)
    ) u_sink (
      .clk_i       (core_clk),
      .rst_ni      (c_rst_n),
      .slot_freed_i(lk_out_flit[p].valid),
      .credit_o    (lk_out_credit[p])
    );
  end

  // ---- LEDs ----
  // A read error (SLVERR/DECERR, i.e. a PCIe UR/CA completion) reaches the NIC as
  // dma_rd_rsp_err_i, which completes the descriptor with DMA_RD; led_n[3] latches
  // every bridge-side error for a person looking at the board.
  logic [25:0] beat_q;
  logic        bridge_err_q;
  always_ff @(posedge core_clk or negedge c_rst_n) begin
    if (!c_rst_n) beat_q <= '0;
    else          beat_q <= beat_q + 26'd1;
  end
  always_ff @(posedge axi_clk or negedge b_rst_n) begin
    if (!b_rst_n)     bridge_err_q <= 1'b0;
    else if (csr_err) bridge_err_q <= 1'b1;
  end
  assign led_n = ~{bridge_err_q || rd_err || rd_stray || wr_err || wr_stray, b_irq,
                   beat_q[25], lnk_up};

  logic unused;
  assign unused = ^{lk_in_credit, msi_width, msi_sent, bar_awsize,
                    bar_awburst, bar_awprot, bar_awlock, bar_awcache, bar_wlast, bar_arburst,
                    bar_arprot, bar_arlock, bar_arcache};

endmodule
