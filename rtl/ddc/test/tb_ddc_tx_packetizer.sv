// Checks ddc_tx_packetizer: random jobs (lengths, both alignments, header fields) against a
// payload word stream, random job/payload gaps and receiver credit stalls. Every packet's
// flits (header fields, realigned payload, CRC trailer, last/err framing) are compared with
// a reference; credits are never exceeded; pkt_sent/msg_done pulse per trailer / last
// packet. With everything available, consecutive packets leave with no idle cycle. A flush
// mid-packet ends it with one EEP flit; a flush between packets sends none; queued jobs are
// discarded while draining and the next packets are intact. A payload word flagged with a
// read error (pbuf_err_i): its packet keeps its header and length but ends with EEP instead
// of the trailer, the message's later packets never reach the link (their words are still
// consumed), and the message's msg_done comes with msg_err; the next message is intact.
// Answer packets (ACK/NACK, 4 flits from the receive side) offered at random: each leaves
// whole, in order, unchanged, never inside a data packet, under the same credits, and a
// flush does not cut one. The sequence fields (seq, lag, attempt) travel from each job into
// its header, and every msg_done reports its message's retx flag and rel table entry, and
// its completion record. Two messages' packets interleaved (TX_QUANTUM segments of two
// contexts), either or both cut by a read error: only the cut message's later packets are
// skipped, the other one arrives whole.
module tb_ddc_tx_packetizer;
  import fasthsl_pkg::*;
  import fasthsl_link_pkg::*;

  localparam int RxDepth = 8;

  logic        clk = 1'b0;
  logic        rst_n = 1'b0;
  logic        run = 1'b0;
  logic        flush = 1'b0, drain = 1'b0;
  logic [15:0] node_id = 16'h0ABC;
  logic        job_valid = 1'b0, job_ready;
  logic [15:0] job_dest = '0;
  logic [7:0]  job_flags = '0;
  logic        job_first = 1'b0, job_last = 1'b0;
  logic [10:0] job_len = '0;
  logic [79:0] job_remote = '0;   // {key, word 1}: the key is the msg_id's low half here
  logic [31:0] job_msg_id = '0, job_offset = '0;
  logic [2:0]  job_src_off = '0;
  logic [7:0]  job_seq = '0;
  logic [3:0]  job_lag = '0, job_ridx = '0, msg_ridx;
  logic [1:0]  job_attempt = '0;
  logic        job_retx = 1'b0, msg_retx;
  logic [4:0]  job_rec = '0, msg_rec;
  // The message key the next packets carry (else random per packet).
  bit          use_cur = 1'b0;
  logic        cur_retx = 1'b0;
  logic [3:0]  cur_ridx = '0;
  logic [4:0]  cur_rec = '0;
  logic        pbuf_valid = 1'b0, pbuf_ready;
  logic [63:0] pbuf_data = '0;
  logic        pbuf_err = 1'b0;
  link_flit_t  tx_flit;
  logic        tx_credit = 1'b0;
  logic        pkt_sent, msg_done, msg_err, idle;
  logic        ans_valid = 1'b0, ans_ready, ans_last = 1'b0;
  logic [63:0] ans_data = '0;

  always #5 clk = ~clk;

  ddc_tx_packetizer #(
    .JobDepth(4),
    .CreditW (5)
  ) dut (
    .clk_i        (clk),
    .rst_ni       (rst_n),
    .flush_i      (flush),
    .drain_i      (drain),
    .node_id_i    (node_id),
    .job_valid_i  (job_valid),
    .job_ready_o  (job_ready),
    .job_dest_i   (job_dest),
    .job_flags_i  (job_flags),
    .job_first_i  (job_first),
    .job_last_i   (job_last),
    .job_len_i    (job_len),
    .job_remote_i (job_remote),
    .job_msg_id_i (job_msg_id),
    .job_offset_i (job_offset),
    .job_src_off_i(job_src_off),
    .job_seq_i    (job_seq),
    .job_lag_i    (job_lag),
    .job_attempt_i(job_attempt),
    .job_retx_i   (job_retx),
    .job_ridx_i   (job_ridx),
    .job_rec_i    (job_rec),
    .pbuf_valid_i (pbuf_valid),
    .pbuf_ready_o (pbuf_ready),
    .pbuf_data_i  (pbuf_data),
    .pbuf_err_i   (pbuf_err),
    .ans_valid_i  (ans_valid),
    .ans_ready_o  (ans_ready),
    .ans_data_i   (ans_data),
    .ans_last_i   (ans_last),
    .tx_flit_o    (tx_flit),
    .tx_credit_i  (tx_credit),
    .pkt_sent_o   (pkt_sent),
    .msg_done_o   (msg_done),
    .msg_err_o    (msg_err),
    .msg_retx_o   (msg_retx),
    .msg_ridx_o   (msg_ridx),
    .msg_rec_o    (msg_rec),
    .idle_o       (idle)
  );

  typedef struct packed {
    logic [15:0] dest;
    logic [7:0]  flags;
    logic        first;
    logic        last;
    logic [10:0] len;
    logic [63:0] remote;
    logic [31:0] msg_id;
    logic [31:0] offset;
    logic [2:0]  src_off;
    logic [31:0] base;    // first byte in all_bytes
    logic        bad;     // one of its words carries a read error: ends with EEP
    logic [7:0]  seq;
    logic [3:0]  lag;
    logic [1:0]  attempt;
    logic        retx;
    logic [3:0]  ridx;
    logic [4:0]  rec;
  } pkt_t;

  logic [9:0]  done_exp[$];   // {retx, ridx, rec} of each message's last packet, in order

  pkt_t        to_send[$];     // jobs not yet offered
  pkt_t        expect_q[$];    // packets expected on the link
  logic [63:0] words[$];       // payload buffer contents
  bit          werr[$];        // ... and their read-error flags
  int          cut_msgs = 0, msg_err_n = 0, cut_pkts = 0;
  logic [7:0]  all_bytes[$];

  int     errors = 0;
  longint cycle = 0;
  int     p_job = 100, p_pbuf = 100, p_rx = 100;
  int     credits_given = 0, flits = 0, rx_fill = 0, credit_debt = 0;
  int     pkt_sent_n = 0, trl_n = 0, msg_done_n = 0, last_n = 0;
  bit     eep_expected = 0;
  int     eep_n = 0;
  longint busy_first = -1, busy_last = 0, busy_flits = 0;
  logic [63:0] cur[$];
  // answers: offered (ans_src, 4 flits each), expected on the link (ans_exp)
  logic [63:0] ans_src[$], ans_exp[$];
  int          ans_beat = 0, ans_out_beat = 0, p_ans = 0, ans_n = 0;

  function automatic void add_answer();
    pkt_hdr_w0_t w0 = '{rsvd62: 2'b00, dctx: 3'd0, len: 11'h0, lag: 4'($urandom()), flags: 4'($urandom()),
                        attempt: 2'($urandom()), last: 1'b1,
                        first: 1'b1, ptype: 4'($urandom_range(1, 3)), src: 16'h0ABC,
                        dest: 16'($urandom())};
    logic [63:0] f[4] = '{w0, 64'h0, {$urandom(), $urandom()}, {32'h0, $urandom()}};
    for (int i = 0; i < 4; i++) begin
      ans_src.push_back(f[i]);
      ans_exp.push_back(f[i]);
    end
  endfunction

  task automatic fail(string m);
    $display("FAIL @%0d: %s", cycle, m);
    errors++;
    if (errors > 10) $fatal(1, "tb_ddc_tx_packetizer: too many errors");
  endtask

  function automatic logic [31:0] crc_byte(logic [31:0] c, logic [7:0] b);
    c = c ^ {24'h0, b};
    for (int k = 0; k < 8; k++) c = c[0] ? ((c >> 1) ^ 32'hEDB8_8320) : (c >> 1);
    return c;
  endfunction

  // bad_word: index of a word with a read error (-1: none); skip: a packet after the cut.
  task automatic add_packet(int s, int r, int len, bit first, bit last, int bad_word = -1,
                            bit skip = 0);
    pkt_t p;
    int   n = (s + len + 7) / 8;
    logic [7:0] raw[$];
    for (int k = 0; k < 8 * n; k++) raw.push_back(8'($urandom()));
    p.dest = 16'($urandom()); p.flags = 8'($urandom()); p.first = first; p.last = last;
    p.len = 11'(len);
    // Word 1 of a descriptor: remote address in 47:0, destination context in 50:48.
    p.remote = {13'h0, 3'($urandom()), 16'($urandom()), $urandom()};
    p.remote[2:0] = 3'(r);
    p.msg_id = $urandom(); p.offset = 32'($urandom_range(0, MSG_LEN_MAX - 1)); p.src_off = 3'(s);
    p.base = 32'(all_bytes.size());
    p.bad = (bad_word >= 0);
    p.seq = 8'($urandom()); p.lag = 4'($urandom()); p.attempt = 2'($urandom());
    p.retx = 1'($urandom()); p.ridx = 4'($urandom()); p.rec = 5'($urandom());
    if (use_cur) begin
      p.retx = cur_retx; p.ridx = cur_ridx; p.rec = cur_rec;
    end
    if (last) done_exp.push_back({p.retx, p.ridx, p.rec});
    for (int k = 0; k < len; k++) all_bytes.push_back(raw[s + k]);
    for (int w = 0; w < n; w++) begin
      logic [63:0] x;
      for (int k = 0; k < 8; k++) x[k*8 +: 8] = raw[8 * w + k];
      words.push_back(x);
      werr.push_back(w == bad_word);
    end
    to_send.push_back(p);
    if (!skip) expect_q.push_back(p);
  endtask

  task automatic check_packet();
    pkt_t        p;
    pkt_hdr_w0_t w0;
    logic [31:0] crc;
    int          m, base;
    if (expect_q.size() == 0) begin
      fail("unexpected packet");
      return;
    end
    p = expect_q.pop_front();
    m = (int'(p.remote[2:0]) + int'(p.len) + 7) / 8;
    base = int'(p.base);
    if (cur.size() != m + 4) begin
      fail($sformatf("packet of %0d flits, want %0d", cur.size(), m + 4));
      return;
    end
    w0 = cur[0];
    // DESC_FLAG_BCAST in the job's flags makes a broadcast packet.
    if (w0.dest !== p.dest || w0.src !== node_id ||
        w0.ptype !== (p.flags[DESC_FLAG_BCAST_BIT] ? PTYPE_BCAST : PTYPE_WRITE) || w0.first !== p.first ||
        w0.last !== p.last || w0.flags !== p.flags[3:0] || w0.len !== 11'(p.len) || w0.attempt !== p.attempt || w0.lag !== p.lag ||
        w0.dctx !== p.remote[50:48] || w0.rsvd62 !== '0) begin
      fail($sformatf("bad w0 %h", cur[0]));
    end
    if (cur[1] !== {p.msg_id[15:0], p.remote[47:0]}) fail("bad w1");
    if (cur[2] !== {p.seq, p.offset[23:0], p.msg_id}) fail("bad w2");
    if (p.bad) begin
      // Cut by a read error: full length, EEP instead of the trailer; no CRC to check.
      cut_pkts++;
      return;
    end
    for (int i = 0; i < m; i++) begin
      logic [63:0] want;
      for (int b = 0; b < 8; b++) begin
        int pos = 8 * i + b - int'(p.remote[2:0]);
        want[b*8 +: 8] = (pos >= 0 && pos < int'(p.len)) ? all_bytes[base + pos] : 8'h00;
      end
      if (cur[3 + i] !== want) begin
        fail($sformatf("s=%0d r=%0d len=%0d flit %0d: %h want %h", p.src_off, p.remote[2:0], p.len, i, cur[3 + i], want));
        break;
      end
    end
    crc = '1;
    for (int f = 0; f < m + 3; f++) for (int b = 0; b < 8; b++) crc = crc_byte(crc, cur[f][b*8 +: 8]);
    if (cur[m + 3] !== {32'h0, ~crc}) fail($sformatf("trailer %h want crc %h", cur[m + 3], ~crc));
    if (p.last) last_n++;
  endtask

  // Drive at negedge, sample before posedge.
  always begin
    @(negedge clk);
    job_valid = (to_send.size() != 0) && !drain && ($urandom_range(0, 99) < p_job);
    if (to_send.size() != 0) begin
      job_dest = to_send[0].dest; job_flags = to_send[0].flags; job_first = to_send[0].first;
      job_last = to_send[0].last; job_len = to_send[0].len; job_remote = {to_send[0].msg_id[15:0], to_send[0].remote};
      job_msg_id = to_send[0].msg_id; job_offset = to_send[0].offset; job_src_off = to_send[0].src_off;
      job_seq = to_send[0].seq; job_lag = to_send[0].lag; job_attempt = to_send[0].attempt;
      job_retx = to_send[0].retx; job_ridx = to_send[0].ridx; job_rec = to_send[0].rec;
    end
    pbuf_valid = (words.size() != 0) && ($urandom_range(0, 99) < p_pbuf);
    pbuf_data  = (words.size() != 0) ? words[0] : 64'hx;
    pbuf_err   = (words.size() != 0) ? werr[0] : 1'b0;
    // like ddc_ack_gen: once an answer has started, valid stays up until its last flit
    ans_valid = (ans_src.size() != 0) && (ans_beat != 0 || $urandom_range(0, 99) < p_ans);
    ans_data  = (ans_src.size() != 0) ? ans_src[0] : 64'hx;
    ans_last  = (ans_beat == 3);
    tx_credit = 1'b0;
    if (credit_debt > 0) begin
      credit_debt--; tx_credit = 1'b1; credits_given++;
    end else if (rx_fill > 0 && $urandom_range(0, 99) < p_rx) begin
      rx_fill--; tx_credit = 1'b1; credits_given++;
    end
    #4;
    if (run) begin
      if (job_valid && job_ready) void'(to_send.pop_front());
      if (ans_valid && ans_ready) begin
        void'(ans_src.pop_front());
        ans_beat = (ans_beat + 1) % 4;
      end
      if (pbuf_valid && (pbuf_ready || drain)) begin
        void'(words.pop_front());
        void'(werr.pop_front());
      end
      if (pkt_sent) pkt_sent_n++;
      if (msg_done) begin
        msg_done_n++;
        if (done_exp.size() == 0) fail("msg_done without a last packet");
        else if ({msg_retx, msg_ridx, msg_rec} !== done_exp.pop_front()) fail("msg_done: wrong retx/ridx/rec");
      end
      if (msg_err && !msg_done) fail("msg_err without msg_done");
      if (msg_err) msg_err_n++;
      if (tx_flit.valid) begin
        flits++;
        rx_fill++;
        if (flits > credits_given) fail("flit without credit");
        if (busy_first < 0) busy_first = cycle;
        busy_last = cycle;
        busy_flits++;
        if (ans_out_beat != 0 || (cur.size() == 0 && !eep_expected &&
                                  tx_flit.data[35:32] inside {PTYPE_ACK, PTYPE_NACK,
                                                              PTYPE_NACK_REJECT})) begin
          // an answer: the next expected answer flit, whole, nothing inside it
          if (ans_exp.size() == 0) fail("unexpected answer flit");
          else if (tx_flit.data !== ans_exp[0] || tx_flit.err ||
                   tx_flit.last !== (ans_out_beat == 3)) fail($sformatf(
                   "answer flit %0d: %h last %0b, want %h", ans_out_beat, tx_flit.data,
                   tx_flit.last, ans_exp[0]));
          if (ans_exp.size() != 0) void'(ans_exp.pop_front());
          ans_out_beat = (ans_out_beat + 1) % 4;
          if (ans_out_beat == 0) ans_n++;
        end else if (eep_expected) begin
          if (!(tx_flit.last && tx_flit.err && tx_flit.data == '0)) fail("expected EEP");
          eep_expected = 0;
          eep_n++;
          cur.delete();
        end else if (tx_flit.err && tx_flit.last && expect_q.size() != 0 && expect_q[0].bad) begin
          cur.push_back(tx_flit.data);
          check_packet();
          cur.delete();
        end else begin
          if (tx_flit.err) fail("unexpected err");
          if (tx_flit.last && expect_q.size() != 0 && expect_q[0].bad) fail("cut packet ended with a trailer");
          cur.push_back(tx_flit.data);
          if (tx_flit.last) begin
            trl_n++;
            check_packet();
            cur.delete();
          end
        end
      end
      if (flush) begin
        if (cur.size() != 0) eep_expected = 1;
      end
    end
    @(posedge clk);
    cycle++;
  end

  task automatic wait_done(int limit);
    int t = 0;
    while ((expect_q.size() != 0 || words.size() != 0 || ans_exp.size() != 0) && t < limit) begin
      @(negedge clk);
      t++;
    end
    if (t >= limit) fail($sformatf("timeout, %0d packets left", expect_q.size()));
    repeat (10) @(negedge clk);
  endtask

  // Flush as the top does: one pulse, then drain until the job queue is empty, dropping
  // the source's remaining jobs and words.
  task automatic do_flush();
    @(negedge clk);
    flush = 1'b1; drain = 1'b1;
    @(negedge clk);
    flush = 1'b0;
    to_send.delete();
    words.delete();
    werr.delete();
    expect_q.delete();
    done_exp.delete();
    while (!idle) @(negedge clk);
    @(negedge clk);
    drain = 1'b0;
  endtask

  initial begin
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    run = 1'b1;
    credit_debt = RxDepth;
    repeat (RxDepth + 2) @(negedge clk);
    p_ans = 3;
    for (int i = 0; i < 2000; i++) add_answer();

    // Every alignment pair, short and long.
    for (int s = 0; s < 8; s++) for (int r = 0; r < 8; r++) begin
      add_packet(s, r, $urandom_range(1, 20), 1, 0);
      add_packet(s, r, $urandom_range(100, 1024), 0, 1);
    end
    wait_done(100000);
    // Random with stalls everywhere.
    p_job = 50; p_pbuf = 60; p_rx = 50;
    for (int i = 0; i < 300; i++) begin
      add_packet($urandom_range(0, 7), $urandom_range(0, 7),
                 ($urandom_range(0, 3) == 0) ? $urandom_range(1, 1024) : $urandom_range(1, 64),
                 ($urandom_range(0, 1) != 0), ($urandom_range(0, 1) != 0));
    end
    wait_done(400000);
    if (pkt_sent_n != trl_n) fail($sformatf("pkt_sent %0d, trailers %0d", pkt_sent_n, trl_n));
    if (msg_done_n != last_n) fail($sformatf("msg_done %0d, last packets %0d", msg_done_n, last_n));

    // No bubbles: payload already buffered, receiver always ready.
    p_job = 100; p_pbuf = 100; p_rx = 100;
    for (int i = 0; i < 20; i++) add_packet($urandom_range(0, 7), $urandom_range(0, 7), $urandom_range(1, 300), 1, 1);
    busy_first = -1; busy_flits = 0;
    wait_done(100000);
    $display("back-to-back: %0d flits in %0d cycles", busy_flits, busy_last - busy_first + 1);
    if (busy_flits != busy_last - busy_first + 1) fail("idle cycles between packets");

    // Messages of 1..4 packets, some cut by a read error in a random word of a random
    // packet; a clean message between them checks that nothing leaks into the next one.
    p_job = 70; p_pbuf = 70; p_rx = 60;
    msg_done_n = 0; last_n = 0; pkt_sent_n = 0; trl_n = 0;
    use_cur = 1'b1;
    for (int mi = 0; mi < 120; mi++) begin
      int np = $urandom_range(1, 4);
      int bad_pkt = ($urandom_range(0, 99) < 50) ? $urandom_range(0, np - 1) : -1;
      if (bad_pkt >= 0) cut_msgs++;
      cur_retx = ($urandom_range(0, 1) != 0); cur_ridx = 4'($urandom()); cur_rec = 5'($urandom());
      for (int k = 0; k < np; k++) begin
        int s = $urandom_range(0, 7), len = $urandom_range(1, 300);
        int bw = (k == bad_pkt) ? $urandom_range(0, (s + len + 7) / 8 - 1) : -1;
        add_packet(s, $urandom_range(0, 7), len, k == 0, k == np - 1, bw,
                   bad_pkt >= 0 && k > bad_pkt);
      end
    end
    // Two messages interleaved packet by packet, with different keys (a first transmission
    // by record slot, the other a first transmission or a retransmission).
    use_cur = 1'b1;
    for (int mi = 0; mi < 120; mi++) begin
      int np[2], bad_pkt[2], k[2];
      logic       rx[2];
      logic [3:0] ri[2];
      logic [4:0] rc[2];
      rx[0] = 1'b0; ri[0] = 4'($urandom()); rc[0] = 5'(2 * mi);
      rx[1] = ($urandom_range(0, 1) != 0); ri[1] = 4'(mi); rc[1] = 5'(2 * mi + 1);
      for (int m = 0; m < 2; m++) begin
        np[m] = $urandom_range(1, 4);
        bad_pkt[m] = ($urandom_range(0, 99) < 40) ? $urandom_range(0, np[m] - 1) : -1;
        if (bad_pkt[m] >= 0) cut_msgs++;
        k[m] = 0;
      end
      while (k[0] < np[0] || k[1] < np[1]) begin
        int m = (k[0] >= np[0]) ? 1 : (k[1] >= np[1]) ? 0 : $urandom_range(0, 1);
        int s = $urandom_range(0, 7), len = $urandom_range(1, 300);
        int bw = (k[m] == bad_pkt[m]) ? $urandom_range(0, (s + len + 7) / 8 - 1) : -1;
        cur_retx = rx[m]; cur_ridx = ri[m]; cur_rec = rc[m];
        add_packet(s, $urandom_range(0, 7), len, k[m] == 0, k[m] == np[m] - 1, bw,
                   bad_pkt[m] >= 0 && k[m] > bad_pkt[m]);
        k[m]++;
      end
    end
    use_cur = 1'b0;
    wait_done(400000);
    $display("read errors: %0d messages cut, %0d EEP-ended packets", cut_msgs, cut_pkts);
    if (cut_pkts != cut_msgs) fail($sformatf("%0d cut packets, %0d cut messages", cut_pkts, cut_msgs));
    if (msg_err_n != cut_msgs) fail($sformatf("msg_err %0d, cut messages %0d", msg_err_n, cut_msgs));
    if (msg_done_n != last_n + cut_msgs) fail($sformatf("msg_done %0d, want %0d", msg_done_n, last_n + cut_msgs));
    if (pkt_sent_n != trl_n) fail($sformatf("pkt_sent %0d, trailers %0d (cut)", pkt_sent_n, trl_n));

    // Flushes at random points (also between packets and before anything was sent).
    for (int k = 0; k < 40; k++) begin
      p_rx = (k % 2 == 0) ? 100 : 30;
      for (int i = 0; i < 6; i++) add_packet($urandom_range(0, 7), $urandom_range(0, 7), $urandom_range(1, 400), 1, 1);
      repeat ($urandom_range(0, 250)) @(negedge clk);
      do_flush();
      repeat (5) @(negedge clk);
      // Whatever comes next must be clean.
      for (int i = 0; i < 2; i++) add_packet($urandom_range(0, 7), $urandom_range(0, 7), $urandom_range(1, 100), 1, 1);
      wait_done(100000);
    end
    // answers alone, then the rest of them
    p_ans = 100;
    wait_done(100000);
    $display("answers: %0d sent", ans_n);
    if (ans_n != 2000) fail($sformatf("%0d of 2000 answers sent", ans_n));
    $display("flushes: %0d EEP flits", eep_n);
    if (eep_n == 0) fail("no flush hit a packet in flight");
    if (errors != 0) $fatal(1, "tb_ddc_tx_packetizer: %0d errors", errors);
    $display("tb_ddc_tx_packetizer: %0d packets PASS", trl_n);
    $finish;
  end
endmodule
