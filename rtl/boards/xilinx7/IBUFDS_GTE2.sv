// Lint/Yosys-only declaration of the Xilinx 7-series GT reference clock buffer (UG482).
// Vivado takes the real cell from its UNISIM library; this file is never given to it.
// The outputs are tied off only so Verilator -Wall sees them driven; Yosys keeps the
// cell as a black box.
// The parameters only name the vendor's; nothing here uses them.
/* verilator lint_off UNUSEDPARAM */
(* blackbox *)
module IBUFDS_GTE2 #(
  parameter string CLKCM_CFG    = "TRUE",
  parameter string CLKRCV_TRST  = "TRUE",
  parameter logic [1:0] CLKSWING_CFG = 2'b11
) (
  input  logic I,
  input  logic IB,
  input  logic CEB,
  output logic O,
  output logic ODIV2
);
  assign O     = 1'b0;
  assign ODIV2 = 1'b0;
  logic unused;
  assign unused = ^{I, IB, CEB};
endmodule
/* verilator lint_on UNUSEDPARAM */
