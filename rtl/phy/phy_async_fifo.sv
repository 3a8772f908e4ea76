// Dual-clock FIFO: gray-code pointers crossed with two-flop synchronizers.
//
// The writer's full and the reader's empty each compare one local binary pointer with
// the other side's synchronized gray pointer, so they are conservative (full and empty
// are released up to three cycles late) but never wrong: a gray pointer changes one bit
// per step, so a synchronizer sampling it mid-change sees either the old or the new
// value. Pointers are one bit wider than the address to tell full from empty.
// DEPTH must be a power of two. Each side has its own reset (asserted asynchronously,
// released synchronously to that side's clock, see phy_rst_sync); both must be reset
// together, before either side uses the FIFO.
module phy_async_fifo #(
  parameter int unsigned WIDTH = 8,
  parameter int unsigned DEPTH = 8
) (
  input  logic             wr_clk_i,
  input  logic             wr_rst_ni,
  input  logic             wr_valid_i,
  output logic             wr_ready_o,   // not full
  input  logic [WIDTH-1:0] wr_data_i,

  input  logic             rd_clk_i,
  input  logic             rd_rst_ni,
  output logic             rd_valid_o,   // not empty
  input  logic             rd_ready_i,
  output logic [WIDTH-1:0] rd_data_o
);
  localparam int unsigned AddrW = $clog2(DEPTH);
  localparam int unsigned PtrW  = AddrW + 1;

  if (DEPTH < 2 || (1 << AddrW) != DEPTH) begin : gen_depth_check
    $error("phy_async_fifo: DEPTH must be a power of two >= 2");
  end

  function automatic logic [PtrW-1:0] bin2gray(logic [PtrW-1:0] b);
    return b ^ (b >> 1);
  endfunction

  logic [WIDTH-1:0] mem_q [DEPTH];
  // *_w / *_r: the other side's gray pointer synchronized into the write / read clock
  logic [PtrW-1:0]  wr_bin_q, wr_gray_q, rd_gray_w;
  logic [PtrW-1:0]  rd_bin_q, rd_gray_q, wr_gray_r;
  logic             push, pop;

  // ---- write side ----

  // Full: the synchronized read pointer is exactly DEPTH behind, which in gray code
  // means the two top bits differ and the rest match.
  assign wr_ready_o = (wr_gray_q != (rd_gray_w ^ {2'b11, {(PtrW - 2){1'b0}}}));
  assign push       = wr_valid_i && wr_ready_o;

  always_ff @(posedge wr_clk_i or negedge wr_rst_ni) begin
    if (!wr_rst_ni) begin
      wr_bin_q  <= '0;
      wr_gray_q <= '0;
    end else if (push) begin
      wr_bin_q  <= wr_bin_q + 1'b1;
      wr_gray_q <= bin2gray(wr_bin_q + 1'b1);
    end
  end

  // Storage has no reset so it can map to distributed RAM.
  always_ff @(posedge wr_clk_i) begin
    if (push) mem_q[wr_bin_q[AddrW-1:0]] <= wr_data_i;
  end

  phy_sync_2ff #(
    .WIDTH(PtrW)
  ) u_sync_rd (
    .clk_i (wr_clk_i),
    .rst_ni(wr_rst_ni),
    .d_i   (rd_gray_q),
    .q_o   (rd_gray_w)
  );

  // ---- read side ----

  assign rd_valid_o = (rd_gray_q != wr_gray_r);
  assign pop        = rd_valid_o && rd_ready_i;
  assign rd_data_o  = mem_q[rd_bin_q[AddrW-1:0]];

  always_ff @(posedge rd_clk_i or negedge rd_rst_ni) begin
    if (!rd_rst_ni) begin
      rd_bin_q  <= '0;
      rd_gray_q <= '0;
    end else if (pop) begin
      rd_bin_q  <= rd_bin_q + 1'b1;
      rd_gray_q <= bin2gray(rd_bin_q + 1'b1);
    end
  end

  phy_sync_2ff #(
    .WIDTH(PtrW)
  ) u_sync_wr (
    .clk_i (rd_clk_i),
    .rst_ni(rd_rst_ni),
    .d_i   (wr_gray_q),
    .q_o   (wr_gray_r)
  );

endmodule
