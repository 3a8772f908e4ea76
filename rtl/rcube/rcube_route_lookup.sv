// Interval routing table match for one router input.
//
// Purely combinational so the input port can look a head flit up in the cycle it
// arrives and store the result next to the flit (a later VOQ version needs the
// output before the flit is written). The first valid entry whose [lo, hi] interval
// holds the destination decides; an entry naming a port this router lacks is a
// configuration error and drops the packet rather than falling through, so a
// mistyped port never sends traffic somewhere the table did not say.
//
// valid_i says dest_i is a head flit's destination; without it the lookup reports no
// hit. In hardware that is one AND on hit_o; for a cycle-based simulator it means
// the table is only scanned in the rare cycles a packet head arrives, which is most
// of what a router model would otherwise spend per cycle on its inputs.
//
// amask_o is the matching entry's adaptive alternatives (route_ctrl.amask): outputs an
// ADAPTIVE packet may take when port_o is busy. Bits of ports the router lacks and the
// entry's own port are cleared, so a set is never wider than the router.
module rcube_route_lookup #(
  parameter int unsigned NPORTS = 8,
  localparam int unsigned PortW = (NPORTS > 1) ? $clog2(NPORTS) : 1
) (
  input  logic                                                       valid_i,
  input  logic [15:0]                                                dest_i,
  input  logic [fasthsl_pkg::ROUTE_ENTRIES-1:0]                      entry_valid_i,
  input  fasthsl_pkg::route_bounds_t [fasthsl_pkg::ROUTE_ENTRIES-1:0] entry_bounds_i,
  input  logic [fasthsl_pkg::ROUTE_ENTRIES-1:0][2:0]                 entry_port_i,
  input  logic [fasthsl_pkg::ROUTE_ENTRIES-1:0][7:0]                 entry_amask_i,
  output logic                                                       hit_o,
  output logic [PortW-1:0]                                           port_o,
  output logic [NPORTS-1:0]                                          amask_o
);
  import fasthsl_pkg::*;

  // Walk from the last entry down so the lowest matching index is written last.
  logic       any_match;
  logic [2:0] sel_port;
  logic [7:0] sel_amask;
  always_comb begin
    any_match = 1'b0;
    sel_port  = '0;
    sel_amask = '0;
    if (valid_i) begin
      for (int e = ROUTE_ENTRIES - 1; e >= 0; e--) begin
        if (entry_valid_i[e] &&
            (dest_i >= entry_bounds_i[e].lo) && (dest_i <= entry_bounds_i[e].hi)) begin
          any_match = 1'b1;
          sel_port  = entry_port_i[e];
          sel_amask = entry_amask_i[e];
        end
      end
    end
  end

  assign hit_o  = any_match && (32'(sel_port) < NPORTS);
  assign port_o = PortW'(sel_port);

  always_comb begin
    amask_o = '0;
    for (int unsigned o = 0; o < NPORTS; o++) begin
      amask_o[o] = hit_o && sel_amask[o] && (3'(o) != sel_port);
    end
  end

  if (NPORTS < 8) begin : gen_unused_amask
    logic unused_amask_hi;
    assign unused_amask_hi = ^sel_amask[7:NPORTS];
  end

endmodule
