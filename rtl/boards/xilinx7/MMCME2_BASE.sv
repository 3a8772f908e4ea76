// Lint/Yosys-only declaration of the Xilinx 7-series MMCM (UG472), the parameters and
// ports litefury_fasthsl_top uses (see IBUFDS_GTE2.sv).
// The parameters only name the vendor's; nothing here uses them.
/* verilator lint_off UNUSEDPARAM */
(* blackbox *)
module MMCME2_BASE #(
  parameter string BANDWIDTH        = "OPTIMIZED",
  parameter real   CLKIN1_PERIOD    = 0.0,
  parameter real   CLKFBOUT_MULT_F  = 5.0,
  parameter real   CLKFBOUT_PHASE   = 0.0,
  parameter int    DIVCLK_DIVIDE    = 1,
  parameter real   CLKOUT0_DIVIDE_F = 1.0,
  parameter real   CLKOUT0_DUTY_CYCLE = 0.5,
  parameter real   CLKOUT0_PHASE    = 0.0,
  parameter real   REF_JITTER1      = 0.0,
  parameter string STARTUP_WAIT     = "FALSE"
) (
  input  logic CLKIN1,
  input  logic CLKFBIN,
  input  logic RST,
  input  logic PWRDWN,
  output logic CLKFBOUT,
  output logic CLKFBOUTB,
  output logic CLKOUT0,
  output logic CLKOUT0B,
  output logic CLKOUT1,
  output logic CLKOUT1B,
  output logic CLKOUT2,
  output logic CLKOUT2B,
  output logic CLKOUT3,
  output logic CLKOUT3B,
  output logic CLKOUT4,
  output logic CLKOUT5,
  output logic CLKOUT6,
  output logic LOCKED
);
  assign {CLKFBOUT, CLKFBOUTB, CLKOUT0, CLKOUT0B, CLKOUT1, CLKOUT1B, CLKOUT2, CLKOUT2B,
          CLKOUT3, CLKOUT3B, CLKOUT4, CLKOUT5, CLKOUT6, LOCKED} = '0;
  logic unused;
  assign unused = ^{CLKIN1, CLKFBIN, RST, PWRDWN};
endmodule
/* verilator lint_on UNUSEDPARAM */
