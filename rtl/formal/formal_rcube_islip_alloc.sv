// Formal harness for rcube_islip_alloc (the VOQ router's allocator and wormhole lock).
// BCAST = 0: unicast traffic only (no broadcast queue has a packet); BCAST = 1: every
// input's broadcast queue is free as well (its flag, its front packet's output set, the
// `last` bit of its front flit, and the outputs' credits for a whole broadcast).
//
// Environment as in rcube_router: the `last` bit of the flit a pop of each queue takes is
// shown to the allocator (free), an input popped at an edge shows that flit in the next
// cycle, and the crossbar setting of that cycle (xvalid_o/xsel_o) routes it. Queue
// availability and output credits are free. Checked:
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
  parameter bit          BCAST  = 1'b0   // broadcast queues in use (above)
) (
  input logic                          clk_i,
  input logic                          rst_ni,
  input logic [NPORTS-1:0][NPORTS-1:0] avail_i,
  input logic [NPORTS-1:0]             credit_ok_i,
  input logic [NPORTS-1:0][NPORTS-1:0] last_i,   // `last` of the front flit of each queue
  input logic [NPORTS-1:0]             bc_avail_i,
  input logic [NPORTS-1:0][NPORTS-1:0] bc_mask_i,
  input logic [NPORTS-1:0]             bc_last_i,
  input logic [NPORTS-1:0]             credit_bc_i
);
  localparam int unsigned PortW = (NPORTS > 1) ? $clog2(NPORTS) : 1;

  logic [NPORTS-1:0]            rd_valid_q, rd_last_q, pop, xvalid;
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

  rcube_islip_alloc #(
    .NPORTS(NPORTS),
    .ITERS (ITERS),
    .PIPE  (PIPE)
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

  logic init_q = 1'b1;
  always_ff @(posedge clk_i) init_q <= 1'b0;
  always_comb if (init_q) assume (!rst_ni);

  // ---- harness state ----
  logic [NPORTS-1:0]            conn_q;       // input inside a packet (popped, last not seen)
  logic [NPORTS-1:0][PortW-1:0] port_q;       // its output; also the port of the shown flit
  logic [NPORTS-1:0]            out_open_q;   // output inside a packet
  logic [NPORTS-1:0][PortW-1:0] out_own_q;    // from this input
  logic [NPORTS-1:0]            bconn_q;      // input inside a broadcast packet ...
  logic [NPORTS-1:0][NPORTS-1:0] bset_q;      // ... to these outputs
  logic [NPORTS-1:0]            pkt_bc_q;     // the input's last packet popped is a broadcast
  logic [NPORTS-1:0]            rd_bc_q;      // the shown flit is a broadcast's ...
  logic [NPORTS-1:0][NPORTS-1:0] rd_set_q;    // ... for these outputs

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
      rd_valid_q <= '0;
      rd_last_q  <= '0;
      conn_q     <= '0;
      port_q     <= '0;
      out_open_q <= '0;
      out_own_q  <= '0;
      bconn_q    <= '0;
      bset_q     <= '0;
      pkt_bc_q   <= '0;
      rd_bc_q    <= '0;
      rd_set_q   <= '0;
    end else begin
      rd_valid_q <= pop | pop_bc;
      rd_last_q  <= pop_last;
      rd_bc_q    <= pop_bc;
      rd_set_q   <= pop_set;
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
            n_conn += int'(dut.bc_held_q[i][o]);
          end
          assert (n_conn <= 1);
          // the allocator's own simulation assertion a_out_open: its held outputs' flop
          assert (dut.out_open_q[o] == (n_conn != 0));
        end
        if (out_open_q[o]) begin
          assert (32'(out_own_q[o]) < NPORTS);
          // its packet's connection is open, or was closed by the pop of the last flit
          // that crosses now
          assert (conn_q[out_own_q[o]] || bconn_q[out_own_q[o]] ||
                  (rd_valid_q[out_own_q[o]] && rd_last_q[out_own_q[o]]));
          assert (pkt_bc_q[out_own_q[o]] ? bset_q[out_own_q[o]][o]
                                         : port_q[out_own_q[o]] == PortW'(o));
        end
`endif
        if (xvalid[o]) begin
          // the flit crossing is one popped for this output ...
          assert (32'(xsel[o]) < NPORTS);
          assert (rd_valid_q[xsel[o]] && (rd_bc_q[xsel[o]] ? rd_set_q[xsel[o]][o]
                                                           : port_q[xsel[o]] == PortW'(o)));
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
        assert (dut.in_conn_q[i] == conn_q[i]);
        if (conn_q[i]) assert (dut.in_port_q[i] == port_q[i]);
        if (conn_q[i]) assert (32'(port_q[i]) < NPORTS);
        if (rd_valid_q[i] && !rd_last_q[i]) assert (pkt_bc_q[i] ? bconn_q[i] : conn_q[i]);
        assert (dut.bc_conn_q[i] == bconn_q[i]);
        if (bconn_q[i]) assert (dut.bc_held_q[i] == bset_q[i] && bset_q[i] != '0);
        if (bconn_q[i] || conn_q[i]) assert (pkt_bc_q[i] == bconn_q[i]);
        if (conn_q[i]) assert (dut.bc_held_q[i] == '0);
        if (rd_valid_q[i]) assert (pkt_bc_q[i] == rd_bc_q[i]);
        if (rd_valid_q[i] && rd_bc_q[i]) assert (rd_set_q[i] == bset_q[i]);
        // the allocator's own simulation assertion a_bc_hold
        assert (dut.bc_hold_q[i] == (dut.bc_held_q[i] != '0));
`endif
      end
      cover (xvalid[0] && out_open_q[0] && rd_last_q[xsel[0]] && avail_i[1][0] && pop != '0);
      // a broadcast to two outputs crossing while another input's unicast crosses the third
      if (BCAST) cover (rd_bc_q[0] && rd_set_q[0] == NPORTS'(3) && xvalid[2] && xsel[2] != '0);
    end
  end
endmodule
