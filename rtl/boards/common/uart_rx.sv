// UART receiver, 8N1, LSB first. The line is synchronized, a start bit is a falling
// edge after idle, each bit is sampled in its middle. A stop bit that reads 0 drops
// the byte and pulses frame_err_o (noise, wrong baud rate).
module uart_rx #(
  parameter int unsigned CLK_HZ = 50_000_000,
  parameter int unsigned BAUD   = 115_200
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  input  logic       rx_i,
  output logic       valid_o,     // one-cycle pulse with data_o
  output logic [7:0] data_o,
  output logic       frame_err_o
);
  localparam int unsigned Div  = (CLK_HZ + BAUD / 2) / BAUD;
  localparam int unsigned DivW = $clog2(Div + 1);

  if (Div < 4) begin : gen_div_check
    $error("uart_rx: CLK_HZ / BAUD must be at least 4");
  end

  logic rx_s, rx_prev_q;
  phy_sync_2ff u_sync (
    .clk_i (clk_i),
    .rst_ni(rst_ni),
    .d_i   (rx_i),
    .q_o   (rx_s)
  );

  typedef enum logic [1:0] {
    StIdle,
    StStart,
    StData,
    StStop
  } state_e;

  state_e          state_q;
  logic [DivW-1:0] tick_q;
  logic [2:0]      bit_q;
  logic [7:0]      shift_q;
  logic            valid_q, ferr_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= StIdle;
      tick_q    <= '0;
      bit_q     <= '0;
      shift_q   <= '0;
      valid_q   <= 1'b0;
      ferr_q    <= 1'b0;
      rx_prev_q <= 1'b0;   // 0: a line low from reset on is not taken for a start bit
    end else begin
      rx_prev_q <= rx_s;
      valid_q   <= 1'b0;
      ferr_q    <= 1'b0;
      if (tick_q != '0) tick_q <= tick_q - 1'b1;
      unique case (state_q)
        StIdle: if (rx_prev_q && !rx_s) begin
          state_q <= StStart;
          tick_q  <= DivW'(Div / 2);
        end
        StStart: if (tick_q == '0) begin
          // still low in the middle of the start bit, else it was a glitch
          state_q <= rx_s ? StIdle : StData;
          tick_q  <= DivW'(Div - 1);
          bit_q   <= '0;
        end
        StData: if (tick_q == '0) begin
          shift_q <= {rx_s, shift_q[7:1]};
          tick_q  <= DivW'(Div - 1);
          bit_q   <= bit_q + 1'b1;
          if (bit_q == 3'd7) state_q <= StStop;
        end
        StStop: if (tick_q == '0) begin
          valid_q <= rx_s;
          ferr_q  <= !rx_s;
          state_q <= StIdle;
        end
        default: state_q <= StIdle;
      endcase
    end
  end

  assign valid_o     = valid_q;
  assign data_o      = shift_q;
  assign frame_err_o = ferr_q;

endmodule
