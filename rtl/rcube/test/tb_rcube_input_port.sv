// Checks rcube_input_port (NPORTS = 8, BUF_DEPTH = 16):
//  - after reset exactly BUF_DEPTH credit pulses on consecutive cycles, then silence;
//  - a sender obeying credits can fill the buffer; one credit per freed slot comes back;
//  - flits leave in order, intact, with req_o one-hot on the route of their packet;
//  - the route is computed at the head only (random table rewrites mid-packet);
//  - unroutable packets are discarded (credits returned) and pulse drop_o once;
//  - eep_o pulses once per packet ending in err;
//  - traffic starting during the initial credit announcement loses no credit;
//  - credit pulses match a cycle-exact model (one cycle after the slot is freed).
module tb_rcube_input_port;
  import fasthsl_pkg::*;
  import fasthsl_link_pkg::*;

  localparam int NP = 8;
  localparam int DEPTH = 16;

  logic clk = 1'b0;
  // The monitor samples on clk and looks at reset like any tb process would.
  /* verilator lint_off SYNCASYNCNET */
  logic rst_n = 1'b0;
  /* verilator lint_on SYNCASYNCNET */
  always #5 clk = ~clk;

  link_flit_t                        in_flit;
  logic                              in_credit;
  logic [ROUTE_ENTRIES-1:0]          ev;
  route_bounds_t [ROUTE_ENTRIES-1:0] eb;
  logic [ROUTE_ENTRIES-1:0][2:0]     ep;
  link_flit_t                        head;
  logic [NP-1:0]                     req;
  logic                              pop;
  logic                              drop_p, eep_p;

  rcube_input_port #(.NPORTS(NP), .BUF_DEPTH(DEPTH)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .in_flit_i(in_flit), .in_credit_o(in_credit),
    .entry_valid_i(ev), .entry_bounds_i(eb), .entry_port_i(ep),
    .head_flit_o(head), .req_o(req), .pop_i(pop),
    .drop_o(drop_p), .eep_o(eep_p)
  );

  // ---- monitor (samples at posedge, i.e. the values the DUT flops see) ----
  int cycle = 0;
  int credits_rx = 0;          // pulses seen since the last reset
  int sent = 0;                // flits sent since the last reset
  int credit_cycles[$];
  int drops_seen = 0, eeps_seen = 0, popped = 0;
  typedef struct packed {
    logic        last;
    logic        err;
    logic [63:0] data;
    logic [2:0]  port;
  } exp_t;
  exp_t exp_q[$];
  // Cycle-exact model of the credit output, used while every packet is routable (then the
  // buffer pops exactly when the tb pops a valid head).
  bit   credit_timing = 1'b0;
  int   m_pend;
  bit   m_credit = 1'b0;
  int   timing_checks = 0;

  always @(posedge clk) begin
    cycle++;
    if (rst_n) begin
      if (in_credit) begin
        credits_rx++;
        credit_cycles.push_back(cycle);
      end
      if (drop_p) drops_seen++;
      if (eep_p) eeps_seen++;
      if (!head.valid && req != 0) $fatal(1, "req_o without a valid head");
      if (pop && head.valid) begin
        exp_t e;
        if (exp_q.size() == 0) $fatal(1, "flit popped but none expected: %h", head.data);
        e = exp_q.pop_front();
        if (head.data != e.data || head.last != e.last || head.err != e.err)
          $fatal(1, "flit mismatch: got %h l%b e%b want %h l%b e%b",
                 head.data, head.last, head.err, e.data, e.last, e.err);
        if (req != NP'(1 << e.port))
          $fatal(1, "req_o %b for flit %h, want port %0d", req, head.data, e.port);
        popped++;
      end
      if (credits_rx - sent > DEPTH) $fatal(1, "more credits than buffer slots");
      if (credit_timing) begin
        bit popping = pop && head.valid;
        if (in_credit != m_credit) $fatal(1, "credit pulse %b at edge %0d, model says %b",
                                         in_credit, cycle, m_credit);
        m_credit = (m_pend > 0) || popping;
        m_pend  += int'(popping) - int'(m_credit);
        timing_checks++;
      end
    end
  end

  // Reference lookup on the table as currently driven.
  function automatic int ref_lookup(logic [15:0] dest);
    for (int e = 0; e < ROUTE_ENTRIES; e++) begin
      if (ev[e] && dest >= eb[e].lo && dest <= eb[e].hi) return int'(ep[e]);
    end
    return -1;
  endfunction

  // Table: dest d in [32k, 32k+31] -> port k for k < 7, rest unroutable.
  task automatic table_default();
    for (int e = 0; e < ROUTE_ENTRIES; e++) begin
      eb[e] = '{lo: 16'(e * 32), hi: 16'(e * 32 + 31)};
      ep[e] = 3'(e);
      ev[e] = (e < 7);
    end
  endtask

  task automatic table_random();
    for (int e = 0; e < ROUTE_ENTRIES; e++) begin
      int a = $urandom_range(0, 255), b = $urandom_range(0, 255);
      eb[e] = (a <= b) ? '{lo: 16'(a), hi: 16'(b)} : '{lo: 16'(b), hi: 16'(a)};
      ep[e] = 3'($urandom);
      ev[e] = ($urandom_range(0, 4) != 0);
    end
  endtask

  // Packet generator state.
  int       pkt_left = 0;      // flits still to send of the current packet
  int       pkt_port = 0;
  logic     pkt_err;
  int       pkt_id = 0;
  int       exp_drops = 0, exp_eeps = 0;
  int       flit_idx = 0;

  // Drives one flit (if credits allow and rand says so) and a random pop, then waits a cycle.
  task automatic cycle_step(int send_pct, int pop_pct, bit table_churn);
    link_flit_t f;
    bit do_send;
    f = LINK_FLIT_IDLE;
    do_send = (credits_rx - sent > 0) && ($urandom_range(1, 100) <= send_pct);
    if (do_send && pkt_left == 0) begin
      // New packet.
      logic [15:0] dest = 16'($urandom_range(0, 255));
      pkt_left = $urandom_range(1, 6);
      pkt_port = ref_lookup(dest);
      pkt_err  = ($urandom_range(0, 5) == 0);
      pkt_id++;
      flit_idx = 0;
      if (pkt_port < 0) exp_drops++;
      if (pkt_err) exp_eeps++;
      // bits 35:32 are the packet type routers read: 0 (WRITE), never a broadcast
      f.data = {16'hC0DE, 12'(pkt_id), 4'h0, 16'(flit_idx), dest};
    end else if (do_send) begin
      f.data = {16'hB0D1, 16'(pkt_id), 16'(flit_idx), 16'($urandom)};
    end
    if (do_send) begin
      exp_t e;
      f.valid = 1'b1;
      f.last  = (pkt_left == 1);
      f.err   = f.last && pkt_err;
      e = exp_t'{last: f.last, err: f.err, data: f.data, port: 3'(pkt_port)};
      if (pkt_port >= 0) exp_q.push_back(e);
      pkt_left--;
      flit_idx++;
      sent++;
    end
    in_flit = f;
    pop = ($urandom_range(1, 100) <= pop_pct);
    // Rewrite the table only after this cycle's head (if any) was looked up.
    @(negedge clk);
    if (table_churn && $urandom_range(0, 3) == 0) table_random();
  endtask

  task automatic do_reset();
    in_flit = LINK_FLIT_IDLE;
    pop = 1'b0;
    rst_n = 1'b0;
    repeat (2) @(negedge clk);
    credits_rx = 0; sent = 0; credit_cycles.delete(); cycle = 0;
    drops_seen = 0; eeps_seen = 0; exp_drops = 0; exp_eeps = 0; popped = 0;
    exp_q.delete(); pkt_left = 0;
    rst_n = 1'b1;
  endtask

  initial begin
    table_default();
    do_reset();

    // 1. Initial credits: DEPTH pulses in consecutive cycles from the first cycle after reset.
    repeat (DEPTH + 10) @(negedge clk);
    if (credits_rx != DEPTH) $fatal(1, "initial credits: %0d, want %0d", credits_rx, DEPTH);
    for (int k = 0; k < DEPTH; k++) begin
      if (credit_cycles[k] != credit_cycles[0] + k) $fatal(1, "initial credits not back to back");
    end
    // The first edge after reset sets the credit flop; the next edge is the first to see it.
    if (credit_cycles[0] != 2) $fatal(1, "first credit seen at edge %0d after reset", credit_cycles[0]);

    // 2. Fill the buffer completely with no pops: sender gets blocked at DEPTH flits.
    for (int n = 0; n < 40; n++) cycle_step(100, 0, 0);
    if (sent != DEPTH) $fatal(1, "fill: sent %0d, want %0d", sent, DEPTH);
    if (credits_rx != DEPTH) $fatal(1, "credits returned with nothing popped");
    // Drain with pops only; every freed slot returns a credit one cycle later.
    for (int n = 0; n < 40; n++) cycle_step(0, 100, 0);
    if (credits_rx - sent != DEPTH) $fatal(1, "after drain %0d credits outstanding", credits_rx - sent);

    // 3. Random traffic, random pops, table fixed.
    for (int n = 0; n < 4000; n++) cycle_step(70, 60, 0);
    for (int n = 0; n < 200; n++) cycle_step(0, 100, 0);
    // 4. Same with the table rewritten under traffic.
    for (int n = 0; n < 4000; n++) cycle_step(70, 60, 1);
    while (pkt_left > 0) cycle_step(100, 60, 0);
    for (int n = 0; n < 200; n++) cycle_step(0, 100, 0);
    if (exp_q.size() != 0) $fatal(1, "%0d flits never came out", exp_q.size());
    if (credits_rx - sent != DEPTH) $fatal(1, "credit leak: %0d outstanding", credits_rx - sent);
    if (drops_seen != exp_drops) $fatal(1, "drop pulses %0d want %0d", drops_seen, exp_drops);
    if (eeps_seen != exp_eeps) $fatal(1, "eep pulses %0d want %0d", eeps_seen, exp_eeps);
    if (exp_drops == 0 || exp_eeps == 0) $fatal(1, "test did not exercise drops/eeps");
    $display("tb_rcube_input_port: %0d packets, %0d flits forwarded, %0d drops, %0d eeps",
             pkt_id, popped, exp_drops, exp_eeps);

    // 5. Traffic starting during the credit announcement, pops every cycle.
    table_default();
    do_reset();
    for (int n = 0; n < 3000; n++) cycle_step(100, 100, 0);
    while (pkt_left > 0) cycle_step(100, 100, 0);
    for (int n = 0; n < 50; n++) cycle_step(0, 100, 0);
    if (exp_q.size() != 0) $fatal(1, "%0d flits never came out", exp_q.size());
    if (credits_rx - sent != DEPTH) $fatal(1, "credit leak at start: %0d outstanding", credits_rx - sent);
    if (sent < 2900) $fatal(1, "full-rate stream only sent %0d flits in 3000 cycles", sent);

    // 6. Every packet routable: credit pulses checked cycle by cycle against the model
    //    (a freed slot is credited in the very next cycle unless the announcement is
    //    still running).
    for (int e = 0; e < ROUTE_ENTRIES; e++) ev[e] = 1'b1;
    do_reset();
    m_pend = DEPTH;
    m_credit = 1'b0;
    credit_timing = 1'b1;
    for (int n = 0; n < 3000; n++) cycle_step(80, 70, 0);
    while (pkt_left > 0) cycle_step(100, 60, 0);
    for (int n = 0; n < 50; n++) cycle_step(0, 100, 0);
    credit_timing = 1'b0;
    if (exp_q.size() != 0 || exp_drops != 0) $fatal(1, "phase 6 traffic not clean");
    if (credits_rx - sent != DEPTH) $fatal(1, "credit leak: %0d outstanding", credits_rx - sent);
    $display("tb_rcube_input_port: %0d cycle-exact credit checks", timing_checks);

    $display("tb_rcube_input_port: PASS");
    $finish;
  end
endmodule
