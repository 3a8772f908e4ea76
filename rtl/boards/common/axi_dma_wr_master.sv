// The core's DMA write port as an AXI4 write master (to the PCIe bridge's slave port,
// e.g. Xilinx XDMA S_AXI_B, which turns each burst into a posted MWr TLP).
//
// Each core beat (one 8-byte aligned word with byte strobes) is one single-beat burst,
// so no burst can cross a 4 KiB boundary. All bursts use one AXI ID: the bridge then
// issues them in order, and posted PCIe writes stay in order, which is the ordering the
// core relies on (an LMR entry is written after its payload).
//
// AW and W of a beat are offered together; a new beat is taken once both were taken,
// in the same cycle, so the port moves one beat per cycle. At most MAX_WRITES beats are
// waiting for their B response. BRESP SLVERR/DECERR makes err_o sticky (the write is
// lost; posted writes have no way back to the core). A B with nothing outstanding (a
// bridge fault) is taken and flagged in stray_o.
module axi_dma_wr_master #(
  parameter int unsigned ID_W       = 4,
  parameter int unsigned MAX_WRITES = 32
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // core side (ddc_nic DMA write master)
  input  logic             wr_valid_i,
  output logic             wr_ready_o,
  input  logic [63:0]      wr_addr_i,
  input  logic [63:0]      wr_data_i,
  input  logic [7:0]       wr_strb_i,
  // AXI4 write address channel
  output logic             m_axi_awvalid_o,
  input  logic             m_axi_awready_i,
  output logic [ID_W-1:0]  m_axi_awid_o,
  output logic [63:0]      m_axi_awaddr_o,
  output logic [7:0]       m_axi_awlen_o,
  output logic [2:0]       m_axi_awsize_o,
  output logic [1:0]       m_axi_awburst_o,
  // AXI4 write data channel
  output logic             m_axi_wvalid_o,
  input  logic             m_axi_wready_i,
  output logic [63:0]      m_axi_wdata_o,
  output logic [7:0]       m_axi_wstrb_o,
  output logic             m_axi_wlast_o,
  // AXI4 write response channel
  input  logic             m_axi_bvalid_i,
  output logic             m_axi_bready_o,
  input  logic [ID_W-1:0]  m_axi_bid_i,
  input  logic [1:0]       m_axi_bresp_i,
  // status
  output logic             err_o,
  output logic             stray_o
);
  localparam int unsigned CntW = $clog2(MAX_WRITES + 1);

  logic            aw_pend_d, aw_pend_q, w_pend_d, w_pend_q;
  logic [63:0]     addr_d, addr_q, data_d, data_q;
  logic [7:0]      strb_d, strb_q;
  logic [CntW-1:0] inflight_d, inflight_q;
  logic            take, b_fire, aw_free, w_free;

  assign aw_free    = !aw_pend_q || m_axi_awready_i;
  assign w_free     = !w_pend_q || m_axi_wready_i;
  assign wr_ready_o = aw_free && w_free && (inflight_q != CntW'(MAX_WRITES));
  assign take       = wr_valid_i && wr_ready_o;
  assign b_fire     = m_axi_bvalid_i && (inflight_q != '0);

  assign m_axi_awvalid_o = aw_pend_q;
  assign m_axi_awid_o    = '0;
  assign m_axi_awaddr_o  = addr_q;
  assign m_axi_awlen_o   = 8'd0;
  assign m_axi_awsize_o  = 3'd3;
  assign m_axi_awburst_o = 2'b01;
  assign m_axi_wvalid_o  = w_pend_q;
  assign m_axi_wdata_o   = data_q;
  assign m_axi_wstrb_o   = strb_q;
  assign m_axi_wlast_o   = 1'b1;
  assign m_axi_bready_o  = 1'b1;

  always_comb begin
    aw_pend_d  = aw_pend_q && !m_axi_awready_i;
    w_pend_d   = w_pend_q && !m_axi_wready_i;
    addr_d     = addr_q;
    data_d     = data_q;
    strb_d     = strb_q;
    inflight_d = inflight_q;
    if (take) begin
      aw_pend_d = 1'b1;
      w_pend_d  = 1'b1;
      addr_d    = {wr_addr_i[63:3], 3'b000};
      data_d    = wr_data_i;
      strb_d    = wr_strb_i;
    end
    unique case ({take, b_fire})
      2'b10:   inflight_d = inflight_q + 1'b1;
      2'b01:   inflight_d = inflight_q - 1'b1;
      default: inflight_d = inflight_q;
    endcase
  end

  logic err_d, err_q, stray_d, stray_q;
  always_comb begin
    err_d   = err_q || (b_fire && m_axi_bresp_i[1]);
    stray_d = stray_q || (m_axi_bvalid_i && (inflight_q == '0));
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      aw_pend_q  <= 1'b0;
      w_pend_q   <= 1'b0;
      addr_q     <= '0;
      data_q     <= '0;
      strb_q     <= '0;
      inflight_q <= '0;
      err_q      <= 1'b0;
      stray_q    <= 1'b0;
    end else begin
      aw_pend_q  <= aw_pend_d;
      w_pend_q   <= w_pend_d;
      addr_q     <= addr_d;
      data_q     <= data_d;
      strb_q     <= strb_d;
      inflight_q <= inflight_d;
      err_q      <= err_d;
      stray_q    <= stray_d;
    end
  end
  assign err_o   = err_q;
  assign stray_o = stray_q;

  logic unused_b;
  assign unused_b = ^{m_axi_bid_i, m_axi_bresp_i[0], wr_addr_i[2:0]};

endmodule
