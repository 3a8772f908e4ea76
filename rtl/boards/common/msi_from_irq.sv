// The core's level interrupt as MSI requests to the PCIe bridge (Xilinx XDMA in AXI
// bridge mode: intx_msi_request / intx_msi_grant / msi_enable).
//
// MSI is an edge: one message per request. A request goes out when irq_i rises. If
// irq_i is still high RETRIGGER cycles after the last grant, another one goes out: the
// driver acknowledges by clearing INT_STATUS, and an event that lands between its read
// and its clear keeps the line high without a new edge, which would otherwise be lost.
// While the host has MSI disabled the request waits (it is sent once enabled).
module msi_from_irq #(
  parameter int unsigned RETRIGGER = 65536
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       irq_i,
  input  logic       msi_enable_i,
  output logic       msi_request_o,
  input  logic       msi_grant_i,
  output logic [4:0] msi_vector_num_o,
  output logic       sent_o          // pulse per MSI granted
);
  localparam int unsigned TimerW = $clog2(RETRIGGER + 1);

  logic              irq_q, pending_d, pending_q;
  logic [TimerW-1:0] timer_d, timer_q;

  assign msi_request_o    = pending_q && msi_enable_i;
  assign msi_vector_num_o = 5'd0;
  assign sent_o           = msi_request_o && msi_grant_i;

  always_comb begin
    pending_d = pending_q;
    timer_d   = timer_q;
    if (!irq_i || pending_q) begin
      timer_d = '0;
    end else if (timer_q == TimerW'(RETRIGGER - 1)) begin
      pending_d = 1'b1;
      timer_d   = '0;
    end else begin
      timer_d = timer_q + 1'b1;
    end
    if (sent_o) pending_d = 1'b0;
    // an edge in the cycle of a grant is a new event: it gets its own message
    if (irq_i && !irq_q) pending_d = 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      irq_q     <= 1'b0;
      pending_q <= 1'b0;
      timer_q   <= '0;
    end else begin
      irq_q     <= irq_i;
      pending_q <= pending_d;
      timer_q   <= timer_d;
    end
  end

endmodule
