// One router input of the VOQ organisation: route lookup, virtual output queues in a
// shared buffer (rcube_voq_buffer), credit return, drop of unroutable packets.
//
// As in rcube_input_port the route is looked up when the head arrives and kept for
// the rest of the packet, so a table write mid-packet cannot split it. Here the route
// picks the queue the flit is written to, so flits for different outputs never wait
// behind each other. Unroutable packets are not stored at all: their flits are
// counted and their credits handed back in cycles without a pop, which keeps credit
// return one pulse per cycle and leaves the whole buffer to routable traffic.
//
// Broadcasts (ptype BCAST) take the output set of rcube_bcast_lookup and go to one
// extra queue (index NPORTS) of the shared buffer. Their output sets wait in a small
// FIFO next to it, one entry per broadcast in the queue, so the allocator sees the set
// of the queue's front packet (bc_mask_o); the arriving head's set bypasses the FIFO
// like its flit bypasses the buffer. An empty set (a range with no node behind this
// router's tree ports) drops the packet like an unroutable unicast.
//
// Stall timeout: a packet whose next flit has not come for tmo_cycles_i cycles while
// the buffer had room (so the sender held a credit and did not use it) lost its end,
// e.g. on a faulty link, and would hold its output (wormhole) until this input sends
// again. Once its queue has drained, it is ended with an EEP flit offered to the
// buffer without a slot (inj_i): that flit is popped through the connection like any
// last flit, which closes it, returns no credit and is counted (tmo_o). A flit that
// arrives after all starts a new packet (its receiver drops it as malformed).
// A dropped (unroutable) packet is just ended. With REG_AVAIL and REG_POP the offer does
// not wait for the link's flit register (the arriving flit would start the allocator's
// path): a flit that arrives in the cycle the offer is taken is the cut packet's rest,
// and it is dropped with the rest of that packet, like an unroutable one.
//
// Adaptive packets (header flag DESC_FLAG_ADAPTIVE, table entry with a non-empty amask)
// pick their output when the head arrives, as RCUBE did: the entry's port unless that
// output is busy (held by another packet or out of credits) or this input already has
// packets queued for it; then the first alternative that is free, has room downstream
// (out_calm_i: credits for BCAST_PKT_FLITS flits) and has no queue here, else still
// the port. The packet then goes to that output's queue like any other, so it never
// waits behind packets for other outputs, and its body follows it there.
//
// REG_AVAIL = 1 puts a register stage between the arrival logic (route and broadcast
// lookup, adaptive choice, drop decision, all in the cycle a flit arrives) and the
// buffer: the flit is written, and offered to the allocator, the cycle after, from
// flops. The lookups then end in that register instead of running on through the
// queue state and the allocator (one more cycle per hop). With REG_AVAIL = 0 the stage
// is a wire.
//
// REG_POP = 1 carries out the allocator's pops a cycle after they are decided, from a
// register in the buffer (rcube_voq_buffer REG_POP), so the allocator's cycle ends there
// instead of running on through the buffer's queue and free-list state; the buffer shows
// the allocator its queues as the pending pop leaves them. Credits go back when the pop
// is carried out (the slot is free then); the broadcast output sets and the stall
// timeout act on the decision, which already tells which packet is started or ended.
module rcube_voq_input #(
  parameter int unsigned NPORTS    = 8,
  parameter int unsigned BUF_DEPTH = 16,
  parameter int unsigned INPORT    = 0,   // this input's port number
  parameter bit          REG_AVAIL = 1'b0,   // register stage before the buffer (above)
  parameter bit          REG_POP   = 1'b0,   // pops carried out a cycle after the decision
  parameter bit          LOOKAHEAD = 1'b0,   // last2_o, last3_o (rcube_voq_buffer), else '0
  localparam int unsigned PortW    = (NPORTS > 1) ? $clog2(NPORTS) : 1,
  localparam int unsigned QW       = $clog2(NPORTS + 1),
  localparam int unsigned CntW     = $clog2(BUF_DEPTH + 1)
) (
  input  logic                                                       clk_i,
  input  logic                                                       rst_ni,
  // link side
  input  fasthsl_link_pkg::link_flit_t                               in_flit_i,
  output logic                                                       in_credit_o,
  // this input's routing table
  input  logic [fasthsl_pkg::ROUTE_ENTRIES-1:0]                      entry_valid_i,
  input  fasthsl_pkg::route_bounds_t [fasthsl_pkg::ROUTE_ENTRIES-1:0] entry_bounds_i,
  input  logic [fasthsl_pkg::ROUTE_ENTRIES-1:0][2:0]                 entry_port_i,
  input  logic [fasthsl_pkg::ROUTE_ENTRIES-1:0][7:0]                 entry_amask_i,
  // this input's broadcast table
  input  logic [NPORTS-1:0]                                          bc_en_i,
  input  logic [NPORTS-1:0][7:0]                                     bc_lo_i,
  input  logic [NPORTS-1:0][7:0]                                     bc_hi_i,
  // towards the allocator: queue o may be popped this cycle
  output logic [NPORTS-1:0]                                          avail_o,
  output logic [NPORTS-1:0]                                          last_o,  // a pop of queue o takes a last flit
  output logic [NPORTS-1:0]                                          last2_o, // ... and the flit after it is here and last
  output logic [NPORTS-1:0]                                          last3_o, // ... or the one after that
  input  logic                                                       pop_i,
  input  logic [PortW-1:0]                                           pop_port_i,
  input  logic [NPORTS-1:0]                                          pop_oh_i, // the same, one-hot
  // broadcast queue: has a flit, output set of its front packet; pop_bc_i pops it
  // (instead of pop_port_i), bc_start_i says that pop is a broadcast's head
  output logic                                                       bc_avail_o,
  output logic                                                       bc_last_o,
  output logic [NPORTS-1:0]                                          bc_mask_o,
  input  logic                                                       pop_bc_i,
  input  logic                                                       bc_start_i,
  // output state for the adaptive choice: busy (held by a packet, or no credit), calm
  // (free, with room for BCAST_PKT_FLITS flits downstream)
  input  logic [NPORTS-1:0]                                          out_busy_i,
  input  logic [NPORTS-1:0]                                          out_calm_i,
  // the flit popped at the last edge (REG_POP: decided two edges ago), to the crossbar
  output fasthsl_link_pkg::link_flit_t                               rd_flit_o,
  // stall timeout in cycles (RT_TMO_CYCLES), 0: off
  input  logic [15:0]                                                tmo_cycles_i,
  // event pulses for the counters
  output logic                                                       drop_o,
  output logic                                                       eep_o,
  output logic                                                       tmo_o
);
  import fasthsl_link_pkg::*;

  // ---- write side: route the head flit, remember the route for the body ----
  logic             in_pkt_q, in_pkt_d;      // a packet's head has passed, its last not yet
  logic [QW-1:0]    pkt_port_q, pkt_port_d;  // queue: output, or NPORTS for a broadcast
  logic             pkt_drop_q, pkt_drop_d;

  logic lookup_hit;
  logic is_head, is_bcast, is_adapt;
  logic [NPORTS:0][CntW-1:0] count;   // per queue in the buffer, the broadcast queue last
  logic [NPORTS:0]           empty_next;
  assign is_head  = in_flit_i.valid && !in_pkt_q;
  assign is_bcast = in_flit_i.data[35:32] == fasthsl_pkg::PTYPE_BCAST;
  // Header word 0 carries the descriptor's low flag bits at 47:40.
  assign is_adapt = in_flit_i.data[40 + fasthsl_pkg::DESC_FLAG_ADAPTIVE_BIT];

  logic [NPORTS-1:0] bc_fwd;
  rcube_bcast_lookup #(
    .NPORTS(NPORTS),
    .INPORT(INPORT)
  ) u_bc_lookup (
    .valid_i (is_head && is_bcast),
    .dest_i  (in_flit_i.data[15:0]),
    .out_en_i(bc_en_i),
    .out_lo_i(bc_lo_i),
    .out_hi_i(bc_hi_i),
    .fwd_o   (bc_fwd)
  );

  // The adaptive choice is the lookup's (route_port): it is made per table entry beside
  // the bound compares. queued[o]: this input has a flit for output o in its buffer or in
  // the stage register.
  logic [NPORTS-1:0] queued, staged, out_avoid, out_ok;
  logic [PortW-1:0]  route_port, unused_lookup_port;
  always_comb begin
    for (int unsigned o = 0; o < NPORTS; o++) begin
      queued[o]    = count[o] != '0 || staged[o];
      out_avoid[o] = out_busy_i[o] || queued[o];
      out_ok[o]    = out_calm_i[o] && !queued[o];
    end
  end
  rcube_route_lookup #(
    .NPORTS(NPORTS)
  ) u_lookup (
    .valid_i       (is_head && !is_bcast),
    .dest_i        (in_flit_i.data[15:0]),
    .entry_valid_i (entry_valid_i),
    .entry_bounds_i(entry_bounds_i),
    .entry_port_i  (entry_port_i),
    .entry_amask_i (entry_amask_i),
    .adaptive_i    (is_adapt),
    .out_avoid_i   (out_avoid),
    .out_ok_i      (out_ok),
    .hit_o         (lookup_hit),
    .port_o        (unused_lookup_port),
    .route_port_o  (route_port)
  );

  // ---- stall timeout ----
  logic [15:0] idle_q, idle_d;         // cycles without a flit of the open packet
  logic        idle_ge_q, idle_ge_d;   // idle_q >= tmo_cycles_i != 0
  logic        expired, inj, inj_taken, has_free;
  logic        cut_rest, cut_q;        // a flit that came with the EEP taken (below)
  // Separate statements: inj feeds avail_o, inj_taken depends on this cycle's pop.
  // The 16-bit compare is registered (made on idle_d): it is on the way to avail_o
  // through inj, in the allocator's cycle. It is made for the two values idle_d can take
  // besides zero (idle_q held or counted up), from flops, and the flit's arrival and the
  // free slot only select: compared after idle_d's select and increment, it was 10.9
  // estimated LUT4 levels (session 43). An idle_d of zero is below any timeout.
  logic idle_inc, idle_ge_hold, idle_ge_inc;
  assign idle_inc     = has_free && idle_q != '1;
  assign idle_ge_hold = idle_q >= tmo_cycles_i;
  assign idle_ge_inc  = {1'b0, idle_q} + 17'd1 >= {1'b0, tmo_cycles_i};
  assign idle_ge_d    = tmo_cycles_i != '0 && in_pkt_q && !in_flit_i.valid &&
                        (idle_inc ? idle_ge_inc : idle_ge_hold);
  assign expired   = in_pkt_q && !in_flit_i.valid && idle_ge_q;
  // With REG_POP the rest of the offer is decided a cycle ahead too, from the buffer's
  // next state (empty_next): the queue's emptiness is a select of counts. (A head
  // arriving resets idle_d, so pkt_port_q is the packet's queue whenever inj_ready_q is
  // set.) Whether the packet is still open is the flop's (in_pkt_q), not in_pkt_d: that
  // one is cleared when the offer is taken, which depends on this cycle's pop. Not
  // without REG_POP: empty_next then depends on this cycle's pop, which would put the
  // allocator's whole cycle in front of the register, a longer path than the one it
  // takes out.
  // With REG_AVAIL too, a flit arriving now does not withdraw the offer (see the top):
  // it is written a cycle later, so the offer and the write never meet in the buffer.
  if (REG_POP) begin : gen_inj_ahead
    logic inj_ready_q;   // inj but for this cycle's flit and the packet being open
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) inj_ready_q <= 1'b0;
      // idle_ge_d needs a cycle without a flit, so pkt_drop_d is pkt_drop_q or a cut's
      // (no head to look up): the lookup stays off this flop's way.
      else inj_ready_q <= idle_ge_d && !pkt_drop_q && !cut_q && empty_next[pkt_port_q];
    end
    assign inj = inj_ready_q && in_pkt_q && (REG_AVAIL || !in_flit_i.valid);
  end else begin : gen_inj_now
    logic unused_empty_next;
    assign unused_empty_next = ^empty_next;
    assign inj = expired && !pkt_drop_q && count[pkt_port_q] == '0;
  end
  // The EEP leaves through the queue the packet was in: the broadcast queue for a
  // broadcast (its connection holds the whole output set until this last flit).
  // With REG_POP from the one-hot pop (a bit select instead of the port compare, on the
  // way from the allocator's decision to in_pkt_q); without, the compare: with the select
  // the default router took 27.7k instead of 26.4k LUT4 in Yosys' depth mapping, which
  // swings by that much on any rewrite (session 32).
  logic [NPORTS:0] pop_q_oh;   // the queue popped, one-hot, the broadcast queue last
  assign pop_q_oh  = {pop_bc_i, pop_oh_i};
  if (REG_POP) begin : gen_taken_oh
    assign inj_taken = inj && pop_q_oh[pkt_port_q];
  end else begin : gen_taken_port
    assign inj_taken = inj && ((pkt_port_q == QW'(NPORTS)) ? pop_bc_i
                                                           : pop_i && QW'(pop_port_i) == pkt_port_q);
  end
  always_comb begin
    idle_d    = idle_q;
    if (!in_pkt_q || in_flit_i.valid) idle_d = '0;
    else if (idle_inc) idle_d = idle_q + 16'd1;
  end
  assign tmo_o = inj_taken || (expired && pkt_drop_q);

  // cut_rest: this cycle's flit arrived with the EEP taken (only with REG_AVAIL and
  // REG_POP). It is kept out of the stage register (whose push is the buffer's, on the way
  // to avail_o: it stays a plain flop); its credit and the drop of the packet's later
  // flits follow a cycle on (cut_q), so the allocator's pop ends in flops here.
  always_comb begin
    in_pkt_d   = in_pkt_q;
    pkt_port_d = pkt_port_q;
    pkt_drop_d = pkt_drop_q;
    if (in_flit_i.valid) in_pkt_d = !in_flit_i.last;
    if (tmo_o && !cut_rest) in_pkt_d = 1'b0;   // a cut's rest keeps it open to its last
    if (cut_q) pkt_drop_d = 1'b1;
    if (is_head) begin
      pkt_port_d = is_bcast ? QW'(NPORTS) : QW'(route_port);
      pkt_drop_d = is_bcast ? (bc_fwd == '0) : !lookup_hit;
    end
  end

  assign drop_o = is_head && (is_bcast ? (bc_fwd == '0) : !lookup_hit);
  assign eep_o  = in_flit_i.valid && in_flit_i.last && in_flit_i.err;

  // ---- stage between arrival and buffer ----
  logic              a_push, drop_flit, a_mask_push;
  assign a_push      = in_flit_i.valid && !pkt_drop_d;
  assign drop_flit   = in_flit_i.valid && pkt_drop_d;
  assign a_mask_push = is_head && is_bcast && (bc_fwd != '0);

  logic              w_push, w_mask_push;     // what the buffer takes this cycle
  logic [QW-1:0]     w_q;
  logic [65:0]       w_data;
  logic [NPORTS-1:0] w_fwd;
  if (REG_AVAIL) begin : gen_stage
    logic              s_push_q, s_mask_push_q;
    logic [QW-1:0]     s_q_q;
    logic [65:0]       s_data_q;
    logic [NPORTS-1:0] s_fwd_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        s_push_q      <= 1'b0;
        s_mask_push_q <= 1'b0;
        s_q_q         <= '0;
        s_data_q      <= '0;
        s_fwd_q       <= '0;
      end else begin
        s_push_q      <= a_push && !cut_rest;
        s_mask_push_q <= a_mask_push;
        s_q_q         <= pkt_port_d;
        s_data_q      <= {in_flit_i.last, in_flit_i.err, in_flit_i.data};
        s_fwd_q       <= bc_fwd;
      end
    end
    assign w_push      = s_push_q;
    assign w_mask_push = s_mask_push_q;
    assign w_q         = s_q_q;
    assign w_data      = s_data_q;
    assign w_fwd       = s_fwd_q;
    for (genvar o = 0; o < NPORTS; o++) begin : gen_staged
      assign staged[o] = s_push_q && s_q_q == QW'(o);
    end
  end else begin : gen_no_stage
    assign w_push      = a_push;
    assign w_mask_push = a_mask_push;
    assign w_q         = pkt_port_d;
    assign w_data      = {in_flit_i.last, in_flit_i.err, in_flit_i.data};
    assign w_fwd       = bc_fwd;
    assign staged      = '0;
  end

  // ---- buffer ----
  logic                          rd_valid;
  logic [65:0]                   rd_data;
  logic [NPORTS:0]               q_avail, q_last, q_last2, q_last3;

  // An injection comes only after tmo_cycles_i idle cycles, so the stage is empty then.
  rcube_voq_buffer #(
    .NQ     (NPORTS + 1),
    .DEPTH  (BUF_DEPTH),
    .W      (66),
    .REG_POP(REG_POP),
    .LOOKAHEAD(LOOKAHEAD)
  ) u_buf (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .push_i      (w_push),
    .inj_i       (inj),
    .push_q_i    (inj ? pkt_port_q : w_q),
    // The EEP flit carries zero data: it only has to end the packet.
    .push_data_i (inj ? {1'b1, 1'b1, 64'd0} : w_data),
    .avail_o     (q_avail),
    .head_last_o (q_last),
    .last2_o     (q_last2),
    .last3_o     (q_last3),
    .pop_i       (pop_i || pop_bc_i),
    .pop_q_i     (pop_bc_i ? QW'(NPORTS) : QW'(pop_port_i)),
    .pop_oh_i    (pop_q_oh),
    .rd_valid_o  (rd_valid),
    .rd_data_o   (rd_data),
    .count_o     (count),
    .empty_next_o(empty_next),
    .has_free_o  (has_free)
  );

  assign avail_o    = q_avail[NPORTS-1:0];
  assign bc_avail_o = q_avail[NPORTS];
  assign last_o     = q_last[NPORTS-1:0];
  assign bc_last_o  = q_last[NPORTS];
  // broadcasts pop flit by flit on a held set: no allocator looks ahead there
  assign last2_o    = q_last2[NPORTS-1:0];
  assign last3_o    = q_last3[NPORTS-1:0];
  logic unused_bc_last23;
  assign unused_bc_last23 = q_last2[NPORTS] ^ q_last3[NPORTS];

  // ---- output sets of the broadcasts in the queue ----
  // One entry per broadcast in the queue (each holds at least one buffer slot, so
  // BUF_DEPTH entries never overflow). A head written in the same cycle as it is started
  // uses its set straight from the lookup (or stage) and is never stored.
  logic                   mask_valid;
  logic [NPORTS-1:0]      mask_front;
  logic                   unused_bc_ready;   // never full: see above
  logic [CntW-1:0]        unused_bc_count;
  assign bc_mask_o = mask_valid ? mask_front : w_fwd;

  fifo_sync #(
    .WIDTH(NPORTS),
    .DEPTH(BUF_DEPTH)
  ) u_bc_sets (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (w_mask_push && !(bc_start_i && !mask_valid)),
    .in_ready_o (unused_bc_ready),
    .in_data_i  (w_fwd),
    .out_valid_o(mask_valid),
    .out_ready_i(bc_start_i),
    .out_data_o (mask_front),
    .count_o    (unused_bc_count)
  );

  assign rd_flit_o = '{valid: rd_valid, last: rd_data[65], err: rd_data[64], data: rd_data[63:0]};

  // ---- credits: one per pop, plus one per dropped flit in a cycle without a pop ----
  // (the injected EEP flit had no slot and returns no credit)
  logic [CntW-1:0] drop_pend_q, drop_pend_d;
  logic            slot_freed, pop_slot, pop_slot_now;
  assign pop_slot_now = (pop_i || pop_bc_i) && !inj_taken;
  if (REG_POP) begin : gen_slot_reg
    logic pop_slot_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) pop_slot_q <= 1'b0;
      else         pop_slot_q <= pop_slot_now;
    end
    assign pop_slot = pop_slot_q;
  end else begin : gen_slot_now
    assign pop_slot = pop_slot_now;
  end
  // The flit a cut kept out of the stage (cut_q) is one more, and so is the flit dropped
  // a cycle ago (drop_q): counted a cycle late, a dropped flit's credit goes back a cycle
  // later, and the drop decision (the route lookup's miss) ends in a flop instead of
  // running on into this adder (in_flit_i -> drop_pend_q, 12.9 LUT4 levels, session 43).
  logic            drop_q;
  logic [CntW-1:0] drop_pend_base;
  always_comb begin
    slot_freed     = pop_slot || (drop_pend_q != '0);
    drop_pend_base = drop_pend_q + CntW'(cut_q) - CntW'(!pop_slot && drop_pend_q != '0);
    drop_pend_d    = drop_pend_base + CntW'(drop_q);
  end

  if (REG_AVAIL && REG_POP) begin : gen_cut_reg
    assign cut_rest = inj_taken && in_flit_i.valid;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) cut_q <= 1'b0;
      else         cut_q <= cut_rest;
    end
  end else begin : gen_no_cut
    // The offer is withdrawn when a flit arrives, so no flit comes with it taken.
    assign cut_rest = 1'b0;
    assign cut_q    = 1'b0;
  end

  link_credit_return #(
    .DEPTH(BUF_DEPTH)
  ) u_credit_return (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .slot_freed_i(slot_freed),
    .credit_o    (in_credit_o)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_pkt_q    <= 1'b0;
      pkt_port_q  <= '0;
      pkt_drop_q  <= 1'b0;
      drop_pend_q <= '0;
      drop_q      <= 1'b0;
      idle_q      <= '0;
      idle_ge_q   <= 1'b0;
    end else begin
      idle_q      <= idle_d;
      idle_ge_q   <= idle_ge_d;
      in_pkt_q    <= in_pkt_d;
      pkt_port_q  <= pkt_port_d;
      pkt_drop_q  <= pkt_drop_d;
      drop_pend_q <= drop_pend_d;
      drop_q      <= drop_flit;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i or negedge rst_ni) begin : a_bcast
    if (rst_ni) begin
      assert (!(pop_i && pop_bc_i)) else $error("rcube_voq_input: two pops in one cycle");
      assert (!bc_start_i || pop_bc_i) else $error("rcube_voq_input: broadcast start without pop");
      assert (!bc_start_i || mask_valid || w_mask_push)
        else $error("rcube_voq_input: broadcast start without a queued broadcast");
      assert (idle_ge_d == (tmo_cycles_i != '0 && idle_d >= tmo_cycles_i))
        else $error("rcube_voq_input: timeout compare differs from idle_d >= tmo_cycles_i");
      // inj, decided a cycle ahead, is what it would be from this cycle's state (with
      // REG_AVAIL and REG_POP whatever this cycle's flit)
      assert (inj == (in_pkt_q && idle_ge_q && ((REG_AVAIL && REG_POP) || !in_flit_i.valid) &&
                      !pkt_drop_q && count[pkt_port_q] == '0))
        else $error("rcube_voq_input: injection offer differs from the queue state");
    end
  end
`endif

endmodule
