// Checks ddc_tx_realign_geom exhaustively (every source lane, destination lane and length
// 1..MTU_MAX) against a reference that walks the packet byte by byte, lane by lane,
// instead of dividing.
module tb_ddc_tx_realign_geom;
  import fasthsl_pkg::*;

  logic [2:0]  src_off = '0, dst_off = '0;
  logic [10:0] len = 11'd1;
  logic [7:0]  in_last, out_last;
  logic [3:0]  end_lane;
  logic [2:0]  shift;
  logic        prime;

  ddc_tx_realign_geom dut (
    .src_off_i     (src_off),
    .dst_off_i     (dst_off),
    .len_i         (len),
    .in_last_idx_o (in_last),
    .out_last_idx_o(out_last),
    .end_lane_o    (end_lane),
    .shift_o       (shift),
    .prime_o       (prime)
  );

`include "ddc_tb_check.svh"

  // Words touched by len bytes starting at lane `lane`, and the lane of the last byte.
  task automatic walk(input int lane, input int l, output int words, output int last_lane);
    words = 1;
    last_lane = lane;
    for (int k = 1; k < l; k++) begin
      last_lane++;
      if (last_lane == 8) begin
        last_lane = 0;
        words++;
      end
    end
  endtask

  initial begin
    int n, m, s_last, r_last, cases = 0;
    for (int l = 1; l <= int'(MTU_MAX); l++) begin
      for (int s = 0; s < 8; s++) begin
        for (int r = 0; r < 8; r++) begin
          src_off = 3'(s); dst_off = 3'(r); len = 11'(l);
          #1;
          walk(s, l, n, s_last);
          walk(r, l, m, r_last);
          `CHECK(int'(in_last) == n - 1 && int'(out_last) == m - 1 &&
                 int'(end_lane) == r_last + 1 && int'(shift) == (s - r + 8) % 8 &&
                 prime == (s >= r),
                 $sformatf("s %0d r %0d len %0d: in_last %0d out_last %0d end %0d shift %0d prime %0b",
                           s, r, l, in_last, out_last, end_lane, shift, prime))
          cases++;
        end
      end
    end
    $display("tb_ddc_tx_realign_geom: %0d cases", cases);
    tb_verdict();
    $finish;
  end
endmodule
