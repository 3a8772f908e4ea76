// Self-checking testbench for phy_link: two PHYs, A and B, on clocks with unrelated
// periods, joined by a cable model (forwarded clock = inverted sender clock, frame mark,
// 4 lanes each way). Each PHY has a router-side source model (random packets, credits
// learned from tx_credit_o) and sink model (finite buffer, random stalls, announces its
// depth after reset, then one credit per flit taken). A checker per direction checks
// every flit as it arrives: packets in order, intact (data is a function of sequence
// number and index), err bit carried, no duplicates; a PHY-made EEP only after a
// disruption.
// Phases: (1) random traffic both ways, no disruption: every packet delivered, no
// errors, and every credit back at its owner at the end (source counters = TX_DEPTH,
// PHY far-end counters = RX_DEPTH); (2) A->B cable unplugged mid-traffic, then plugged
// back; (3) one bit flipped on B->A; (4) noise on A->B for a while. After each
// disruption both links must come back up within a bounded time, and traffic started
// after recovery must again be delivered completely. tb_phy_link runs the env with B
// slower and with B faster than A.
module tb_phy_link_env #(
  parameter int  HALF_A = 50,
  parameter int  HALF_B = 67,
  parameter int  NPKT   = 150
) (
  output logic done_o
);
  import fasthsl_link_pkg::*;

  localparam int TXD = 4, RXD = 8, SD = 6;

  logic clk_a = 1'b0, clk_b = 1'b0;
  always #(HALF_A) clk_a = ~clk_a;
  always #(HALF_B) clk_b = ~clk_b;
  /* verilator lint_off SYNCASYNCNET */
  logic rst_n = 1'b0;
  /* verilator lint_on SYNCASYNCNET */

  // ---- cable ----
  logic       a_tx_frame, b_tx_frame, b_rx_clk, a_rx_clk, b_rx_frame, a_rx_frame;
  logic [3:0] a_tx_lane, b_tx_lane, b_rx_lane, a_rx_lane;
  logic       a2b_plug = 1'b1, a2b_noise = 1'b0, b2a_flip = 1'b0;
  logic       noise_frame = 1'b0;
  logic [3:0] noise_lane = '0;
  always @(posedge clk_a) begin
    noise_frame <= ($urandom_range(0, 15) == 0);
    noise_lane  <= 4'($urandom);
  end
  assign b_rx_clk   = a2b_plug ? ~clk_a : 1'b0;
  assign b_rx_frame = a2b_noise ? noise_frame : a_tx_frame;
  assign b_rx_lane  = a2b_noise ? noise_lane : a_tx_lane;
  assign a_rx_clk   = ~clk_b;
  assign a_rx_frame = b_tx_frame;
  assign a_rx_lane  = b_tx_lane ^ {3'b0, b2a_flip};

  // ---- DUTs and router-side models ----
  link_flit_t a_tx_flit, b_tx_flit, a_rx_flit, b_rx_flit;
  logic a_tx_credit, b_tx_credit, a_rx_credit, b_rx_credit;
  logic a_up, b_up, a_bad, b_bad, a_down, b_down, a_drop, b_drop;

  phy_link #(
    .TX_DEPTH(TXD), .RX_DEPTH(RXD), .WDOG_CYCLES(128), .SILENT_CYCLES(512)
  ) dut_a (
    .clk_i(clk_a), .rst_ni(rst_n),
    .tx_flit_i(a_tx_flit), .tx_credit_o(a_tx_credit),
    .rx_flit_o(a_rx_flit), .rx_credit_i(a_rx_credit),
    .tx_frame_o(a_tx_frame), .tx_lane_o(a_tx_lane),
    .rx_clk_i(a_rx_clk), .rx_frame_i(a_rx_frame), .rx_lane_i(a_rx_lane),
    .link_up_o(a_up), .bad_frame_o(a_bad), .link_down_o(a_down), .tx_drop_o(a_drop)
  );
  phy_link #(
    .TX_DEPTH(TXD), .RX_DEPTH(RXD), .WDOG_CYCLES(128), .SILENT_CYCLES(512)
  ) dut_b (
    .clk_i(clk_b), .rst_ni(rst_n),
    .tx_flit_i(b_tx_flit), .tx_credit_o(b_tx_credit),
    .rx_flit_o(b_rx_flit), .rx_credit_i(b_rx_credit),
    .tx_frame_o(b_tx_frame), .tx_lane_o(b_tx_lane),
    .rx_clk_i(b_rx_clk), .rx_frame_i(b_rx_frame), .rx_lane_i(b_rx_lane),
    .link_up_o(b_up), .bad_frame_o(b_bad), .link_down_o(b_down), .tx_drop_o(b_drop)
  );

  logic en_a = 1'b0, en_b = 1'b0, stable = 1'b0;
  logic a_idle, b_idle;
  int   a_sent, b_sent, a_cred, b_cred;
  int   n_bad_a = 0, n_bad_b = 0, n_down_a = 0, n_down_b = 0, n_drop = 0;
  always @(posedge clk_a) if (rst_n) begin
    n_bad_a  += int'(a_bad);
    n_down_a += int'(a_down);
    n_drop   += int'(a_drop);
  end
  always @(posedge clk_b) if (rst_n) begin
    n_bad_b  += int'(b_bad);
    n_down_b += int'(b_down);
    n_drop   += int'(b_drop);
  end

  // Packets A->B have odd sequence numbers, B->A even ones, so a flit can't pass for
  // one of the other direction.
  tb_phy_link_src #(.FIRST_SEQ(1)) u_src_a (
    .clk_i(clk_a), .rst_ni(rst_n), .en_i(en_a), .stable_i(stable),
    .flit_o(a_tx_flit), .credit_i(a_tx_credit), .idle_o(a_idle), .sent_o(a_sent),
    .cred_o(a_cred));
  tb_phy_link_src #(.FIRST_SEQ(2)) u_src_b (
    .clk_i(clk_b), .rst_ni(rst_n), .en_i(en_b), .stable_i(stable),
    .flit_o(b_tx_flit), .credit_i(b_tx_credit), .idle_o(b_idle), .sent_o(b_sent),
    .cred_o(b_cred));

  int b_got, a_got, b_eep, a_eep, b_skip, a_skip;
  tb_phy_link_sink #(.SD(SD)) u_sink_b (
    .clk_i(clk_b), .rst_ni(rst_n), .flit_i(b_rx_flit), .credit_o(b_rx_credit),
    .got_o(b_got), .eep_o(b_eep), .skip_o(b_skip));
  tb_phy_link_sink #(.SD(SD)) u_sink_a (
    .clk_i(clk_a), .rst_ni(rst_n), .flit_i(a_rx_flit), .credit_o(a_rx_credit),
    .got_o(a_got), .eep_o(a_eep), .skip_o(a_skip));

  // Packets started while `stable` must all arrive; checked against the sinks' records.
  task automatic check_stable_delivered(string what);
    foreach (u_src_a.must[s]) if (!u_sink_b.done[s]) $fatal(1, "%s: A->B packet %0d lost", what, s);
    foreach (u_src_b.must[s]) if (!u_sink_a.done[s]) $fatal(1, "%s: B->A packet %0d lost", what, s);
  endtask

  task automatic wait_up(string what);
    int t = 0;
    while (!(a_up && b_up)) begin
      @(posedge clk_a);
      t++;
      if (t > 20000) $fatal(1, "%s: link did not come up (a %0d b %0d)", what, a_up, b_up);
    end
    $display("  %s: link up after %0d A cycles", what, t);
  endtask

  // Stop the sources at a packet boundary and let everything drain.
  task automatic quiesce();
    en_a = 1'b0; en_b = 1'b0;
    while (!(a_idle && b_idle)) @(posedge clk_a);
    repeat (3000) @(posedge clk_a);
  endtask

  task automatic traffic(int cycles);
    en_a = 1'b1; en_b = 1'b1;
    repeat (cycles) @(posedge clk_a);
  endtask

  string name;
  initial name = $sformatf("tb_phy_link[A period %0d, B period %0d]", 2 * HALF_A, 2 * HALF_B);

  initial begin
    done_o = 1'b0;
    repeat (5) @(posedge clk_a);
    rst_n = 1'b1;
    wait_up("start");
    if (n_bad_a + n_bad_b != 0) $fatal(1, "%s: bad frames during first training", name);

    // (1) clean traffic
    stable = 1'b1;
    traffic(NPKT * 60);
    quiesce();
    check_stable_delivered("phase 1");
    if (a_eep + b_eep + a_skip + b_skip != 0 || n_bad_a + n_bad_b + n_down_a + n_down_b != 0
        || n_drop != 0)
      $fatal(1, "%s: phase 1 saw eep %0d/%0d skip %0d/%0d bad %0d/%0d down %0d/%0d drop %0d",
             name, a_eep, b_eep, a_skip, b_skip, n_bad_a, n_bad_b, n_down_a, n_down_b, n_drop);
    if (a_cred != TXD || b_cred != TXD) $fatal(1, "%s: router-side credits %0d %0d", name, a_cred, b_cred);
    if (dut_a.far_cred_q != RXD || dut_b.far_cred_q != RXD)
      $fatal(1, "%s: far-end credits %0d %0d, expected %0d", name, dut_a.far_cred_q,
             dut_b.far_cred_q, RXD);
    $display("  phase 1: %0d + %0d packets, %0d + %0d flits delivered; credits exact", a_sent,
             b_sent, b_got, a_got);

    // (2) unplug A->B under traffic, plug back
    stable = 1'b0;
    en_a = 1'b1; en_b = 1'b1;
    repeat (700) @(posedge clk_a);
    a2b_plug = 1'b0;
    repeat (3000) @(posedge clk_a);
    if (a_up || b_up) $fatal(1, "%s: link still up with the cable out", name);
    a2b_plug = 1'b1;
    wait_up("replug");
    quiesce();
    stable = 1'b1;
    traffic(NPKT * 20);
    quiesce();
    check_stable_delivered("after replug");
    if (n_down_a == 0 || n_down_b == 0) $fatal(1, "%s: unplug not seen by both ends", name);

    // (3) one flipped bit on B->A
    stable = 1'b0;
    en_a = 1'b1; en_b = 1'b1;
    repeat (777) @(posedge clk_b);
    @(posedge clk_b) b2a_flip = 1'b1;
    @(posedge clk_b) b2a_flip = 1'b0;
    repeat (20) @(posedge clk_a);
    if (n_bad_a == 0) $fatal(1, "%s: flipped bit not detected", name);
    wait_up("bit flip");
    quiesce();
    stable = 1'b1;
    traffic(NPKT * 20);
    quiesce();
    check_stable_delivered("after bit flip");

    // (4) noise on A->B
    stable = 1'b0;
    en_a = 1'b1; en_b = 1'b1;
    repeat (500) @(posedge clk_a);
    a2b_noise = 1'b1;
    repeat (2000) @(posedge clk_a);
    a2b_noise = 1'b0;
    wait_up("noise");
    quiesce();
    stable = 1'b1;
    traffic(NPKT * 20);
    quiesce();
    check_stable_delivered("after noise");
    if (a_cred != TXD || b_cred != TXD) $fatal(1, "%s: router-side credits %0d %0d at end", name, a_cred, b_cred);
    if (dut_a.far_cred_q != RXD || dut_b.far_cred_q != RXD)
      $fatal(1, "%s: far-end credits %0d %0d at end", name, dut_a.far_cred_q, dut_b.far_cred_q);

    $display("%s: %0d + %0d packets sent, delivered %0d + %0d flits, PHY EEPs %0d + %0d, bad frames %0d + %0d, link downs %0d + %0d, flits dropped while down %0d",
             name, a_sent, b_sent, b_got, a_got, b_eep, a_eep, n_bad_b, n_bad_a, n_down_b,
             n_down_a, n_drop);
    done_o = 1'b1;
  end
endmodule

// Router output model: random packets, obeys the PHY's credits (counter starts at 0).
// data = {seq, idx, check}, so a receiver can verify each flit without a copy.
module tb_phy_link_src #(
  parameter int FIRST_SEQ = 1
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  input  logic                         en_i,
  input  logic                         stable_i,
  output fasthsl_link_pkg::link_flit_t flit_o,
  input  logic                         credit_i,
  output logic                         idle_o,
  output int                           sent_o,
  output int                           cred_o
);
  import fasthsl_link_pkg::*;
  bit must[int];     // packets that must arrive
  int seq = FIRST_SEQ - 2, idx = 0, len = 0;
  bit err;
  int cred = 0;
  assign idle_o = (idx == 0);
  assign cred_o = cred;
  initial sent_o = 0;
  initial flit_o = LINK_FLIT_IDLE;

  always @(posedge clk_i) begin
    flit_o <= LINK_FLIT_IDLE;
    if (rst_ni) begin
      if (credit_i) cred++;
      if (cred > 0 && $urandom_range(0, 3) != 0 && (idx != 0 || en_i)) begin
        if (idx == 0) begin
          seq += 2;
          len = tb_phy_link_pkg_len(seq);
          err = tb_phy_link_pkg_err(seq);
          if (stable_i) must[seq] = 1'b1;
          sent_o <= sent_o + 1;
        end
        flit_o <= '{valid: 1'b1, last: (idx == len - 1), err: (idx == len - 1) && err,
                    data: tb_phy_link_pkg_data(seq, idx)};
        cred--;
        idx = (idx == len - 1) ? 0 : idx + 1;
      end
    end
  end
endmodule

// Router input model + checker: SD-flit buffer, announces SD credits after reset.
module tb_phy_link_sink #(
  parameter int SD = 6
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  input  fasthsl_link_pkg::link_flit_t flit_i,
  output logic                         credit_o,
  output int                           got_o,
  output int                           eep_o,
  output int                           skip_o
);
  import fasthsl_link_pkg::*;
  bit done[int];
  int fill = 0, announce = SD;
  int last_seq = -1, cur_seq = -1, exp_idx = 0;
  initial begin
    credit_o = 1'b0; got_o = 0; eep_o = 0; skip_o = 0;
  end

  always @(posedge clk_i) begin
    credit_o <= 1'b0;
    if (rst_ni) begin
      if (announce > 0) begin
        credit_o <= 1'b1;
        announce--;
      end else if (fill > 0 && $urandom_range(0, 4) != 0) begin
        credit_o <= 1'b1;
        fill--;
      end
      if (flit_i.valid) begin
        int s, i;
        fill++;
        got_o <= got_o + 1;
        if (fill > SD) $fatal(1, "sink: PHY sent a flit without a credit");
        s = int'(flit_i.data[63:32]);
        i = int'(flit_i.data[31:16]);
        if (exp_idx > 0 && flit_i.last && flit_i.err && flit_i.data == '0) begin
          eep_o <= eep_o + 1;   // the PHY ended a packet cut by a link loss
          exp_idx = 0;
        end else begin
          if (exp_idx == 0) begin
            if (i != 0) $fatal(1, "sink: packet %0d starts at index %0d", s, i);
            if (s <= last_seq) $fatal(1, "sink: packet %0d after %0d (duplicate/reorder)", s, last_seq);
            if (last_seq >= 0 && s != last_seq + 2) skip_o <= skip_o + 1;
            cur_seq  = s;
            last_seq = s;
          end
          if (s != cur_seq || i != exp_idx)
            $fatal(1, "sink: flit %0d.%0d inside packet %0d at index %0d", s, i, cur_seq, exp_idx);
          if (flit_i.data != tb_phy_link_pkg_data(s, i)) $fatal(1, "sink: data of %0d.%0d corrupted", s, i);
          if (flit_i.last != (i == tb_phy_link_pkg_len(s) - 1)) $fatal(1, "sink: last bit of %0d.%0d", s, i);
          if (flit_i.err != (flit_i.last && tb_phy_link_pkg_err(s))) $fatal(1, "sink: err bit of %0d.%0d", s, i);
          if (flit_i.last) begin
            done[s] = 1'b1;
            exp_idx = 0;
          end else begin
            exp_idx++;
          end
        end
      end
    end
  end
endmodule

function automatic int tb_phy_link_pkg_len(int seq);
  return 1 + ((seq * 7 + (seq >> 3)) % 12);
endfunction
function automatic bit tb_phy_link_pkg_err(int seq);
  return (seq % 13) == 5;
endfunction
function automatic logic [63:0] tb_phy_link_pkg_data(int seq, int idx);
  logic [15:0] chk = 16'(seq * 40503 + idx * 9973) ^ 16'hA5C3;
  return {32'(seq), 16'(idx), chk};
endfunction

module tb_phy_link;
  logic d_slow, d_fast;
  tb_phy_link_env #(.HALF_A(50), .HALF_B(67)) u_slow (.done_o(d_slow));
  tb_phy_link_env #(.HALF_A(50), .HALF_B(37)) u_fast (.done_o(d_fast));
  initial begin
    wait (d_slow && d_fast);
    $display("tb_phy_link: PASS");
    $finish;
  end
  initial begin
    #(64'd2000000000);
    $fatal(1, "tb_phy_link: timeout");
  end
endmodule
