// Merges the TX (descriptor status) and RX (payload, LMR entry) write streams onto the
// single DMA write port.
//
// Every beat is a self-contained aligned write, so arbitration is round robin per beat:
// with both sources busy they alternate, neither can starve the other, and each
// source's beats leave in their own order. The port is driven from a 2-entry buffer, so
// its outputs are registered and it still moves one beat per cycle.
//
// Each beat carries SIDE_W sideband bits that never reach the port. When the beat is
// accepted by the port, its source gets a *_done_o pulse with those bits back: RX uses
// it to publish an LMR entry only once its word 0 has actually left the NIC.
module ddc_dma_wr_mux #(
  parameter int unsigned SIDE_W = 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // TX source
  input  logic              tx_valid_i,
  output logic              tx_ready_o,
  input  logic [63:0]       tx_addr_i,
  input  logic [63:0]       tx_data_i,
  input  logic [7:0]        tx_strb_i,
  input  logic [SIDE_W-1:0] tx_side_i,
  output logic              tx_done_o,
  // RX source
  input  logic              rx_valid_i,
  output logic              rx_ready_o,
  input  logic [63:0]       rx_addr_i,
  input  logic [63:0]       rx_data_i,
  input  logic [7:0]        rx_strb_i,
  input  logic [SIDE_W-1:0] rx_side_i,
  output logic              rx_done_o,
  // side bits of the beat signalled by tx_done_o / rx_done_o
  output logic [SIDE_W-1:0] done_side_o,
  // DMA write port
  output logic              dma_wr_valid_o,
  input  logic              dma_wr_ready_i,
  output logic [63:0]       dma_wr_addr_o,
  output logic [63:0]       dma_wr_data_o,
  output logic [7:0]        dma_wr_strb_o
);
  typedef struct packed {
    logic              from_rx;
    logic [SIDE_W-1:0] side;
    logic [63:0]       addr;
    logic [63:0]       data;
    logic [7:0]        strb;
  } beat_t;

  // Priority goes to the source not served last.
  logic  prefer_rx_q, prefer_rx_d;
  logic  grant_rx, grant_tx;
  logic  buf_ready, buf_valid, buf_pop;
  beat_t in_beat, out_beat;

  always_comb begin
    grant_rx = rx_valid_i && (prefer_rx_q || !tx_valid_i);
    grant_tx = tx_valid_i && !grant_rx;
    in_beat  = grant_rx ? '{from_rx: 1'b1, side: rx_side_i, addr: rx_addr_i,
                            data: rx_data_i, strb: rx_strb_i}
                        : '{from_rx: 1'b0, side: tx_side_i, addr: tx_addr_i,
                            data: tx_data_i, strb: tx_strb_i};
    prefer_rx_d = prefer_rx_q;
    if (buf_ready && (grant_rx || grant_tx)) prefer_rx_d = grant_tx;
  end

  assign tx_ready_o = buf_ready && grant_tx;
  assign rx_ready_o = buf_ready && grant_rx;

  logic [1:0] unused_buf_count;

  fifo_sync #(
    .WIDTH($bits(beat_t)),
    .DEPTH(2)
  ) u_buf (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (grant_rx || grant_tx),
    .in_ready_o (buf_ready),
    .in_data_i  (in_beat),
    .out_valid_o(buf_valid),
    .out_ready_i(dma_wr_ready_i),
    .out_data_o (out_beat),
    .count_o    (unused_buf_count)
  );

  assign buf_pop        = buf_valid && dma_wr_ready_i;
  assign dma_wr_valid_o = buf_valid;
  assign dma_wr_addr_o  = out_beat.addr;
  assign dma_wr_data_o  = out_beat.data;
  assign dma_wr_strb_o  = out_beat.strb;
  assign tx_done_o      = buf_pop && !out_beat.from_rx;
  assign rx_done_o      = buf_pop && out_beat.from_rx;
  assign done_side_o    = out_beat.side;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) prefer_rx_q <= 1'b0;
    else         prefer_rx_q <= prefer_rx_d;
  end

endmodule
