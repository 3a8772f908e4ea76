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
// route_port_o is the output the packet takes: port_o, unless the head asks for adaptive
// routing (adaptive_i), port_o is to be avoided (out_avoid_i: busy, or packets queued for
// it here) and an alternative is fit to take it (out_ok_i); then the lowest such
// alternative. The alternatives are the matching entry's route_ctrl.amask, without the
// entry's own port and the ports the router lacks. It is chosen for every entry in
// parallel with the bound compares, from the table and the outputs' state, and the first
// match picks it like the port. Chosen
// after the match (mask, then a pick over the alternatives), it was the deepest part of
// the arrival stage, the pipelined router's deepest estimate (14.9 LUT4 levels, session 43).
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
  input  logic                                                       adaptive_i,
  input  logic [NPORTS-1:0]                                          out_avoid_i,
  input  logic [NPORTS-1:0]                                          out_ok_i,
  output logic                                                       hit_o,
  output logic [PortW-1:0]                                           port_o,
  output logic [PortW-1:0]                                           route_port_o
);
  import fasthsl_pkg::*;

  // The output a packet matching an entry with this port and alternatives takes (above).
  // A port the router lacks stays (the packet is dropped). The lowest alternative is
  // picked by a tree of pairwise choices, like the entries below (a first-match loop is
  // a chain of NPORTS choices). It is lowest_set's function (rtl/common), written here
  // rather than instantiated per entry so that it runs inside the head-only evaluation:
  // eight instances per input would be evaluated by the simulator every cycle.
  function automatic logic [2:0] adaptive_port(logic [2:0] port, logic [7:0] amask,
                                                logic adaptive, logic [NPORTS-1:0] avoid,
                                                logic [NPORTS-1:0] ok);
    logic [7:0]      alt;
    logic [7:0][2:0] idx;
    alt = '0;
    for (int unsigned a = 0; a < 8; a++) idx[a] = 3'(a);
    if (adaptive && 32'(port) < NPORTS && avoid[PortW'(port)]) begin
      for (int unsigned a = 0; a < NPORTS; a++) alt[a] = amask[a] && ok[a] && 3'(a) != port;
    end
    for (int unsigned n = 4; n >= 1; n = n / 2) begin
      for (int unsigned j = 0; j < n; j++) begin
        idx[j] = alt[2*j] ? idx[2*j] : idx[2*j+1];
        alt[j] = alt[2*j] || alt[2*j+1];
      end
    end
    return alt[0] ? idx[0] : port;
  endfunction

  // The first matching entry, picked by a tree of pairwise choices (the lower entry wins
  // where both match), a choice per level: walked as a chain from the last entry down,
  // it was a mux per entry on the arrival's path from a head to its queue, the pipelined
  // router's deepest estimate (session 34). A leaf that does not match carries zeros, so
  // a miss reads port 0, as the chain gave.
  localparam int unsigned Levels = (ROUTE_ENTRIES > 1) ? $clog2(ROUTE_ENTRIES) : 1;
  localparam int unsigned Leaves = 1 << Levels;
  logic       any_match;
  logic [2:0] sel_port, sel_aport;
  always_comb begin
    logic [Leaves-1:0]      m;
    logic [Leaves-1:0][2:0] m_port, m_aport;
    m         = '0;
    m_port    = '0;
    m_aport   = '0;
    any_match = 1'b0;
    sel_port  = '0;
    sel_aport = '0;
    // Only a head's lookup evaluates the table (the simulator's cycles, above).
    if (valid_i) begin
      for (int unsigned e = 0; e < Leaves; e++) begin
        if (e < ROUTE_ENTRIES) begin   // the leaves past the table keep their zeros
          m[e]       = entry_valid_i[e] &&
                       (dest_i >= entry_bounds_i[e].lo) && (dest_i <= entry_bounds_i[e].hi);
          m_port[e]  = m[e] ? entry_port_i[e]  : '0;
          m_aport[e] = m[e] ? adaptive_port(entry_port_i[e], entry_amask_i[e], adaptive_i,
                                              out_avoid_i, out_ok_i) : '0;
        end
      end
      // level by level, pair k of the level below into slot k (read before it is written)
      for (int unsigned w = Leaves / 2; w >= 1; w = w / 2) begin
        for (int unsigned k = 0; k < w; k++) begin
          m_port[k]  = m[2*k] ? m_port[2*k]  : m_port[2*k+1];
          m_aport[k] = m[2*k] ? m_aport[2*k] : m_aport[2*k+1];
          m[k]       = m[2*k] || m[2*k+1];
        end
      end
      any_match = m[0];
      sel_port  = m_port[0];
      sel_aport = m_aport[0];
    end
  end

  assign hit_o        = any_match && (32'(sel_port) < NPORTS);
  assign port_o       = PortW'(sel_port);
  assign route_port_o = PortW'(sel_aport);

  if (PortW < 3) begin : gen_unused_aport
    logic unused_aport_hi;   // an alternative is below NPORTS: only a lacking port sets these
    assign unused_aport_hi = ^sel_aport[2:PortW];
  end

endmodule
