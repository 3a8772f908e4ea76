// Forwarded link clock: the core clock inverted, so the far end's rising edge falls in
// the middle of each data beat (data leave on our rising edge). An ECP5 output DDR
// register (ODDRX1F: D0 in the first half period, D1 in the second) makes it without
// a clock-to-fabric path; simulation inverts directly.
module ulx3s_clk_fwd (
  input  logic clk_i,
  output logic clk_o
);
`ifdef SYNTHESIS
  ODDRX1F u_oddr (
    .SCLK(clk_i),
    .RST (1'b0),
    .D0  (1'b0),
    .D1  (1'b1),
    .Q   (clk_o)
  );
`else
  assign clk_o = ~clk_i;
`endif

endmodule
