// Byte realignment of one packet's payload: 8-byte aligned local words in, flits aligned
// to the remote address out.
//
// The packet's first byte sits at lane s of input word 0 (the local buffer has any
// alignment) and must leave at lane r of output flit 0 (the receiver writes flit j to
// align8(remote) + 8j). Output flit i is an 8-byte window of {in_j, in_j-1} with
// j = i + (s >= r) and in_-1 = in_n = 0, so one word of look-behind (prev_q) is enough
// and no input beat is read twice. Lanes outside the packet are zeroed: they hold
// neighbouring local bytes that must not reach the wire (the CRC covers them).
//
// n = ceil((s + len) / 8) input beats make m = ceil((r + len) / 8) output flits. When
// s >= r the first input word is consumed before flit 0 ("priming"), which the packetizer
// hides under the header flits.
module ddc_tx_realign
  import fasthsl_pkg::*;
#(
  localparam int unsigned LenW = $clog2(MTU_MAX + 1)
) (
  input  logic            clk_i,
  input  logic            rst_ni,

  // Packet parameters: held from the first beat until clear_i.
  input  logic            pkt_valid_i,
  input  logic [2:0]      src_off_i,     // s: lane of the first byte in input word 0
  input  logic [2:0]      dst_off_i,     // r: lane of the first byte in output flit 0
  input  logic [LenW-1:0] len_i,         // payload bytes, 1..MTU_MAX
  input  logic            clear_i,       // packet done or abandoned: the next one follows

  input  logic            in_valid_i,
  output logic            in_ready_o,
  input  logic [63:0]     in_data_i,

  output logic            out_valid_o,
  input  logic            out_ready_i,
  output logic [63:0]     out_data_o,
  output logic            out_last_o,

  // The packet's first input word has arrived (or was consumed): payload is flowing.
  output logic            in_avail_o
);
  localparam int unsigned BeatW = LenW - 3;  // up to ceil((7 + MTU_MAX) / 8) beats

  logic [BeatW-1:0] in_idx_q, in_idx_d;    // input words consumed
  logic [BeatW-1:0] out_idx_q, out_idx_d;  // flits produced
  logic [63:0]      prev_q, prev_d;

  logic [LenW-1:0]  out_end;
  logic [BeatW-1:0] n_beats, m_beats;
  logic             skip;
  logic             need_prime;
  logic             cur_real;
  logic [63:0]      cur;
  logic [2:0]       shift;
  logic [127:0]     window;
  logic [3:0]       lane_lo, lane_hi;
  logic             in_fire, out_fire;

  // len <= MTU_MAX, so s + len + 7 fits in LenW bits.
  assign out_end = LenW'(dst_off_i) + len_i + LenW'(7);
  assign n_beats = BeatW'((LenW'(src_off_i) + len_i + LenW'(7)) >> 3);
  assign m_beats = out_end[LenW-1:3];
  assign skip    = (src_off_i >= dst_off_i);

  assign need_prime = pkt_valid_i && skip && (in_idx_q == '0);
  // The window's upper word is in_j with j == in_idx_q; past the last word it reads zero.
  assign cur_real   = (in_idx_q < n_beats);
  assign cur        = cur_real ? in_data_i : 64'h0;

  assign out_valid_o = pkt_valid_i && !need_prime && (out_idx_q < m_beats) &&
                       (!cur_real || in_valid_i);
  assign out_fire    = out_valid_o && out_ready_i;
  assign in_ready_o  = need_prime || (out_fire && cur_real);
  assign in_fire     = in_valid_i && in_ready_o;
  assign out_last_o  = (out_idx_q == m_beats - 1'b1);
  assign in_avail_o  = pkt_valid_i && ((in_idx_q != '0) || in_valid_i);

  // (s - r) mod 8 covers both cases: s >= r shifts by s - r over {in_i+1, in_i}, s < r by
  // s - r + 8 over {in_i, in_i-1}.
  assign shift  = src_off_i - dst_off_i;
  assign window = {cur, prev_q} >> {shift, 3'b000};

  always_comb begin
    lane_lo = (out_idx_q == '0) ? {1'b0, dst_off_i} : 4'd0;
    lane_hi = out_last_o ? ({1'b0, out_end[2:0]} + 4'd1) : 4'd8;
    // out_end = r + len + 7, so out_end[2:0] + 1 is the lane after the last byte (1..8).
    for (int unsigned b = 0; b < 8; b++) begin
      out_data_o[b*8 +: 8] = (4'(b) >= lane_lo && 4'(b) < lane_hi) ? window[b*8 +: 8] : 8'h00;
    end
  end

  always_comb begin
    in_idx_d  = in_idx_q;
    out_idx_d = out_idx_q;
    prev_d    = prev_q;
    if (clear_i) begin
      in_idx_d  = '0;
      out_idx_d = '0;
      prev_d    = '0;
    end else begin
      if (in_fire) begin
        in_idx_d = in_idx_q + 1'b1;
        prev_d   = in_data_i;
      end
      if (out_fire) begin
        out_idx_d = out_idx_q + 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_idx_q  <= '0;
      out_idx_q <= '0;
      prev_q    <= '0;
    end else begin
      in_idx_q  <= in_idx_d;
      out_idx_q <= out_idx_d;
      prev_q    <= prev_d;
    end
  end

endmodule
