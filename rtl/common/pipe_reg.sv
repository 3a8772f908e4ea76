// One register stage on a valid/ready stream: data and valid leave from flops, at full
// rate (a word may enter in the cycle the held one leaves).
//
// For a block-RAM FIFO's output: the RAM's read data comes late in the cycle (an ECP5
// DP16KD without its output register: 5.8 ns clock-to-out) and far from the logic that
// decodes it; behind this stage that logic starts from flops next to it. It costs a
// cycle of latency. Ready is not registered: in_ready_o follows out_ready_i through one
// gate, as the FIFO's pop follows its consumer's. full_o counts the held word for
// producers that reserve room ahead (it is one more place to be).
module pipe_reg #(
  parameter int unsigned WIDTH = 8
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [WIDTH-1:0] in_data_i,

  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [WIDTH-1:0] out_data_o,

  output logic             full_o
);
  logic             valid_q;
  logic [WIDTH-1:0] data_q;

  assign in_ready_o  = !valid_q || out_ready_i;
  assign out_valid_o = valid_q;
  assign out_data_o  = data_q;
  assign full_o      = valid_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
    end else if (in_ready_o) begin
      valid_q <= in_valid_i;
    end
  end

  // No reset: read only behind valid_q, and a RAM's data width of flops is cheaper without.
  always_ff @(posedge clk_i) begin
    if (in_ready_o && in_valid_i) data_q <= in_data_i;
  end

endmodule
