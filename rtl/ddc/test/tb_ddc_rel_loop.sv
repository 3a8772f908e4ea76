// The three reliability blocks composed as they are meant to be wired (docs/RELIABILITY.md):
// a sender's ddc_tx_rel_table, a lossy network, a receiver's ddc_rx_dup_filter and
// ddc_ack_gen, and a lossy way back for the ACK packets, which are parsed from
// ddc_ack_gen's flits (header and CRC) and fed to the table. A message is abstracted to
// one arrival event. With a quarter of messages and of ACKs lost, and a dup-filter hold
// time that covers the sender's retry budget: no message is delivered twice; every
// message ends exactly once; OK only if it was delivered; a delivered message ends OK
// unless every one of its ACKs was lost (counted); nothing hangs.
module tb_ddc_rel_loop;
  import fasthsl_pkg::*;

  localparam int unsigned Entries  = 16;
  localparam int unsigned TickLog2 = 4;
  localparam int unsigned Timeout  = 8;    // ticks: 128 cycles, > a round trip here
  localparam int unsigned Retries  = 5;
  // The hold time must cover the sender's whole budget, and a retransmission also waits
  // in the TX path behind up to Entries messages of 20 cycles: (Retries + 1) x (timeout +
  // queueing + transit) ticks. (Retries + 2) x Timeout alone delivered ~1 % twice.
  localparam int unsigned Hold     = (Retries + 1) * (Timeout + Entries * 20 / (1 << TickLog2) + 4);
  localparam int unsigned NMsg     = 2000;
  localparam logic [15:0] Snd      = 16'd5;
  localparam logic [15:0] Rcv      = 16'd9;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  // sender
  logic        alloc_valid = 1'b0, alloc_ready;
  logic [15:0] alloc_seq = '0;
  logic [3:0]  alloc_idx;
  logic        sent_valid = 1'b0;
  logic [3:0]  sent_idx = '0;
  logic        ans_valid = 1'b0, ans_nack = 1'b0, ans_reject = 1'b0;
  logic [15:0] ans_src = '0, ans_seq = '0;
  logic        retx_valid, retx_ready = 1'b1;
  logic [3:0]  retx_idx, done_idx;
  logic [15:0] retx_tag, done_tag;
  logic        done_valid, done_ready = 1'b1;
  logic [1:0]  done_res;
  logic [4:0]  timeouts;
  logic        retx_ev, stray;
  logic [15:0] retx_dest_unused;
  logic [15:0] retx_seq_unused;
  logic [3:0]  retx_tries_unused, lag_unused;

  ddc_tx_rel_table #(
    .ENTRIES  (Entries),
    .TICK_LOG2(TickLog2)
  ) u_table (
    .clk_i        (clk),
    .rst_ni       (rst_n),
    .flush_i      (1'b0),
    .timeout_i    (16'(Timeout)),
    .retries_max_i(4'(Retries)),
    .alloc_valid_i(alloc_valid),
    .alloc_ready_o(alloc_ready),
    .alloc_dest_i (Rcv),
    .alloc_seq_i  (alloc_seq),
    .alloc_tag_i  (alloc_seq),
    .alloc_idx_o  (alloc_idx),
    .sent_valid_i (sent_valid),
    .sent_idx_i   (sent_idx),
    .sent_fail_i  (1'b0),
    .fail_valid_i (1'b0),
    .fail_idx_i   ('0),
    .ans_valid_i  (ans_valid),
    .ans_src_i    (ans_src),
    .ans_seq_i    (ans_seq),
    .ans_nack_i   (ans_nack),
    .ans_reject_i (ans_reject),
    .retx_valid_o (retx_valid),
    .retx_ready_i (retx_ready),
    .retx_idx_o   (retx_idx),
    .retx_tag_o   (retx_tag),
    .retx_dest_o  (retx_dest_unused),
    .retx_seq_o   (retx_seq_unused),
    .retx_tries_o (retx_tries_unused),
    .lag_dest_i   (6'd0),
    .lag_o        (lag_unused),
    .done_sel_en_i(1'b0),
    .done_sel_i   ('0),
    .done_valid_o (done_valid),
    .done_ready_i (done_ready),
    .done_idx_o   (done_idx),
    .done_tag_o   (done_tag),
    .done_res_o   (done_res),
    .timeouts_o   (timeouts),
    .retx_o       (retx_ev),
    .stray_o      (stray)
  );

  // receiver
  logic        q_valid = 1'b0, dup, evict;
  logic [31:0] q_msg = '0;
  logic        ins_valid = 1'b0, cpl_valid = 1'b0;
  logic [31:0] ins_msg = '0, cpl_msg = '0;
  logic        out_valid, out_ready = 1'b1, out_last, ack_sent, nack_sent;
  logic [63:0] out_data;
  logic [1:0]  drops;

  // Sized for this test's completion rate (~one message per 35 cycles) times the hold
  // time (3072 cycles): ~90 keys. With 32 entries it evicts and delivers messages twice
  // (RELIABILITY.md: the filter must hold rate x hold-time keys).
  ddc_rx_dup_filter #(
    .ENTRIES  (128),
    .TICK_LOG2(TickLog2)
  ) u_dup (
    .clk_i         (clk),
    .rst_ni        (rst_n),
    .flush_i       (1'b0),
    .hold_i        (16'(Hold)),
    .query_valid_i (q_valid),
    .query_src_i   (Snd),
    .query_msg_i   (q_msg),
    .dup_o         (dup),
    .insert_valid_i(ins_valid),
    .insert_src_i  (Snd),
    .insert_msg_i  (ins_msg),
    .evict_o       (evict)
  );

  ddc_ack_gen #(
    .QDEPTH(8)
  ) u_ack (
    .clk_i         (clk),
    .rst_ni        (rst_n),
    .node_id_i     (Rcv),
    .cpl_valid_i   (cpl_valid),
    .cpl_src_i     (Snd),
    .cpl_msg_id_i  (cpl_msg),
    .nack_valid_i  (1'b0),
    .nack_src_i    (16'h0),
    .nack_msg_id_i (32'h0),
    .reject_valid_i(1'b0),
    .reject_src_i  (16'h0),
    .reject_msg_i  (32'h0),
    .reject_cause_i(8'h0),
    .out_valid_o   (out_valid),
    .out_ready_i   (out_ready),
    .out_data_o    (out_data),
    .out_last_o    (out_last),
    .ack_sent_o    (ack_sent),
    .nack_sent_o   (nack_sent),
    .drops_o       (drops)
  );

`include "ddc_tb_check.svh"
`include "ddc_tb_ans_crc.svh"

  // Per message (seq): deliveries, whether ended, result, ACKs that reached the sender.
  int delivered[NMsg];
  int ended[NMsg];
  int result[NMsg];
  int acks_in[NMsg];

  // Events in flight, by arrival cycle: messages to the receiver, ACKs to the sender. A
  // calendar of 128 cycles (delays are < 64); an event whose cycle is taken goes to the
  // next free one.
  localparam int Cal = 128;
  int rcv_cal[Cal];   // seq, or -1
  int snd_cal[Cal];

  // TX path model: one message leaving at a time, 20 cycles each.
  int tx_q[$];      // entry indices waiting to leave
  int tx_busy = 0;
  int tx_idx = 0;
  int idx_seq[Entries];

  function automatic void push_rcv(int at, int seq);
    int i = at;
    while (rcv_cal[i % Cal] >= 0) i++;
    rcv_cal[i % Cal] = seq;
  endfunction

  function automatic void push_snd(int at, int seq);
    int i = at;
    while (snd_cal[i % Cal] >= 0) i++;
    snd_cal[i % Cal] = seq;
  endfunction

  int now = 0, next_seq = 0, n_ended = 0, n_lost_msg = 0, n_lost_ack = 0;
  int n_retx = 0, n_stray = 0, n_evict = 0, n_drop = 0, n_exh = 0;
  logic [63:0] flits[$];

  always @(posedge clk) begin
    n_retx  += int'(retx_ev);
    n_stray += int'(stray);
    n_evict += int'(evict);
    n_drop  += int'(drops);
  end

  initial begin
    for (int i = 0; i < NMsg; i++) begin
      delivered[i] = 0; ended[i] = 0; result[i] = -1; acks_in[i] = 0;
    end
    for (int i = 0; i < Cal; i++) begin
      rcv_cal[i] = -1;
      snd_cal[i] = -1;
    end
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    @(negedge clk);

    while (n_ended < NMsg) begin
      alloc_valid = (next_seq < NMsg);
      alloc_seq   = 16'(next_seq);
      sent_valid  = 1'b0;
      q_valid     = 1'b0;
      ins_valid   = 1'b0;
      cpl_valid   = 1'b0;
      ans_valid   = 1'b0;
      // TX path: a message finishes leaving.
      if (tx_busy == 1) begin
        sent_valid = 1'b1;
        sent_idx   = 4'(tx_idx);
      end
      // A message arrives at the receiver.
      if (rcv_cal[now % Cal] >= 0) begin
        q_valid = 1'b1;
        q_msg   = 32'(rcv_cal[now % Cal]);
        rcv_cal[now % Cal] = -1;
      end
      // An ACK arrives at the sender.
      if (snd_cal[now % Cal] >= 0) begin
        ans_valid = 1'b1;
        ans_src   = Rcv;
        ans_seq   = 16'(snd_cal[now % Cal]);
        snd_cal[now % Cal] = -1;
      end
      #1;
      if (alloc_valid && alloc_ready) begin
        idx_seq[alloc_idx] = next_seq;
        tx_q.push_back(int'(alloc_idx));
        next_seq++;
      end
      if (retx_valid && retx_ready) begin
        `CHECK(int'(retx_tag) == idx_seq[retx_idx], "retransmission tag")
        tx_q.push_back(int'(retx_idx));
      end
      if (sent_valid) begin
        // The copy is on the network; a quarter are lost.
        if ($urandom_range(0, 3) == 0) n_lost_msg++;
        else push_rcv(now + $urandom_range(10, 40), idx_seq[tx_idx]);
      end
      if (tx_busy > 0) tx_busy--;
      if (tx_busy == 0 && tx_q.size() > 0) begin
        tx_idx  = tx_q.pop_front();
        tx_busy = 20;
      end
      if (q_valid) begin
        // Receiver: a duplicate is acknowledged again, never delivered again.
        if (!dup) begin
          delivered[int'(q_msg)]++;
          ins_valid = 1'b1;
          ins_msg   = q_msg;
        end
        cpl_valid = 1'b1;
        cpl_msg   = q_msg;
      end
      if (ans_valid) begin
        acks_in[int'(ans_seq)]++;
      end
      if (done_valid && done_ready) begin
        int s;
        s = int'(done_tag);
        `CHECK(ended[s] == 0, $sformatf("message %0d ended twice", s))
        ended[s]++;
        result[s] = int'(done_res);
        `CHECK(done_res != 2'd0 || delivered[s] > 0, $sformatf("message %0d OK, not delivered", s))
        `CHECK(done_res != 2'd0 || acks_in[s] > 0, $sformatf("message %0d OK without an ACK", s))
        `CHECK(done_res != 2'd2, "REJECTED without a reject")
        if (done_res == 2'd1) n_exh++;
        n_ended++;
      end
      // ACK packets on the way back: parse, check, lose a quarter.
      if (out_valid && out_ready) begin
        flits.push_back(out_data);
        if (out_last) begin
          logic [63:0] w [3];
          pkt_hdr_w0_t w0;
          pkt_hdr_w2_t w2;
          pkt_trl_t    t;
          for (int i = 0; i < 3; i++) w[i] = flits[i];
          w0 = w[0]; w2 = w[2]; t = flits[3];
          `CHECK(flits.size() == 4 && t.crc == crc_ref(w), "ACK packet framing or CRC")
          `CHECK(w0.ptype == PTYPE_ACK && w0.dest == Snd && w0.src == Rcv, "ACK header")
          if ($urandom_range(0, 3) == 0) n_lost_ack++;
          else push_snd(now + $urandom_range(10, 40), int'(w2.msg_id));
          flits.delete();
        end
      end
      @(negedge clk);
      now++;
      if (now > NMsg * 200) begin
        `CHECK(0, $sformatf("hang: %0d of %0d ended", n_ended, NMsg))
        break;
      end
    end

    for (int i = 0; i < NMsg; i++) begin
      `CHECK(delivered[i] <= 1, $sformatf("message %0d delivered %0d times", i, delivered[i]))
      `CHECK(ended[i] == 1, $sformatf("message %0d ended %0d times", i, ended[i]))
    end
    `CHECK(n_evict == 0, "dup filter evicted a key within its hold time")
    `CHECK(n_lost_msg > NMsg / 10 && n_lost_ack > NMsg / 10 && n_retx > NMsg / 4,
           "too little loss to mean anything")
    `CHECK(n_exh < NMsg / 50, $sformatf("%0d messages exhausted their retries", n_exh))
    $display("loop: %0d messages, %0d copies and %0d ACKs lost, %0d retransmissions, %0d strays, %0d exhausted, %0d answer drops, %0d cycles",
             NMsg, n_lost_msg, n_lost_ack, n_retx, n_stray, n_exh, n_drop, now);
    tb_verdict();
    $finish;
  end

endmodule
