// Self-checking test of ddc_int_coal: directed cases (thresholds 0 fire in the event's
// cycle, count threshold, time threshold measured from the first pending event, a lone
// event under a large count threshold still fires by time, lowering a threshold below
// what is pending fires at once, clear drops pending events), then random events,
// clears and threshold changes against a cycle-level reference model.
module tb_ddc_int_coal;
  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic [15:0] count = '0, cycles = '0;
  logic        ev = 1'b0, clr = 1'b0;
  logic        fire;

  ddc_int_coal dut (
    .clk_i   (clk),
    .rst_ni  (rst_n),
    .count_i (count),
    .cycles_i(cycles),
    .event_i (ev),
    .clear_i (clr),
    .fire_o  (fire)
  );

`include "ddc_tb_check.svh"

  // Reference: events pending and the cycle the first of them arrived.
  int m_pend = 0;
  longint m_first = 0;
  longint cyc = 0;
  int fires = 0;

  function automatic bit model_fire();
    int p;
    longint age;
    p   = m_pend + (ev ? 1 : 0);
    age = (m_pend == 0) ? 0 : cyc - m_first;
    if (age > 65535) age = 65535;
    return (p != 0) && !clr && ((p >= int'(count)) || (age >= longint'(cycles)));
  endfunction

  // The driver changes inputs only at falling edges, so the rising edge sees them stable.
  always @(posedge clk) begin
    if (rst_n) begin
      `CHECK(fire == model_fire(), $sformatf("cycle %0d: fire %0b, model %0b (pend %0d)",
                                             cyc, fire, model_fire(), m_pend))
      if (fire) fires++;
      if (model_fire() || clr) begin
        m_pend = 0;
      end else if (ev) begin
        if (m_pend == 0) m_first = cyc;
        m_pend++;
      end
      cyc++;
    end
  end

  // Called at a falling edge; returns at the next one, after one rising edge saw the inputs.
  task automatic step(input bit e, input bit c = 1'b0);
    ev  = e;
    clr = c;
    @(negedge clk);
    ev  = 1'b0;
    clr = 1'b0;
  endtask

  task automatic idle(input int n);
    repeat (n) step(1'b0);
  endtask

  // Fires seen while issuing `n` events back to back.
  task automatic burst(input int n, output int seen);
    int n0;
    n0 = fires;
    repeat (n) step(1'b1);
    seen = fires - n0;
  endtask

  initial begin
    int seen, n0;
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    @(negedge clk);

    // Thresholds 0: every event fires in its own cycle.
    ev = 1'b1;
    #1 `CHECK(fire, "count=0/cycles=0: event must fire at once")
    step(1'b1);
    burst(5, seen);
    `CHECK(seen == 5, $sformatf("no coalescing: %0d fires for 5 events", seen))

    // Count 4, no time limit in reach: 8 events, 2 fires, on the 4th and 8th.
    count  = 16'd4;
    cycles = 16'hFFFF;
    idle(2);
    burst(3, seen);
    `CHECK(seen == 0, "count=4: fired before the 4th event")
    burst(1, seen);
    `CHECK(seen == 1, "count=4: 4th event must fire")
    burst(4, seen);
    `CHECK(seen == 1, "count=4: events 5..8 must fire once")

    // Time 10: a lone event under count 100 fires 10 cycles after it arrived.
    count  = 16'd100;
    cycles = 16'd10;
    idle(2);
    n0 = fires;
    step(1'b1);
    idle(9);
    `CHECK(fires == n0, "time=10: fired before 10 cycles")
    idle(1);
    `CHECK(fires == n0 + 1, "time=10: must fire 10 cycles after the first event")
    // Later events do not extend the deadline of the first.
    n0 = fires;
    step(1'b1);
    repeat (4) begin idle(1); step(1'b1); end
    idle(1);
    `CHECK(fires == n0, "time=10: fired before 10 cycles (events 0, 2, .., 8)")
    idle(1);
    `CHECK(fires == n0 + 1, "time=10: deadline counts from the first pending event")
    idle(12);

    // Lowering the count below what is pending fires at once.
    count  = 16'd50;
    cycles = 16'hFFFF;
    idle(1);
    burst(6, seen);
    `CHECK(seen == 0, "count=50: fired early")
    n0 = fires;
    count = 16'd3;
    #1 `CHECK(fire, "count lowered to 3 with 6 pending: must fire")
    idle(1);
    `CHECK(fires == n0 + 1, "lowered count: one fire")

    // Clear drops what is pending: 3 events, clear, 3 events under count 5 -> no fire.
    count = 16'd5;
    idle(1);
    burst(3, seen);
    step(1'b0, 1'b1);
    burst(3, seen);
    `CHECK(seen == 0, "clear must drop pending events")
    burst(2, seen);
    `CHECK(seen == 1, "after clear: 5th new event fires")

    // Random: events, clears, thresholds; the monitor compares every cycle.
    for (int i = 0; i < 20000; i++) begin
      if ($urandom_range(0, 199) == 0) begin
        count  = 16'($urandom_range(0, 12));
        cycles = ($urandom_range(0, 3) == 0) ? 16'd0 : 16'($urandom_range(1, 40));
      end
      step($urandom_range(0, 2) == 0, $urandom_range(0, 499) == 0);
    end

    if (errors == 0) $display("PASS tb_ddc_int_coal (%0d fires)", fires);
    else $display("FAIL tb_ddc_int_coal: %0d errors", errors);
    $finish;
  end
endmodule
