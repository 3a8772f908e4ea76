// Crossbar allocator in three pipeline stages, for a router clock beyond what
// rcube_islip_alloc can reach (prototype: unicast only, no waiting bound; not yet in
// any router configuration).
//
// rcube_islip_alloc with PIPE grants in one cycle and accepts in the next, and the accept
// cycle also re-checks the grant, pops, and updates the connections and pointers: 13 LUT
// levels, 54.6 MHz on the ECP5-85F with every port registered (docs/SYNTH.md,
// alloc_voq_pipe). Here each cycle holds one round robin and little else:
//   grant  (t):   each output picks among the pairs eligible now whose queue has a flit
//                 and whose output a credit;
//   accept (t+1): each input picks among those grants;
//   commit (t+2): an accepted pair whose input and output are still free, whose queue
//                 still has a flit and whose output a credit pops its head (one AND per
//                 pair, from flops); the others are dropped.
// The grants and accepts are speculative: made from the state as it was, they may name
// an input or an output that an earlier commit has taken since. Eligibility is a flop
// set by the commit stage for the next cycle, from the connections and the queues' flags
// (last_i, last2_i), so the grant is a round robin on (flit and credit and flop).
// Pointers are thermometer masks, so a pick starts with an AND, not a compare. Three
// pointer sets travel down the pipeline with the grants they made, and the commit moves
// its set's pointers past committed pairs only: each set grants again after its own
// commits, as one iSLIP instance does (three interleaved). Compared with
// rcube_islip_alloc, a new connection waits one cycle more (grant to pop: 2 cycles), and
// an output or input handed from one packet to the next idles for a cycle, as the
// grant for the next packet is made when the front flit is the last one
// (tb_rcube_spec_alloc measures both designs side by side).
module rcube_spec_alloc #(
  parameter int unsigned  NPORTS   = 8,
  parameter int unsigned  XBAR_LAT = 1,
  localparam int unsigned PortW    = (NPORTS > 1) ? $clog2(NPORTS) : 1
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  input  logic [NPORTS-1:0][NPORTS-1:0]  avail_i,
  input  logic [NPORTS-1:0]              credit_ok_i,
  input  logic [NPORTS-1:0][NPORTS-1:0]  last_i,
  // the flit after the front one is there and is its packet's last
  input  logic [NPORTS-1:0][NPORTS-1:0]  last2_i,
  output logic [NPORTS-1:0]              pop_o,
  output logic [NPORTS-1:0][PortW-1:0]   pop_port_o,
  output logic [NPORTS-1:0][NPORTS-1:0]  pop_oh_o,
  output logic [NPORTS-1:0]              out_open_o,
  output logic [NPORTS-1:0]              sched_o,
  output logic [NPORTS-1:0]              xvalid_o,
  output logic [NPORTS-1:0][PortW-1:0]   xsel_o
);

  // Pointers as thermometer masks (bit k set: k at or after the pointer), so that a pick
  // ANDs the requests with a flop instead of comparing each index with the pointer.
  function automatic logic [NPORTS-1:0] rr_mask(logic [NPORTS-1:0] req, logic [NPORTS-1:0] m);
    logic [2*NPORTS-1:0] both, below, first;
    both  = {req, req & m};
    below = both << 1;
    for (int unsigned s = 1; s < 2 * NPORTS; s = s * 2) below = below | (below << s);
    first = both & ~below;
    return first[NPORTS-1:0] | first[2*NPORTS-1:NPORTS];
  endfunction

  // the mask of the pointer one past a pick (one-hot): the bits above it
  function automatic logic [NPORTS-1:0] past(logic [NPORTS-1:0] pick);
    logic [NPORTS-1:0] m;
    m = pick << 1;
    for (int unsigned s = 1; s < NPORTS; s = s * 2) m = m | (m << s);
    return m;
  endfunction

  function automatic logic [PortW-1:0] onehot_index(logic [NPORTS-1:0] oh);
    logic [PortW-1:0]  idx;
    logic [NPORTS-1:0] plane;
    for (int unsigned b = 0; b < PortW; b++) begin
      for (int unsigned k = 0; k < NPORTS; k++) plane[k] = 1'((k >> b) & 1);
      idx[b] = (oh & plane) != '0;
    end
    return idx;
  endfunction

  function automatic logic [NPORTS-1:0][NPORTS-1:0] transpose(logic [NPORTS-1:0][NPORTS-1:0] m);
    logic [NPORTS-1:0][NPORTS-1:0] t;
    for (int unsigned a = 0; a < NPORTS; a++) begin
      for (int unsigned b = 0; b < NPORTS; b++) t[b][a] = m[a][b];
    end
    return t;
  endfunction

  // ---- connection state: [input][output] one-hot per input, all flops; its per-input
  // and per-output ORs kept in flops as well, so the commit's AND reads them directly ----
  logic [NPORTS-1:0][NPORTS-1:0] conn_q, conn_d, conn_d_t;
  logic [NPORTS-1:0]             in_conn_q, in_conn_d, out_conn_q, out_conn_d;
  // pointer sets: [0] grants now, [1] accepts now, [2] commits now
  logic [2:0][NPORTS-1:0][NPORTS-1:0] gptr_q, aptr_q;
  logic [NPORTS-1:0][NPORTS-1:0]      gptr_d, aptr_d;
  logic [NPORTS-1:0][NPORTS-1:0]     gnt_q, gnt_d, acc_q, acc_d;   // [input][output]
  // an input with an accept in flight for a packet longer than a flit: it is not eligible
  // in the cycle of that commit, where a grant would meet the connection it opens
  logic [NPORTS-1:0]                 in_acc_d;

  // ---- grant: every output picks among the pairs eligible now (elig_q, a flop set by
  // the commit stage below) whose queue has a flit and whose output a credit ----
  logic [NPORTS-1:0][NPORTS-1:0] elig_q, elig_d, greq, greq_t, gnt_t;
  always_comb begin
    for (int unsigned i = 0; i < NPORTS; i++) greq[i] = avail_i[i] & credit_ok_i & elig_q[i];
    greq_t = transpose(greq);
    for (int unsigned o = 0; o < NPORTS; o++) gnt_t[o] = rr_mask(greq_t[o], gptr_q[0][o]);
    gnt_d = transpose(gnt_t);
  end

  // ---- accept: each input picks among last cycle's grants ----
  always_comb begin
    for (int unsigned i = 0; i < NPORTS; i++) begin
      acc_d[i]    = rr_mask(gnt_q[i], aptr_q[1][i]);
      in_acc_d[i] = (gnt_q[i] & ~last_i[i]) != '0;
    end
  end

  // ---- commit: an accepted pair whose input and output are still free, whose queue has
  // a flit and whose output a credit, pops its head now ----
  logic [NPORTS-1:0][NPORTS-1:0] com, cpop, uni_oh, com_t, src, busy_next, busy_next_t;
  logic [NPORTS-1:0]             in_busy_next, out_busy_next;
  always_comb begin
    for (int unsigned i = 0; i < NPORTS; i++) begin
      com[i]    = in_conn_q[i] ? '0 : (acc_q[i] & avail_i[i] & credit_ok_i & ~out_conn_q);
      cpop[i]   = conn_q[i] & avail_i[i] & credit_ok_i;
      uni_oh[i] = cpop[i] | com[i];
      // a connection stays until its last flit pops; a new one opens unless its head is last
      conn_d[i] = (conn_q[i] & ~(cpop[i] & last_i[i])) | (com[i] & ~last_i[i]);
      in_conn_d[i] = conn_d[i] != '0;
      pop_o[i]      = uni_oh[i] != '0;
      pop_port_o[i] = onehot_index(uni_oh[i]);
      aptr_d[i] = com[i] != '0 ? past(com[i]) : aptr_q[2][i];
    end
    com_t = transpose(com);
    src   = transpose(uni_oh);
    // Eligible in the next cycle: the input and the output are outside a connection then,
    // or in one whose front flit then is its packet's last (it ends then if it pops), and
    // the input has no multi-flit accept in flight. A connection kept is busy then unless
    // its front is last now (not popped: still last; popped: closed), or it pops now with
    // the second flit last; a new one unless its head or the second flit is last. Written
    // from the pops, not from conn_d, whose closing term would come before it.
    for (int unsigned i = 0; i < NPORTS; i++) begin
      busy_next[i] = (conn_q[i] & ~last_i[i] & ~(cpop[i] & last2_i[i])) |
                     (com[i] & ~last_i[i] & ~last2_i[i]);
    end
    busy_next_t = transpose(busy_next);
    for (int unsigned i = 0; i < NPORTS; i++) in_busy_next[i] = busy_next[i] != '0;
    for (int unsigned o = 0; o < NPORTS; o++) out_busy_next[o] = busy_next_t[o] != '0;
    for (int unsigned i = 0; i < NPORTS; i++) begin
      elig_d[i] = (in_busy_next[i] || in_acc_d[i]) ? '0 : ~out_busy_next;
    end
    conn_d_t = transpose(conn_d);
    for (int unsigned o = 0; o < NPORTS; o++) begin
      out_conn_d[o] = conn_d_t[o] != '0;
      gptr_d[o] = com_t[o] != '0 ? past(com_t[o]) : gptr_q[2][o];
    end
  end
  assign pop_oh_o   = uni_oh;
  assign out_open_o = out_conn_q;

  // ---- crossbar setting, XBAR_LAT cycles after the decision ----
  logic [XBAR_LAT-1:0][NPORTS-1:0]            xvalid_q;
  logic [XBAR_LAT-1:0][NPORTS-1:0][PortW-1:0] xsel_q;
  logic [NPORTS-1:0]                          xvalid_d;
  logic [NPORTS-1:0][PortW-1:0]               xsel_d;
  always_comb begin
    for (int unsigned o = 0; o < NPORTS; o++) begin
      xvalid_d[o] = src[o] != '0;
      xsel_d[o]   = xvalid_d[o] ? onehot_index(src[o]) : xsel_q[0][o];
    end
  end
  assign sched_o  = xvalid_d;
  assign xvalid_o = xvalid_q[XBAR_LAT-1];
  assign xsel_o   = xsel_q[XBAR_LAT-1];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      conn_q     <= '0;
      in_conn_q  <= '0;
      out_conn_q <= '0;
      gnt_q      <= '0;
      acc_q      <= '0;
      elig_q     <= '1;
      gptr_q     <= '1;
      aptr_q     <= '1;
      xvalid_q   <= '0;
      xsel_q     <= '0;
    end else begin
      conn_q     <= conn_d;
      in_conn_q  <= in_conn_d;
      out_conn_q <= out_conn_d;
      gnt_q      <= gnt_d;
      acc_q      <= acc_d;
      elig_q     <= elig_d;
      gptr_q[0]  <= gptr_d;
      gptr_q[1]  <= gptr_q[0];
      gptr_q[2]  <= gptr_q[1];
      aptr_q[0]  <= aptr_d;
      aptr_q[1]  <= aptr_q[0];
      aptr_q[2]  <= aptr_q[1];
      xvalid_q[0] <= xvalid_d;
      xsel_q[0]   <= xsel_d;
      for (int unsigned s = 1; s < XBAR_LAT; s++) begin
        xvalid_q[s] <= xvalid_q[s-1];
        xsel_q[s]   <= xsel_q[s-1];
      end
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i or negedge rst_ni) begin : a_one_source
    if (rst_ni) begin
      for (int unsigned o = 0; o < NPORTS; o++) begin
        assert ($onehot0(src[o])) else $error("rcube_spec_alloc: output %0d has sources %b",
                                              o, src[o]);
      end
      for (int unsigned i = 0; i < NPORTS; i++) begin
        assert ($onehot0(uni_oh[i])) else $error("rcube_spec_alloc: input %0d pops %b", i,
                                                 uni_oh[i]);
      end
    end
  end
`endif

endmodule
