// Self-checking testbench for broadcast replication in rcube_router (VOQ = 1).
//
// One 8x8 router with node o behind output o (a star): unicast tables send dest d to
// port d, broadcast tables give output o the interval [o, o], so a broadcast from input
// i with range [lo, hi] must reach exactly the outputs lo..hi except i. Sources on every
// input, sinks with random stalls on every output, credits with CDLY cycles of wire.
// Checks:
//   config: RT_BC_MASK / RT_BC_BOUNDS read back (8-bit bounds, upper bits zero);
//   zero-load: a broadcast leaves on all outputs of its set 3 cycles after it entered
//     (the set is taken in the arrival cycle, the head pops the next), flits back to back;
//   ranges: directed broadcasts reach exactly the outputs in their range, never the
//     input they came from; a range with no output is dropped and counted (RT_DROP);
//   mixed saturating traffic (every source always has a packet; a third broadcasts,
//     random ranges, lengths 1..20 for unicast and 1..BCAST_PKT_FLITS for broadcasts): every packet reaches every output it should
//     exactly once, intact and contiguous, in order per input/output pair and kind;
//     a watchdog fails the run if no flit moves for 2000 cycles while packets are
//     pending (deadlock), and after the sources stop everything drains and every
//     credit comes back.
// The FIFO organisation (VOQ = 0) drops broadcasts: checked at the end on a second DUT.
// REG_AVAIL / REG_POP: the VOQ router's pipeline options, one cycle of latency each
// (tb_rcube_router_bcast_pipe runs this testbench with both).
// Credit models, source rings and config helpers: rcube_tb_link.svh, rcube_tb_src_ring.svh,
// rcube_tb_cfg.svh (shared with tb_rcube_router and tb_rcube_router_sat).
module tb_rcube_router_bcast #(
  parameter bit REG_AVAIL = 1'b0,
  parameter bit REG_POP   = 1'b0,
  parameter bit ALLOC_PIPE = 1'b0,
  parameter bit ALLOC_SPEC = 1'b0   // rcube_spec_alloc: pick, set and take, 3 cycles more
);
  import fasthsl_pkg::*;
  import fasthsl_link_pkg::*;

  // A broadcast takes its outputs without the grant/accept matching: ALLOC_PIPE adds nothing.
  localparam int BcLat = 3 + int'(REG_AVAIL) + int'(REG_POP) + 3 * int'(ALLOC_SPEC);   // zero-load, in to out

  localparam int NP = 8;
  localparam int DEPTH = 16;
  localparam int CDLY = 2;
  localparam int SINK_DEPTH = 16;
  localparam int SRING = 4096;
  localparam int ERING = 512;

  link_flit_t [NP-1:0] in_flit, out_flit, fifo_out_flit;
  logic [NP-1:0]       in_credit, out_credit, fifo_in_credit;
  logic                cfg_valid = 1'b0, cfg_write = 1'b0, cfg_rsp_valid, fifo_rsp_valid;
  logic [11:0]         cfg_addr = '0;
  logic [31:0]         cfg_wdata = '0, cfg_rdata, fifo_rdata;
  bit                  fifo_phase = 1'b0;
  string               name = ALLOC_SPEC ? "tb_rcube_router_bcast (three-stage allocator)"
                            : (REG_AVAIL || REG_POP || ALLOC_PIPE) ? "tb_rcube_router_bcast (pipelined)"
                                                                   : "tb_rcube_router_bcast";

`include "rcube_tb_link.svh"
`include "rcube_tb_src_ring.svh"
`include "rcube_tb_cfg.svh"

  rcube_router #(.NPORTS(NP), .BUF_DEPTH(DEPTH), .VOQ(1'b1), .REG_AVAIL(REG_AVAIL),
                 .REG_POP(REG_POP), .ALLOC_PIPE(ALLOC_PIPE), .ALLOC_SPEC(ALLOC_SPEC)) dut (
    .clk_i(clk), .rst_ni(rst_n), .in_flit_i(in_flit), .in_credit_o(in_credit),
    .out_flit_o(out_flit), .out_credit_i(out_credit),
    .cfg_req_valid_i(cfg_valid), .cfg_req_write_i(cfg_write), .cfg_req_addr_i(cfg_addr),
    .cfg_req_wdata_i(cfg_wdata), .cfg_rsp_valid_o(cfg_rsp_valid), .cfg_rsp_rdata_o(cfg_rdata)
  );

  // FIFO organisation, same inputs and config (only used in the last phase).
  rcube_router #(.NPORTS(NP), .BUF_DEPTH(DEPTH), .VOQ(1'b0)) dut_fifo (
    .clk_i(clk), .rst_ni(rst_n), .in_flit_i(fifo_phase ? in_flit : '0),
    .in_credit_o(fifo_in_credit), .out_flit_o(fifo_out_flit), .out_credit_i('0),
    .cfg_req_valid_i(cfg_valid), .cfg_req_write_i(cfg_write), .cfg_req_addr_i(cfg_addr),
    .cfg_req_wdata_i(cfg_wdata), .cfg_rsp_valid_o(fifo_rsp_valid), .cfg_rsp_rdata_o(fifo_rdata)
  );

  // head: [15:0] dest (broadcast: lo | hi << 8), [23:16] src, [30:24] len,
  // [35:32] ptype, [63:36] seq
  function automatic logic [63:0] body_data(logic [63:0] head, int k);
    return {head[63:36], 4'hA, head[23:16], 8'(k), head[47:32] ^ 16'(k * 40503)};
  endfunction

  // ---------------------------------------------------------------- sources
  int seq_next = 1;

  task automatic send_pkt(int i, bit bc, logic [15:0] dest, int len);
    logic [63:0] head;
    head = {28'(seq_next), bc ? PTYPE_BCAST : PTYPE_WRITE, 1'b0, 7'(len), 8'(i), dest};
    seq_next++;
    if (src_q(i) + len > SRING) $fatal(1, "tb: source ring overflow");
    for (int k = 0; k < len; k++) begin
      link_flit_t f;
      f.valid = 1'b1;
      f.last  = (k == len - 1);
      f.err   = 1'b0;
      f.data  = (k == 0) ? head : body_data(head, k);
      src_push(i, f);
    end
  endtask

  // ---------------------------------------------------------------- sinks
  int stall_left[NP];
  int stall_permille = 0;

  // ---------------------------------------------------------------- scoreboard
  // [kind][input][output]: kind 0 unicast, 1 broadcast (separate queues in the router,
  // so only order within a kind is kept).
  logic [63:0] exp_ring[2][NP][NP][ERING];
  int exp_t[2][NP][NP][ERING];
  int exp_rd[2][NP][NP], exp_wr[2][NP][NP];
  int exp_drop[NP];
  bit in_pkt[NP], o_in_pkt[NP];
  logic [63:0] o_head[NP];
  int o_idx[NP];
  int cyc = 0, last_move = 0, n_bc_rx = 0, n_uc_rx = 0;
  int first_lat[NP];

  function automatic int pending();
    int s = 0;
    for (int k = 0; k < 2; k++)
      for (int i = 0; i < NP; i++) for (int o = 0; o < NP; o++) s += exp_wr[k][i][o] - exp_rd[k][i][o];
    return s;
  endfunction

  logic [31:0] rsp_q[$];
  bit rd_pend = 1'b0;

  always @(posedge clk) begin
    cyc++;
    if (rst_n) begin
      for (int o = 0; o < NP; o++) begin
        if (out_flit[o].valid) begin
          link_flit_t f;
          f = out_flit[o];
          last_move = cyc;
          sink_flit_in(o);
          if (!o_in_pkt[o]) begin
            int src, k;
            logic [63:0] e;
            src = int'(f.data[23:16]);
            k = (f.data[35:32] == PTYPE_BCAST) ? 1 : 0;
            if (src >= NP) $fatal(1, "tb: output %0d: bad head %h", o, f.data);
            if (exp_rd[k][src][o] == exp_wr[k][src][o])
              $fatal(1, "tb: output %0d: unexpected %s %h from input %0d (duplicate or wrong range)",
                     o, k ? "broadcast" : "unicast", f.data, src);
            e = exp_ring[k][src][o][exp_rd[k][src][o] % ERING];
            first_lat[o] = cyc - exp_t[k][src][o][exp_rd[k][src][o] % ERING];
            exp_rd[k][src][o]++;
            if (f.data != e) $fatal(1, "tb: output %0d: head %h, want %h (lost or reordered)", o, f.data, e);
            if (k == 1) n_bc_rx++; else n_uc_rx++;
            o_head[o] = f.data;
            o_idx[o] = 0;
          end else if (f.data != body_data(o_head[o], o_idx[o])) begin
            $fatal(1, "tb: output %0d: flit %0d of %h is %h (interleaved or corrupt)",
                   o, o_idx[o], o_head[o], f.data);
          end
          begin
            int len = int'(o_head[o][30:24]);
            bit is_last = (o_idx[o] == len - 1);
            if (f.last != is_last) $fatal(1, "tb: output %0d: last=%b at flit %0d of %0d", o, f.last, o_idx[o], len);
            o_in_pkt[o] = !is_last;
            o_idx[o]++;
          end
        end
        sink_credit_in(o);
      end
      for (int i = 0; i < NP; i++) begin
        src_credit_edge(i);
        if (in_credit[i]) last_move = cyc;
        if (in_flit[i].valid && !in_pkt[i]) begin
          logic [63:0] h;
          h = in_flit[i].data;
          if (h[35:32] == PTYPE_BCAST) begin
            int n = 0;
            for (int o = 0; o < NP; o++) begin
              if (o != i && o >= int'(h[7:0]) && o <= int'(h[15:8])) begin
                exp_ring[1][i][o][exp_wr[1][i][o] % ERING] = h;
                exp_t[1][i][o][exp_wr[1][i][o] % ERING] = cyc;
                exp_wr[1][i][o]++;
                n++;
              end
            end
            if (n == 0) exp_drop[i]++;
          end else begin
            int o = int'(h[15:0]);
            exp_ring[0][i][o][exp_wr[0][i][o] % ERING] = h;
            exp_t[0][i][o][exp_wr[0][i][o] % ERING] = cyc;
            exp_wr[0][i][o]++;
          end
        end
        if (in_flit[i].valid) in_pkt[i] = !in_flit[i].last;
      end
      if (rd_pend) rsp_q.push_back(cfg_rdata);
      rd_pend = cfg_valid && !cfg_write;
      if (pending() > 0 && cyc - last_move > 2000)
        $fatal(1, "tb: no flit or credit moved for 2000 cycles with %0d deliveries pending (deadlock)",
               pending());
    end
  end

  always @(negedge clk) begin
    if (!rst_n) begin
      in_flit    = '0;
      out_credit = '0;
    end else begin
      for (int i = 0; i < NP; i++) begin
        link_flit_t f;
        f = LINK_FLIT_IDLE;
        if (src_can_send(i)) f = src_pop(i);
        in_flit[i] = f;
      end
      for (int o = 0; o < NP; o++) begin
        if (stall_left[o] > 0) stall_left[o]--;
        else if ($urandom_range(1, 1000) <= stall_permille) stall_left[o] = $urandom_range(1, 40);
        else if (sink_occ[o] > 0) sink_free(o);
        sink_credit_edge(o);
      end
    end
  end

  task automatic cfg_expect(logic [11:0] a, logic [31:0] want, string what);
    cfg_valid = 1'b1; cfg_write = 1'b0; cfg_addr = a;
    @(negedge clk);
    cfg_valid = 1'b0;
    @(negedge clk);
    if (rsp_q.size() != 1) $fatal(1, "tb: %0d cfg responses", rsp_q.size());
    begin
      logic [31:0] got = rsp_q.pop_front();
      if (got != want) $fatal(1, "tb: %s @%h = %h, want %h", what, a, got, want);
    end
  endtask

  task automatic wait_drain(int limit);
    int t0 = cyc;
    bit busy = 1'b1;
    while (busy) begin
      int left;
      @(negedge clk);
      left = pending();
      for (int i = 0; i < NP; i++) left += src_q(i);
      busy = left > 0;
      if (cyc - t0 > limit) $fatal(1, "tb: not drained after %0d cycles, %0d pending", limit, left);
    end
    repeat (40) @(negedge clk);
  endtask

  function automatic logic [15:0] range_of(int lo, int hi);
    return {8'(hi), 8'(lo)};
  endfunction

  initial begin
    link_init();
    src_ring_init();
    for (int i = 0; i < NP; i++) begin
      stall_left[i] = 0; in_pkt[i] = 0; o_in_pkt[i] = 0; exp_drop[i] = 0;
      for (int o = 0; o < NP; o++) for (int k = 0; k < 2; k++) begin
        exp_rd[k][i][o] = 0; exp_wr[k][i][o] = 0;
      end
    end
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    repeat (2) @(negedge clk);

    // ---- tables: dest d on port d; broadcast output o reaches node o ----
    for (int i = 0; i < NP; i++) begin
      cfg_wr(bounds_addr(i, 0), 32'h0007_0000);
      for (int e = 0; e < NP; e++) begin
        cfg_wr(bounds_addr(i, e), {16'(e), 16'(e)});
        cfg_wr(ctrl_addr(i, e), 32'h8000_0000 | 32'(e));
      end
      cfg_wr(bc_mask_addr(i), 32'hFFFF_FFFF);
      for (int o = 0; o < NP; o++) cfg_wr(bc_bounds_addr(i, o), {16'hFF00 | 16'(o), 16'hAB00 | 16'(o)});
    end
    cfg_expect(bc_mask_addr(3), 32'h0000_00FF, "RT_BC_MASK");
    cfg_expect(bc_bounds_addr(5, 6), 32'h0006_0006, "RT_BC_BOUNDS");
    cfg_expect(bc_bounds_addr(7, 7), 32'h0007_0007, "RT_BC_BOUNDS");
    repeat (5) @(negedge clk);

    // ---- zero load: one broadcast from input 2 to outputs 0..7 (7 outputs) ----
    send_pkt(2, 1'b1, range_of(0, 7), 5);
    wait_drain(200);
    for (int o = 0; o < NP; o++) begin
      if (o != 2 && first_lat[o] != BcLat)
        $fatal(1, "tb: zero-load broadcast latency to output %0d = %0d, want %0d", o, first_lat[o],
               BcLat);
    end
    send_pkt(6, 1'b1, range_of(1, 2), BCAST_PKT_FLITS);
    wait_drain(200);
    if (first_lat[1] != BcLat || first_lat[2] != BcLat)
      $fatal(1, "tb: 2-output broadcast latency %0d/%0d, want %0d", first_lat[1], first_lat[2], BcLat);
    $display("%s: zero-load latency: %0d cycles to 7 outputs and to 2", name, BcLat);

    // ---- ranges, including empty ones (own port only, beyond every output) ----
    send_pkt(0, 1'b1, range_of(3, 5), 4);
    send_pkt(4, 1'b1, range_of(3, 5), 1);
    send_pkt(7, 1'b1, range_of(7, 7), 2);     // only the input itself: dropped
    send_pkt(1, 1'b1, range_of(9, 200), 2);   // no output: dropped
    send_pkt(1, 1'b1, range_of(5, 3), 2);     // lo > hi: empty, dropped
    wait_drain(500);
    cfg_expect(drop_addr(7), 32'd1, "RT_DROP[7]");
    cfg_expect(drop_addr(1), 32'd2, "RT_DROP[1]");

    // ---- mixed saturating traffic, random sink stalls ----
    stall_permille = 5;
    for (int round = 0; round < 3; round++) begin
      int t0 = cyc;
      while (cyc - t0 < 8000) begin
        for (int i = 0; i < NP; i++) begin
          if (src_q(i) < 64) begin
            int len = $urandom_range(1, 20);
            if ($urandom_range(0, 2) == 0) begin
              int lo = $urandom_range(0, NP - 1);
              int hi = $urandom_range(lo, NP - 1);
              send_pkt(i, 1'b1, range_of(lo, hi), $urandom_range(1, BCAST_PKT_FLITS));
            end else begin
              send_pkt(i, 1'b0, 16'($urandom_range(0, NP - 1)), len);
            end
          end
        end
        @(negedge clk);
      end
      wait_drain(20000);
      $display("tb_rcube_router_bcast: round %0d: %0d broadcast and %0d unicast deliveries so far",
               round, n_bc_rx, n_uc_rx);
    end
    stall_permille = 0;
    for (int i = 0; i < NP; i++) begin
      if (src_cred_rx[i] != src_sent[i] + DEPTH)
        $fatal(1, "tb: input %0d: %0d credits back for %0d flits + %0d initial", i, src_cred_rx[i], src_sent[i], DEPTH);
      cfg_expect(drop_addr(i), 32'(exp_drop[i]), "RT_DROP");
    end
    if (n_bc_rx < 3000) $fatal(1, "tb: only %0d broadcast deliveries", n_bc_rx);

    // ---- FIFO organisation: broadcasts are dropped and counted ----
    fifo_phase = 1'b1;
    send_pkt(3, 1'b1, range_of(0, 7), 2);
    repeat (20) @(negedge clk);
    cfg_valid = 1'b1; cfg_write = 1'b0; cfg_addr = drop_addr(3);
    @(negedge clk);
    cfg_valid = 1'b0;
    @(negedge clk);
    void'(rsp_q.pop_front());
    if (fifo_drops != 1) $fatal(1, "tb: FIFO router RT_DROP[3] = %0d, want 1", fifo_drops);
    if (fifo_in_credit_n != DEPTH + 2)
      $fatal(1, "tb: FIFO router returned %0d credits for 2 flits + %0d initial", fifo_in_credit_n, DEPTH);
    wait_drain(500);
    $display("tb_rcube_router_bcast: %0d broadcast and %0d unicast deliveries checked", n_bc_rx, n_uc_rx);
    $display("PASS");
    $finish;
  end

  // FIFO router's drop counter, read in the FIFO phase through its own response port.
  int fifo_drops = 0;
  always @(posedge clk) begin
    if (fifo_phase && fifo_rsp_valid) fifo_drops = int'(fifo_rdata);
  end
  int fifo_in_credit_n = 0;
  always @(posedge clk) begin
    if (fifo_in_credit[3]) fifo_in_credit_n++;
    for (int o = 0; o < NP; o++) begin
      if (fifo_out_flit[o].valid) $fatal(1, "tb: FIFO router forwarded a broadcast");
    end
  end

endmodule
