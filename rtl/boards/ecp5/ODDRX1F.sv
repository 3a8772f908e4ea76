// Synthesis-only declaration of the Lattice ECP5 output DDR register (see EHXPLLL.sv).
(* blackbox *)
module ODDRX1F #(
  parameter string GSR = "ENABLED"
) (
  input  logic D0,
  input  logic D1,
  input  logic SCLK,
  input  logic RST,
  output logic Q
);
endmodule
