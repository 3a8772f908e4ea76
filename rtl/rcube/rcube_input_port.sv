// One router input: flit buffer, route computation and credit return.
//
// The route is looked up as the head flit arrives and stored with every flit of the
// packet, so the table is read exactly once per packet (a table write mid-packet
// cannot split it) and the lookup stays off the buffer-to-crossbar path. Unroutable
// packets are buffered like any other and discarded at the buffer head at one flit per
// cycle; that keeps credit return a single stream of pops.
// Credits: every slot freed returns one pulse (link_credit_return).
module rcube_input_port #(
  parameter int unsigned NPORTS    = 8,
  parameter int unsigned BUF_DEPTH = 16,
  localparam int unsigned PortW    = (NPORTS > 1) ? $clog2(NPORTS) : 1
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
  // buffer head towards the crossbar; req_o is one-hot on the wanted output
  output fasthsl_link_pkg::link_flit_t                               head_flit_o,
  output logic [NPORTS-1:0]                                          req_o,
  input  logic                                                       pop_i,
  // event pulses for the counters
  output logic                                                       drop_o,
  output logic                                                       eep_o
);
  import fasthsl_link_pkg::*;

  localparam int unsigned CreditW = $clog2(BUF_DEPTH + 1);

  // Buffer entry: the flit without its valid bit, plus the packet's route.
  typedef struct packed {
    logic [PortW-1:0] port;
    logic             drop;
    logic             last;
    logic             err;
    logic [63:0]      data;
  } buf_entry_t;

  // ---- write side: route the head flit, remember the route for the body ----
  logic             in_pkt_q, in_pkt_d;      // a packet's head has passed, its last not yet
  logic [PortW-1:0] pkt_port_q, pkt_port_d;
  logic             pkt_drop_q, pkt_drop_d;

  logic             lookup_hit;
  logic [PortW-1:0] lookup_port;

  // The FIFO organisation has no broadcast replication: a broadcast (ptype BCAST) is
  // dropped and counted like an unroutable packet instead of being sent one way only.
  logic is_head, is_bcast, routable;
  assign is_head  = in_flit_i.valid && !in_pkt_q;
  assign is_bcast = in_flit_i.data[35:32] == fasthsl_pkg::PTYPE_BCAST;
  assign routable = lookup_hit && !is_bcast;

  logic [PortW-1:0]  unused_route_port;
  rcube_route_lookup #(
    .NPORTS(NPORTS)
  ) u_lookup (
    .valid_i       (is_head),
    .dest_i        (in_flit_i.data[15:0]),
    .entry_valid_i (entry_valid_i),
    .entry_bounds_i(entry_bounds_i),
    .entry_port_i  (entry_port_i),
    // The FIFO organisation routes deterministically: one queue, one output per packet.
    .entry_amask_i ('0),
    .adaptive_i    (1'b0),
    .out_avoid_i   ('0),
    .out_ok_i      ('0),
    .hit_o         (lookup_hit),
    .port_o        (lookup_port),
    .route_port_o  (unused_route_port)
  );

  buf_entry_t wr_entry;
  always_comb begin
    in_pkt_d   = in_pkt_q;
    pkt_port_d = pkt_port_q;
    pkt_drop_d = pkt_drop_q;
    if (in_flit_i.valid) in_pkt_d = !in_flit_i.last;
    if (is_head) begin
      pkt_port_d = lookup_port;
      pkt_drop_d = !routable;
    end
    wr_entry = '{
      port: pkt_port_d,
      drop: pkt_drop_d,
      last: in_flit_i.last,
      err:  in_flit_i.err,
      data: in_flit_i.data
    };
  end

  assign drop_o = is_head && !routable;
  assign eep_o  = in_flit_i.valid && in_flit_i.last && in_flit_i.err;

  // ---- buffer ----
  logic       buf_ready, buf_valid, buf_pop;
  buf_entry_t buf_head;
  logic [CreditW-1:0] unused_buf_count;

  fifo_sync #(
    .WIDTH($bits(buf_entry_t)),
    .DEPTH(BUF_DEPTH)
  ) u_buf (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (in_flit_i.valid),
    .in_ready_o (buf_ready),
    .in_data_i  (wr_entry),
    .out_valid_o(buf_valid),
    .out_ready_i(buf_pop),
    .out_data_o (buf_head),
    .count_o    (unused_buf_count)
  );

  // ---- read side ----
  logic fwd_valid;
  assign fwd_valid = buf_valid && !buf_head.drop;
  assign buf_pop   = (buf_valid && buf_head.drop) || (fwd_valid && pop_i);

  always_comb begin
    head_flit_o = '{valid: fwd_valid, last: buf_head.last, err: buf_head.err,
                    data: buf_head.data};
    req_o = '0;
    req_o[buf_head.port] = fwd_valid;
  end

  link_credit_return #(
    .DEPTH(BUF_DEPTH)
  ) u_credit_return (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .slot_freed_i(buf_pop),
    .credit_o    (in_credit_o)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_pkt_q      <= 1'b0;
      pkt_port_q    <= '0;
      pkt_drop_q    <= 1'b0;
    end else begin
      in_pkt_q      <= in_pkt_d;
      pkt_port_q    <= pkt_port_d;
      pkt_drop_q    <= pkt_drop_d;
    end
  end

`ifndef SYNTHESIS
  // Credits guarantee room; a flit reaching a full buffer is lost, which is a sender bug.
  // Immediate form: read_slang takes it, it rejects SVA implication.
  always_ff @(posedge clk_i or negedge rst_ni) begin : a_no_overflow
    if (rst_ni && in_flit_i.valid) begin
      assert (buf_ready) else $error("rcube_input_port: flit arrived with the buffer full");
    end
  end
`else
  logic unused_buf_ready;
  assign unused_buf_ready = buf_ready;
`endif

endmodule
