// Formal harness for fifo_sync (SymbiYosys, rtl/formal/run_formal.py).
//
// Every input is free. The harness keeps its own item count and follows one item of
// the solver's choosing (track_i on a push): it must leave after exactly the number of
// items that were ahead of it, unchanged. As the choice is free, this covers every item,
// so it proves order, no loss, no duplication and no corruption by refused pushes/pops.
//
// OREG = 1 proves fifo_sync_oreg instead (its head a register, DEPTH >= 2; REG_READ is
// fifo_sync's only) with the same properties, which tie its ports to fifo_sync's:
// in_ready_o, out_valid_o and count_o are functions of the item count, and the data
// follows the order.
module formal_fifo_sync #(
  parameter int unsigned DEPTH    = 4,
  parameter int unsigned WIDTH    = 8,
  parameter bit          REG_READ = 1'b0,
  parameter bit          OREG     = 1'b0
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

  logic [CountW:0]   model_q;     // items the environment handed over minus taken out
  logic              tracking_q;  // the chosen item is inside the FIFO
  logic [CountW-1:0] ahead_q;     // items in front of it
  logic [WIDTH-1:0]  value_q;
  // Induction strengthening, per FIFO below: the tracked item sits where it must.
  logic              in_store;

  if (OREG) begin : g_oreg
    localparam int unsigned RamD = DEPTH - 1;
    localparam int unsigned RamPtrW = (RamD > 1) ? $clog2(RamD) : 1;
    fifo_sync_oreg #(
      .WIDTH(WIDTH),
      .DEPTH(DEPTH)
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
    // The head register when nothing is ahead of the item, else the storage, ahead - 1
    // places behind its read pointer; the storage's count plus the head's valid bit is
    // the item count.
    logic [CountW:0] slot;
    always_comb begin
      slot = (CountW + 1)'(dut.u_ram.rd_ptr_q) + (CountW + 1)'(ahead_q) - 1'b1;
      if (slot >= (CountW + 1)'(RamD)) slot = slot - (CountW + 1)'(RamD);
      in_store = (ahead_q == '0) ? (dut.head_data_q == value_q)
                                 : (dut.u_ram.mem_q[RamPtrW'(slot)] == value_q);
      in_store = in_store && ((CountW + 1)'(dut.u_ram.count_q) +
                              (CountW + 1)'(dut.head_valid_q) == model_q);
    end
  end else begin : g_plain
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
    // rd_ptr_q + items ahead
    logic [CountW:0] slot;
    always_comb begin
      slot = (CountW + 1)'(dut.rd_ptr_q) + (CountW + 1)'(ahead_q);
      if (slot >= (CountW + 1)'(DEPTH)) slot = slot - (CountW + 1)'(DEPTH);
      in_store = dut.mem_q[PtrW'(slot)] == value_q;
    end
  end

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  always_comb if (init_q) assume (!rst_ni);

  logic push, pop;
  assign push = in_valid_i && in_ready;
  assign pop  = out_valid && out_ready_i;

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
        assert (in_store);
        if (pop && ahead_q == '0) assert (out_data == value_q);
      end
      cover (tracking_q && pop && ahead_q == '0 && count == CountW'(DEPTH));
    end
  end
endmodule
