// Link models shared by the rcube_router testbenches (tb_rcube_router, tb_rcube_router_bcast,
// tb_rcube_router_sat): the clock and reset, and the credit side of the neighbours on both
// ends of the router. A source on input i holds credits for the router's input buffer; a
// sink on output o holds SINK_DEPTH slots and credits the router as it frees them. Credits
// take CDLY extra cycles each way, like a registered link.
//
// Included inside a testbench module, after the declarations it uses: localparams NP, DEPTH
// (the router's BUF_DEPTH), CDLY (< 16) and SINK_DEPTH, `string name` (message prefix) and
// the router's credit vectors `logic [NP-1:0] in_credit, out_credit`. Flits stay with the
// includer (formats and scoreboards differ): it calls src_credit_edge / sink_flit_in /
// sink_credit_in from its posedge monitor, src_flit_sent when a source drives a flit and
// sink_credit_edge from its negedge driver, in the order the comments give.

  logic clk = 1'b0;
  /* verilator lint_off SYNCASYNCNET */
  logic rst_n = 1'b0;
  /* verilator lint_on SYNCASYNCNET */
  always #5 clk = ~clk;

  int          src_cred[NP];      // credits the source may still use
  int          src_cred_rx[NP];   // credit pulses seen since reset
  int          src_sent[NP];      // flits sent since reset
  logic [15:0] src_csh[NP];       // credit delay line
  int          sink_occ[NP];      // flits in the sink buffer
  int          sink_pend[NP];     // freed slots not yet credited
  int          sink_out[NP];      // credits delivered to the router minus flits received
  logic [15:0] sink_csh[NP];      // credit delay line

  // Before reset: sources hold no credits (the router announces DEPTH after reset), sinks
  // are empty with all their slots still to be credited.
  function automatic void link_init();
    for (int i = 0; i < NP; i++) begin
      src_cred[i] = 0; src_cred_rx[i] = 0; src_sent[i] = 0; src_csh[i] = '0;
      sink_occ[i] = 0; sink_pend[i] = SINK_DEPTH; sink_out[i] = 0; sink_csh[i] = '0;
    end
  endfunction

  // Posedge, input i: the router's credit pulse enters the delay line; the router may never
  // give back more than its buffer holds.
  function automatic void src_credit_edge(int i);
    src_csh[i] = {src_csh[i][14:0], in_credit[i]};
    if (in_credit[i]) src_cred_rx[i]++;
    if (src_csh[i][CDLY]) src_cred[i]++;
    if (src_cred_rx[i] - src_sent[i] > DEPTH)
      $fatal(1, "%s: input %0d returned more credits than its buffer", name, i);
  endfunction

  // Negedge, input i: the source drives a flit (it held a credit).
  function automatic void src_flit_sent(int i);
    src_cred[i]--;
    src_sent[i]++;
  endfunction

  // Posedge, output o, a valid flit: it needs a credit and a free sink slot.
  function automatic void sink_flit_in(int o);
    if (sink_out[o] <= 0) $fatal(1, "%s: output %0d sent without credit", name, o);
    sink_out[o]--;
    sink_occ[o]++;
    if (sink_occ[o] > SINK_DEPTH) $fatal(1, "%s: sink %0d overflow", name, o);
  endfunction

  // Posedge, output o, after sink_flit_in: the router's credit counter gains what arrives.
  function automatic void sink_credit_in(int o);
    if (out_credit[o]) sink_out[o]++;
  endfunction

  // The sink consumes a flit; its slot is credited by sink_credit_edge.
  function automatic void sink_free(int o);
    sink_occ[o]--;
    sink_pend[o]++;
  endfunction

  // Negedge, output o, after the sink consumed: one freed slot a cycle goes back.
  function automatic void sink_credit_edge(int o);
    bit c = (sink_pend[o] > 0);
    if (c) sink_pend[o]--;
    sink_csh[o] = {sink_csh[o][14:0], c};
    out_credit[o] = sink_csh[o][CDLY];
  endfunction

  // After a drain: every input has all its credits back and holds them, every output's
  // counter in the router matches its sink's slots.
  function automatic void check_credits_home(string what);
    for (int i = 0; i < NP; i++) begin
      if (src_cred_rx[i] - src_sent[i] != DEPTH)
        $fatal(1, "%s: %s: input %0d: %0d credits outstanding, want %0d", name, what, i,
               src_cred_rx[i] - src_sent[i], DEPTH);
      if (src_cred[i] != DEPTH)
        $fatal(1, "%s: %s: source %0d holds %0d credits", name, what, i, src_cred[i]);
    end
    for (int o = 0; o < NP; o++) begin
      if (sink_out[o] != SINK_DEPTH)
        $fatal(1, "%s: %s: output %0d credit leak (%0d)", name, what, o, sink_out[o]);
    end
  endfunction
