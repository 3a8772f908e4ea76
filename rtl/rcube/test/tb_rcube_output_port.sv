// Checks rcube_output_port (NPORTS = 5) against a cycle-exact reference model:
//  - nothing is sent without a credit; credits from credit_i are counted exactly;
//  - an unlocked output grants the round-robin winner among requesting heads, and
//    always grants when it can (work conserving);
//  - once a packet starts only its input is granted until its last flit (no interleave);
//  - the granted flit appears on out_flit_o in the next cycle, registered, unchanged;
//  - with credits always available a single input streams at 1 flit/cycle.
module tb_rcube_output_port;
  import fasthsl_link_pkg::*;

  localparam int NP = 5;

  logic clk = 1'b0;
  /* verilator lint_off SYNCASYNCNET */
  logic rst_n = 1'b0;
  /* verilator lint_on SYNCASYNCNET */
  always #5 clk = ~clk;

  logic [NP-1:0]       req, gnt;
  link_flit_t [NP-1:0] flits;
  link_flit_t          out_flit;
  logic                credit;

  rcube_output_port #(.NPORTS(NP)) dut (
    .clk_i(clk), .rst_ni(rst_n), .req_i(req), .flit_i(flits), .gnt_o(gnt),
    .out_flit_o(out_flit), .credit_i(credit)
  );

  // Per-input flit FIFOs as rings (Verilator 5.006 mishandles unpacked arrays of queues).
  localparam int RING = 1 << 16;
  link_flit_t ring[NP][RING];
  int rd[NP], wr[NP];
  function automatic int qsize(int i);
    return wr[i] - rd[i];
  endfunction
  int credit_pct = 50, bubble_pct = 10;
  // Credits the sink may still give: its buffer depth at start, +1 per flit it receives.
  int sink_credits_left = 0;
  // Reference model state.
  int  m_credits = 0;
  bit  m_locked = 0;
  int  m_owner = 0;
  int  m_ptr = 0;
  bit  m_pending = 0;          // a flit was granted last cycle and must be on out_flit now
  link_flit_t m_flit;
  int  n_out = 0, n_pkts = 0, n_contended = 0;

  function automatic int ref_pick(logic [NP-1:0] r);
    for (int k = 0; k < NP; k++) begin
      int i = (m_ptr + k) % NP;
      if (r[i]) return i;
    end
    return -1;
  endfunction

  always @(posedge clk) begin
    if (rst_n) begin
      int want;
      // The output register holds what was granted one cycle ago.
      if (m_pending) begin
        if (out_flit != m_flit) $fatal(1, "out_flit %p, want %p", out_flit, m_flit);
        n_out++;
        sink_credits_left++;     // the sink frees the slot again (after a random delay)
      end else if (out_flit.valid) begin
        $fatal(1, "unexpected flit on output: %p", out_flit);
      end
      // Expected grant this cycle.
      want = -1;
      if (m_credits > 0) begin
        if (m_locked) want = req[m_owner] ? m_owner : -1;
        else begin
          want = ref_pick(req);
          if (want >= 0) begin
            m_ptr = (want + 1) % NP;
            n_pkts++;
            if ($countones(req) > 1) n_contended++;
          end
        end
      end
      if (want < 0 && gnt != 0) $fatal(1, "grant %b, expected none (credits %0d locked %0d)",
                                        gnt, m_credits, m_locked);
      if (want >= 0 && gnt != NP'(1 << want)) $fatal(1, "grant %b, expected input %0d", gnt, want);
      m_pending = (want >= 0);
      if (want >= 0) begin
        m_flit = flits[want];
        m_flit.valid = 1'b1;
        if (qsize(want) == 0 || flits[want] != ring[want][rd[want] % RING])
          $fatal(1, "tb: flit_i not the queue head");
        rd[want]++;
        m_locked = !m_flit.last;
        m_owner  = want;
      end
      m_credits += int'(credit) - int'(want >= 0);
    end
  end

  // Drive heads (with random bubbles) and credits at negedge.

  always @(negedge clk) begin
    for (int i = 0; i < NP; i++) begin
      bit show;
      show     = (qsize(i) > 0) && ($urandom_range(1, 100) > bubble_pct);
      req[i]   = show;
      flits[i] = show ? ring[i][rd[i] % RING] : LINK_FLIT_IDLE;
    end
    credit = rst_n && sink_credits_left > 0 && ($urandom_range(1, 100) <= credit_pct);
    if (credit) sink_credits_left--;
  end

  int seq = 0;
  task automatic add_pkt(int i, int len);
    for (int k = 0; k < len; k++) begin
      link_flit_t f;
      f.valid = 1'b1;
      f.last  = (k == len - 1);
      f.err   = f.last && ($urandom_range(0, 7) == 0);
      f.data  = {8'(i), 24'(seq), 16'(k), 16'($urandom)};
      if (qsize(i) >= RING) $fatal(1, "tb: ring overflow");
      ring[i][wr[i] % RING] = f;
      wr[i]++;
    end
    seq++;
  endtask

  function automatic int queued();
    int s = 0;
    for (int i = 0; i < NP; i++) s += qsize(i);
    return s;
  endfunction

  initial begin
    #10000000;  // 1M cycles
    for (int i = 0; i < NP; i++) $display("input %0d: %0d queued, req %b", i, qsize(i), req[i]);
    $fatal(1, "timeout: n_out=%0d queued=%0d credits=%0d sink=%0d locked=%0d owner=%0d",
           n_out, queued(), m_credits, sink_credits_left, m_locked, m_owner);
  end

  initial begin
    req = '0; flits = '0; credit = 1'b0;
    foreach (rd[i]) begin rd[i] = 0; wr[i] = 0; end
    repeat (3) @(negedge clk);
    rst_n = 1'b1;

    // 1. No credits: nothing may leave.
    for (int i = 0; i < NP; i++) add_pkt(i, 3);
    repeat (20) @(negedge clk);
    if (n_out != 0) $fatal(1, "sent without credits");
    // 2. Credits trickle in; contention among all inputs.
    sink_credits_left = 40;
    for (int n = 0; n < 300; n++) begin
      for (int i = 0; i < NP; i++) if (qsize(i) < 10) add_pkt(i, $urandom_range(1, 8));
      @(negedge clk);
    end
    // 3. Random load, random credits and bubbles.
    for (int n = 0; n < 20000; n++) begin
      credit_pct = (n % 2000 < 300) ? 0 : 60;   // periodic credit droughts
      for (int i = 0; i < NP; i++) if ($urandom_range(0, 40) == 0) add_pkt(i, $urandom_range(1, 12));
      @(negedge clk);
    end
    credit_pct = 100; bubble_pct = 0;
    while (queued() != 0) @(negedge clk);
    repeat (3) @(negedge clk);
    if (n_contended < 100) $fatal(1, "too little contention exercised: %0d", n_contended);

    // 4. Single stream, credits every cycle: 1 flit per cycle.
    begin
      int start_out, start_cyc, cyc;
      for (int p = 0; p < 10; p++) add_pkt(2, 50);
      repeat (2) @(negedge clk);
      start_out = n_out;
      for (cyc = 0; cyc < 400; cyc++) @(negedge clk);
      if (n_out - start_out != 400) $fatal(1, "stream: %0d flits in 400 cycles", n_out - start_out);
      while (queued() != 0) @(negedge clk);
    end
    $display("tb_rcube_output_port: %0d flits, %0d packets, %0d contended allocations",
             n_out, n_pkts, n_contended);
    $display("tb_rcube_output_port: PASS");
    $finish;
  end
endmodule
