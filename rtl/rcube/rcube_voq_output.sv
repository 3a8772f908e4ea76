// One router output of the VOQ organisation: credit counter, crossbar column and the
// output register.
//
// The allocator spends a credit when it schedules a pop for this output, one cycle
// before the flit crosses, so the counter counts credits not yet promised. A credit
// pulse arriving now may be promised now (credit_ok_o), which keeps the credit loop
// exactly as long as in the FIFO organisation. The crossbar setting comes from flops
// (rcube_islip_alloc), so this cycle's path is buffer read register -> mux -> flop.
module rcube_voq_output #(
  parameter int unsigned NPORTS   = 8,
  // Wide enough for any downstream buffer depth a neighbour may announce.
  parameter int unsigned CREDIT_W = 12,
  localparam int unsigned PortW   = (NPORTS > 1) ? $clog2(NPORTS) : 1
) (
  input  logic                                       clk_i,
  input  logic                                       rst_ni,
  // allocator: a pop for this output is scheduled at this edge (spends a credit)
  output logic                                       credit_ok_o,
  output logic                                       credit_bc_o,  // a whole broadcast fits
  input  logic                                       sched_i,
  // crossbar: the inputs' popped flits and which one this output carries now
  input  fasthsl_link_pkg::link_flit_t [NPORTS-1:0]  flit_i,
  input  logic                                       xvalid_i,
  input  logic [PortW-1:0]                           xsel_i,
  // link side
  output fasthsl_link_pkg::link_flit_t               out_flit_o,
  input  logic                                       credit_i
);
  import fasthsl_link_pkg::*;

  logic [CREDIT_W-1:0] credit_q, credit_d;
  link_flit_t          out_q, out_d;

  // What the allocator asks of the count (any credit, a whole broadcast's) is kept in
  // flops next to it: the allocator's cycle starts at those instead of at a 12-bit
  // compare per output.
  logic nonzero_q, bc_fits_q;
  assign credit_ok_o = nonzero_q || credit_i;
  assign credit_bc_o = bc_fits_q;

  // Both candidates from flops, sched_i only selects: it comes at the end of the
  // allocator's cycle, and an adder's carry chain after it would add to that cycle. The
  // same for the flags.
  logic [CREDIT_W-1:0] credit_keep, credit_spend;
  logic                nonzero_d, bc_fits_d;
  always_comb begin
    credit_keep  = credit_q + CREDIT_W'(credit_i);
    credit_spend = credit_i ? credit_q : credit_q - 1'b1;
    credit_d     = sched_i ? credit_spend : credit_keep;
    nonzero_d    = sched_i ? credit_spend != '0 : credit_keep != '0;
    bc_fits_d    = sched_i ? 32'(credit_spend) >= fasthsl_pkg::BCAST_PKT_FLITS
                           : 32'(credit_keep) >= fasthsl_pkg::BCAST_PKT_FLITS;
    out_d    = LINK_FLIT_IDLE;
    if (xvalid_i) begin
      out_d       = flit_i[xsel_i];
      out_d.valid = 1'b1;
    end
  end

  assign out_flit_o = out_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      credit_q  <= '0;
      nonzero_q <= 1'b0;
      bc_fits_q <= 1'b0;
      out_q     <= LINK_FLIT_IDLE;
    end else begin
      credit_q  <= credit_d;
      nonzero_q <= nonzero_d;
      bc_fits_q <= bc_fits_d;
      out_q     <= out_d;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i or negedge rst_ni) begin : a_credit
    if (rst_ni) begin
      // More credits than the counter holds: the neighbour over-announced its buffer.
      assert (!(credit_i && !sched_i && credit_q == '1))
        else $error("rcube_voq_output: credit counter overflow");
      assert (!sched_i || credit_ok_o) else $error("rcube_voq_output: flit scheduled without credit");
      assert (nonzero_q == (credit_q != '0) &&
              bc_fits_q == (32'(credit_q) >= fasthsl_pkg::BCAST_PKT_FLITS))
        else $error("rcube_voq_output: credit flags differ from the count");
      assert (!xvalid_i || flit_i[xsel_i].valid)
        else $error("rcube_voq_output: crossbar selects an input with no flit");
    end
  end
`endif

endmodule
