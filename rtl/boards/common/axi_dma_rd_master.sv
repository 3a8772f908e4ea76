// The core's DMA read port as an AXI4 read master (to the PCIe bridge's slave port,
// e.g. Xilinx XDMA S_AXI_B in AXI bridge mode, which turns each burst into MRd TLPs).
//
// The core wants responses in request order (docs/ARCHITECTURE.md, DMA). Every burst
// uses the same AXI ID, for which AXI guarantees in-order read data, so no reorder
// buffer is needed: the core's tag of each burst waits in a FIFO and is put back on
// the data. Up to MAX_BURSTS bursts are in flight.
//
// A request that would cross a 4 KiB boundary (AXI forbids it; the core never asks for
// one, its reads stay inside 256 B) is cut into two bursts; only the last beat of the
// last burst carries `last` to the core.
//
// RRESP SLVERR/DECERR (the bridge's completion timeout, UR or CA, or a decode error)
// is reported per beat on rsp_err_o and made sticky in err_o. Read data with no burst
// outstanding (a bridge fault) is taken and dropped so the R channel cannot block;
// stray_o flags it.
module axi_dma_rd_master #(
  parameter int unsigned ID_W       = 4,
  parameter int unsigned MAX_BURSTS = 16
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  // core side (ddc_nic DMA read master)
  input  logic             req_valid_i,
  output logic             req_ready_o,
  input  logic [63:0]      req_addr_i,   // 8-byte aligned
  input  logic [5:0]       req_beats_i,  // 1..63
  input  logic [7:0]       req_tag_i,
  output logic             rsp_valid_o,
  input  logic             rsp_ready_i,
  output logic [63:0]      rsp_data_o,
  output logic [7:0]       rsp_tag_o,
  output logic             rsp_last_o,
  output logic             rsp_err_o,
  // AXI4 read address channel
  output logic             m_axi_arvalid_o,
  input  logic             m_axi_arready_i,
  output logic [ID_W-1:0]  m_axi_arid_o,
  output logic [63:0]      m_axi_araddr_o,
  output logic [7:0]       m_axi_arlen_o,
  output logic [2:0]       m_axi_arsize_o,
  output logic [1:0]       m_axi_arburst_o,
  // AXI4 read data channel
  input  logic             m_axi_rvalid_i,
  output logic             m_axi_rready_o,
  input  logic [ID_W-1:0]  m_axi_rid_i,
  input  logic [63:0]      m_axi_rdata_i,
  input  logic [1:0]       m_axi_rresp_i,
  input  logic             m_axi_rlast_i,
  // status
  output logic             err_o,
  output logic             stray_o
);
  // request being issued, possibly in two pieces
  logic        cur_valid_d, cur_valid_q;
  logic [63:0] cur_addr_d, cur_addr_q;
  logic [6:0]  cur_left_d, cur_left_q;
  logic [7:0]  cur_tag_d, cur_tag_q;

  logic [9:0]  to_boundary;  // beats left before the next 4 KiB boundary: 1..512
  logic [6:0]  piece;
  logic        piece_final;
  logic        ar_fire;

  assign to_boundary = 10'd512 - {1'b0, cur_addr_q[11:3]};
  assign piece_final = {3'b0, cur_left_q} <= to_boundary;
  assign piece       = piece_final ? cur_left_q : to_boundary[6:0];

  // bursts in flight: core tag, and whether the burst ends the core's request
  logic       fifo_in_ready, fifo_out_valid, fifo_pop;
  logic [7:0] head_tag;
  logic       head_final;

  assign req_ready_o     = !cur_valid_q;
  assign m_axi_arvalid_o = cur_valid_q && fifo_in_ready;
  assign m_axi_arid_o    = '0;
  assign m_axi_araddr_o  = cur_addr_q;
  assign m_axi_arlen_o   = {1'b0, piece} - 8'd1;
  assign m_axi_arsize_o  = 3'd3;   // 8 bytes per beat
  assign m_axi_arburst_o = 2'b01;  // INCR
  assign ar_fire         = m_axi_arvalid_o && m_axi_arready_i;

  always_comb begin
    cur_valid_d = cur_valid_q;
    cur_addr_d  = cur_addr_q;
    cur_left_d  = cur_left_q;
    cur_tag_d   = cur_tag_q;
    if (req_valid_i && req_ready_o) begin
      // a 0-beat request (the core never makes one) must not become a 256-beat burst
      cur_valid_d = (req_beats_i != '0);
      cur_addr_d  = {req_addr_i[63:3], 3'b000};
      cur_left_d  = {1'b0, req_beats_i};
      cur_tag_d   = req_tag_i;
    end else if (ar_fire) begin
      if (piece_final) cur_valid_d = 1'b0;
      cur_addr_d = cur_addr_q + {54'd0, piece, 3'b000};
      cur_left_d = cur_left_q - piece;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cur_valid_q <= 1'b0;
      cur_addr_q  <= '0;
      cur_left_q  <= '0;
      cur_tag_q   <= '0;
    end else begin
      cur_valid_q <= cur_valid_d;
      cur_addr_q  <= cur_addr_d;
      cur_left_q  <= cur_left_d;
      cur_tag_q   <= cur_tag_d;
    end
  end

  logic [$clog2(MAX_BURSTS + 1)-1:0] unused_count;
  fifo_sync #(
    .WIDTH(9),
    .DEPTH(MAX_BURSTS)
  ) u_bursts (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (ar_fire),
    .in_ready_o (fifo_in_ready),
    .in_data_i  ({cur_tag_q, piece_final}),
    .out_valid_o(fifo_out_valid),
    .out_ready_i(fifo_pop),
    .out_data_o ({head_tag, head_final}),
    .count_o    (unused_count)
  );

  // R passes straight through: the core (not this block) decides when it takes data
  assign rsp_valid_o    = m_axi_rvalid_i && fifo_out_valid;
  assign m_axi_rready_o = fifo_out_valid ? rsp_ready_i : 1'b1;
  assign rsp_data_o     = m_axi_rdata_i;
  assign rsp_tag_o      = head_tag;
  assign rsp_last_o     = m_axi_rlast_i && head_final;
  assign rsp_err_o      = m_axi_rresp_i[1];  // SLVERR (2) or DECERR (3)
  assign fifo_pop       = m_axi_rvalid_i && m_axi_rready_o && m_axi_rlast_i && fifo_out_valid;

  logic err_d, err_q, stray_d, stray_q;
  always_comb begin
    err_d   = err_q;
    stray_d = stray_q;
    if (rsp_valid_o && rsp_ready_i && rsp_err_o) err_d = 1'b1;
    if (m_axi_rvalid_i && !fifo_out_valid) stray_d = 1'b1;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      err_q   <= 1'b0;
      stray_q <= 1'b0;
    end else begin
      err_q   <= err_d;
      stray_q <= stray_d;
    end
  end
  assign err_o   = err_q;
  assign stray_o = stray_q;

  // one AXI ID: the bridge returns data in order whatever ID it echoes
  logic unused_rid;
  assign unused_rid = ^{m_axi_rid_i, unused_count, m_axi_rresp_i[0], req_addr_i[2:0]};

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (req_valid_i && req_ready_o) begin
      assert (req_beats_i != '0) else $error("axi_dma_rd_master: request of 0 beats");
    end
  end
`endif

endmodule
