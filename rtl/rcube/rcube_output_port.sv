// One router output: wormhole allocation, credit counter and the output register.
//
// An unallocated output lets the round-robin arbiter pick among the inputs whose
// buffer head (always a packet head then) wants it; the winner's head flit goes out
// in the same cycle and, unless it is also the last flit, the output stays locked to
// that input until its last flit passes. Arbitration only runs when a credit is
// available, so a grant is always used and the arbiter pointer moves only on real
// packet starts.
module rcube_output_port #(
  parameter int unsigned NPORTS   = 8,
  // Wide enough for any downstream buffer depth a neighbour may announce.
  parameter int unsigned CREDIT_W = 12,
  localparam int unsigned PortW   = (NPORTS > 1) ? $clog2(NPORTS) : 1
) (
  input  logic                                       clk_i,
  input  logic                                       rst_ni,
  // from the inputs: which buffer heads want this output, and the heads themselves
  input  logic [NPORTS-1:0]                          req_i,
  input  fasthsl_link_pkg::link_flit_t [NPORTS-1:0]  flit_i,
  output logic [NPORTS-1:0]                          gnt_o,
  // link side
  output fasthsl_link_pkg::link_flit_t               out_flit_o,
  input  logic                                       credit_i
);
  import fasthsl_link_pkg::*;

  logic                locked_q, locked_d;
  logic [PortW-1:0]    owner_q, owner_d;
  logic [CREDIT_W-1:0] credit_q, credit_d;
  link_flit_t          out_q, out_d;

  logic can_send;
  assign can_send = (credit_q != '0);

  logic [NPORTS-1:0] arb_req, arb_gnt;
  logic [PortW-1:0]  arb_idx;
  logic              arb_valid;
  assign arb_req = (!locked_q && can_send) ? req_i : '0;

  rcube_rr_arbiter #(
    .N(NPORTS)
  ) u_arb (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .req_i  (arb_req),
    .ack_i  (arb_valid),
    .gnt_o  (arb_gnt),
    .idx_o  (arb_idx),
    .valid_o(arb_valid)
  );

  logic             send;
  logic [PortW-1:0] sel;
  always_comb begin
    send  = 1'b0;
    sel   = owner_q;
    gnt_o = '0;
    if (locked_q) begin
      if (can_send && req_i[owner_q]) begin
        send           = 1'b1;
        gnt_o[owner_q] = 1'b1;
      end
    end else if (arb_valid) begin
      send  = 1'b1;
      sel   = arb_idx;
      gnt_o = arb_gnt;
    end
  end

  always_comb begin
    locked_d = locked_q;
    owner_d  = owner_q;
    out_d    = LINK_FLIT_IDLE;
    if (send) begin
      locked_d    = !flit_i[sel].last;
      owner_d     = sel;
      out_d       = flit_i[sel];
      out_d.valid = 1'b1;
    end
    credit_d = credit_q + CREDIT_W'(credit_i) - CREDIT_W'(send);
  end

  assign out_flit_o = out_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      locked_q <= 1'b0;
      owner_q  <= '0;
      credit_q <= '0;
      out_q    <= LINK_FLIT_IDLE;
    end else begin
      locked_q <= locked_d;
      owner_q  <= owner_d;
      credit_q <= credit_d;
      out_q    <= out_d;
    end
  end

`ifndef SYNTHESIS
  // More credits than the counter holds means the neighbour over-announced its buffer.
  always_ff @(posedge clk_i or negedge rst_ni) begin : a_credit_overflow
    if (rst_ni && credit_i && !send) begin
      assert (credit_q != '1) else $error("rcube_output_port: credit counter overflow");
    end
  end
`endif

endmodule
