// FastHSL node core: the NIC (ddc_nic) on port 0 of the local router (rcube_router),
// router ports 1..ROUTER_PORTS-1 as external links.
//
//   BAR0 (16-bit byte offset, 32-bit registers; BAR0_SIZE 64 KiB)
//     0x0000-0x0FFF  page 0: NIC CSRs            (ddc_nic)
//     0x1000-0x1FFF  page 1: router config page  (rcube_router, offsets RT_*)
//     0x2000-0x9FFF  context pages 0..7           (ddc_nic: CTX_PAGE_BASE + n * 4 KiB)
//     0xA000-0xFFFF  undefined                    (ddc_nic answers them as bad addresses)
//   A request goes to exactly one of the two (page 1 or not); each answers a read
//   exactly one cycle later and never answers a write, so the response is the OR of
//   the two valids and the data is picked by the page of the read, remembered in a
//   flop: a read still answers exactly one cycle later, and back-to-back reads of
//   alternating pages work.
//
// External link k (index k of the link_* arrays) is router port k; the routing tables
// name ports the same way (port 0 = local NIC). DMA ports and irq are ddc_nic's.
// No logic between the NIC and the router: both drive their link outputs from flops.
module fasthsl_card #(
  parameter int unsigned ROUTER_BUF_DEPTH  = 16,   // flits per router input buffer
  // Router organisation (rcube_router VOQ): virtual output queues + iSLIP by default; the
  // FIFO-input router is what fits an ECP5-85F beside the NIC with room to route
  parameter bit          ROUTER_VOQ        = 1'b1,
  // VOQ router pipeline options (rcube_router REG_AVAIL, REG_POP): a register after the
  // arrival logic, and pops carried out a cycle after the allocator decides them; each
  // takes a cycle per hop and a long path out of the router's allocation cycle
  // (docs/SYNTH.md)
  parameter bit          ROUTER_REG_AVAIL  = 1'b0,
  parameter bit          ROUTER_REG_POP    = 1'b0,
  // ... and the allocator's grant and accept in consecutive cycles (rcube_router ALLOC_PIPE)
  parameter bit          ROUTER_ALLOC_PIPE = 1'b0,
  // ... or the three-stage allocator in its place (rcube_router ALLOC_SPEC)
  parameter bit          ROUTER_ALLOC_SPEC = 1'b0
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // CSR bus (BAR0); at most one request per cycle, always accepted
  input  logic                         csr_req_valid_i,
  input  logic                         csr_req_write_i,
  input  logic [15:0]                  csr_req_addr_i,
  input  logic [31:0]                  csr_req_wdata_i,
  output logic                         csr_rsp_valid_o,  // two cycles after each read
  output logic [31:0]                  csr_rsp_rdata_o,
  // DMA read master
  output logic                         dma_rd_req_valid_o,
  input  logic                         dma_rd_req_ready_i,
  output logic [63:0]                  dma_rd_req_addr_o,
  output logic [5:0]                   dma_rd_req_beats_o,
  output logic [7:0]                   dma_rd_req_tag_o,
  input  logic                         dma_rd_rsp_valid_i,
  output logic                         dma_rd_rsp_ready_o,
  input  logic [63:0]                  dma_rd_rsp_data_i,
  input  logic [7:0]                   dma_rd_rsp_tag_i,
  input  logic                         dma_rd_rsp_last_i,
  input  logic                         dma_rd_rsp_err_i,
  // DMA write master
  output logic                         dma_wr_valid_o,
  input  logic                         dma_wr_ready_i,
  output logic [63:0]                  dma_wr_addr_o,
  output logic [63:0]                  dma_wr_data_o,
  output logic [7:0]                   dma_wr_strb_o,
  // interrupt (level)
  output logic                         irq_o,
  // external links = router ports 1..ROUTER_PORTS-1
  input  fasthsl_link_pkg::link_flit_t [fasthsl_pkg::ROUTER_PORTS-1:1] link_in_flit_i,
  output logic [fasthsl_pkg::ROUTER_PORTS-1:1]                         link_in_credit_o,
  output fasthsl_link_pkg::link_flit_t [fasthsl_pkg::ROUTER_PORTS-1:1] link_out_flit_o,
  input  logic [fasthsl_pkg::ROUTER_PORTS-1:1]                         link_out_credit_i
);
  import fasthsl_pkg::*;
  import fasthsl_link_pkg::*;

  localparam int unsigned NPorts = ROUTER_PORTS;

  // ---- BAR0 page decode ----
  logic page_rt;
  logic nic_req_valid, rt_req_valid;
  assign page_rt       = (csr_req_addr_i[15:12] == 4'h1);
  assign nic_req_valid = csr_req_valid_i && !page_rt;
  assign rt_req_valid  = csr_req_valid_i && page_rt;

  // The NIC registers its requests (ddc_nic) and answers two cycles after a read; the
  // router's are registered here so that it answers at the same distance and two
  // answers never meet. Only one of the two answers a read.
  logic        rt_rq_valid_q, rt_rq_write_q;
  logic [11:0] rt_rq_addr_q;
  logic [31:0] rt_rq_wdata_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rt_rq_valid_q <= 1'b0;
    else         rt_rq_valid_q <= rt_req_valid;
  end
  always_ff @(posedge clk_i) begin
    if (rt_req_valid) begin
      rt_rq_write_q <= csr_req_write_i;
      rt_rq_addr_q  <= csr_req_addr_i[11:0];
      rt_rq_wdata_q <= csr_req_wdata_i;
    end
  end

  logic        nic_rsp_valid, rt_rsp_valid;
  logic [31:0] nic_rsp_rdata, rt_rsp_rdata;
  assign csr_rsp_valid_o = nic_rsp_valid || rt_rsp_valid;
  assign csr_rsp_rdata_o = rt_rsp_valid ? rt_rsp_rdata : nic_rsp_rdata;

  // ---- NIC <-> router port 0 ----
  link_flit_t [NPorts-1:0] rt_in_flit, rt_out_flit;
  logic       [NPorts-1:0] rt_in_credit, rt_out_credit;
  link_flit_t              nic_tx_flit;
  logic                    nic_rx_credit;

  always_comb begin
    rt_in_flit    = {link_in_flit_i, nic_tx_flit};
    rt_out_credit = {link_out_credit_i, nic_rx_credit};
  end
  assign link_in_credit_o = rt_in_credit[NPorts-1:1];
  assign link_out_flit_o  = rt_out_flit[NPorts-1:1];

  ddc_nic u_nic (
    .clk_i             (clk_i),
    .rst_ni            (rst_ni),
    .csr_req_valid_i   (nic_req_valid),
    .csr_req_write_i   (csr_req_write_i),
    .csr_req_addr_i    (csr_req_addr_i),
    .csr_req_wdata_i   (csr_req_wdata_i),
    .csr_rsp_valid_o   (nic_rsp_valid),
    .csr_rsp_rdata_o   (nic_rsp_rdata),
    .dma_rd_req_valid_o(dma_rd_req_valid_o),
    .dma_rd_req_ready_i(dma_rd_req_ready_i),
    .dma_rd_req_addr_o (dma_rd_req_addr_o),
    .dma_rd_req_beats_o(dma_rd_req_beats_o),
    .dma_rd_req_tag_o  (dma_rd_req_tag_o),
    .dma_rd_rsp_valid_i(dma_rd_rsp_valid_i),
    .dma_rd_rsp_ready_o(dma_rd_rsp_ready_o),
    .dma_rd_rsp_data_i (dma_rd_rsp_data_i),
    .dma_rd_rsp_tag_i  (dma_rd_rsp_tag_i),
    .dma_rd_rsp_last_i (dma_rd_rsp_last_i),
    .dma_rd_rsp_err_i  (dma_rd_rsp_err_i),
    .dma_wr_valid_o    (dma_wr_valid_o),
    .dma_wr_ready_i    (dma_wr_ready_i),
    .dma_wr_addr_o     (dma_wr_addr_o),
    .dma_wr_data_o     (dma_wr_data_o),
    .dma_wr_strb_o     (dma_wr_strb_o),
    .irq_o             (irq_o),
    .tx_flit_o         (nic_tx_flit),
    .tx_credit_i       (rt_in_credit[0]),
    .rx_flit_i         (rt_out_flit[0]),
    .rx_credit_o       (nic_rx_credit)
  );

  rcube_router #(
    .NPORTS   (NPorts),
    .BUF_DEPTH(ROUTER_BUF_DEPTH),
    .VOQ      (ROUTER_VOQ),
    .REG_AVAIL(ROUTER_REG_AVAIL),
    .REG_POP  (ROUTER_REG_POP),
    .ALLOC_PIPE(ROUTER_ALLOC_PIPE),
    .ALLOC_SPEC(ROUTER_ALLOC_SPEC)
  ) u_router (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .in_flit_i      (rt_in_flit),
    .in_credit_o    (rt_in_credit),
    .out_flit_o     (rt_out_flit),
    .out_credit_i   (rt_out_credit),
    .cfg_req_valid_i(rt_rq_valid_q),
    .cfg_req_write_i(rt_rq_write_q),
    .cfg_req_addr_i (rt_rq_addr_q),
    .cfg_req_wdata_i(rt_rq_wdata_q),
    .cfg_rsp_valid_o(rt_rsp_valid),
    .cfg_rsp_rdata_o(rt_rsp_rdata)
  );

endmodule
