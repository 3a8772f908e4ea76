// Lint/Yosys-only declaration of the Xilinx global clock buffer (see IBUFDS_GTE2.sv).
(* blackbox *)
module BUFG (
  input  logic I,
  output logic O
);
  assign O = I;
endmodule
