// Formal harness for link_credit_return: a closed credit loop.
//
// A sender spends the credits it receives on flits (one cycle of wire, like a real
// link), the receiver's buffer holds them until the environment frees a slot (any time
// the buffer is not empty). Every credit is in exactly one place: pending in
// link_credit_return, on the credit wire, held by the sender, a flit on the wire, or an
// occupied slot. Their sum stays DEPTH (none created, none lost, so each freed slot is
// returned exactly once), each part stays in 0..DEPTH, and pending credits always leave.
module formal_link_credit_return #(
  parameter int unsigned DEPTH = 5
) (
  input logic clk_i,
  input logic rst_ni,
  input logic send_i,  // the sender wants to send (it may only with a credit)
  input logic free_i   // the receiver frees a slot (only if one is occupied)
);
  localparam int unsigned W = $clog2(DEPTH + 1) + 2;

  logic credit, slot_freed;
  logic [W-1:0] held_q, occ_q;   // sender's credits, receiver's occupied slots
  logic         flit_q;          // a flit on the wire
  logic         send;

  assign send       = send_i && (held_q != '0);
  assign slot_freed = free_i && (occ_q != '0);

  link_credit_return #(
    .DEPTH(DEPTH)
  ) dut (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .slot_freed_i(slot_freed),
    .credit_o    (credit)
  );

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  always_comb if (init_q) assume (!rst_ni);

  logic pend_nz_q;  // credits were pending (or freed) last cycle
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      held_q    <= '0;
      occ_q     <= '0;
      flit_q    <= 1'b0;
      pend_nz_q <= 1'b0;
    end else begin
      held_q    <= held_q + W'(credit) - W'(send);
      flit_q    <= send;
      occ_q     <= occ_q + W'(flit_q) - W'(slot_freed);
      pend_nz_q <= (dut.pend_q != '0) || slot_freed;
    end
  end

  logic [W-1:0] total;
  assign total = W'(dut.pend_q) + W'(credit) + held_q + W'(flit_q) + occ_q;

  always_comb begin
    if (!init_q && rst_ni) begin
      assert (total == W'(DEPTH));
      assert (W'(dut.pend_q) <= W'(DEPTH));
      assert (held_q <= W'(DEPTH));
      assert (occ_q <= W'(DEPTH));
      // a pending credit is sent the next cycle: none is withheld
      assert (credit == pend_nz_q);
      cover (held_q == W'(DEPTH));
      cover (occ_q == W'(DEPTH));
    end
  end
endmodule
