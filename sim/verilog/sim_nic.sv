// Simulation top for one DDC NIC with flat ports, so the C++ shim can copy plain
// integers in and out without knowing the link struct layout.
//
// The DMA handshakes are reported as registered "fired" records: what transferred on
// the last clock edge. The host model needs exactly that, and reading it after the
// edge lets the shim run a whole cycle in one model evaluation instead of sampling
// the combinational valid/ready outputs before the edge in a separate one.
module sim_nic (
  input  logic        clk_i,
  input  logic        rst_ni,
  // CSR port (BAR0 offset: page 0 and the context pages; the router page is the
  // simulator's own)
  input  logic        csr_req_valid_i,
  input  logic        csr_req_write_i,
  input  logic [15:0] csr_req_addr_i,
  input  logic [31:0] csr_req_wdata_i,
  output logic        csr_rsp_valid_o,
  output logic [31:0] csr_rsp_rdata_o,
  // DMA read requests (fired: accepted on the last edge) and completions
  output logic        dma_rd_req_fire_o,
  input  logic        dma_rd_req_ready_i,
  output logic [63:0] dma_rd_req_addr_o,
  output logic [5:0]  dma_rd_req_beats_o,
  output logic [7:0]  dma_rd_req_tag_o,
  input  logic        dma_rd_rsp_valid_i,
  output logic        dma_rd_rsp_fire_o,
  input  logic [63:0] dma_rd_rsp_data_i,
  input  logic [7:0]  dma_rd_rsp_tag_i,
  input  logic        dma_rd_rsp_last_i,
  input  logic        dma_rd_rsp_err_i,
  // DMA writes (fired: accepted on the last edge)
  output logic        dma_wr_fire_o,
  input  logic        dma_wr_ready_i,
  output logic [63:0] dma_wr_addr_o,
  output logic [63:0] dma_wr_data_o,
  output logic [7:0]  dma_wr_strb_o,
  output logic        irq_o,
  // link to the router: flits out, credits back
  output logic        tx_valid_o,
  output logic        tx_last_o,
  output logic        tx_err_o,
  output logic [63:0] tx_data_o,
  input  logic        tx_credit_i,
  // link from the router: flits in, credits back
  input  logic        rx_valid_i,
  input  logic        rx_last_i,
  input  logic        rx_err_i,
  input  logic [63:0] rx_data_i,
  output logic        rx_credit_o
);
  import fasthsl_link_pkg::*;

  link_flit_t tx_flit, rx_flit;

  logic        rd_req_valid, rd_rsp_ready, wr_valid;
  logic [63:0] rd_req_addr, wr_addr, wr_data;
  logic [5:0]  rd_req_beats;
  logic [7:0]  rd_req_tag, wr_strb;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      dma_rd_req_fire_o  <= 1'b0;
      dma_rd_req_addr_o  <= '0;
      dma_rd_req_beats_o <= '0;
      dma_rd_req_tag_o   <= '0;
      dma_rd_rsp_fire_o  <= 1'b0;
      dma_wr_fire_o      <= 1'b0;
      dma_wr_addr_o      <= '0;
      dma_wr_data_o      <= '0;
      dma_wr_strb_o      <= '0;
    end else begin
      dma_rd_req_fire_o  <= rd_req_valid && dma_rd_req_ready_i;
      dma_rd_req_addr_o  <= rd_req_addr;
      dma_rd_req_beats_o <= rd_req_beats;
      dma_rd_req_tag_o   <= rd_req_tag;
      dma_rd_rsp_fire_o  <= dma_rd_rsp_valid_i && rd_rsp_ready;
      dma_wr_fire_o      <= wr_valid && dma_wr_ready_i;
      dma_wr_addr_o      <= wr_addr;
      dma_wr_data_o      <= wr_data;
      dma_wr_strb_o      <= wr_strb;
    end
  end

  assign rx_flit     = '{valid: rx_valid_i, last: rx_last_i, err: rx_err_i, data: rx_data_i};
  assign tx_valid_o  = tx_flit.valid;
  assign tx_last_o   = tx_flit.last;
  assign tx_err_o    = tx_flit.err;
  assign tx_data_o   = tx_flit.data;

  ddc_nic u_nic (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .csr_req_valid_i   (csr_req_valid_i),
    .csr_req_write_i   (csr_req_write_i),
    .csr_req_addr_i    (csr_req_addr_i),
    .csr_req_wdata_i   (csr_req_wdata_i),
    .csr_rsp_valid_o   (csr_rsp_valid_o),
    .csr_rsp_rdata_o   (csr_rsp_rdata_o),
    .dma_rd_req_valid_o(rd_req_valid),
    .dma_rd_req_ready_i(dma_rd_req_ready_i),
    .dma_rd_req_addr_o (rd_req_addr),
    .dma_rd_req_beats_o(rd_req_beats),
    .dma_rd_req_tag_o  (rd_req_tag),
    .dma_rd_rsp_valid_i(dma_rd_rsp_valid_i),
    .dma_rd_rsp_ready_o(rd_rsp_ready),
    .dma_rd_rsp_data_i (dma_rd_rsp_data_i),
    .dma_rd_rsp_tag_i  (dma_rd_rsp_tag_i),
    .dma_rd_rsp_last_i (dma_rd_rsp_last_i),
    .dma_rd_rsp_err_i  (dma_rd_rsp_err_i),
    .dma_wr_valid_o    (wr_valid),
    .dma_wr_ready_i    (dma_wr_ready_i),
    .dma_wr_addr_o     (wr_addr),
    .dma_wr_data_o     (wr_data),
    .dma_wr_strb_o     (wr_strb),
    .irq_o             (irq_o),
    .tx_flit_o         (tx_flit),
    .tx_credit_i       (tx_credit_i),
    .rx_flit_i         (rx_flit),
    .rx_credit_o       (rx_credit_o)
  );

endmodule
