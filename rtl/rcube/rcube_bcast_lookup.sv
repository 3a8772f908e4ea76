// Broadcast table match for one router input: which outputs a broadcast head takes.
//
// A broadcast carries a node range [lo, hi] in its dest field (lo in bits 7:0, hi in
// bits 15:8). The host programs, per input and output, the interval of nodes the
// broadcast tree reaches through that output for packets arriving on this input; the
// packet is copied to every enabled output whose interval overlaps its range. The
// intervals are exact for the trees the host builds, so a subtree with no node in the
// range never sees the packet. The input's own port is never an output (a tree does not
// send a packet back where it came from), whatever the table says.
//
// Combinational and gated by valid_i like rcube_route_lookup: evaluated when a head
// arrives and stored with the packet.
module rcube_bcast_lookup #(
  parameter int unsigned NPORTS = 8,
  parameter int unsigned INPORT = 0
) (
  input  logic                         valid_i,
  input  logic [15:0]                  dest_i,
  input  logic [NPORTS-1:0]            out_en_i,
  input  logic [NPORTS-1:0][7:0]       out_lo_i,
  input  logic [NPORTS-1:0][7:0]       out_hi_i,
  output logic [NPORTS-1:0]            fwd_o
);
  logic [7:0] lo, hi;
  assign lo = dest_i[7:0];
  assign hi = dest_i[15:8];

  always_comb begin
    fwd_o = '0;
    if (valid_i) begin
      for (int unsigned o = 0; o < NPORTS; o++) begin
        fwd_o[o] = out_en_i[o] && (o != INPORT) && (lo <= out_hi_i[o]) && (out_lo_i[o] <= hi);
      end
    end
  end

endmodule
