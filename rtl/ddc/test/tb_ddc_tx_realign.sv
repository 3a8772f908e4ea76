// Checks ddc_tx_realign: random source/destination lanes and lengths, random input gaps and
// output stalls, packets back to back on one input stream (the next packet's words are
// already waiting, so over-reading would show). Each flit is compared with a byte-level
// reference, and each packet must consume exactly ceil((s+len)/8) words and produce exactly
// ceil((r+len)/8) flits.
module tb_ddc_tx_realign;
  logic        clk = 1'b0;
  logic        rst_n = 1'b0;
  logic        pkt_valid = 1'b0;
  logic [2:0]  src_off = '0, dst_off = '0;
  logic [10:0] len = 11'd1;
  logic        clear = 1'b0;
  logic        in_valid = 1'b0, in_ready;
  logic [63:0] in_data = '0;
  logic        out_valid, out_ready = 1'b0, out_last;
  logic [63:0] out_data;
  logic        in_avail;

  always #5 clk = ~clk;

  // The geometry as the packetizer queues it with each job.
  logic [7:0] g_in_last, g_out_last;
  logic [3:0] g_end_lane;
  logic [2:0] g_shift;
  logic       g_prime;

  ddc_tx_realign_geom u_geom (
    .src_off_i     (src_off),
    .dst_off_i     (dst_off),
    .len_i         (len),
    .in_last_idx_o (g_in_last),
    .out_last_idx_o(g_out_last),
    .end_lane_o    (g_end_lane),
    .shift_o       (g_shift),
    .prime_o       (g_prime)
  );

  ddc_tx_realign dut (
    .clk_i         (clk),
    .rst_ni        (rst_n),
    .pkt_valid_i   (pkt_valid),
    .dst_off_i     (dst_off),
    .in_last_idx_i (g_in_last),
    .out_last_idx_i(g_out_last),
    .end_lane_i    (g_end_lane),
    .shift_i       (g_shift),
    .prime_i       (g_prime),
    .clear_i       (clear),
    .in_valid_i    (in_valid),
    .in_ready_o    (in_ready),
    .in_data_i     (in_data),
    .out_valid_o   (out_valid),
    .out_ready_i   (out_ready),
    .out_data_o    (out_data),
    .out_last_o    (out_last),
    .in_avail_o    (in_avail)
  );

  // Input word stream of all packets, and per packet its parameters and bytes.
  logic [63:0] words[$];
  int          p_s[$], p_r[$], p_len[$], p_n[$], p_base[$];
  logic [7:0]  all_bytes[$];  // packet bytes, packet p from p_base[p]
  int          errors = 0;

  task automatic make_packet(int s, int r, int l);
    int n = (s + l + 7) / 8;
    logic [7:0] raw[$];
    for (int k = 0; k < 8 * n; k++) raw.push_back(8'($urandom()));
    p_base.push_back(all_bytes.size());
    for (int k = 0; k < l; k++) all_bytes.push_back(raw[s + k]);
    for (int w = 0; w < n; w++) begin
      logic [63:0] x;
      for (int k = 0; k < 8; k++) x[k*8 +: 8] = raw[8*w + k];
      words.push_back(x);
    end
    p_s.push_back(s); p_r.push_back(r); p_len.push_back(l); p_n.push_back(n);
  endtask

  initial begin
    int npkt;
    int in_stall, out_stall;
    make_packet(0, 0, 8);
    make_packet(0, 0, 1);
    make_packet(7, 0, 1);
    make_packet(0, 7, 1);
    make_packet(7, 7, 2);
    make_packet(3, 5, 1024);
    make_packet(5, 3, 1024);
    make_packet(1, 7, 1017);
    for (int s = 0; s < 8; s++) begin
      for (int r = 0; r < 8; r++) begin
        make_packet(s, r, $urandom_range(1, 24));
        make_packet(s, r, $urandom_range(1, 1024));
      end
    end
    for (int k = 0; k < 300; k++) begin
      make_packet($urandom_range(0, 7), $urandom_range(0, 7),
                  ($urandom_range(0, 3) == 0) ? $urandom_range(1, 1024) : $urandom_range(1, 40));
    end
    npkt = p_s.size();

    repeat (3) @(posedge clk);
    rst_n = 1'b1;

    for (int p = 0; p < npkt; p++) begin
      int m = (p_r[p] + p_len[p] + 7) / 8;
      int got = 0, consumed = 0;
      bit done = 0;
      // Alternate phases: smooth flow, and heavy stalls on either side.
      in_stall  = (p % 3 == 1) ? 50 : 0;
      out_stall = (p % 3 == 2) ? 50 : 0;
      while (!done) begin
        @(negedge clk);
        pkt_valid = 1'b1;
        src_off = 3'(p_s[p]); dst_off = 3'(p_r[p]); len = 11'(p_len[p]);
        clear = 1'b0;
        in_valid = (words.size() != 0) && ($urandom_range(0, 99) >= in_stall);
        in_data  = (words.size() != 0) ? words[0] : 64'hx;
        out_ready = ($urandom_range(0, 99) >= out_stall);
        #4;
        if (in_valid && in_ready) begin
          void'(words.pop_front());
          consumed++;
        end
        if (out_valid && out_ready) begin
          logic [63:0] want;
          for (int b = 0; b < 8; b++) begin
            int pos = 8 * got + b - p_r[p];
            want[b*8 +: 8] = (pos >= 0 && pos < p_len[p]) ? all_bytes[p_base[p] + pos] : 8'h00;
          end
          if (out_data !== want) begin
            $display("FAIL pkt %0d (s=%0d r=%0d len=%0d) flit %0d: got %h want %h",
                     p, p_s[p], p_r[p], p_len[p], got, out_data, want);
            errors++;
          end
          if (out_last !== (got == m - 1)) begin
            $display("FAIL pkt %0d flit %0d: last=%b", p, got, out_last);
            errors++;
          end
          got++;
          if (got == m) done = 1;
        end
        @(posedge clk);
      end
      // Idle a little with the packet still presented: nothing more may come out or go in.
      repeat ($urandom_range(0, 2)) begin
        @(negedge clk);
        in_valid = (words.size() != 0);
        in_data  = (words.size() != 0) ? words[0] : 64'hx;
        out_ready = 1'b1;
        #4;
        if (out_valid) begin
          $display("FAIL pkt %0d: extra flit", p);
          errors++;
        end
        if (in_valid && in_ready) begin
          void'(words.pop_front());
          consumed++;
        end
        @(posedge clk);
      end
      if (consumed != p_n[p]) begin
        $display("FAIL pkt %0d (s=%0d r=%0d len=%0d): consumed %0d words, want %0d",
                 p, p_s[p], p_r[p], p_len[p], consumed, p_n[p]);
        errors++;
      end
      @(negedge clk);
      clear = 1'b1;
      in_valid = 1'b0;
      out_ready = 1'b0;
      #4;
      @(posedge clk);
      if (errors > 10) break;
    end
    @(negedge clk);
    clear = 1'b0;
    pkt_valid = 1'b0;
    if (words.size() != 0) begin
      $display("FAIL %0d words left over", words.size());
      errors++;
    end
    if (errors != 0) $fatal(1, "tb_ddc_tx_realign: %0d errors", errors);
    $display("tb_ddc_tx_realign: %0d packets PASS", npkt);
    $finish;
  end
endmodule
