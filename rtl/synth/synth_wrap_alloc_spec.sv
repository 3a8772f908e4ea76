// Place-and-route top for rcube_spec_alloc alone (8 ports, the pops a cycle behind the
// decision, as alloc_voq_pipe): every input comes from a flop of synth_io_shift and every
// output goes into one, so its Fmax is the allocator's own cycle. Synthesis only.
module synth_wrap_alloc_spec (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic sin_i,
  input  logic load_i,
  output logic sout_o
);
  localparam int unsigned NPorts = 8;
  localparam int unsigned PortW  = $clog2(NPorts);
  localparam int unsigned InW    = 5 * NPorts * NPorts + 4 * NPorts;
  localparam int unsigned OutW   = NPorts * NPorts + 2 * NPorts * PortW + 6 * NPorts;

  logic [NPorts-1:0][NPorts-1:0] avail, last, last2, last3, pop_oh, bc_mask;
  logic [NPorts-1:0]             credit_ok, credit_bc, bc_avail, bc_last;
  logic [NPorts-1:0]             pop, out_open, sched, xvalid, pop_bc, bc_start;
  logic [NPorts-1:0][PortW-1:0]  pop_port, xsel;
  logic [InW-1:0]                core_in;
  logic [OutW-1:0]               core_out;

  assign {avail, credit_ok, last, last2, last3, credit_bc, bc_avail, bc_last, bc_mask} = core_in;
  assign core_out = {pop, pop_port, pop_oh, pop_bc, bc_start, out_open, sched, xvalid, xsel};

  synth_io_shift #(
    .IN_W (InW),
    .OUT_W(OutW)
  ) u_io (
    .clk_i     (clk_i),
    .sin_i     (sin_i),
    .load_i    (load_i),
    .sout_o    (sout_o),
    .core_in_o (core_in),
    .core_out_i(core_out)
  );

  rcube_spec_alloc #(
    .NPORTS  (NPorts),
    .XBAR_LAT(2)
  ) u_core (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .avail_i    (avail),
    .credit_ok_i(credit_ok),
    .last_i     (last),
    .last2_i    (last2),
    .last3_i    (last3),
    .credit_bc_i(credit_bc),
    .bc_avail_i (bc_avail),
    .bc_last_i  (bc_last),
    .bc_mask_i  (bc_mask),
    .pop_o      (pop),
    .pop_port_o (pop_port),
    .pop_oh_o   (pop_oh),
    .pop_bc_o   (pop_bc),
    .bc_start_o (bc_start),
    .out_open_o (out_open),
    .sched_o    (sched),
    .xvalid_o   (xvalid),
    .xsel_o     (xsel)
  );
endmodule
