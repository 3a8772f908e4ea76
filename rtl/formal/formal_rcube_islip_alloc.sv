// Formal harness for rcube_islip_alloc (the VOQ router's allocator and wormhole lock), and
// with SPEC for rcube_spec_alloc (the three-stage prototype, with NO_STRENGTHEN, as the
// strengthening names rcube_islip_alloc's state; BMC only).
// BCAST = 0: unicast traffic only (no broadcast queue has a packet); BCAST = 1: every
// input's broadcast queue is free as well (its flag, its front packet's output set, the
// `last` bit of its front flit, and the outputs' credits for a whole broadcast).
//
// Environment as in rcube_router: the `last` bit of the flit a pop of each queue takes is
// shown to the allocator (free), an input popped at an edge shows that flit XBAR_LAT
// cycles later (1; 2 behind the buffer's registered pop, rcube_router REG_POP), and the
// crossbar setting of that cycle (xvalid_o/xsel_o) routes it. Queue availability and
// output credits are free. Checked:
// - pops only from an available queue of an output with a credit, at most one pop per
//   output per cycle (one credit spent per flit);
// - an input inside a packet pops only the queue of that packet's output;
// - every popped flit crosses exactly once, to the output it was popped for;
// - no interleaving: once a flit without `last` crosses an output, the next flits on that
//   output come from the same input until one with `last`.
// With BCAST, a broadcast is a packet of an input's broadcast queue: its flits are popped
// for the whole output set it started with (the front set when its head is popped) and
// cross every output of that set, each pop only when all of them have a credit; an input
// sends one packet at a time, unicast or broadcast; an output is held by one packet, a
// broadcast's reservation included (read from the allocator, like its connections).
module formal_rcube_islip_alloc #(
  parameter int unsigned NPORTS = 3,
  parameter int unsigned ITERS  = 1,
  parameter bit          PIPE   = 1'b0,  // grant and accept in consecutive cycles
  parameter bit          BCAST  = 1'b0,  // broadcast queues in use (above)
  parameter int unsigned XBAR_LAT = 1,    // cycles from a pop to its flit's crossing
  parameter int unsigned FAIR   = 2 * NPORTS, // the allocator's FAIR_MATCHES (0: plain iSLIP)
  parameter bit          FAIR_REG = PIPE,   // ... its FAIR_REG (tracking a cycle late)
  parameter bit          GRANT_ALL = 1'b0,  // ... its GRANT_ALL (ITERS > 1)
  // > 0: the waiting bound, checked by BMC under fairness (every output has a credit in
  // every cycle, packets of at most 2 flits, no broadcasts): no queue holds a flit for
  // more than WAIT_BOUND cycles without a pop
  parameter int unsigned WAIT_BOUND = 0,
  parameter bit          SPEC = 1'b0   // rcube_spec_alloc instead (above)
) (
  input logic                          clk_i,
  input logic                          rst_ni,
  input logic [NPORTS-1:0][NPORTS-1:0] avail_i,
  input logic [NPORTS-1:0]             credit_ok_i,
  input logic [NPORTS-1:0][NPORTS-1:0] last_i,   // `last` of the front flit of each queue
  // SPEC: the flit after the front one is its packet's last, or the one after that (hints:
  // free, as the allocator must stay safe whatever they say)
  input logic [NPORTS-1:0][NPORTS-1:0] last2_i,
  input logic [NPORTS-1:0][NPORTS-1:0] last3_i,
  input logic [NPORTS-1:0]             bc_avail_i,
  input logic [NPORTS-1:0][NPORTS-1:0] bc_mask_i,
  input logic [NPORTS-1:0]             bc_last_i,
  input logic [NPORTS-1:0]             credit_bc_i
);
  localparam int unsigned PortW = (NPORTS > 1) ? $clog2(NPORTS) : 1;

  logic [NPORTS-1:0]            pop, xvalid;
  logic [NPORTS-1:0][PortW-1:0] pop_port, xsel;
  logic [NPORTS-1:0][NPORTS-1:0] pop_oh;   // [input][output]
  logic [NPORTS-1:0]            pop_bc, bc_start;
  logic [NPORTS-1:0]            unused_sched, unused_out_open;
  // Without BCAST the broadcast queues stay empty (tb_rcube_router_bcast covers them then).
  logic [NPORTS-1:0]             bc_avail, bc_last, credit_bc;
  logic [NPORTS-1:0][NPORTS-1:0] bc_mask;
  assign bc_avail  = BCAST ? bc_avail_i : '0;
  assign bc_mask   = BCAST ? bc_mask_i : '0;
  assign bc_last   = BCAST ? bc_last_i : '0;
  assign credit_bc = BCAST ? credit_bc_i : '0;

  if (SPEC) begin : g_alloc
    rcube_spec_alloc #(
      .NPORTS      (NPORTS),
      .XBAR_LAT    (XBAR_LAT),
      .FAIR_MATCHES(FAIR)
    ) dut (
      .clk_i      (clk_i),
      .rst_ni     (rst_ni),
      .avail_i    (avail_i),
      .credit_ok_i(credit_ok_i),
      .last_i     (last_i),
      .last2_i    (last2_i),
      .last3_i    (last3_i),
      .credit_bc_i(credit_bc),
      .bc_avail_i (bc_avail),
      .bc_last_i  (bc_last),
      .bc_mask_i  (bc_mask),
      .pop_o      (pop),
      .pop_port_o (pop_port),
      .pop_oh_o   (pop_oh),
      .pop_bc_o   (pop_bc),
      .bc_start_o (bc_start),
      .out_open_o (unused_out_open),
      .sched_o    (unused_sched),
      .xvalid_o   (xvalid),
      .xsel_o     (xsel)
    );
  end else begin : g_alloc
    rcube_islip_alloc #(
      .NPORTS(NPORTS),
      .ITERS (ITERS),
      .PIPE  (PIPE),
      .XBAR_LAT(XBAR_LAT),
      .FAIR_MATCHES(FAIR),
      .FAIR_REG(FAIR_REG),
      .GRANT_ALL(GRANT_ALL)
    ) dut (
      .clk_i      (clk_i),
      .rst_ni     (rst_ni),
      .avail_i    (avail_i),
      .credit_ok_i(credit_ok_i),
      .last_i     (last_i),
      .bc_last_i  (bc_last),
      .credit_bc_i(credit_bc),
      .bc_avail_i (bc_avail),
      .bc_mask_i  (bc_mask),
      .pop_o      (pop),
      .pop_port_o (pop_port),
      .pop_oh_o   (pop_oh),
      .pop_bc_o   (pop_bc),
      .bc_start_o (bc_start),
      .out_open_o (unused_out_open),
      .sched_o    (unused_sched),
      .xvalid_o   (xvalid),
      .xsel_o     (xsel)
    );
  end

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  always_comb if (init_q) assume (!rst_ni);

  // ---- harness state ----
  logic [NPORTS-1:0]            conn_q;       // input inside a packet (popped, last not seen)
  logic [NPORTS-1:0][PortW-1:0] port_q;       // its output (or its last packet's)
  logic [NPORTS-1:0]            out_open_q;   // output inside a packet
  logic [NPORTS-1:0][PortW-1:0] out_own_q;    // from this input
  logic [NPORTS-1:0]            bconn_q;      // input inside a broadcast packet ...
  logic [NPORTS-1:0][NPORTS-1:0] bset_q;      // ... to these outputs
  logic [NPORTS-1:0]            pkt_bc_q;     // the input's last packet popped is a broadcast
  // The flits popped and not crossed yet, by age: stage XBAR_LAT-1 is the one shown now,
  // stage 0 the one popped at the last edge. Per input: popped, its `last`, a broadcast's
  // (and for which outputs), or a unicast's (for which output).
  logic [XBAR_LAT-1:0][NPORTS-1:0]             sh_valid_q, sh_last_q, sh_bc_q;
  logic [XBAR_LAT-1:0][NPORTS-1:0][NPORTS-1:0] sh_set_q;
  logic [XBAR_LAT-1:0][NPORTS-1:0][PortW-1:0]  sh_port_q;
  logic [NPORTS-1:0]             rd_valid_q, rd_last_q, rd_bc_q;   // the flit shown now
  logic [NPORTS-1:0][NPORTS-1:0] rd_set_q;
  logic [NPORTS-1:0][PortW-1:0]  rd_port_q;
  assign rd_valid_q = sh_valid_q[XBAR_LAT-1];
  assign rd_last_q  = sh_last_q[XBAR_LAT-1];
  assign rd_bc_q    = sh_bc_q[XBAR_LAT-1];
  assign rd_set_q   = sh_set_q[XBAR_LAT-1];
  assign rd_port_q  = sh_port_q[XBAR_LAT-1];
  // Per stage and input: a flit popped before this one (an older stage) ended its packet,
  // or one popped after it (a younger stage) did; and whether any flit still to cross did.
  logic [XBAR_LAT-1:0][NPORTS-1:0] end_older, end_younger, young_valid;
  logic [NPORTS-1:0]               end_any;
  always_comb begin
    end_any = '0;
    for (int unsigned s = 0; s < XBAR_LAT; s++) begin
      end_older[s]   = '0;
      end_younger[s] = '0;
      young_valid[s] = '0;
      for (int unsigned t = 0; t < XBAR_LAT; t++) begin
        if (t > s) end_older[s] |= sh_valid_q[t] & sh_last_q[t];
        if (t < s) end_younger[s] |= sh_valid_q[t] & sh_last_q[t];
        if (t < s) young_valid[s] |= sh_valid_q[t];
      end
      end_any |= sh_valid_q[s] & sh_last_q[s];
    end
  end

  // `last` of each input's popped flit, from the queue it was popped from; the outputs a
  // broadcast pop is for (a head: the front set it starts with)
  logic [NPORTS-1:0]             pop_last;
  logic [NPORTS-1:0][NPORTS-1:0] pop_set;
  always_comb begin
    for (int unsigned i = 0; i < NPORTS; i++) begin
      pop_last[i] = pop_bc[i] ? bc_last[i]
                              : pop[i] && 32'(pop_port[i]) < NPORTS && last_i[i][pop_port[i]];
      pop_set[i]  = !pop_bc[i] ? '0 : bc_start[i] ? bc_mask[i] : bset_q[i];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sh_valid_q <= '0;
      sh_last_q  <= '0;
      sh_bc_q    <= '0;
      sh_set_q   <= '0;
      sh_port_q  <= '0;
      conn_q     <= '0;
      port_q     <= '0;
      out_open_q <= '0;
      out_own_q  <= '0;
      bconn_q    <= '0;
      bset_q     <= '0;
      pkt_bc_q   <= '0;
    end else begin
      sh_valid_q[0] <= pop | pop_bc;
      sh_last_q[0]  <= pop_last;
      sh_bc_q[0]    <= pop_bc;
      sh_set_q[0]   <= pop_set;
      sh_port_q[0]  <= pop_port;
      for (int unsigned s = 1; s < XBAR_LAT; s++) begin
        sh_valid_q[s] <= sh_valid_q[s-1];
        sh_last_q[s]  <= sh_last_q[s-1];
        sh_bc_q[s]    <= sh_bc_q[s-1];
        sh_set_q[s]   <= sh_set_q[s-1];
        sh_port_q[s]  <= sh_port_q[s-1];
      end
      for (int unsigned i = 0; i < NPORTS; i++) begin
        // a connection ends with the pop of its last flit
        if (pop[i]) conn_q[i] <= !pop_last[i];
        if (pop[i]) port_q[i] <= pop_port[i];
        if (pop_bc[i]) bconn_q[i] <= !pop_last[i];
        if (bc_start[i]) bset_q[i] <= bc_mask[i];
        if (pop[i] || pop_bc[i]) pkt_bc_q[i] <= pop_bc[i];
      end
      for (int unsigned o = 0; o < NPORTS; o++) begin
        if (xvalid[o]) begin
          out_open_q[o] <= !rd_last_q[xsel[o]];
          out_own_q[o]  <= xsel[o];
        end
      end
    end
  end

  always_comb begin
    if (!init_q && rst_ni) begin
      for (int unsigned o = 0; o < NPORTS; o++) begin
        int n_pop;
        n_pop = 0;
        for (int unsigned i = 0; i < NPORTS; i++) begin
          n_pop += int'(pop[i] && pop_port[i] == PortW'(o));
          n_pop += int'(pop_set[i][o]);
        end
        // one flit per output per cycle, for the one credit it has
        assert (n_pop <= 1);
`ifndef NO_STRENGTHEN
        begin
          int n_conn;
          n_conn = 0;
          for (int unsigned i = 0; i < NPORTS; i++) begin
            n_conn += int'(conn_q[i] && port_q[i] == PortW'(o));
            // a broadcast's outputs, started or only reserved
            n_conn += int'(g_alloc.dut.bc_held_q[i][o]);
          end
          assert (n_conn <= 1);
          // the allocator's own simulation assertion a_out_open: its held outputs' flop
          assert (g_alloc.dut.out_open_q[o] == (n_conn != 0));
        end
        if (out_open_q[o]) begin
          assert (32'(out_own_q[o]) < NPORTS);
          // its packet's connection is open, or was closed by the pop of a last flit that
          // has not crossed yet; the owner's flits up to that one are for this output
          if (!end_any[out_own_q[o]]) begin
            assert (conn_q[out_own_q[o]] || bconn_q[out_own_q[o]]);
            assert (pkt_bc_q[out_own_q[o]] ? bset_q[out_own_q[o]][o]
                                           : port_q[out_own_q[o]] == PortW'(o));
          end
          for (int unsigned s = 0; s < XBAR_LAT; s++) begin
            if (sh_valid_q[s][out_own_q[o]] && !end_older[s][out_own_q[o]]) begin
              assert (sh_bc_q[s][out_own_q[o]] ? sh_set_q[s][out_own_q[o]][o]
                                               : sh_port_q[s][out_own_q[o]] == PortW'(o));
            end
          end
        end
`endif
        if (xvalid[o]) begin
          // the flit crossing is one popped for this output ...
          assert (32'(xsel[o]) < NPORTS);
          assert (rd_valid_q[xsel[o]] && (rd_bc_q[xsel[o]] ? rd_set_q[xsel[o]][o]
                                                           : rd_port_q[xsel[o]] == PortW'(o)));
          // ... and no other packet's
          if (out_open_q[o]) assert (xsel[o] == out_own_q[o]);
        end
      end
      for (int unsigned i = 0; i < NPORTS; i++) begin
        int n_cross, n_set;
        n_cross = 0;
        n_set   = 0;
        for (int unsigned o = 0; o < NPORTS; o++) begin
          n_cross += int'(xvalid[o] && xsel[o] == PortW'(i));
          n_set   += int'(rd_set_q[i][o]);
        end
        // a shown flit crosses exactly once to each output it was popped for (a
        // broadcast's: its whole set); nothing else does
        assert (n_cross == (!rd_valid_q[i] ? 0 : rd_bc_q[i] ? n_set : 1));
        // the one-hot pops are the pops
        assert (pop_oh[i] == (pop[i] ? NPORTS'(1) << pop_port[i] : '0));
        if (pop[i]) begin
          assert (32'(pop_port[i]) < NPORTS);
          assert (avail_i[i][pop_port[i]] && credit_ok_i[pop_port[i]]);
          if (conn_q[i]) assert (pop_port[i] == port_q[i]);
          assert (!pop_bc[i] && !bconn_q[i]);
        end
        if (pop_bc[i]) begin
          // from a queue with a flit, to outputs that all have a credit; a head only
          // outside a packet, a body only inside its broadcast; never an empty set
          assert (bc_avail[i]);
          assert ((pop_set[i] & ~credit_ok_i) == '0);
          assert (pop_set[i] != '0);
          assert (!conn_q[i]);
          assert (bc_start[i] == !bconn_q[i]);
        end
        assert (!bc_start[i] || pop_bc[i]);
`ifndef NO_STRENGTHEN
        // induction strengthening: the allocator's connection state is the harness's
        assert (g_alloc.dut.in_conn_q[i] == conn_q[i]);
        if (conn_q[i]) assert (g_alloc.dut.in_port_q[i] == port_q[i]);
        if (conn_q[i]) assert (32'(port_q[i]) < NPORTS);
        assert (g_alloc.dut.bc_conn_q[i] == bconn_q[i]);
        if (bconn_q[i]) assert (g_alloc.dut.bc_held_q[i] == bset_q[i] && bset_q[i] != '0);
        if (bconn_q[i] || conn_q[i]) assert (pkt_bc_q[i] == bconn_q[i]);
        if (conn_q[i]) assert (g_alloc.dut.bc_held_q[i] == '0);
        // the flits still to cross: one inside its packet (neither it nor a later one
        // ended it) has its connection open; the latest one is of the last packet popped;
        // a flit not ending its packet is followed by one of the same packet
        for (int unsigned s = 0; s < XBAR_LAT; s++) begin
          if (sh_valid_q[s][i] && !sh_last_q[s][i] && !end_younger[s][i]) begin
            assert (sh_bc_q[s][i] ? bconn_q[i] : conn_q[i]);
          end
          if (sh_valid_q[s][i] && !young_valid[s][i]) begin
            assert (pkt_bc_q[i] == sh_bc_q[s][i]);
            if (sh_bc_q[s][i]) assert (sh_set_q[s][i] == bset_q[i]);
            else               assert (sh_port_q[s][i] == port_q[i]);
          end
          if (s > 0 && sh_valid_q[s][i] && !sh_last_q[s][i] && sh_valid_q[s-1][i]) begin
            assert (sh_bc_q[s-1][i] == sh_bc_q[s][i]);
            if (sh_bc_q[s][i]) assert (sh_set_q[s-1][i] == sh_set_q[s][i]);
            else               assert (sh_port_q[s-1][i] == sh_port_q[s][i]);
          end
        end
        // the allocator's own simulation assertion a_bc_hold
        assert (g_alloc.dut.bc_hold_q[i] == (g_alloc.dut.bc_held_q[i] != '0));
`endif
      end
      cover (xvalid[0] && out_open_q[0] && rd_last_q[xsel[0]] && avail_i[1][0] && pop != '0);
      // a broadcast to two outputs crossing while another input's unicast crosses the third
      if (BCAST) cover (rd_bc_q[0] && rd_set_q[0] == NPORTS'(3) && xvalid[2] && xsel[2] != '0);
    end
  end
  // ---- waiting bound (WAIT_BOUND > 0) ----
  if (WAIT_BOUND > 0) begin : gen_wait
    localparam int unsigned WaitW = $clog2(WAIT_BOUND + 2);
    logic [NPORTS-1:0][NPORTS-1:0] mid_q;   // the queue's front flit is inside a packet
    logic [NPORTS-1:0][NPORTS-1:0] held_q;  // the queue had a flit it did not pop
    logic [NPORTS-1:0][NPORTS-1:0][WaitW-1:0] wait_q;   // cycles with a flit, no pop
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        mid_q  <= '0;
        held_q <= '0;
        wait_q <= '0;
      end else begin
        for (int unsigned i = 0; i < NPORTS; i++) begin
          for (int unsigned o = 0; o < NPORTS; o++) begin
            if (pop_oh[i][o]) mid_q[i][o] <= !last_i[i][o];
            held_q[i][o] <= avail_i[i][o] && !pop_oh[i][o];
            if (!avail_i[i][o] || pop_oh[i][o]) wait_q[i][o] <= '0;
            else if (32'(wait_q[i][o]) <= WAIT_BOUND) wait_q[i][o] <= wait_q[i][o] + 1'b1;
          end
        end
      end
    end
    always_comb begin
      if (!init_q && rst_ni) begin
        // fairness: credits always there, packets of one or two flits whose second flit is
        // there once the head has left (a packet stalled upstream holds its output for as
        // long as it likes); and a queue keeps its flit until it is popped (as a VOQ does;
        // free, the solver could withdraw the head an output tracks and reset its count)
        assume (credit_ok_i == '1);
        assume ((held_q & ~avail_i) == '0);
        assume ((mid_q & ~avail_i) == '0);
        for (int unsigned i = 0; i < NPORTS; i++) begin
          for (int unsigned o = 0; o < NPORTS; o++) begin
            if (mid_q[i][o]) assume (last_i[i][o]);
            assert (32'(wait_q[i][o]) <= WAIT_BOUND);
          end
        end
      end
    end
  end

  // behind a two-cycle crossbar: a packet's last flit about to cross while the same input's
  // next packet, to another output, is already popped (the case the staged checks are for)
  if (XBAR_LAT > 1) begin : gen_cover_lat
    always_comb begin
      if (!init_q && rst_ni) begin
        cover (sh_valid_q[1][0] && sh_last_q[1][0] && sh_valid_q[0][0] && !sh_bc_q[1][0] &&
               !sh_bc_q[0][0] && sh_port_q[1][0] != sh_port_q[0][0]);
      end
    end
  end
endmodule
