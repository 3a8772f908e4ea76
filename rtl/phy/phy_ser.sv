// Link frame serializer (transmit clock domain: the local core clock, forwarded with
// the data). A frame is 80 bits, {payload[71:0], crc8[7:0]}, sent MSB first as 20 beats
// of 4 lanes; frame_o is high on the first beat only. Frames follow each other without
// gaps while send_i is high; with send_i low the lanes go quiet (all zero, no frame
// marks), which the far end's watchdog reads as "link down".
// load_o pulses in the cycle the next frame's payload_i is taken; the caller computes
// payload_i from its state in that cycle (and e.g. pops the flit it carries).
module phy_ser (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        send_i,
  input  logic [71:0] payload_i,
  output logic        load_o,
  output logic        frame_o,
  output logic [3:0]  lane_o
);
  localparam int unsigned Beats = 20;

  logic [7:0]  crc;
  logic [75:0] rest_q;   // beats 1..19 of the frame being sent, next beat on top
  logic [4:0]  beat_q;   // beats of the current frame already out; 0: between frames
  logic        frame_q;
  logic [3:0]  lane_q;

  phy_crc8 u_crc (
    .data_i(payload_i),
    .crc_o (crc)
  );

  assign load_o = send_i && (beat_q == '0);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rest_q  <= '0;
      beat_q  <= '0;
      frame_q <= 1'b0;
      lane_q  <= '0;
    end else if (load_o) begin
      frame_q <= 1'b1;
      lane_q  <= payload_i[71:68];
      rest_q  <= {payload_i[67:0], crc};
      beat_q  <= 5'd1;
    end else if (beat_q != '0) begin
      frame_q <= 1'b0;
      lane_q  <= rest_q[75:72];
      rest_q  <= {rest_q[71:0], 4'b0};
      beat_q  <= (beat_q == 5'(Beats - 1)) ? '0 : beat_q + 5'd1;
    end else begin
      frame_q <= 1'b0;
      lane_q  <= '0;
    end
  end

  assign frame_o = frame_q;
  assign lane_o  = lane_q;

endmodule
