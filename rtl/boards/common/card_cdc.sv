// Clock crossing between a PCIe bridge's clock (b_*) and the node core's clock (c_*),
// at the core's own interfaces (CSR bus, DMA read, DMA write, interrupt), so the core
// can run slower than the bridge's AXI clock (on the LiteFury: AXI at 125 MHz, the core
// at what it closes timing at).
//
// Every path is a phy_async_fifo (gray pointers, two-flop synchronizers); the level
// interrupt is a two-flop synchronizer. CSR: the bridge side sends one request at a time
// and waits for its answer (axi_csr_slave does), so the CSR FIFOs hold at most one entry
// and a read answers a few cycles later instead of exactly one. DMA: the FIFOs carry
// valid/ready streams both ways; DMA_DEPTH entries cover the pointer synchronization
// delay, so a stream still moves one beat per cycle of the slower clock. The DMA read
// response carries the bridge's error bit across with the data.
//
// Both resets must come from one source (each released synchronously to its clock, see
// phy_rst_sync) and be asserted together.
module card_cdc #(
  parameter int unsigned DMA_DEPTH = 16
) (
  // bridge side
  input  logic        b_clk_i,
  input  logic        b_rst_ni,
  input  logic        b_csr_req_valid_i,
  input  logic        b_csr_req_write_i,
  input  logic [15:0] b_csr_req_addr_i,
  input  logic [31:0] b_csr_req_wdata_i,
  output logic        b_csr_rsp_valid_o,
  output logic [31:0] b_csr_rsp_rdata_o,
  output logic        b_dma_rd_req_valid_o,
  input  logic        b_dma_rd_req_ready_i,
  output logic [63:0] b_dma_rd_req_addr_o,
  output logic [5:0]  b_dma_rd_req_beats_o,
  output logic [7:0]  b_dma_rd_req_tag_o,
  input  logic        b_dma_rd_rsp_valid_i,
  output logic        b_dma_rd_rsp_ready_o,
  input  logic [63:0] b_dma_rd_rsp_data_i,
  input  logic [7:0]  b_dma_rd_rsp_tag_i,
  input  logic        b_dma_rd_rsp_last_i,
  input  logic        b_dma_rd_rsp_err_i,
  output logic        b_dma_wr_valid_o,
  input  logic        b_dma_wr_ready_i,
  output logic [63:0] b_dma_wr_addr_o,
  output logic [63:0] b_dma_wr_data_o,
  output logic [7:0]  b_dma_wr_strb_o,
  output logic        b_irq_o,
  // core side
  input  logic        c_clk_i,
  input  logic        c_rst_ni,
  output logic        c_csr_req_valid_o,
  output logic        c_csr_req_write_o,
  output logic [15:0] c_csr_req_addr_o,
  output logic [31:0] c_csr_req_wdata_o,
  input  logic        c_csr_rsp_valid_i,
  input  logic [31:0] c_csr_rsp_rdata_i,
  input  logic        c_dma_rd_req_valid_i,
  output logic        c_dma_rd_req_ready_o,
  input  logic [63:0] c_dma_rd_req_addr_i,
  input  logic [5:0]  c_dma_rd_req_beats_i,
  input  logic [7:0]  c_dma_rd_req_tag_i,
  output logic        c_dma_rd_rsp_valid_o,
  input  logic        c_dma_rd_rsp_ready_i,
  output logic [63:0] c_dma_rd_rsp_data_o,
  output logic [7:0]  c_dma_rd_rsp_tag_o,
  output logic        c_dma_rd_rsp_last_o,
  output logic        c_dma_rd_rsp_err_o,
  input  logic        c_dma_wr_valid_i,
  output logic        c_dma_wr_ready_o,
  input  logic [63:0] c_dma_wr_addr_i,
  input  logic [63:0] c_dma_wr_data_i,
  input  logic [7:0]  c_dma_wr_strb_i,
  input  logic        c_irq_i
);
  // ---- CSR requests: bridge -> core; at most one in flight ----
  logic csr_req_ready, csr_rsp_ready, csr_rsp_out_valid;
  phy_async_fifo #(
    .WIDTH(1 + 16 + 32),
    .DEPTH(2)
  ) u_csr_req (
    .wr_clk_i  (b_clk_i),
    .wr_rst_ni (b_rst_ni),
    .wr_valid_i(b_csr_req_valid_i),
    .wr_ready_o(csr_req_ready),
    .wr_data_i ({b_csr_req_write_i, b_csr_req_addr_i, b_csr_req_wdata_i}),
    .rd_clk_i  (c_clk_i),
    .rd_rst_ni (c_rst_ni),
    .rd_valid_o(c_csr_req_valid_o),
    .rd_ready_i(1'b1),
    .rd_data_o ({c_csr_req_write_o, c_csr_req_addr_o, c_csr_req_wdata_o})
  );

  // ---- CSR read answers: core -> bridge ----
  phy_async_fifo #(
    .WIDTH(32),
    .DEPTH(2)
  ) u_csr_rsp (
    .wr_clk_i  (c_clk_i),
    .wr_rst_ni (c_rst_ni),
    .wr_valid_i(c_csr_rsp_valid_i),
    .wr_ready_o(csr_rsp_ready),
    .wr_data_i (c_csr_rsp_rdata_i),
    .rd_clk_i  (b_clk_i),
    .rd_rst_ni (b_rst_ni),
    .rd_valid_o(csr_rsp_out_valid),
    .rd_ready_i(1'b1),
    .rd_data_o (b_csr_rsp_rdata_o)
  );
  assign b_csr_rsp_valid_o = csr_rsp_out_valid;

  // ---- DMA read requests: core -> bridge ----
  phy_async_fifo #(
    .WIDTH(64 + 6 + 8),
    .DEPTH(DMA_DEPTH)
  ) u_rd_req (
    .wr_clk_i  (c_clk_i),
    .wr_rst_ni (c_rst_ni),
    .wr_valid_i(c_dma_rd_req_valid_i),
    .wr_ready_o(c_dma_rd_req_ready_o),
    .wr_data_i ({c_dma_rd_req_addr_i, c_dma_rd_req_beats_i, c_dma_rd_req_tag_i}),
    .rd_clk_i  (b_clk_i),
    .rd_rst_ni (b_rst_ni),
    .rd_valid_o(b_dma_rd_req_valid_o),
    .rd_ready_i(b_dma_rd_req_ready_i),
    .rd_data_o ({b_dma_rd_req_addr_o, b_dma_rd_req_beats_o, b_dma_rd_req_tag_o})
  );

  // ---- DMA read data: bridge -> core ----
  phy_async_fifo #(
    .WIDTH(64 + 8 + 1 + 1),
    .DEPTH(DMA_DEPTH)
  ) u_rd_rsp (
    .wr_clk_i  (b_clk_i),
    .wr_rst_ni (b_rst_ni),
    .wr_valid_i(b_dma_rd_rsp_valid_i),
    .wr_ready_o(b_dma_rd_rsp_ready_o),
    .wr_data_i ({b_dma_rd_rsp_data_i, b_dma_rd_rsp_tag_i, b_dma_rd_rsp_last_i,
                 b_dma_rd_rsp_err_i}),
    .rd_clk_i  (c_clk_i),
    .rd_rst_ni (c_rst_ni),
    .rd_valid_o(c_dma_rd_rsp_valid_o),
    .rd_ready_i(c_dma_rd_rsp_ready_i),
    .rd_data_o ({c_dma_rd_rsp_data_o, c_dma_rd_rsp_tag_o, c_dma_rd_rsp_last_o,
                 c_dma_rd_rsp_err_o})
  );

  // ---- DMA writes: core -> bridge ----
  phy_async_fifo #(
    .WIDTH(64 + 64 + 8),
    .DEPTH(DMA_DEPTH)
  ) u_wr (
    .wr_clk_i  (c_clk_i),
    .wr_rst_ni (c_rst_ni),
    .wr_valid_i(c_dma_wr_valid_i),
    .wr_ready_o(c_dma_wr_ready_o),
    .wr_data_i ({c_dma_wr_addr_i, c_dma_wr_data_i, c_dma_wr_strb_i}),
    .rd_clk_i  (b_clk_i),
    .rd_rst_ni (b_rst_ni),
    .rd_valid_o(b_dma_wr_valid_o),
    .rd_ready_i(b_dma_wr_ready_i),
    .rd_data_o ({b_dma_wr_addr_o, b_dma_wr_data_o, b_dma_wr_strb_o})
  );

  // ---- interrupt level: core -> bridge ----
  phy_sync_2ff #(
    .WIDTH(1)
  ) u_irq_sync (
    .clk_i (b_clk_i),
    .rst_ni(b_rst_ni),
    .d_i   (c_irq_i),
    .q_o   (b_irq_o)
  );

  // one CSR access at a time: neither CSR FIFO can be full when written
  logic unused_csr_ready;
  assign unused_csr_ready = csr_req_ready ^ csr_rsp_ready;

`ifndef SYNTHESIS
  // (no reset term: the resets are asynchronous, and neither side sends while in reset)
  always_ff @(posedge b_clk_i) begin
    if (b_csr_req_valid_i) begin
      assert (csr_req_ready) else $error("card_cdc: CSR request while the FIFO is full");
    end
  end
  always_ff @(posedge c_clk_i) begin
    if (c_csr_rsp_valid_i) begin
      assert (csr_rsp_ready) else $error("card_cdc: CSR answer while the FIFO is full");
    end
  end
`endif

endmodule
