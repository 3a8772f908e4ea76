// Saturation throughput of rcube_router, FIFO (VOQ = 0) against VOQ + iSLIP (VOQ = 1).
//
// tb_rcube_router_sat_env drives every input from a source that always has a packet
// ready (saturated, sends whenever it holds a credit) and drains every output into a
// sink that consumes one flit per cycle and returns credits; credits take CDLY cycles
// each way, like the simulator's one-cycle links. Each phase picks a traffic pattern
// and a fixed packet length, warms up, then counts delivered flits over MEAS cycles:
// throughput = flits / (NP * MEAS), the fraction of output link rate accepted. Then
// the sources stop at a packet boundary and the router drains.
// Patterns: uniform (each packet to a uniformly random output, own port included) and
// permutation (input i always to output (i + 3) mod NP).
// Scoreboard on every flit: each packet arrives once, contiguous on its output, in
// order per input/output pair, with its data; at the end of every phase nothing is
// missing and every input has all its credits back.
// Asserted: the FIFO router's 1-flit uniform saturation is in the head-of-line band
// (0.586 asymptotic, 0.618 for 8 ports: 0.60-0.64); the VOQ router reaches
// MIN_UNIFORM (per length) on uniform traffic and MIN_PERM (0.99 but for the three-stage
// allocator's instance) on permutations of the shortest and longest packets.
// Plusargs +sat_meas=N (measurement window), +sat_warm=N (minimum warm-up) and
// +sat_seed=N (added to every instance's SEED), for sweeps.
// Each instance draws from its own generator (SEED): with $urandom, which all instances
// share, a change in one router moved the others' traffic, and with it their figures by up
// to 1.5 points (8x8/2048 at 64 flits: 0.943 or 0.928, session 38).
// Credit models and config helpers: rcube_tb_link.svh, rcube_tb_cfg.svh (shared with
// tb_rcube_router and tb_rcube_router_bcast).

module tb_rcube_router_sat_env #(
  parameter int          NP          = 8,
  parameter int          DEPTH       = 16,
  parameter bit          VOQ         = 1'b1,
  parameter int          ITERS       = 1,
  parameter bit          REG_AVAIL   = 1'b0,   // the VOQ router's pipeline options
  parameter bit          REG_POP     = 1'b0,
  parameter bit          ALLOC_PIPE  = 1'b0,
  parameter bit          ALLOC_SPEC  = 1'b0,   // the three-stage allocator instead
  parameter int          CDLY        = 1,
  parameter int          NLEN        = 4,
  parameter logic [31:0] LENS        = {8'd64, 8'd16, 8'd4, 8'd1},  // byte k: length of phase k
  parameter bit          RUN_PERM    = 1'b1,
  parameter int          MEAS        = 20000,
  // thresholds in 1/1000 of link rate; 16 bits per phase, like LENS
  parameter logic [63:0] MIN_UNIFORM = {16'd950, 16'd950, 16'd950, 16'd950},
  parameter int          MAX_UNIFORM = 1000,
  parameter int          MIN_PERM    = 990,
  parameter int unsigned SEED        = 1     // this instance's traffic generator (above)
) (
  output logic done_o
);
  import fasthsl_pkg::*;
  import fasthsl_link_pkg::*;

  localparam int SINK_DEPTH = 16;

  link_flit_t [NP-1:0] in_flit, out_flit;
  logic [NP-1:0]       in_credit, out_credit;
  logic                cfg_valid, cfg_write, cfg_rsp_valid;
  logic [11:0]         cfg_addr;
  logic [31:0]         cfg_wdata, cfg_rdata;
  string               name;

`include "rcube_tb_link.svh"
`include "rcube_tb_cfg.svh"

  rcube_router #(
    .NPORTS   (NP),
    .BUF_DEPTH(DEPTH),
    .VOQ      (VOQ),
    .ITERS    (ITERS),
    .REG_AVAIL(REG_AVAIL),
    .REG_POP  (REG_POP),
    .ALLOC_PIPE(ALLOC_PIPE),
    .ALLOC_SPEC(ALLOC_SPEC)
  ) dut (
    .clk_i          (clk),
    .rst_ni         (rst_n),
    .in_flit_i      (in_flit),
    .in_credit_o    (in_credit),
    .out_flit_o     (out_flit),
    .out_credit_i   (out_credit),
    .cfg_req_valid_i(cfg_valid),
    .cfg_req_write_i(cfg_write),
    .cfg_req_addr_i (cfg_addr),
    .cfg_req_wdata_i(cfg_wdata),
    .cfg_rsp_valid_o(cfg_rsp_valid),
    .cfg_rsp_rdata_o(cfg_rdata)
  );

  initial name = $sformatf("tb_rcube_router_sat[%0dx%0d/%0d %s%s]", NP, NP, DEPTH,
                           VOQ ? "voq" : "fifo", ALLOC_SPEC ? " spec" :
                           (REG_AVAIL || REG_POP || ALLOC_PIPE) ? " pipe" : "");

  // head: [15:0] dest, [23:16] src, [30:24] len - 1, [63:36] seq, [35:32] 0 (ptype WRITE)
  function automatic logic [63:0] body_data(logic [63:0] head, int k);
    return {head[63:32] ^ 32'(k * 2654435761), head[23:16], 8'(k), 16'(k * 40503)};
  endfunction

  // ---------------------------------------------------------------- traffic state
  int  pattern = 0;         // 0 uniform, 1 permutation
  int  pkt_len = 1;
  bit  gen_on  = 1'b0;      // sources start new packets
  int  seq_next = 1;

  logic [63:0] src_head[NP];
  int          src_idx[NP];     // next flit of the current packet; -1: none
  int          src_len[NP];

  logic [63:0] exp_q[NP][NP][$];
  bit          o_in_pkt[NP];
  logic [63:0] o_head[NP];
  int          o_idx[NP];
  int          cyc = 0;
  bit          counting = 1'b0;
  longint      win_flits = 0;
  longint      n_pkts = 0;

  function automatic int pending();
    int s = 0;
    for (int i = 0; i < NP; i++) for (int o = 0; o < NP; o++) s += exp_q[i][o].size();
    return s;
  endfunction

  // ---------------------------------------------------------------- monitor
  always @(posedge clk) begin
    cyc++;
    if (rst_n) begin
      for (int o = 0; o < NP; o++) begin
        if (out_flit[o].valid) begin
          link_flit_t f;
          int len;
          bit is_last;
          f = out_flit[o];
          sink_flit_in(o);
          sink_free(o);        // the sink consumes at once; the credit goes back
          if (counting) win_flits++;
          if (!o_in_pkt[o]) begin
            automatic int src = int'(f.data[23:16]);
            if (src >= NP) $fatal(1, "%s: output %0d: bad head %h", name, o, f.data);
            if (exp_q[src][o].size() == 0)
              $fatal(1, "%s: output %0d: unexpected packet %h from input %0d", name, o, f.data, src);
            if (f.data != exp_q[src][o][0])
              $fatal(1, "%s: output %0d: head %h, want %h (lost, duplicated or reordered)",
                     name, o, f.data, exp_q[src][o][0]);
            void'(exp_q[src][o].pop_front());
            o_head[o] = f.data;
            o_idx[o]  = 0;
            n_pkts++;
          end else if (f.data != body_data(o_head[o], o_idx[o])) begin
            $fatal(1, "%s: output %0d: flit %0d of %h is %h (interleaved or corrupt)",
                   name, o, o_idx[o], o_head[o], f.data);
          end
          len = int'(o_head[o][30:24]) + 1;
          is_last = (o_idx[o] == len - 1);
          if (f.last != is_last || f.err) $fatal(1, "%s: output %0d: flags at flit %0d of %0d",
                                                 name, o, o_idx[o], len);
          o_in_pkt[o] = !is_last;
          o_idx[o]++;
        end
        sink_credit_in(o);
      end
      for (int i = 0; i < NP; i++) src_credit_edge(i);
    end
  end

  // ---------------------------------------------------------------- drivers
  // xorshift32: the instance's own stream (never zero once seeded non-zero)
  logic [31:0] rng;
  function automatic int unsigned rand_below(int unsigned n);
    rng = rng ^ (rng << 13);
    rng = rng ^ (rng >> 17);
    rng = rng ^ (rng << 5);
    return rng % n;
  endfunction

  function automatic int pick_out(int i);
    return (pattern == 0) ? int'(rand_below(NP)) : (i + 3) % NP;
  endfunction

  always @(negedge clk) begin
    if (!rst_n) begin
      in_flit    = '0;
      out_credit = '0;
    end else begin
      for (int i = 0; i < NP; i++) begin
        link_flit_t f;
        f = LINK_FLIT_IDLE;
        if (src_idx[i] < 0 && gen_on) begin
          automatic int o = pick_out(i);
          automatic logic [15:0] d = 16'(o * 100 + int'(rand_below(100)));
          src_head[i] = {28'(seq_next), 4'd0, 1'b0, 7'(pkt_len - 1), 8'(i), d};
          src_len[i]  = pkt_len;
          src_idx[i]  = 0;
          seq_next++;
          exp_q[i][o].push_back(src_head[i]);
        end
        if (src_idx[i] >= 0 && src_cred[i] > 0) begin
          f.valid = 1'b1;
          f.last  = (src_idx[i] == src_len[i] - 1);
          f.data  = (src_idx[i] == 0) ? src_head[i] : body_data(src_head[i], src_idx[i]);
          src_idx[i] = f.last ? -1 : src_idx[i] + 1;
          src_flit_sent(i);
        end
        in_flit[i] = f;
      end
      for (int o = 0; o < NP; o++) sink_credit_edge(o);
    end
  end

  // ---------------------------------------------------------------- phases
  int meas, warm_min, seed_add;

  function automatic bit src_busy();
    bit b = (pending() != 0);
    for (int i = 0; i < NP; i++) b |= (src_idx[i] >= 0);
    for (int o = 0; o < NP; o++) b |= o_in_pkt[o];
    return b;
  endfunction

  task automatic phase(int pat, int len, output int permille);
    // Saturated sources fill the input buffers at (1 - throughput) flits per cycle:
    // measure only once they are full.
    int warm = 2000 + 20 * len + 20 * DEPTH;
    int n;
    bit busy;
    if (warm < warm_min) warm = warm_min;
    pattern = pat;
    pkt_len = len;
    gen_on  = 1'b1;
    repeat (warm) @(negedge clk);
    win_flits = 0;
    counting  = 1'b1;
    repeat (meas) @(negedge clk);
    counting  = 1'b0;
    gen_on    = 1'b0;
    permille  = int'((win_flits * 1000) / (longint'(NP) * meas));
    n = 0;
    busy = src_busy();
    while (busy) begin
      @(negedge clk);
      n++;
      if (n > 100000) $fatal(1, "%s: did not drain (%0d packets pending)", name, pending());
      busy = src_busy();
    end
    repeat (DEPTH + 4 * CDLY + 8) @(negedge clk);
    check_credits_home("after draining");
    $display("%s: %s %0d-flit packets: throughput %.3f of link rate (%0d cycles)",
             name, pat == 0 ? "uniform" : "permutation", len, real'(permille) / 1000.0, meas);
  endtask

  initial begin
    int thr;
    done_o = 1'b0;
    cfg_valid = 1'b0; cfg_write = 1'b0; cfg_addr = '0; cfg_wdata = '0;
    if (!$value$plusargs("sat_meas=%d", meas)) meas = MEAS;
    if (!$value$plusargs("sat_warm=%d", warm_min)) warm_min = 0;
    if (!$value$plusargs("sat_seed=%d", seed_add)) seed_add = 0;
    // a multiplicative hash, so that consecutive seeds start far apart; never zero
    rng = (32'(SEED + seed_add) * 32'h9E37_79B9) | 32'd1;
    link_init();
    for (int i = 0; i < NP; i++) begin
      src_idx[i] = -1; o_in_pkt[i] = 1'b0;
    end
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    // Input i, entry e: destinations [100e, 100e+99] -> output e (rotation NP - i).
    for (int i = 0; i < NP; i++) program_input(i, NP - i);
    repeat (DEPTH + SINK_DEPTH + 8) @(negedge clk);
    for (int k = 0; k < NLEN; k++) begin
      automatic int len = int'(LENS[8 * k +: 8]);
      automatic int lo = int'(MIN_UNIFORM[16 * k +: 16]);
      phase(0, len, thr);
      if (thr < lo || thr > MAX_UNIFORM)
        $fatal(1, "%s: uniform %0d-flit throughput %0d/1000 outside [%0d, %0d]", name, len, thr,
               lo, MAX_UNIFORM);
    end
    if (RUN_PERM) begin
      for (int k = 0; k < NLEN; k++) begin
        automatic int len = int'(LENS[8 * k +: 8]);
        if (k != 0 && k != NLEN - 1) continue;   // shortest and longest
        phase(1, len, thr);
        if (thr < MIN_PERM) $fatal(1, "%s: permutation %0d-flit throughput %0d/1000 < %0d", name,
                                   len, thr, MIN_PERM);
      end
    end
    $display("%s: %0d packets checked", name, n_pkts);
    done_o = 1'b1;
  end
endmodule

module tb_rcube_router_sat;
  logic [5:0] done;

  // FIFO baseline: 1-flit uniform traffic must sit in the head-of-line band.
  tb_rcube_router_sat_env #(
    .DEPTH(16), .VOQ(1'b0), .NLEN(1), .LENS(32'd1), .MEAS(10000),
    .MIN_UNIFORM(64'd600), .MAX_UNIFORM(640)
  ) u_fifo (.done_o(done[0]));

  // VOQ with the FIFO's 16-flit buffers (what the card and simulator use today): floors
  // a little under the measured 0.78 / 0.81 / 0.62 / 0.63 (1 / 4 / 16 / 64 flits; with the
  // allocator's waiting bound, over five streams of 10,000 cycles, 0.775-0.781 /
  // 0.811-0.817 / 0.609-0.624 / 0.599-0.640, session 38), so a regression shows.
  tb_rcube_router_sat_env #(
    .DEPTH(16), .VOQ(1'b1), .MEAS(10000),
    .MIN_UNIFORM({16'd580, 16'd580, 16'd780, 16'd740})
  ) u_voq16 (.done_o(done[1]));

  // The same with the three pipeline options (REG_AVAIL, REG_POP, ALLOC_PIPE): three cycles
  // more per hop, credits back a cycle later, new connections a cycle later. Measured
  // 0.733-0.739 / 0.752-0.758 / 0.601-0.628 / 0.617-0.636 over five streams (session 38,
  // the waiting bound's tracking a cycle late, the pointer banks fixed: rcube_islip_alloc;
  // 0.62 / 0.76 / 0.62 / 0.62 before the bound,
  // session 37: pinned pointers break up the rotations the older grants fell into): the
  // grants, a cycle older than the accepts, collide more often (iSLIP's pointers move on
  // accepts), which costs short packets only.
  tb_rcube_router_sat_env #(
    .DEPTH(16), .VOQ(1'b1), .REG_AVAIL(1'b1), .REG_POP(1'b1), .ALLOC_PIPE(1'b1), .MEAS(10000),
    .MIN_UNIFORM({16'd580, 16'd580, 16'd720, 16'd590})
  ) u_voq16_pipe (.done_o(done[4]));

  // The same with the three-stage allocator (ALLOC_SPEC) instead of ALLOC_PIPE: measured
  // 0.680 / 0.666 / 0.594 / 0.604 (1 / 4 / 16 / 64 flits; permutations 1.000 and 1.000)
  // in one stream with its waiting bound (session 44); 0.693 / 0.666 / 0.593 / 0.624
  // without it (session 42, with the buffers' second- and third-flit hints; 0.693 / 0.564
  // / 0.566 / 0.602 and 0.984 with the second only; 0.693 / 0.503 / 0.550 / 0.594 and
  // 0.969 with neither, session 41). Grants to inputs that commit elsewhere still cost
  // short packets most. Session 46 holds its pointer sets when idle: over four streams
  // (+sat_seed=0..3) 0.680-0.686 / 0.656-0.663 / 0.590-0.597 / 0.600-0.625, against
  // 0.679-0.686 / 0.662-0.666 / 0.594-0.600 / 0.604-0.625 before. Floors a little under
  // (64 flits: 0.600 was one stream's 0.604 less a little, and stream 0 now gives 0.600).
  // Session 47 keeps an input and an output with a multi-flit match in flight out of the
  // next grant and accept stages: 0.676-0.685 / 0.707-0.711 / 0.598-0.605 / 0.609-0.623
  // over the same four streams; floors raised for 4 and 16 flits.
  tb_rcube_router_sat_env #(
    .DEPTH(16), .VOQ(1'b1), .REG_AVAIL(1'b1), .REG_POP(1'b1), .ALLOC_SPEC(1'b1), .MEAS(10000),
    .MIN_UNIFORM({16'd585, 16'd580, 16'd690, 16'd650}), .MIN_PERM(980)
  ) u_voq16_spec (.done_o(done[5]));

  // VOQ with 1024-flit buffers: the 0.95 goal for 1, 4 and 16-flit packets (measured
  // 0.99 / 0.98 / 0.97 before the allocator's waiting bound; 0.99 / 0.97 / 0.97 with its
  // first version, session 37); 64-flit packets need 2048 (next instance). Over 30,000
  // cycles, as 16-flit packets measured 0.945-0.961 over five streams in 10,000 and
  // 0.952-0.955 in 30,000 (session 38: +sat_seed=0..4; SEED 1 is stream 0).
  tb_rcube_router_sat_env #(
    .DEPTH(1024), .VOQ(1'b1), .MEAS(30000), .NLEN(3), .LENS({8'd16, 8'd4, 8'd1}),
    .MIN_UNIFORM({16'd950, 16'd950, 16'd950})
  ) u_voq1024 (.done_o(done[2]));

  // VOQ with 2048-flit buffers, 64-flit packets. With the allocator's waiting bound
  // (session 37) a pinned input waits for its output's current packet, up to 64 flits:
  // over five streams (session 38, +sat_seed=0..4) 0.933 / 0.946 / 0.936 / 0.941 / 0.945
  // in 30,000 cycles, 0.928-0.957 in 10,000. Before the bound 0.958 in one stream of
  // 10,000 (0.951 in another). The floor was 0.945, then 0.94, each from one stream; now
  // under the five. The 0.95 goal is met by the simulator's voq/4096 model (2 iterations,
  // sim/tests/router_bench.rs), not by this one.
  tb_rcube_router_sat_env #(
    .DEPTH(2048), .VOQ(1'b1), .MEAS(30000), .NLEN(1), .LENS(32'd64),
    .MIN_UNIFORM(64'd925)
  ) u_voq2048 (.done_o(done[3]));

  initial begin
    wait (&done);
    $display("tb_rcube_router_sat: PASS");
    $finish;
  end

  initial begin
    #2000000000;
    $fatal(1, "tb_rcube_router_sat: timeout");
  end
endmodule
