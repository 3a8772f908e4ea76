// Interrupt coalescing for one INT_STATUS source.
//
// Events accumulate as "pending" until they are signalled by a one-cycle fire_o pulse,
// which the CSR block turns into its INT_STATUS bit. Pending events are signalled in the
// cycle their number reaches count_i, or once cycles_i cycles have passed since the first
// of them arrived; either threshold at 0 fires in the event's own cycle, so the reset
// configuration adds no latency. Because the time threshold always applies, a lone event
// is never held longer than cycles_i (at most 65535 cycles), whatever count_i says.
//
// Thresholds are compared with the live pending state every cycle, so lowering them
// below what is already pending fires at once. clear_i drops the pending events (their
// ring was reset, they no longer describe anything). Acknowledging INT_STATUS is not seen
// here: it neither drops nor delays events that are still pending.
module ddc_int_coal (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [15:0] count_i,
  input  logic [15:0] cycles_i,
  input  logic        event_i,
  input  logic        clear_i,
  output logic        fire_o
);
  logic [15:0] pend_q, pend_d;
  logic [15:0] age_q, age_d;

  logic [15:0] pend_now, age_now;
  logic        fire;

  // Saturating: a 16-bit count threshold is reached before the pending count could wrap.
  assign pend_now = (event_i && (pend_q != 16'hFFFF)) ? pend_q + 16'd1 : pend_q;
  // The first event's own cycle is age 0.
  assign age_now  = (pend_q == '0) ? '0 : age_q;
  assign fire     = (pend_now != '0) && !clear_i &&
                    ((pend_now >= count_i) || (age_now >= cycles_i));

  always_comb begin
    pend_d = pend_now;
    age_d  = (age_now == 16'hFFFF) ? age_now : age_now + 16'd1;
    if (fire || clear_i || (pend_now == '0)) begin
      pend_d = '0;
      age_d  = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pend_q <= '0;
      age_q  <= '0;
    end else begin
      pend_q <= pend_d;
      age_q  <= age_d;
    end
  end

  assign fire_o = fire;

endmodule
