// Core clock from the ULX3S 25 MHz oscillator: ECP5 EHXPLLL, feedback from CLKOP,
// so f_out = 25 MHz * CLKFB_DIV / CLKI_DIV (dividers as `ecppll -i 25 -o <MHz>` gives
// them; VCO = f_out * CLKOP_DIV must be 400..800 MHz).
// Simulation has no PLL model: the clock passes through and locks at once, and the
// board testbench drives the oscillator pin at the core clock period instead.
module ulx3s_pll #(
  parameter int unsigned CLKI_DIV     = 5,
  parameter int unsigned CLKFB_DIV    = 8,
  parameter int unsigned CLKOP_DIV    = 15
) (
  input  logic clk_i,
  output logic clk_o,
  output logic locked_o
);
  localparam int unsigned VcoMhz      = 25 * CLKFB_DIV * CLKOP_DIV / CLKI_DIV;

  if (VcoMhz < 400 || VcoMhz > 800) begin : gen_vco_check
    $error("ulx3s_pll: VCO outside 400..800 MHz");
  end

`ifdef SYNTHESIS
  // zero phase shift, as ecppll sets it
  localparam int unsigned ClkopCphase = (CLKOP_DIV - 1) / 2;

  (* ICP_CURRENT="12" *) (* LPF_RESISTOR="8" *) (* MFG_ENABLE_FILTEROPAMP="1" *)
  (* MFG_GMCREF_SEL="2" *)
  EHXPLLL #(
    .PLLRST_ENA     ("DISABLED"),
    .INTFB_WAKE     ("DISABLED"),
    .STDBY_ENABLE   ("DISABLED"),
    .DPHASE_SOURCE  ("DISABLED"),
    .OUTDIVIDER_MUXA("DIVA"),
    .OUTDIVIDER_MUXB("DIVB"),
    .OUTDIVIDER_MUXC("DIVC"),
    .OUTDIVIDER_MUXD("DIVD"),
    .CLKI_DIV       (CLKI_DIV),
    .CLKOP_ENABLE   ("ENABLED"),
    .CLKOP_DIV      (CLKOP_DIV),
    .CLKOP_CPHASE   (ClkopCphase),
    .CLKOP_FPHASE   (0),
    .FEEDBK_PATH    ("CLKOP"),
    .CLKFB_DIV      (CLKFB_DIV)
  ) u_pll (
    .RST         (1'b0),
    .STDBY       (1'b0),
    .CLKI        (clk_i),
    .CLKOP       (clk_o),
    .CLKFB       (clk_o),
    .CLKINTFB    (),
    .PHASESEL0   (1'b0),
    .PHASESEL1   (1'b0),
    .PHASEDIR    (1'b1),
    .PHASESTEP   (1'b1),
    .PHASELOADREG(1'b1),
    .PLLWAKESYNC (1'b0),
    .ENCLKOP     (1'b0),
    .ENCLKOS     (1'b0),
    .ENCLKOS2    (1'b0),
    .ENCLKOS3    (1'b0),
    .CLKOS       (),
    .CLKOS2      (),
    .CLKOS3      (),
    .INTLOCK     (),
    .REFCLK      (),
    .LOCK        (locked_o)
  );
`else
  assign clk_o    = clk_i;
  assign locked_o = 1'b1;
`endif

endmodule
