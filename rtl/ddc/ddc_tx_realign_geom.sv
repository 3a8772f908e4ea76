// A packet's realignment geometry (ddc_tx_realign), from its source lane, destination lane
// and length. Combinational: the packetizer works it out when a job enters its FIFO and
// queues it with the job, so the realigner starts from stored numbers. Worked out behind
// the FIFO's read, the sums and the shift amount sat in front of the byte shifter, the
// CRC and the packetizer's CRC register, the NIC's deepest logic (docs/SYNTH.md).
module ddc_tx_realign_geom
  import fasthsl_pkg::*;
#(
  localparam int unsigned LenW  = $clog2(MTU_MAX + 1),
  localparam int unsigned BeatW = LenW - 3   // up to ceil((7 + MTU_MAX) / 8) beats
) (
  input  logic [2:0]       src_off_i,       // s: lane of the first byte in input word 0
  input  logic [2:0]       dst_off_i,       // r: lane of the first byte in output flit 0
  input  logic [LenW-1:0]  len_i,           // payload bytes, 1..MTU_MAX
  output logic [BeatW-1:0] in_last_idx_o,   // ceil((s + len) / 8) - 1: the last input word
  output logic [BeatW-1:0] out_last_idx_o,  // ceil((r + len) / 8) - 1: the last output flit
  output logic [3:0]       end_lane_o,      // lane after the last byte in the last flit, 1..8
  output logic [2:0]       shift_o,         // (s - r) mod 8, in bytes
  output logic             prime_o          // s >= r: word 0 is read before flit 0
);
  // The last byte's position from word 0's lane 0: s + len - 1 (len >= 1, and s + len
  // fits in LenW bits since len <= MTU_MAX).
  logic [LenW-1:0] in_end, out_end;
  assign in_end  = LenW'(src_off_i) + len_i - 1'b1;
  assign out_end = LenW'(dst_off_i) + len_i - 1'b1;

  assign in_last_idx_o  = in_end[LenW-1:3];
  assign out_last_idx_o = out_end[LenW-1:3];
  assign end_lane_o     = {1'b0, out_end[2:0]} + 4'd1;

  logic unused_in_lane;
  assign unused_in_lane = ^in_end[2:0];
  assign shift_o        = src_off_i - dst_off_i;
  assign prime_o        = (src_off_i >= dst_off_i);
endmodule
