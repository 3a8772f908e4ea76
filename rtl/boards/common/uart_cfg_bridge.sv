// Byte-command bridge from a UART to a 32-bit register bus (the router's config port
// protocol: one request per cycle, always accepted, a read answers one cycle later).
//   'W' a1 a0 d3 d2 d1 d0  write d (big-endian) to address a; reply 'K'
//   'R' a1 a0              read address a; reply d3 d2 d1 d0
// Any other command byte is answered with '?'. A command whose bytes stop coming for
// TIMEOUT cycles is dropped without reply, and bytes arriving while a reply is being
// sent are dropped; each counts in err_o, so a host that got out of step resynchronizes
// by waiting TIMEOUT and sending its next command. A read that gets no answer within 4
// cycles replies 0xFFFFFFFF, so the bridge never waits forever.
module uart_cfg_bridge #(
  parameter int unsigned TIMEOUT = 5_000_000   // 100 ms at 50 MHz
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // bytes from uart_rx
  input  logic        rx_valid_i,
  input  logic [7:0]  rx_data_i,
  // bytes to uart_tx
  output logic        tx_valid_o,
  input  logic        tx_ready_i,
  output logic [7:0]  tx_data_o,
  // register bus
  output logic        req_valid_o,
  output logic        req_write_o,
  output logic [15:0] req_addr_o,
  output logic [31:0] req_wdata_o,
  input  logic        rsp_valid_i,
  input  logic [31:0] rsp_rdata_i,
  // a dropped command or byte (pulse)
  output logic        err_o
);
  localparam int unsigned ToW = $clog2(TIMEOUT + 1);

  typedef enum logic [2:0] {
    StCmd,     // waiting for a command byte
    StArgs,    // collecting address (and data) bytes
    StReq,     // request on the bus this cycle
    StWait,    // waiting for the read answer
    StSend     // sending reply bytes
  } state_e;

  state_e          state_q;
  logic            write_q;
  logic [2:0]      need_q;    // argument bytes still to come
  logic [47:0]     args_q;    // {addr, data}, shifted in
  logic [31:0]     reply_q;   // reply bytes, next on top
  logic [2:0]      left_q;    // reply bytes still to send
  logic [1:0]      wait_q;
  logic [ToW-1:0]  to_q;
  logic            err_q;

  assign req_valid_o = (state_q == StReq);
  assign req_write_o = write_q;
  // a read has only 2 argument bytes: its address sits in the low half of args_q
  assign req_addr_o  = write_q ? args_q[47:32] : args_q[15:0];
  assign req_wdata_o = args_q[31:0];
  assign tx_valid_o  = (state_q == StSend);
  assign tx_data_o   = reply_q[31:24];
  assign err_o       = err_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StCmd;
      write_q <= 1'b0;
      need_q  <= '0;
      args_q  <= '0;
      reply_q <= '0;
      left_q  <= '0;
      wait_q  <= '0;
      to_q    <= '0;
      err_q   <= 1'b0;
    end else begin
      err_q <= 1'b0;
      unique case (state_q)
        StCmd: if (rx_valid_i) begin
          unique case (rx_data_i)
            8'h57: begin                 // 'W'
              write_q <= 1'b1;
              need_q  <= 3'd6;
              state_q <= StArgs;
            end
            8'h52: begin                 // 'R'
              write_q <= 1'b0;
              need_q  <= 3'd2;
              state_q <= StArgs;
            end
            default: begin
              reply_q <= {8'h3F, 24'h0}; // '?'
              left_q  <= 3'd1;
              state_q <= StSend;
              err_q   <= 1'b1;
            end
          endcase
          to_q <= '0;
        end
        StArgs: begin
          if (rx_valid_i) begin
            args_q <= {args_q[39:0], rx_data_i};
            need_q <= need_q - 1'b1;
            to_q   <= '0;
            if (need_q == 3'd1) state_q <= StReq;
          end else if (to_q == ToW'(TIMEOUT)) begin
            state_q <= StCmd;
            err_q   <= 1'b1;
          end else begin
            to_q <= to_q + 1'b1;
          end
        end
        StReq: begin
          wait_q <= '0;
          if (write_q) begin
            reply_q <= {8'h4B, 24'h0};   // 'K'
            left_q  <= 3'd1;
            state_q <= StSend;
          end else begin
            state_q <= StWait;
          end
        end
        StWait: begin
          wait_q <= wait_q + 1'b1;
          if (rsp_valid_i || wait_q == 2'd3) begin
            reply_q <= rsp_valid_i ? rsp_rdata_i : 32'hFFFF_FFFF;
            left_q  <= 3'd4;
            state_q <= StSend;
          end
        end
        StSend: if (tx_ready_i) begin
          reply_q <= {reply_q[23:0], 8'h00};
          left_q  <= left_q - 1'b1;
          if (left_q == 3'd1) state_q <= StCmd;
        end
        default: state_q <= StCmd;
      endcase
      if (rx_valid_i && (state_q == StReq || state_q == StWait || state_q == StSend)) begin
        err_q <= 1'b1;
      end
    end
  end

endmodule
