// Formal harness for rcube_output_port (the FIFO organisation's output), in a closed
// credit loop with a downstream buffer of BUF slots returning credits through
// link_credit_return.
//
// Inputs (requests and head flits) are free. The harness follows packets by what it
// sees granted: once a head without `last` is granted, only that input may be granted
// until its `last` flit is (no interleaving on the output). Also: grants are one-hot
// and only to requesters, nothing is sent without a credit, the output register
// carries exactly the granted flit one cycle later, an idle output with a credit serves
// a request at once, and the credit counter equals the credits in the loop minus those
// elsewhere (never negative, never above BUF, the downstream buffer never overflows).
module formal_rcube_output_port
  import fasthsl_link_pkg::*;
#(
  parameter int unsigned NPORTS   = 3,
  parameter int unsigned BUF      = 3,
  parameter int unsigned CREDIT_W = 4
) (
  input logic                          clk_i,
  input logic                          rst_ni,
  input logic       [NPORTS-1:0]       req_i,
  input link_flit_t [NPORTS-1:0]       flit_i,
  input logic                          free_i   // downstream frees a slot (if one is used)
);
  localparam int unsigned PortW = (NPORTS > 1) ? $clog2(NPORTS) : 1;
  localparam int unsigned W     = CREDIT_W + 1;

  logic [NPORTS-1:0] gnt;
  link_flit_t        out_flit;
  logic              credit, slot_freed;

  rcube_output_port #(
    .NPORTS  (NPORTS),
    .CREDIT_W(CREDIT_W)
  ) dut (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .req_i     (req_i),
    .flit_i    (flit_i),
    .gnt_o     (gnt),
    .out_flit_o(out_flit),
    .credit_i  (credit)
  );

  logic [W-1:0] occ_q;  // downstream buffer occupancy
  assign slot_freed = free_i && (occ_q != '0);

  link_credit_return #(
    .DEPTH(BUF)
  ) u_down (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .slot_freed_i(slot_freed),
    .credit_o    (credit)
  );

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  always_comb if (init_q) assume (!rst_ni);

  // the granted input, if any
  logic             any_gnt;
  logic [PortW-1:0] g;
  always_comb begin
    any_gnt = (gnt != '0);
    g       = '0;
    for (int unsigned i = 0; i < NPORTS; i++) begin
      if (gnt[i]) g = PortW'(i);
    end
  end

  logic             open_q;   // a packet is half way through this output
  logic [PortW-1:0] own_q;    // its input
  link_flit_t       exp_q;    // what the output register must show
  logic [W-1:0]     cred_q;   // credits the sender holds
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      open_q <= 1'b0;
      own_q  <= '0;
      exp_q  <= LINK_FLIT_IDLE;
      cred_q <= '0;
      occ_q  <= '0;
    end else begin
      exp_q  <= LINK_FLIT_IDLE;
      if (any_gnt) begin
        open_q      <= !flit_i[g].last;
        own_q       <= g;
        exp_q       <= flit_i[g];
        exp_q.valid <= 1'b1;
      end
      cred_q <= cred_q + W'(credit) - W'(any_gnt);
      occ_q  <= occ_q + W'(out_flit.valid) - W'(slot_freed);
    end
  end

  logic [W+1:0] loop_total;
  assign loop_total = (W + 2)'(cred_q) + (W + 2)'(out_flit.valid) + (W + 2)'(occ_q) +
                      (W + 2)'(u_down.pend_q) + (W + 2)'(credit);

  always_comb begin
    if (!init_q && rst_ni) begin
      assert ((gnt & (gnt - 1'b1)) == '0);
      assert ((gnt & ~req_i) == '0);
      // wormhole: no interleaving
      if (open_q && any_gnt) assert (g == own_q);
      // credits
      if (any_gnt) assert (cred_q != '0);
      assert (loop_total == (W + 2)'(BUF));
      assert (cred_q <= W'(BUF));
      assert (occ_q <= W'(BUF));
      // datapath
      assert (out_flit == exp_q);
      // progress: an idle output with a credit serves a request now; an open packet
      // moves whenever its input has a flit and there is a credit
      if (!open_q && cred_q != '0 && req_i != '0) assert (any_gnt);
      if (open_q && cred_q != '0 && req_i[own_q]) assert (gnt[own_q]);
`ifndef NO_STRENGTHEN
      // induction strengthening: the harness's view equals the port's state
      assert (W'(dut.credit_q) == cred_q);
      assert (dut.locked_q == open_q);
      assert (dut.owner_q == own_q);
      assert (32'(own_q) < NPORTS);
`endif
      cover (open_q && any_gnt && flit_i[g].last && req_i != gnt && cred_q == W'(1));
    end
  end
endmodule
