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
//
// The packet's geometry comes worked out (ddc_tx_realign_geom, queued with the job), and
// where the window stands in it is kept in registers (cur_real_q, first_q, out_last_q,
// out_done_q) rather than compared against the counts each cycle: what reaches the byte
// shifter, the lane mask and the packetizer's CRC behind them is flops and one small
// multiplexer (docs/SYNTH.md).
module ddc_tx_realign
  import fasthsl_pkg::*;
#(
  localparam int unsigned LenW  = $clog2(MTU_MAX + 1),
  localparam int unsigned BeatW = LenW - 3   // up to ceil((7 + MTU_MAX) / 8) beats
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  // Packet geometry (ddc_tx_realign_geom): held from the first beat until clear_i.
  input  logic             pkt_valid_i,
  input  logic [2:0]       dst_off_i,      // r: lane of the first byte in output flit 0
  input  logic [BeatW-1:0] in_last_idx_i,  // n - 1
  input  logic [BeatW-1:0] out_last_idx_i, // m - 1
  input  logic [3:0]       end_lane_i,     // lane after the last byte in flit m - 1, 1..8
  input  logic [2:0]       shift_i,        // (s - r) mod 8
  input  logic             prime_i,        // s >= r
  input  logic             clear_i,        // packet done or abandoned: the next one follows

  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [63:0]      in_data_i,

  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [63:0]      out_data_o,
  output logic             out_last_o,

  // The packet's first input word has arrived (or was consumed): payload is flowing.
  output logic             in_avail_o
);
  logic [BeatW-1:0] in_idx_q, in_idx_d;    // input words consumed
  logic [BeatW-1:0] out_idx_q, out_idx_d;  // flits produced
  logic [63:0]      prev_q, prev_d;
  // Where the packet stands, as registers:
  logic cur_real_q, cur_real_d;   // in_idx_q <= n - 1: the window's upper word is real
  logic first_q, first_d;         // out_idx_q == 0
  logic out_last_q, out_last_d;   // out_idx_q == m - 1 (meaningful once out_idx_q > 0)
  logic out_done_q, out_done_d;   // out_idx_q == m: every flit produced

  logic             need_prime;
  logic [63:0]      cur;
  logic [127:0]     window;
  logic [3:0]       lane_lo, lane_hi;
  logic             in_fire, out_fire;

  assign need_prime = pkt_valid_i && prime_i && (in_idx_q == '0);
  // The window's upper word is in_j with j == in_idx_q; past the last word it reads zero.
  assign cur        = cur_real_q ? in_data_i : 64'h0;

  assign out_valid_o = pkt_valid_i && !need_prime && !out_done_q &&
                       (!cur_real_q || in_valid_i);
  assign out_fire    = out_valid_o && out_ready_i;
  assign in_ready_o  = need_prime || (out_fire && cur_real_q);
  assign in_fire     = in_valid_i && in_ready_o;
  // out_last_idx_i == 0 only for a packet whose bytes fit one flit (r + len <= 8).
  assign out_last_o  = first_q ? (out_last_idx_i == '0) : out_last_q;
  assign in_avail_o  = pkt_valid_i && ((in_idx_q != '0) || in_valid_i);

  // (s - r) mod 8 covers both cases: s >= r shifts by s - r over {in_i+1, in_i}, s < r by
  // s - r + 8 over {in_i, in_i-1}.
  assign window = {cur, prev_q} >> {shift_i, 3'b000};

  always_comb begin
    lane_lo = first_q ? {1'b0, dst_off_i} : 4'd0;
    lane_hi = out_last_o ? end_lane_i : 4'd8;
    for (int unsigned b = 0; b < 8; b++) begin
      out_data_o[b*8 +: 8] = (4'(b) >= lane_lo && 4'(b) < lane_hi) ? window[b*8 +: 8] : 8'h00;
    end
  end

  always_comb begin
    in_idx_d   = in_idx_q;
    out_idx_d  = out_idx_q;
    prev_d     = prev_q;
    cur_real_d = cur_real_q;
    first_d    = first_q;
    out_last_d = out_last_q;
    out_done_d = out_done_q;
    if (clear_i) begin
      in_idx_d   = '0;
      out_idx_d  = '0;
      prev_d     = '0;
      cur_real_d = 1'b1;   // n >= 1
      first_d    = 1'b1;
      out_last_d = 1'b0;
      out_done_d = 1'b0;
    end else begin
      // A word is only taken while the window is on a real one (in_idx_q <= n - 1).
      if (in_fire) begin
        in_idx_d   = in_idx_q + 1'b1;
        prev_d     = in_data_i;
        cur_real_d = (in_idx_q != in_last_idx_i);
      end
      if (out_fire) begin
        out_idx_d  = out_idx_q + 1'b1;
        first_d    = 1'b0;
        out_last_d = (out_idx_d == out_last_idx_i);
        out_done_d = out_last_o;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_idx_q   <= '0;
      out_idx_q  <= '0;
      prev_q     <= '0;
      cur_real_q <= 1'b1;
      first_q    <= 1'b1;
      out_last_q <= 1'b0;
      out_done_q <= 1'b0;
    end else begin
      in_idx_q   <= in_idx_d;
      out_idx_q  <= out_idx_d;
      prev_q     <= prev_d;
      cur_real_q <= cur_real_d;
      first_q    <= first_d;
      out_last_q <= out_last_d;
      out_done_q <= out_done_d;
    end
  end

`ifndef SYNTHESIS
  // The registers say what comparing the indices with the geometry says.
  a_position: assert property (@(posedge clk_i) disable iff (!rst_ni)
    pkt_valid_i |-> (cur_real_q == (in_idx_q <= in_last_idx_i)) &&
                    (first_q == (out_idx_q == '0)) &&
                    (out_done_q == (out_idx_q > out_last_idx_i)) &&
                    (first_q || out_last_q == (out_idx_q == out_last_idx_i)));
`endif

endmodule
