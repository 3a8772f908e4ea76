// Self-checking test of ddc_rx_dup_filter: directed cases (an inserted key is a
// duplicate, others are not; a key is forgotten hold ticks after its last touch and a
// hit refreshes it; a full table evicts the key touched longest ago and reports it;
// flush forgets everything; hold 0 remembers nothing), then random traffic from 4
// sources with fewer live keys than entries, against a reference that knows when each
// key was last touched: a key touched within (hold-1) ticks must be a duplicate, one
// never inserted or untouched for more than hold ticks must not.
module tb_ddc_rx_dup_filter;
  localparam int unsigned Entries  = 8;
  localparam int unsigned TickLog2 = 3;
  localparam int unsigned Hold     = 12;
  localparam int unsigned TickCyc  = 1 << TickLog2;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic        flush = 1'b0;
  logic [15:0] hold = 16'(Hold);
  logic        qv = 1'b0, iv = 1'b0;
  logic [15:0] qsrc = '0, isrc = '0;
  logic [31:0] qmsg = '0, imsg = '0;
  logic        dup, evict;

  ddc_rx_dup_filter #(
    .ENTRIES  (Entries),
    .TICK_LOG2(TickLog2)
  ) dut (
    .clk_i         (clk),
    .rst_ni        (rst_n),
    .flush_i       (flush),
    .hold_i        (hold),
    .query_valid_i (qv),
    .query_src_i   (qsrc),
    .query_msg_i   (qmsg),
    .dup_o         (dup),
    .insert_valid_i(iv),
    .insert_src_i  (isrc),
    .insert_msg_i  (imsg),
    .evict_o       (evict)
  );

`include "ddc_tb_check.svh"

  int n_evict = 0;
  always @(posedge clk) n_evict += int'(evict);

  task automatic ins(input int s, input int m);
    iv = 1'b1; isrc = 16'(s); imsg = 32'(m);
    @(negedge clk);
    iv = 1'b0;
  endtask

  task automatic query(input int s, input int m, output bit d);
    qv = 1'b1; qsrc = 16'(s); qmsg = 32'(m);
    #1 d = dup;
    @(negedge clk);
    qv = 1'b0;
  endtask

  // Reference: last touch cycle per key (src * 64 + msg).
  int now = 0;
  int n_dup = 0;
  // A plain array: reading a missing key of an associative array inserts it in this
  // simulator. Never touched = far in the past.
  int last_touch[256];

  initial begin
    bit d;
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    @(negedge clk);

    // 1. Inserted key is a duplicate; others are not.
    ins(1, 10);
    query(1, 10, d); `CHECK(d, "inserted key not a duplicate")
    query(1, 11, d); `CHECK(!d, "other msg_id a duplicate")
    query(2, 10, d); `CHECK(!d, "other source a duplicate")

    // 2. Forgotten hold ticks after the last touch; a hit refreshes.
    repeat ((Hold - 2) * TickCyc) @(negedge clk);
    query(1, 10, d); `CHECK(d, "forgotten before the hold time")  // refreshes
    repeat ((Hold - 2) * TickCyc) @(negedge clk);
    query(2, 99, d); `CHECK(!d, "unrelated key")
    query(1, 10, d); `CHECK(d, "hit did not refresh")
    repeat ((Hold + 1) * TickCyc) @(negedge clk);
    query(1, 10, d); `CHECK(!d, "remembered past the hold time")

    // 3. Full table: the key touched longest ago is evicted and reported.
    for (int i = 0; i < Entries; i++) begin
      ins(3, 100 + i);
      repeat (TickCyc) @(negedge clk);
    end
    query(3, 100, d); `CHECK(d, "oldest key before the eviction")  // now the newest touch
    `CHECK(n_evict == 0, "eviction before the table was full")
    ins(3, 200);
    @(negedge clk);
    `CHECK(n_evict == 1, "eviction not reported")
    query(3, 101, d); `CHECK(!d, "the key touched longest ago survived the eviction")
    query(3, 100, d); `CHECK(d, "a refreshed key was evicted")
    query(3, 200, d); `CHECK(d, "the new key is missing")

    // 4. Flush; hold 0.
    flush = 1'b1;
    @(negedge clk);
    flush = 1'b0;
    query(3, 200, d); `CHECK(!d, "remembered across a flush")
    hold = 16'd0;
    ins(4, 1);
    query(4, 1, d); `CHECK(!d, "hold 0 remembered a key")
    hold = 16'(Hold);
    repeat (Hold * TickCyc + 2) @(negedge clk);
    n_evict = 0;
    for (int key = 0; key < 256; key++) last_touch[key] = -1000000;

    // 5. Random: 4 sources x 6 msg ids = 24 keys, but inserts are spaced so that at most
    // Entries - 2 are live at once.
    for (int c = 0; c < 60000; c++) begin
      int live_n;
      int k;
      live_n = 0;
      for (int key = 0; key < 256; key++) if (now - last_touch[key] <= int'(Hold * TickCyc)) live_n++;
      iv = 1'b0;
      if (live_n < int'(Entries) - 2 && $urandom_range(0, 7) == 0) begin
        iv = 1'b1; isrc = 16'($urandom_range(0, 3)); imsg = 32'($urandom_range(0, 5));
      end
      qv = ($urandom_range(0, 1) == 0);
      qsrc = 16'($urandom_range(0, 3)); qmsg = 32'($urandom_range(0, 5));
      #1;
      if (qv) begin
        k = int'(qsrc) * 64 + int'(qmsg);
        if (now - last_touch[k] <= int'((Hold - 1) * TickCyc)) begin
          `CHECK(dup, $sformatf("key %0d/%0d touched %0d cycles ago not a duplicate", qsrc,
                                qmsg, now - last_touch[k]))
        end
        if (now - last_touch[k] > int'(Hold * TickCyc) + 1) begin
          `CHECK(!dup, $sformatf("key %0d/%0d a duplicate", qsrc, qmsg))
        end
        if (dup) begin
          last_touch[k] = now;
          n_dup++;
        end
      end
      if (iv) last_touch[int'(isrc) * 64 + int'(imsg)] = now;
      @(negedge clk);
      now++;
    end
    `CHECK(n_evict == 0, "eviction with room in the table")
    `CHECK(n_dup > 5000, $sformatf("too few duplicates to mean anything: %0d", n_dup))
    $display("random: %0d duplicates found in 60000 cycles", n_dup);

    tb_verdict();
    $finish;
  end

endmodule
