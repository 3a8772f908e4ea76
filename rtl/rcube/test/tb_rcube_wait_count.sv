// rcube_wait_count with its state fed back through flops, as the allocators hold it, at
// FAIR_MATCHES 3 and 1 (4 ports), scenario by scenario:
// - a pass starts the count on the first head; a pin comes with the FAIR_MATCHES-th pass
//   over the same head (at once with FAIR_MATCHES 1), and stays while the head waits;
// - cycles without a chance neither count nor pin; the count stops at FAIR_MATCHES;
// - service of the tracked head, or its going away, ends the tracking (and the pin); in
//   the same cycle a pass over another first head starts a new count on it;
// - no pass when the output serves the first head, or there is none.
module tb_rcube_wait_count;
  localparam int unsigned N = 4;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic         chance;
  logic [N-1:0] heads, served, first;
  int           errors = 0;

  // one instance per bound, each with its state in flops
  logic [N-1:0] track3_q, track3_d, track1_q, track1_d;
  logic [1:0]   cnt3_q, cnt3_d;
  logic [0:0]   cnt1_q, cnt1_d;
  logic         pin3_q, pin3_d, pin1_q, pin1_d;

  rcube_wait_count #(.NPORTS(N), .FAIR_MATCHES(3)) u_fair3 (
    .chance_i (chance),
    .heads_i  (heads),
    .served_i (served),
    .first_i  (first),
    .track_q_i(track3_q),
    .cnt_q_i  (cnt3_q),
    .pin_q_i  (pin3_q),
    .track_d_o(track3_d),
    .cnt_d_o  (cnt3_d),
    .pin_d_o  (pin3_d)
  );
  rcube_wait_count #(.NPORTS(N), .FAIR_MATCHES(1)) u_fair1 (
    .chance_i (chance),
    .heads_i  (heads),
    .served_i (served),
    .first_i  (first),
    .track_q_i(track1_q),
    .cnt_q_i  (cnt1_q),
    .pin_q_i  (pin1_q),
    .track_d_o(track1_d),
    .cnt_d_o  (cnt1_d),
    .pin_d_o  (pin1_d)
  );

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      {track3_q, cnt3_q, pin3_q} <= '0;
      {track1_q, cnt1_q, pin1_q} <= '0;
    end else begin
      {track3_q, cnt3_q, pin3_q} <= {track3_d, cnt3_d, pin3_d};
      {track1_q, cnt1_q, pin1_q} <= {track1_d, cnt1_d, pin1_d};
    end
  end

  // one cycle of the output: drive, take the edge, compare both instances' new state
  task automatic step(string what, logic ch, logic [N-1:0] h, logic [N-1:0] s,
                      logic [N-1:0] f, logic [N-1:0] t3, int c3, logic p3,
                      logic [N-1:0] t1, int c1, logic p1);
    chance = ch;
    heads  = h;
    served = s;
    first  = f;
    @(posedge clk);
    #1;
    if (track3_q != t3 || int'(cnt3_q) != c3 || pin3_q != p3) begin
      $display("FAIL FAIR 3, %s: track %b count %0d pin %0d, want %b %0d %0d", what,
               track3_q, cnt3_q, pin3_q, t3, c3, p3);
      errors++;
    end
    if (track1_q != t1 || int'(cnt1_q) != c1 || pin1_q != p1) begin
      $display("FAIL FAIR 1, %s: track %b count %0d pin %0d, want %b %0d %0d", what,
               track1_q, cnt1_q, pin1_q, t1, c1, p1);
      errors++;
    end
  endtask

  initial begin
    {chance, heads, served, first} = '0;
    repeat (2) @(posedge clk);
    rst_n = 1'b1;
    //     what                                  chance heads    served   first
    //       FAIR 3: track   count pin           FAIR 1: track   count pin
    step("idle, no heads",                       1'b1, 4'b0000, 4'b0000, 4'b0000,
         4'b0000, 0, 1'b0,                       4'b0000, 0, 1'b0);
    step("no pass without a chance",             1'b0, 4'b0110, 4'b0000, 4'b0010,
         4'b0000, 0, 1'b0,                       4'b0000, 0, 1'b0);
    step("no pass when the first head is served", 1'b1, 4'b0110, 4'b0010, 4'b0010,
         4'b0000, 0, 1'b0,                       4'b0000, 0, 1'b0);
    step("a pass over input 1 starts the count", 1'b1, 4'b0110, 4'b0100, 4'b0010,
         4'b0010, 1, 1'b0,                       4'b0010, 1, 1'b1);
    step("no chance: no count",                  1'b0, 4'b0110, 4'b0000, 4'b0100,
         4'b0010, 1, 1'b0,                       4'b0010, 1, 1'b1);
    step("second pass (another first head)",     1'b1, 4'b0110, 4'b0100, 4'b0100,
         4'b0010, 2, 1'b0,                       4'b0010, 1, 1'b1);
    step("third pass pins",                      1'b1, 4'b0110, 4'b0000, 4'b0100,
         4'b0010, 3, 1'b1,                       4'b0010, 1, 1'b1);
    step("the count stops at the bound",         1'b1, 4'b0110, 4'b0100, 4'b0100,
         4'b0010, 3, 1'b1,                       4'b0010, 1, 1'b1);
    step("the pin holds without a chance",       1'b0, 4'b0110, 4'b0000, 4'b0100,
         4'b0010, 3, 1'b1,                       4'b0010, 1, 1'b1);
    // served: the tracking ends, and the first head left (input 2), passed over, starts
    step("served: a new count on input 2",       1'b1, 4'b0110, 4'b0010, 4'b0100,
         4'b0100, 1, 1'b0,                       4'b0100, 1, 1'b1);
    step("the head goes: tracking ends",         1'b1, 4'b0010, 4'b0000, 4'b0000,
         4'b0000, 0, 1'b0,                       4'b0000, 0, 1'b0);
    step("a pass over input 3",                  1'b1, 4'b1000, 4'b0001, 4'b1000,
         4'b1000, 1, 1'b0,                       4'b1000, 1, 1'b1);
    step("input 3 served, first head served: no pass", 1'b1, 4'b1000, 4'b1000, 4'b1000,
         4'b0000, 0, 1'b0,                       4'b0000, 0, 1'b0);
    if (errors != 0) $fatal(1, "tb_rcube_wait_count: %0d errors", errors);
    $display("tb_rcube_wait_count: PASS");
    $finish;
  end
endmodule
