// One output's step of the allocators' waiting bound (rcube_islip_alloc, rcube_spec_alloc):
// the head it tracks, how many passes that head has waited through, and whether the
// output pins its pointer on it.
//
// A pass is a cycle in which the output could take a new packet (chance_i: it took one,
// or it was free with a credit) and did not take the head in question. Each allocator
// says what its heads, services and pointer are (and how late it sees them); the rule is
// the same in both, so it lives here once. After FAIR_MATCHES passes over the same head
// the pin is set; what a pin does to the pointers and requests is the allocator's.
module rcube_wait_count #(
  parameter int unsigned NPORTS       = 8,
  parameter int unsigned FAIR_MATCHES = 16,   // > 0: without a bound there is no tracking
  localparam int unsigned CntW = $clog2(FAIR_MATCHES + 1)
) (
  input  logic              chance_i,   // the output could take a new packet
  input  logic [NPORTS-1:0] heads_i,    // inputs with a head for this output
  input  logic [NPORTS-1:0] served_i,   // inputs this output took a packet from
  input  logic [NPORTS-1:0] first_i,    // the first head at or after its pointer (one-hot)
  input  logic [NPORTS-1:0] track_q_i,  // the head tracked (one-hot, or none)
  input  logic [CntW-1:0]   cnt_q_i,
  input  logic              pin_q_i,
  output logic [NPORTS-1:0] track_d_o,
  output logic [CntW-1:0]   cnt_d_o,
  output logic              pin_d_o
);
  logic pass;
  always_comb begin
    pass      = chance_i && first_i != '0 && (first_i & served_i) == '0;
    track_d_o = track_q_i;
    cnt_d_o   = cnt_q_i;
    pin_d_o   = pin_q_i;
    // Tracking a head that still waits: count the passes. Otherwise (none, or the one
    // tracked was served or is gone) a pass starts on the first head in the same cycle: a
    // service moves the pointer past that head, so a pass dropped here would wait a whole
    // round for the next one.
    if (track_q_i != '0 && (track_q_i & served_i) == '0 && (track_q_i & heads_i) != '0) begin
      if (chance_i) begin
        if (32'(cnt_q_i) < FAIR_MATCHES) cnt_d_o = cnt_q_i + 1'b1;
        // no adder on the count; signed, as FAIR_MATCHES 1 compares with 0
        pin_d_o = pin_q_i || int'(cnt_q_i) >= int'(FAIR_MATCHES) - 1;
      end
    end else if (pass) begin
      track_d_o = first_i;
      cnt_d_o   = CntW'(1);
      pin_d_o   = FAIR_MATCHES <= 1;
    end else begin
      track_d_o = '0;
      cnt_d_o   = '0;
      pin_d_o   = 1'b0;
    end
  end
endmodule
