// Formal harness for pipe_reg (SymbiYosys, rtl/formal/run_formal.py).
//
// Every input is free. As for fifo_sync, the harness follows one item of the solver's
// choosing (track_i on a push): it must leave next, or after the one item held ahead
// of it, unchanged. The choice is free, so this proves order, no loss, no duplication
// and no corruption while the stage is held.
module formal_pipe_reg #(
  parameter int unsigned WIDTH = 8
) (
  input logic             clk_i,
  input logic             rst_ni,
  input logic             in_valid_i,
  input logic [WIDTH-1:0] in_data_i,
  input logic             out_ready_i,
  input logic             track_i
);
  logic             in_ready, out_valid, full;
  logic [WIDTH-1:0] out_data;

  pipe_reg #(.WIDTH(WIDTH)) dut (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (in_valid_i),
    .in_ready_o (in_ready),
    .in_data_i  (in_data_i),
    .out_valid_o(out_valid),
    .out_ready_i(out_ready_i),
    .out_data_o (out_data),
    .full_o     (full)
  );

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  always_comb if (init_q) assume (!rst_ni);

  logic push, pop;
  assign push = in_valid_i && in_ready;
  assign pop  = out_valid && out_ready_i;

  logic [1:0]       model_q;     // items handed over minus taken out
  logic             tracking_q;  // the chosen item is inside
  logic [WIDTH-1:0] value_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      model_q    <= '0;
      tracking_q <= 1'b0;
      value_q    <= '0;
    end else begin
      model_q <= model_q + 2'(push) - 2'(pop);
      if (tracking_q && pop) tracking_q <= 1'b0;
      if (push && track_i && !tracking_q) begin
        tracking_q <= 1'b1;
        value_q    <= in_data_i;
      end
    end
  end

  always_comb begin
    if (!init_q && rst_ni) begin
      // one place: a push only when empty or leaving, a pop only when held
      assert (model_q <= 2'd1);
      assert (out_valid == (model_q == 2'd1));
      assert (full == out_valid);
      assert (in_ready == (!out_valid || out_ready_i));
      // the tracked item is the one held, unchanged, until it leaves
      if (tracking_q) begin
        assert (out_valid && out_data == value_q);
      end
      cover (tracking_q && pop && push);
    end
  end
endmodule
