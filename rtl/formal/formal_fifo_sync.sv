// Formal harness for fifo_sync (SymbiYosys, rtl/formal/run_formal.py).
//
// Every input is free. The harness keeps its own item count and follows one item of
// the solver's choosing (track_i on a push): it must leave after exactly the number of
// items that were ahead of it, unchanged. As the choice is free, this covers every item,
// so it proves order, no loss, no duplication and no corruption by refused pushes/pops.
module formal_fifo_sync #(
  parameter int unsigned DEPTH    = 4,
  parameter int unsigned WIDTH    = 8,
  parameter bit          REG_READ = 1'b0
) (
  input logic             clk_i,
  input logic             rst_ni,
  input logic             in_valid_i,
  input logic [WIDTH-1:0] in_data_i,
  input logic             out_ready_i,
  input logic             track_i
);
  localparam int unsigned CountW = $clog2(DEPTH + 1);
  localparam int unsigned PtrW   = (DEPTH > 1) ? $clog2(DEPTH) : 1;

  logic              in_ready, out_valid;
  logic [WIDTH-1:0]  out_data;
  logic [CountW-1:0] count;

  fifo_sync #(
    .WIDTH   (WIDTH),
    .DEPTH   (DEPTH),
    .REG_READ(REG_READ)
  ) dut (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (in_valid_i),
    .in_ready_o (in_ready),
    .in_data_i  (in_data_i),
    .out_valid_o(out_valid),
    .out_ready_i(out_ready_i),
    .out_data_o (out_data),
    .count_o    (count)
  );

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  always_comb if (init_q) assume (!rst_ni);

  logic push, pop;
  assign push = in_valid_i && in_ready;
  assign pop  = out_valid && out_ready_i;

  logic [CountW:0]   model_q;     // items the environment handed over minus taken out
  logic              tracking_q;  // the chosen item is inside the FIFO
  logic [CountW-1:0] ahead_q;     // items in front of it
  logic [WIDTH-1:0]  value_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      model_q    <= '0;
      tracking_q <= 1'b0;
      ahead_q    <= '0;
      value_q    <= '0;
    end else begin
      model_q <= model_q + (CountW + 1)'(push) - (CountW + 1)'(pop);
      if (tracking_q && pop) begin
        if (ahead_q == '0) tracking_q <= 1'b0;
        else               ahead_q    <= ahead_q - 1'b1;
      end
      if (push && track_i && !tracking_q) begin
        tracking_q <= 1'b1;
        value_q    <= in_data_i;
        ahead_q    <= count - CountW'(pop);
      end
    end
  end

  // Where the tracked item must sit in storage (induction strengthening).
  logic [CountW:0] slot;
  always_comb begin
    slot = (CountW + 1)'(dut.rd_ptr_q) + (CountW + 1)'(ahead_q);
    if (slot >= (CountW + 1)'(DEPTH)) slot = slot - (CountW + 1)'(DEPTH);
  end

  always_comb begin
    if (!init_q && rst_ni) begin
      // count_o tracks accepted pushes minus pops; never above DEPTH
      assert ((CountW + 1)'(count) == model_q);
      assert (model_q <= (CountW + 1)'(DEPTH));
      // full refuses pushes, empty refuses pops (no overflow, no underflow)
      assert (in_ready == (model_q < (CountW + 1)'(DEPTH)));
      assert (out_valid == (model_q != '0));
      // order and integrity of the tracked item
      if (tracking_q) begin
        assert (ahead_q < count);
        assert (dut.mem_q[PtrW'(slot)] == value_q);
        if (pop && ahead_q == '0) assert (out_data == value_q);
      end
      cover (tracking_q && pop && ahead_q == '0 && count == CountW'(DEPTH));
    end
  end
endmodule
