// UART transmitter, 8N1, LSB first; the line idles high. ready_o is high when a byte
// can be taken (valid_i && ready_o starts it).
module uart_tx #(
  parameter int unsigned CLK_HZ = 50_000_000,
  parameter int unsigned BAUD   = 115_200
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       valid_i,
  output logic       ready_o,
  input  logic [7:0] data_i,
  output logic       tx_o
);
  localparam int unsigned Div  = (CLK_HZ + BAUD / 2) / BAUD;
  localparam int unsigned DivW = $clog2(Div + 1);

  logic [DivW-1:0] tick_q;
  logic [3:0]      left_q;   // bits still to send after the current one; 0 and tick 0: idle
  logic [8:0]      shift_q;  // {stop, data}; the current bit is on the line
  logic            tx_q, busy_q;

  assign ready_o = !busy_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tick_q  <= '0;
      left_q  <= '0;
      shift_q <= '1;
      tx_q    <= 1'b1;
      busy_q  <= 1'b0;
    end else if (!busy_q) begin
      if (valid_i) begin
        busy_q  <= 1'b1;
        tx_q    <= 1'b0;        // start bit
        shift_q <= {1'b1, data_i};
        left_q  <= 4'd9;
        tick_q  <= DivW'(Div - 1);
      end
    end else if (tick_q != '0) begin
      tick_q <= tick_q - 1'b1;
    end else if (left_q != '0) begin
      tx_q    <= shift_q[0];
      shift_q <= {1'b1, shift_q[8:1]};
      left_q  <= left_q - 1'b1;
      tick_q  <= DivW'(Div - 1);
    end else begin
      busy_q <= 1'b0;            // stop bit done
    end
  end

  assign tx_o = tx_q;

endmodule
