// Synchronous first-word-fall-through FIFO with valid/ready on both sides.
//
// DEPTH need not be a power of two. `count_o` lets producers reserve room ahead of
// time (the NIC reserves payload space before it issues DMA reads).
//
// REG_READ = 1 reads the storage through a register of the next read address (a copy of
// the read pointer's next value, without reset) instead of the read pointer itself. The
// ports behave the same cycle for cycle; what changes is what synthesis can build: an
// address register in front of the read is the synchronous read of a block RAM
// (DP16KD, RAMB), where the pointer, with its asynchronous reset, only allows
// distributed RAM and its read-multiplexer tree. For deep FIFOs (the NIC's packet
// buffers).
module fifo_sync #(
  parameter int unsigned WIDTH = 8,
  parameter int unsigned DEPTH = 4,
  parameter bit          REG_READ = 1'b0,
  localparam int unsigned CountW = $clog2(DEPTH + 1)
) (
  input  logic              clk_i,
  input  logic              rst_ni,

  input  logic              in_valid_i,
  output logic              in_ready_o,
  input  logic [WIDTH-1:0]  in_data_i,

  output logic              out_valid_o,
  input  logic              out_ready_i,
  output logic [WIDTH-1:0]  out_data_o,

  output logic [CountW-1:0] count_o
);
  localparam int unsigned PtrW = (DEPTH > 1) ? $clog2(DEPTH) : 1;

  logic [WIDTH-1:0]  mem_q [DEPTH];
  logic [PtrW-1:0]   wr_ptr_q, rd_ptr_q;
  logic [CountW-1:0] count_q;

  logic push, pop;
  assign in_ready_o  = (count_q != CountW'(DEPTH));
  assign out_valid_o = (count_q != '0);
  assign push        = in_valid_i && in_ready_o;
  assign pop         = out_valid_o && out_ready_i;
  assign count_o     = count_q;

  function automatic logic [PtrW-1:0] next_ptr(logic [PtrW-1:0] ptr);
    return (ptr == PtrW'(DEPTH - 1)) ? '0 : ptr + 1'b1;
  endfunction

  if (REG_READ) begin : gen_reg_read
    // Equal to rd_ptr_q after every clock edge out of reset, and the FIFO is empty
    // until there has been one: the data is the same as the pointer's read.
    logic [PtrW-1:0] rd_addr_q;
    always_ff @(posedge clk_i) rd_addr_q <= pop ? next_ptr(rd_ptr_q) : rd_ptr_q;
    assign out_data_o = mem_q[rd_addr_q];
`ifndef SYNTHESIS
    always_comb begin : a_rd_addr
      if (rst_ni && out_valid_o) begin
        assert (rd_addr_q == rd_ptr_q) else $error("fifo_sync: read address register stale");
      end
    end
`endif
  end else begin : gen_ptr_read
    assign out_data_o = mem_q[rd_ptr_q];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_ptr_q <= '0;
      rd_ptr_q <= '0;
      count_q  <= '0;
    end else begin
      if (push) wr_ptr_q <= next_ptr(wr_ptr_q);
      if (pop)  rd_ptr_q <= next_ptr(rd_ptr_q);
      if (push && !pop)      count_q <= count_q + 1'b1;
      else if (pop && !push) count_q <= count_q - 1'b1;
    end
  end

  // Storage has no reset so it maps to RAM.
  always_ff @(posedge clk_i) begin
    if (push) mem_q[wr_ptr_q] <= in_data_i;
  end

`ifndef SYNTHESIS
  // Pointer and count invariants: together they make the formal FIFO proof
  // (rtl/formal) inductive, and every simulation that uses a FIFO checks them too.
  // rd_ptr_q + count_q < 2 * DEPTH, so one conditional subtraction is the modulo.
  logic [CountW:0] wr_expect;
  always_comb begin
    wr_expect = (CountW + 1)'(rd_ptr_q) + (CountW + 1)'(count_q);
    if (wr_expect >= (CountW + 1)'(DEPTH)) wr_expect = wr_expect - (CountW + 1)'(DEPTH);
  end

  // always_comb, not always_ff with the async reset: yosys-slang rejects an assertion
  // in an asynchronous-load pattern.
  always_comb begin : a_fifo_state
    if (rst_ni) begin
      assert (32'(count_q) <= DEPTH) else $error("fifo_sync: count above DEPTH");
      assert (32'(rd_ptr_q) < DEPTH) else $error("fifo_sync: read pointer out of range");
      assert ((CountW + 1)'(wr_ptr_q) == wr_expect)
        else $error("fifo_sync: write pointer disagrees with read pointer + count");
    end
  end
`endif

endmodule
