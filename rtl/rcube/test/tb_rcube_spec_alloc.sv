// Checks rcube_spec_alloc against a model of the input queues, and measures its
// throughput beside rcube_islip_alloc (PIPE, the pipelined router's allocator) on the
// same traffic.
// Every cycle, for both allocators:
//   - a pop only from a queue that has a flit, for an output that has a credit;
//   - wormhole: a packet head only starts on a free output from a free input, other
//     flits only continue their input's connection (no output gets two flits: the
//     allocator's own assertion);
//   - the crossbar setting a cycle later (xvalid_o / xsel_o) is exactly the pops of the
//     cycle before, and sched_o names its outputs.
// Broadcasts (BC): a broadcast head only starts from a free input onto a whole set of free
// outputs with their credits for a broadcast, its flits pop on all of the set at once
// and only when every one of them has a credit, and the set is held until the last.
// Loads: every queue backlogged (saturation) with packets of 1, 4, 5, 16 and 1-8 flits,
// credits always or on 80% of cycles; and Bernoulli arrivals at 60% of link rate with
// random destinations and lengths (with BC, broadcasts of 1-4 flits to random sets
// beside them), after which the queues must drain.
// The saturation rates must reach floors a little below what this design gives (its
// handover costs an idle cycle per packet on a contended output; rtl/rcube/README.md):
// a change that loses matches fails here. The reference's rates are printed beside.
// Both run with their waiting bound (FAIR_MATCHES 16), which costs this design 16-flit
// packets most: 1.000 -> 0.936 of link rate (4 / 5 flits 0.768 -> 0.761 / 0.833 ->
// 0.811, session 44); the reference gives 0.971. Keeping multi-flit matches in flight out
// of the next grant and accept stages (session 47) took 4 / 5-flit and random-length
// packets from 0.762 / 0.808 / 0.769 to 0.824 / 0.843 / 0.827; floors raised with them.
module tb_rcube_spec_alloc_env #(
  parameter int NP     = 8,
  parameter bit SPEC   = 1'b1,    // rcube_spec_alloc, else rcube_islip_alloc PIPE
  parameter int PLEN   = 4,       // flits per packet (0: 1 to 8 at random)
  parameter int CRED   = 100,     // percent of cycles an output has a credit
  parameter int LOAD   = 100,     // percent of link rate offered per input (100: backlogged)
  parameter int FLOOR  = 0,       // saturation rate floor, thousandths (SPEC only)
  parameter bit BC     = 1'b0,    // broadcasts beside the unicast load (LOAD < 100)
  parameter int CYCLES = 20000
) (
  output logic done_o
);
  localparam int PW    = $clog2(NP);
  // Cycles the queues get to empty after the arrivals stop: as long as the arrival window,
  // so that a deadlock fails and a backlog does not. With broadcasts at LOAD 30 this
  // design falls behind on some traffic streams (0.26-0.30 of link rate against the
  // reference's 0.30, hundreds of packets queued at the end). A 2,000-cycle drain failed
  // on 8 of seeds 2-24 (+verilator+seed+N) before session 46 and passed on the default
  // seed by luck; with the pointer sets held when idle, on the default seed and 4 of seeds
  // 1-24 (session 46; rtl/rcube/README.md, broadcasts).
  localparam int DRAIN = CYCLES;

  logic clk = 1'b0;
  /* verilator lint_off SYNCASYNCNET */
  logic rst_n = 1'b0;
  /* verilator lint_on SYNCASYNCNET */
  always #5 clk = ~clk;

  logic [NP-1:0][NP-1:0] avail_q, last_q, last2_q, last3_q, pop_oh;
  logic [NP-1:0]         credit_q, pop, xvalid, sched, sched_q, out_open;
  logic [NP-1:0][PW-1:0] pop_port, xsel;
  logic [NP-1:0][PW-1:0] src_q;   // the input each output was given a flit by, last cycle
  logic [NP-1:0]         bc_avail_q, bc_last_q, credit_bc_q, pop_bc, bc_start;
  logic [NP-1:0][NP-1:0] bc_mask_q;

  if (SPEC) begin : g_dut
    rcube_spec_alloc #(.NPORTS(NP)) dut (
      .clk_i(clk), .rst_ni(rst_n), .avail_i(avail_q), .credit_ok_i(credit_q),
      .last_i(last_q), .last2_i(last2_q), .last3_i(last3_q), .credit_bc_i(credit_bc_q), .bc_avail_i(bc_avail_q),
      .bc_last_i(bc_last_q), .bc_mask_i(bc_mask_q), .pop_o(pop), .pop_port_o(pop_port),
      .pop_oh_o(pop_oh), .pop_bc_o(pop_bc), .bc_start_o(bc_start), .out_open_o(out_open),
      .sched_o(sched), .xvalid_o(xvalid), .xsel_o(xsel));
  end else begin : g_dut
    rcube_islip_alloc #(.NPORTS(NP), .PIPE(1'b1)) dut (
      .clk_i(clk), .rst_ni(rst_n), .avail_i(avail_q), .credit_ok_i(credit_q),
      .last_i(last_q), .bc_last_i(bc_last_q), .credit_bc_i(credit_bc_q),
      .bc_avail_i(bc_avail_q), .bc_mask_i(bc_mask_q), .pop_o(pop), .pop_port_o(pop_port),
      .pop_oh_o(pop_oh), .pop_bc_o(pop_bc), .bc_start_o(bc_start), .out_open_o(out_open),
      .sched_o(sched), .xvalid_o(xvalid), .xsel_o(xsel));
  end

  // the queues: packets waiting (npk), flits of the front packet sent (pos) and its length
  int npk [NP][NP];
  int pos [NP][NP];
  int len [NP][NP];
  int owner [NP];    // the input inside a packet on output o, -1 none
  int in_out [NP];   // the output input i is inside a packet to, -1 none
  // broadcast queues: packets waiting, flits of the front one sent, its length and set
  int bnpk [NP];
  int bpos [NP];
  int blen [NP];
  logic [NP-1:0] bset [NP];
  bit in_bc [NP];    // input i is inside a broadcast packet
  int cyc, pops, queued, first_count, bc_pkts;
  bit arrivals;

  function automatic int new_len();
    return PLEN > 0 ? PLEN : 1 + int'($urandom_range(7));
  endfunction
  function automatic logic [NP-1:0] new_set();
    logic [NP-1:0] m;
    m = '0;
    while (m == '0) m = NP'($urandom);
    return m;
  endfunction

  string name;
  initial name = $sformatf("%s PLEN %0d CRED %0d LOAD %0d", SPEC ? "spec " : "islip", PLEN,
                           CRED, LOAD);

  always @(posedge clk) begin
    if (rst_n) begin
      // the crossbar setting of the flits popped last cycle
      if (xvalid != sched_q) $fatal(1, "%s: xvalid %b, scheduled %b", name, xvalid, sched_q);
      for (int o = 0; o < NP; o++) begin
        if (xvalid[o] && xsel[o] != src_q[o])
          $fatal(1, "%s: output %0d carries input %0d, popped %0d", name, o, xsel[o], src_q[o]);
      end
      for (int i = 0; i < NP; i++) begin
        if (pop_oh[i] != (pop[i] ? NP'(1) << pop_port[i] : '0))
          $fatal(1, "%s: input %0d one-hot pop %b, pop %b port %0d", name, i, pop_oh[i], pop[i],
                 pop_port[i]);
        if (pop[i]) begin
          automatic int o = int'(pop_port[i]);
          if (!avail_q[i][o]) $fatal(1, "%s: pop of empty queue %0d->%0d", name, i, o);
          if (!credit_q[o]) $fatal(1, "%s: pop %0d->%0d without a credit", name, i, o);
          if (in_bc[i]) $fatal(1, "%s: unicast pop %0d->%0d inside a broadcast", name, i, o);
          if (pop_bc[i]) $fatal(1, "%s: input %0d pops both queues", name, i);
          if (pos[i][o] == 0) begin
            if (owner[o] != -1 || in_out[i] != -1)
              $fatal(1, "%s: head %0d->%0d onto a held port (output held by %0d, input in %0d)",
                     name, i, o, owner[o], in_out[i]);
          end else if (owner[o] != i || in_out[i] != o) begin
            $fatal(1, "%s: flit %0d of %0d->%0d outside its connection", name, pos[i][o], i, o);
          end
        end
      end
      for (int i = 0; i < NP; i++) begin
        if (bc_start[i] && !pop_bc[i]) $fatal(1, "%s: bc_start %0d without a pop", name, i);
        if (pop_bc[i]) begin
          if (!bc_avail_q[i]) $fatal(1, "%s: broadcast pop of empty queue %0d", name, i);
          if (bc_start[i] != (bpos[i] == 0))
            $fatal(1, "%s: input %0d broadcast flit %0d, start %b", name, i, bpos[i], bc_start[i]);
          for (int o = 0; o < NP; o++) begin
            if (!bset[i][o]) continue;
            if (!credit_q[o]) $fatal(1, "%s: broadcast %0d pops without output %0d's credit",
                                     name, i, o);
            if (bpos[i] == 0 ? (owner[o] != -1 || in_out[i] != -1 || in_bc[i]) : owner[o] != i)
              $fatal(1, "%s: broadcast %0d flit %0d on output %0d held by %0d", name, i,
                     bpos[i], o, owner[o]);
          end
        end
      end
      for (int o = 0; o < NP; o++) begin
        automatic logic any = 1'b0;
        for (int i = 0; i < NP; i++) any |= pop_oh[i][o] || (pop_bc[i] && bset[i][o]);
        if (sched[o] != any) $fatal(1, "%s: sched %b does not name the pops' outputs", name, sched);
      end
      // the model follows the pops
      for (int i = 0; i < NP; i++) begin
        if (pop[i]) begin
          automatic int o = int'(pop_port[i]);
          src_q[o] <= PW'(i);
          if (cyc >= first_count && arrivals) pops++;
          if (pos[i][o] == len[i][o] - 1) begin
            owner[o] = -1;
            in_out[i] = -1;
            pos[i][o] = 0;
            len[i][o] = new_len();
            if (LOAD < 100) begin
              npk[i][o]--;
              queued--;
            end
          end else begin
            owner[o] = i;
            in_out[i] = o;
            pos[i][o]++;
          end
        end
      end
      for (int i = 0; i < NP; i++) begin
        if (pop_bc[i]) begin
          for (int o = 0; o < NP; o++) begin
            if (bset[i][o]) begin
              src_q[o] <= PW'(i);
              owner[o] = bpos[i] == blen[i] - 1 ? -1 : i;
            end
          end
          if (bpos[i] == blen[i] - 1) begin
            in_bc[i] = 1'b0;
            bpos[i] = 0;
            blen[i] = 1 + int'($urandom_range(3));
            bset[i] = new_set();
            bnpk[i]--;
            queued--;
            bc_pkts++;
          end else begin
            in_bc[i] = 1'b1;
            bpos[i]++;
          end
        end
      end
      // broadcast arrivals: about one packet per input every 400 cycles
      if (BC && arrivals) begin
        for (int i = 0; i < NP; i++) begin
          if ($urandom_range(399) == 0) begin
            bnpk[i]++;
            queued++;
          end
        end
      end
      // arrivals: a packet with probability LOAD / (100 x mean length) per input and cycle
      if (LOAD < 100 && arrivals) begin
        for (int i = 0; i < NP; i++) begin
          if (int'($urandom_range(99999)) < (PLEN > 0 ? LOAD * 1000 / PLEN : LOAD * 2000 / 9)) begin
            automatic int o = int'($urandom_range(NP - 1));
            npk[i][o]++;
            queued++;
          end
        end
      end
      for (int i = 0; i < NP; i++) begin
        for (int o = 0; o < NP; o++) begin
          avail_q[i][o] <= LOAD >= 100 || npk[i][o] > 0;
          last_q[i][o]  <= pos[i][o] == len[i][o] - 1;
          last2_q[i][o] <= pos[i][o] == len[i][o] - 2;
          last3_q[i][o] <= pos[i][o] == len[i][o] - 3;
        end
      end
      for (int o = 0; o < NP; o++) credit_q[o] <= int'($urandom_range(99)) < CRED;
      // no credit counts here: a broadcast's credits are there when its start checks them,
      // and its pops check each cycle's
      for (int o = 0; o < NP; o++) credit_bc_q[o] <= int'($urandom_range(99)) < CRED;
      for (int i = 0; i < NP; i++) begin
        bc_avail_q[i] <= bnpk[i] > 0;
        bc_last_q[i]  <= bpos[i] == blen[i] - 1;
        bc_mask_q[i]  <= bset[i];
      end
      sched_q <= sched;
      cyc++;
    end
  end

  initial begin
    done_o   = 1'b0;
    avail_q  = LOAD >= 100 ? '1 : '0;
    credit_q = '1;
    sched_q  = '0;
    src_q    = '0;
    cyc = 0; pops = 0; queued = 0; bc_pkts = 0;
    bc_avail_q  = '0;
    bc_last_q   = '0;
    credit_bc_q = '1;
    for (int i = 0; i < NP; i++) begin
      bnpk[i]  = 0;
      bpos[i]  = 0;
      blen[i]  = 1 + int'($urandom_range(3));
      bset[i]  = new_set();
      in_bc[i] = 1'b0;
    end
    for (int i = 0; i < NP; i++) bc_mask_q[i] = bset[i];
    first_count = CYCLES / 10;
    arrivals = 1'b1;
    for (int i = 0; i < NP; i++) begin
      owner[i]  = -1;
      in_out[i] = -1;
      for (int o = 0; o < NP; o++) begin
        npk[i][o] = 0;
        pos[i][o] = 0;
        len[i][o] = new_len();
      end
    end
    last_q = '0;
    last2_q = '0;
    last3_q = '0;
    for (int i = 0; i < NP; i++)
      for (int o = 0; o < NP; o++) begin
        last_q[i][o]  = len[i][o] == 1;
        last2_q[i][o] = len[i][o] == 2;
        last3_q[i][o] = len[i][o] == 3;
      end
    repeat (3) @(posedge clk);
    rst_n = 1'b1;
    wait (cyc == CYCLES);
    begin
      automatic real rate = real'(pops) / real'(NP * (CYCLES - first_count));
      $display("%s: %0.3f of link rate", name, rate);
      if (SPEC && LOAD >= 100 && rate * 1000.0 < real'(FLOOR))
        $fatal(1, "%s: %0.3f of link rate, below the floor %0.3f", name, rate,
               real'(FLOOR) / 1000.0);
    end
    if (LOAD < 100) begin
      arrivals = 1'b0;
      begin
        automatic int drain = 0;
        while (queued != 0 && drain < DRAIN) begin
          @(posedge clk);
          drain++;
        end
        if (queued != 0) $fatal(1, "%s: %0d packets left %0d cycles after the arrivals stopped",
                                name, queued, DRAIN);
        $display("%s: drained in %0d cycles", name, drain);
      end
      if (BC) begin
        $display("%s: %0d broadcast packets", name, bc_pkts);
        if (bc_pkts == 0) $fatal(1, "%s: no broadcast was sent", name);
      end
      // the last pops' commits and the sets' two cycles to follow
      repeat (4) @(posedge clk);
      idle_chk = 1'b1;
      repeat (IDLE_CHK) @(posedge clk);
    end
    done_o = 1'b1;
  end

  // Drained (and 4 cycles on), the three-stage design's pointer sets must be one and hold
  // still: the simulator skips a model's cycles only while its whole state does (they
  // rotated with period 3 when idle before session 46).
  localparam int IDLE_CHK = 20;
  bit idle_chk = 1'b0;
  if (SPEC) begin : g_idle
    logic [2:0][NP-1:0][NP-1:0] gptr_was, aptr_was;
    int idle_cyc = 0;
    always @(posedge clk) begin
      if (idle_chk) begin
        if (idle_cyc > 0 && (g_dut.dut.gptr_q != gptr_was || g_dut.dut.aptr_q != aptr_was))
          $fatal(1, "%s: pointer sets move while idle (cycle %0d after the drain)", name,
                 idle_cyc);
        for (int s = 1; s < 3; s++) begin
          if (g_dut.dut.gptr_q[s] != g_dut.dut.gptr_q[0] ||
              g_dut.dut.aptr_q[s] != g_dut.dut.aptr_q[0])
            $fatal(1, "%s: idle, pointer set %0d differs from set 0", name, s);
        end
        gptr_was <= g_dut.dut.gptr_q;
        aptr_was <= g_dut.dut.aptr_q;
        idle_cyc++;
      end
    end
  end
endmodule

module tb_rcube_spec_alloc;
  localparam int N = 16;
  logic [N-1:0] done;
  // saturation, this design with its floor, the reference beside it
  tb_rcube_spec_alloc_env #(.SPEC(1), .PLEN(1),  .FLOOR(980)) s1  (.done_o(done[0]));
  tb_rcube_spec_alloc_env #(.SPEC(0), .PLEN(1))               r1  (.done_o(done[1]));
  tb_rcube_spec_alloc_env #(.SPEC(1), .PLEN(4),  .FLOOR(800)) s4  (.done_o(done[2]));
  tb_rcube_spec_alloc_env #(.SPEC(0), .PLEN(4))               r4  (.done_o(done[3]));
  tb_rcube_spec_alloc_env #(.SPEC(1), .PLEN(5),  .FLOOR(820)) s5  (.done_o(done[4]));
  tb_rcube_spec_alloc_env #(.SPEC(0), .PLEN(5))               r5  (.done_o(done[5]));
  tb_rcube_spec_alloc_env #(.SPEC(1), .PLEN(16), .FLOOR(920)) s16 (.done_o(done[6]));
  tb_rcube_spec_alloc_env #(.SPEC(0), .PLEN(16))              r16 (.done_o(done[7]));
  tb_rcube_spec_alloc_env #(.SPEC(1), .PLEN(0),  .FLOOR(800)) sr  (.done_o(done[8]));
  tb_rcube_spec_alloc_env #(.SPEC(0), .PLEN(0))               rr  (.done_o(done[9]));
  tb_rcube_spec_alloc_env #(.SPEC(1), .PLEN(5), .CRED(80), .FLOOR(560)) sc (.done_o(done[10]));
  tb_rcube_spec_alloc_env #(.SPEC(0), .PLEN(5), .CRED(80))              rc (.done_o(done[11]));
  // random load with gaps: the speculative grants meet emptied queues; all must drain
  tb_rcube_spec_alloc_env #(.SPEC(1), .PLEN(0), .LOAD(60), .CRED(90)) sl (.done_o(done[12]));
  tb_rcube_spec_alloc_env #(.SPEC(0), .PLEN(0), .LOAD(60), .CRED(90)) rl (.done_o(done[13]));
  // and broadcasts beside it
  tb_rcube_spec_alloc_env #(.SPEC(1), .PLEN(0), .LOAD(30), .CRED(90), .BC(1)) sb (.done_o(done[14]));
  tb_rcube_spec_alloc_env #(.SPEC(0), .PLEN(0), .LOAD(30), .CRED(90), .BC(1)) rb (.done_o(done[15]));
  initial begin
    wait (&done);
    $display("PASS");
    $finish;
  end
endmodule
