// Link frame deserializer, in the receive clock domain (the far end's forwarded clock).
// See phy_ser for the frame. A frame mark starts a frame; 20 beats complete it and it
// is written out with good_o = CRC matches. A frame mark before the 20th beat (the far
// end restarted, or the cable was plugged mid-frame) writes the cut frame out as bad
// and starts over, so framing realigns on the next mark. Quiet lanes write nothing.
// A complete frame that finds the output full is dropped and the next frame written is
// marked bad, so the consumer always learns about a loss.
module phy_deser (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        frame_i,
  input  logic [3:0]  lane_i,
  output logic        out_valid_o,
  input  logic        out_ready_i,
  output logic [71:0] out_payload_o,
  output logic        out_good_o
);
  localparam int unsigned Beats = 20;

  // Pins are registered first (the input flops of the IO cells where the tool can).
  logic        frame_q;
  logic [3:0]  lane_q;
  logic [75:0] acc_q;    // beats received so far, latest in the low bits
  logic [4:0]  beat_q;   // beats of the current frame received; 0: between frames
  logic        done_q;   // out_q holds a frame to write this cycle
  logic        cut_q;    // ... which was cut short
  logic        lost_q;   // a frame was dropped since the last write
  logic [79:0] out_q;
  logic [7:0]  crc;

  phy_crc8 u_crc (
    .data_i(out_q[79:8]),
    .crc_o (crc)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      frame_q <= 1'b0;
      lane_q  <= '0;
      acc_q   <= '0;
      beat_q  <= '0;
      done_q  <= 1'b0;
      cut_q   <= 1'b0;
      lost_q  <= 1'b0;
      out_q   <= '0;
    end else begin
      frame_q <= frame_i;
      lane_q  <= lane_i;
      done_q  <= 1'b0;
      cut_q   <= 1'b0;
      if (frame_q) begin
        if (beat_q != '0) begin
          done_q <= 1'b1;
          cut_q  <= 1'b1;
        end
        acc_q  <= {72'b0, lane_q};
        beat_q <= 5'd1;
      end else if (beat_q != '0) begin
        acc_q  <= {acc_q[71:0], lane_q};
        if (beat_q == 5'(Beats - 1)) begin
          out_q  <= {acc_q, lane_q};
          done_q <= 1'b1;
          beat_q <= '0;
        end else begin
          beat_q <= beat_q + 5'd1;
        end
      end
      if (done_q) lost_q <= !out_ready_i;
    end
  end

  assign out_valid_o   = done_q;
  assign out_payload_o = out_q[79:8];
  assign out_good_o    = !cut_q && !lost_q && (crc == out_q[7:0]);

endmodule
