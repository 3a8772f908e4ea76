// Dynamically allocated multi-queue buffer (DAMQ, Tamir & Frazier 1988): NQ FIFO
// queues as linked lists in one DEPTH-slot memory, plus a free list.
//
// The link gives an input one credit pool of DEPTH slots (the sender does not know
// our outputs), so the queues share the slots: any mix of up to DEPTH entries fits
// and a full queue never blocks another one, which per-queue FIFOs of DEPTH/NQ could
// not promise.
//
// One push and one pop per cycle. A pop is scheduled one cycle ahead: pop_i in cycle
// c takes the front of queue pop_q_i at the edge and rd_data_o shows it during c+1.
// That read is synchronous, so the memory can be a block RAM; the flit being pushed
// in the same cycle may be popped at once (it bypasses the memory), which is what
// keeps a router hop at 2 cycles. avail_o says which queues may be popped this cycle.
// The free list is a FIFO of slot numbers (no priority encoder over DEPTH bits).
module rcube_voq_buffer #(
  parameter int unsigned NQ    = 8,
  parameter int unsigned DEPTH = 16,
  parameter int unsigned W     = 66,
  localparam int unsigned QW   = (NQ > 1) ? $clog2(NQ) : 1,
  localparam int unsigned CntW = $clog2(DEPTH + 1)
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  // write side: at most one entry per cycle, into queue push_q_i
  input  logic                     push_i,
  input  logic [QW-1:0]            push_q_i,
  input  logic [W-1:0]             push_data_i,
  // read side
  output logic [NQ-1:0]            avail_o,      // queue has an entry now or pushed now
  input  logic                     pop_i,        // requires avail_o[pop_q_i]
  input  logic [QW-1:0]            pop_q_i,
  output logic                     rd_valid_o,   // the entry popped at the last edge
  output logic [W-1:0]             rd_data_o,
  output logic [NQ-1:0][CntW-1:0]  count_o       // entries per queue (for tests, status)
);
  localparam int unsigned AW = (DEPTH > 1) ? $clog2(DEPTH) : 1;

  logic [W-1:0]             mem_q [DEPTH];
  logic [DEPTH-1:0][AW-1:0] next_q;
  logic [NQ-1:0][AW-1:0]    head_q, tail_q;
  logic [NQ-1:0][CntW-1:0]  cnt_q;
  logic [DEPTH-1:0][AW-1:0] free_q;
  logic [AW-1:0]            free_rd_q, free_wr_q;
  logic [CntW-1:0]          free_cnt_q;

  function automatic logic [AW-1:0] wrap_inc(logic [AW-1:0] p);
    return (p == AW'(DEPTH - 1)) ? '0 : p + 1'b1;
  endfunction

  // ---- status ----
  always_comb begin
    for (int unsigned q = 0; q < NQ; q++) avail_o[q] = (cnt_q[q] != '0);
    if (push_i) avail_o[push_q_i] = 1'b1;
  end
  assign count_o = cnt_q;

  // ---- slot bookkeeping ----
  logic [AW-1:0] wr_slot, rel_slot;
  logic          pop_empty;   // popping the entry pushed in this very cycle
  assign wr_slot   = free_q[free_rd_q];
  assign pop_empty = (cnt_q[pop_q_i] == '0);
  assign rel_slot  = pop_empty ? wr_slot : head_q[pop_q_i];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned s = 0; s < DEPTH; s++) free_q[s] <= AW'(s);
      free_rd_q  <= '0;
      free_wr_q  <= '0;
      free_cnt_q <= CntW'(DEPTH);
      head_q     <= '0;
      tail_q     <= '0;
      cnt_q      <= '0;
    end else begin
      if (push_i) free_rd_q <= wrap_inc(free_rd_q);
      if (pop_i) begin
        free_q[free_wr_q] <= rel_slot;
        free_wr_q         <= wrap_inc(free_wr_q);
      end
      free_cnt_q <= free_cnt_q - CntW'(push_i) + CntW'(pop_i);

      // Queue pointers: the pushed slot is linked behind the tail unless the queue
      // is empty once this cycle's pop is taken out, in which case it becomes the head.
      if (pop_i && !pop_empty) head_q[pop_q_i] <= next_q[head_q[pop_q_i]];
      if (push_i) begin
        tail_q[push_q_i] <= wr_slot;
        if (cnt_q[push_q_i] - CntW'(pop_i && pop_q_i == push_q_i) == '0) begin
          head_q[push_q_i] <= wr_slot;
        end
      end
      for (int unsigned q = 0; q < NQ; q++) begin
        cnt_q[q] <= cnt_q[q] + CntW'(push_i && push_q_i == QW'(q))
                             - CntW'(pop_i && pop_q_i == QW'(q));
      end
    end
  end

  // ---- storage and the registered read ----
  // No reset on the memory, the links or the read register, so they can map to RAM; a
  // link is only read after it was written (a queue of two or more entries).
  logic [W-1:0] rd_mem_q, byp_data_q;
  logic         byp_q, rd_valid_q;
  always_ff @(posedge clk_i) begin
    if (push_i && cnt_q[push_q_i] != '0) next_q[tail_q[push_q_i]] <= wr_slot;
    if (push_i) mem_q[wr_slot] <= push_data_i;
    rd_mem_q   <= mem_q[head_q[pop_q_i]];
    byp_data_q <= push_data_i;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      byp_q      <= 1'b0;
      rd_valid_q <= 1'b0;
    end else begin
      byp_q      <= pop_i && pop_empty;
      rd_valid_q <= pop_i;
    end
  end
  assign rd_valid_o = rd_valid_q;
  assign rd_data_o  = byp_q ? byp_data_q : rd_mem_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i or negedge rst_ni) begin : a_protocol
    if (rst_ni) begin
      assert (!push_i || free_cnt_q != '0) else $error("rcube_voq_buffer: push with no free slot");
      assert (!pop_i || avail_o[pop_q_i]) else $error("rcube_voq_buffer: pop of an empty queue");
    end
  end
`endif

endmodule
