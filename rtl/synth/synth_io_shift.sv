// Synthesis-only IO reducer for place-and-route of a core whose ports outnumber the
// package pins. Inputs: a shift chain loaded one bit per cycle from sin_i, so every
// core input is an independent flop (nothing is a constant, no logic is optimized
// away). Outputs: captured in parallel when load_i is high, shifted out on sout_o
// otherwise, so every core output is observable. Every core port therefore sees a
// flop-to-flop path of its own, as it would next to a registered link or DMA bridge.
// The chains add IN_W + OUT_W flops and OUT_W LUTs; the core's own numbers are taken
// from a synthesis of the core alone.
module synth_io_shift #(
  parameter int unsigned IN_W  = 8,
  parameter int unsigned OUT_W = 8
) (
  input  logic             clk_i,
  input  logic             sin_i,
  input  logic             load_i,
  output logic             sout_o,
  output logic [IN_W-1:0]  core_in_o,
  input  logic [OUT_W-1:0] core_out_i
);
  logic [IN_W-1:0]  in_q;
  logic [OUT_W-1:0] out_d, out_q;

  always_comb begin
    out_d = {1'b0, out_q[OUT_W-1:1]};
    if (load_i) out_d = core_out_i;
  end

  always_ff @(posedge clk_i) begin
    in_q  <= {in_q[IN_W-2:0], sin_i};
    out_q <= out_d;
  end

  assign core_in_o = in_q;
  assign sout_o    = out_q[0];

endmodule
