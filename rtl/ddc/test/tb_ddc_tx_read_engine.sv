// Checks ddc_tx_read_engine with a small (64-word) payload buffer model: descriptor
// checking (zero length, too long, destination range; MSG_LEN_MAX itself is fine; the
// codes come from ddc_tx_desc_check here as in ddc_tx, against the tb's own model),
// completion records in descriptor order, packet jobs (length, offsets, addresses,
// first/last, source lane), and payload reads: exactly the words of each packet, in order,
// maximal chunks of <= 32 beats that never cross 256 bytes, and never more beats requested
// than the buffer has free (count + in flight <= depth at all times). Bad descriptors
// issue no job and no read. Random stalls on every interface; enable gating; flush
// mid-message.
// Inline descriptors: from the ring (<= 8 bytes in local_addr) or pushed (<= 64 bytes,
// words 1..7 from the push window): their words go into the buffer in order, only when
// no read beat is owed, with no DMA read; too long fails with INLINE_LEN; the push window
// is released exactly once per pushed descriptor, after its last inline word.
// Sequence fields (seq, lag, attempt) go from each descriptor into all its jobs. Some
// descriptors are retransmissions (desc_retx_i): they get no completion record, their jobs
// carry retx and the rel entry, and one that fails its checks (or comes with desc_bad_i)
// raises rfail with its entry and sends nothing; they pass while cpl_ready is low.
// Every descriptor here is one whole segment (offset 0, final: TX_QUANTUM segments are
// covered by tb_ddc_tx and tb_ddc_nic); its jobs carry its record slot, and desc_end
// pulses with every take.
module tb_ddc_tx_read_engine;
  import fasthsl_pkg::*;

  localparam int PbufDepth = 64;
  localparam int CntW = $clog2(PbufDepth + 1);

  logic        clk = 1'b0;
  logic        rst_n = 1'b0;
  logic        run = 1'b0;
  logic        flush = 1'b0, drain = 1'b0;
  logic        enable = 1'b1;
  logic [15:0] mtu = 16'd64;
  logic [15:0] dest_lo = 16'd100, dest_hi = 16'd200;
  logic        desc_valid = 1'b0, desc_ready;
  logic [63:0] desc_local = '0;
  logic [79:0] desc_remote = '0;   // {key, word 1}: the key is the msg_id's low half here
  logic [31:0] desc_len = '0, desc_msg_id = '0;
  logic [15:0] desc_dest = '0;
  logic [7:0]  desc_flags = '0;
  logic        cpl_valid, cpl_ready = 1'b0, cpl_irq;
  desc_err_e   cpl_err;
  logic [31:0] cpl_msg_id;
  logic        job_valid, job_ready = 1'b0, job_first, job_last;
  logic [15:0] job_dest;
  logic [7:0]  job_flags;
  logic [10:0] job_len;
  logic [79:0] job_remote;
  logic [31:0] job_msg_id, job_offset;
  logic [2:0]  job_src_off;
  logic        req_valid, req_ready = 1'b0;
  logic [63:0] req_addr;
  logic [5:0]  req_beats;
  logic [CntW-1:0] pbuf_count = '0;
  logic        pbuf_push = 1'b0;
  logic        desc_inline = 1'b0, desc_pushed = 1'b0;
  logic [6:0][63:0] push_data = '0;
  logic        push_release, inl_push;
  logic        inl_landed = 1'b0;   // last cycle's inline word, in the count from now on
  logic [63:0] inl_data;
  logic [7:0]  desc_seq = '0, job_seq;
  logic [3:0]  desc_lag = '0, desc_ridx = '0, job_lag, job_ridx, rfail_idx;
  logic [4:0]  job_rec;
  logic        desc_end;
  logic [1:0]  desc_att = '0, job_att;
  logic        desc_retx = 1'b0, desc_bad = 1'b0, job_retx, rfail_valid;
  desc_err_e   desc_err;

  always #5 clk = ~clk;

  ddc_tx_read_engine #(
    .PbufDepth(PbufDepth)
  ) dut (
    .clk_i        (clk),
    .rst_ni       (rst_n),
    .flush_i      (flush),
    .drain_i      (drain),
    .enable_i     (enable),
    .mtu_i        (mtu),
    .desc_valid_i (desc_valid),
    .desc_ready_o (desc_ready),
    .desc_local_i (desc_local),
    .desc_remote_i(desc_remote),
    .desc_dest_i  (desc_dest),
    .desc_flags_i (desc_flags),
    .desc_msg_id_i(desc_msg_id),
    .desc_inline_i(desc_inline),
    .desc_pushed_i(desc_pushed),
    .desc_seq_i   (desc_seq),
    .desc_lag_i   (desc_lag),
    .desc_attempt_i(desc_att),
    .desc_retx_i  (desc_retx),
    .desc_ridx_i  (desc_ridx),
    .desc_err_i   (desc_err),
    .desc_off_i   ('0),
    .desc_seg_len_i(25'(desc_len)),
    .desc_final_i (1'b1),
    .desc_rec_i   ({1'b1, desc_ridx}),
    .desc_end_o   (desc_end),
    .rfail_valid_o(rfail_valid),
    .rfail_idx_o  (rfail_idx),
    .push_data_i  (push_data),
    .push_release_o(push_release),
    .cpl_valid_o  (cpl_valid),
    .cpl_ready_i  (cpl_ready),
    .cpl_err_o    (cpl_err),
    .cpl_msg_id_o (cpl_msg_id),
    .cpl_irq_o    (cpl_irq),
    .job_valid_o  (job_valid),
    .job_ready_i  (job_ready),
    .job_dest_o   (job_dest),
    .job_flags_o  (job_flags),
    .job_first_o  (job_first),
    .job_last_o   (job_last),
    .job_len_o    (job_len),
    .job_remote_o (job_remote),
    .job_msg_id_o (job_msg_id),
    .job_offset_o (job_offset),
    .job_src_off_o(job_src_off),
    .job_seq_o    (job_seq),
    .job_lag_o    (job_lag),
    .job_attempt_o(job_att),
    .job_retx_o   (job_retx),
    .job_ridx_o   (job_ridx),
    .job_rec_o    (job_rec),
    .req_valid_o  (req_valid),
    .req_ready_i  (req_ready),
    .req_addr_o   (req_addr),
    .req_beats_o  (req_beats),
    .inl_push_o   (inl_push),
    .inl_data_o   (inl_data),
    .pbuf_count_i (pbuf_count),
    .pbuf_push_i  (pbuf_push)
  );

  ddc_tx_desc_check u_check (
    .len_i      (desc_len),
    .remote_w1_i(desc_remote[63:0]),
    .dest_i     (desc_dest),
    .flags_i    (desc_flags),
    .inline_i   (desc_inline),
    .pushed_i   (desc_pushed),
    .bad_i      (desc_bad),
    .dest_lo_i  (dest_lo),
    .dest_hi_i  (dest_hi),
    .err_o      (desc_err)
  );

`include "ddc_tb_desc_err.svh"

  typedef struct packed {
    logic [63:0] l;
    logic [63:0] r;
    logic [31:0] len;
    logic [15:0] dest;
    logic [7:0]  flags;
    logic [31:0] msg_id;
    logic [7:0]  err;
    logic        inl;
    logic        pushed;
    logic [6:0][63:0] words;
    logic [7:0]  seq;
    logic [3:0]  lag;
    logic [1:0]  att;
    logic        retx;
    logic [3:0]  ridx;
    logic        bad;
  } desc_t;

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
    logic [63:0] local_addr;
    logic        inl;
    logic [7:0][63:0] words;   // inline payload words
    logic [18:0] rel;          // {seq, lag, attempt, retx, ridx}
  } job_t;

  typedef struct packed {
    logic [60:0] word;
    logic [31:0] left;
    logic        inl;
    logic [7:0][63:0] words;
  } rd_t;

  desc_t  to_send[$];
  desc_t  exp_cpl[$];
  job_t   exp_job[$];
  rd_t    exp_rd[$];
  longint beat_due[$];   // arrival cycle of each requested beat, in order

  int     errors = 0;
  longint cycle = 0;
  int     p_desc = 100, p_cpl = 100, p_job = 100, p_req = 100, p_pop = 100;
  int     lat = 20;
  int     n_jobs = 0, n_reads = 0, n_bad = 0, n_inl_words = 0, n_pushed = 0, n_release = 0;
  desc_t  push_q[$];   // pushed descriptors not yet released, oldest first
  job_t   m_job;
  rd_t    m_rd;
  desc_t  m_d;
  int     m_room, m_want;

  task automatic fail(string m);
    $display("FAIL @%0d: %s", cycle, m);
    errors++;
    if (errors > 10) $fatal(1, "tb_ddc_tx_read_engine: too many errors");
  endtask

  int bc_pct = 0;    // broadcast descriptors, % (in the random phase)
  int rt_pct = 0;    // retransmissions, % of ring descriptors
  int n_rfail = 0, n_retx = 0;
  logic [3:0] exp_rfail[$];

  // MTU is configuration, changed only while no descriptor is offered (the model cuts
  // each descriptor at the MTU of its add_desc): the engine registers it, and works each
  // packet's cut out a cycle ahead from it, so a change takes effect two cycles later.
  task automatic set_mtu(int v);
    mtu = 16'(v);
    repeat (2) @(negedge clk);
  endtask

  task automatic add_desc(logic [63:0] l, logic [63:0] r, logic [31:0] len, logic [15:0] dest,
                          logic inl = 1'b0, logic pushed = 1'b0);
    desc_t d;
    int    m = int'(mtu < 8 ? 8 : (mtu > MTU_MAX ? MTU_MAX : mtu));
    bit    bc;
    d.l = l; d.r = r; d.len = len; d.dest = dest; d.flags = 8'($urandom()); d.msg_id = $urandom();
    // Broadcasts (DESC_FLAG_BCAST) at bc_pct %: dest is then a range lo | hi << 8,
    // half the time a valid one inside DEST_RANGE; their packets are cut at BCAST_MTU.
    bc = (bc_pct != 0) && ($urandom_range(0, 99) < bc_pct);
    d.flags[DESC_FLAG_BCAST_BIT] = bc;
    if (bc && $urandom_range(0, 1) == 0) begin
      int lo = $urandom_range(int'(dest_lo), int'(dest_hi));
      d.dest = {8'($urandom_range(lo, int'(dest_hi))), 8'(lo)};
    end
    if (bc && m > BCAST_MTU) m = BCAST_MTU;
    d.inl = inl; d.pushed = pushed;
    d.seq = 8'($urandom()); d.lag = 4'($urandom()); d.att = 2'($urandom());
    d.retx = !pushed && (rt_pct != 0) && ($urandom_range(0, 99) < rt_pct);
    d.ridx = 4'($urandom()); d.bad = d.retx && ($urandom_range(0, 4) == 0);
    for (int i = 0; i < 7; i++) d.words[i] = {$urandom(), $urandom()};
    d.err = tb_desc_err(len, r, d.dest, d.flags, inl, pushed, d.bad, dest_lo, dest_hi);
    to_send.push_back(d);
    if (pushed) n_pushed++;
    if (!d.retx) exp_cpl.push_back(d);
    else if (d.err != 0) exp_rfail.push_back(d.ridx);
    if (d.err == 0) begin
      // A huge message only gets its first jobs modelled (the test flushes it early).
      for (int off = 0; off < int'(len) && off < 100000; off += m) begin
        job_t j;
        int   pl = (int'(len) - off < m) ? int'(len) - off : m;
        j.dest = d.dest; j.flags = d.flags; j.first = (off == 0); j.last = (off + pl == int'(len));
        j.len = 11'(pl); j.remote = r + 64'(off); j.msg_id = d.msg_id; j.offset = 32'(off);
        j.local_addr = inl ? 64'(off) : l + 64'(off); j.src_off = j.local_addr[2:0];
        j.inl = inl;
        j.words = {d.words, l};
        j.rel = {d.seq, d.lag, d.att, d.retx, d.ridx};
        exp_job.push_back(j);
      end
    end
  endtask

  always begin
    @(negedge clk);
    desc_valid = (to_send.size() != 0) && ($urandom_range(0, 99) < p_desc);
    if (to_send.size() != 0) begin
      desc_local = to_send[0].l; desc_remote = {to_send[0].msg_id[15:0], to_send[0].r}; desc_len = to_send[0].len;
      desc_dest = to_send[0].dest; desc_flags = to_send[0].flags; desc_msg_id = to_send[0].msg_id;
      desc_inline = to_send[0].inl; desc_pushed = to_send[0].pushed;
      desc_seq = to_send[0].seq; desc_lag = to_send[0].lag; desc_att = to_send[0].att;
      desc_retx = to_send[0].retx; desc_ridx = to_send[0].ridx; desc_bad = to_send[0].bad;
    end
    push_data = (push_q.size() != 0) ? push_q[0].words : '0;
    cpl_ready = ($urandom_range(0, 99) < p_cpl);
    job_ready = ($urandom_range(0, 99) < p_job);
    req_ready = ($urandom_range(0, 99) < p_req);
    // Payload buffer: last cycle's beat lands, the consumer pops at random; then the next
    // beat is offered if due (one per cycle).
    if (pbuf_push) begin
      pbuf_count = pbuf_count + 1'b1;
      void'(beat_due.pop_front());
    end
    if (inl_landed) pbuf_count = pbuf_count + 1'b1;
    if (pbuf_count != 0 && $urandom_range(0, 99) < p_pop) pbuf_count = pbuf_count - 1'b1;
    if (run && 32'(pbuf_count) + 32'(beat_due.size()) > PbufDepth) fail("payload buffer over-reserved");
    pbuf_push = (beat_due.size() != 0) && (beat_due[0] <= cycle);
    #4;
    // An inline word is sampled as the engine decides it, on this cycle's inputs (the
    // count just updated: sampled before the update, it was a decision made on the count
    // without the beat that had just landed, which the engine never takes), and counted
    // from the next cycle on, as the payload FIFO's count_q has it.
    inl_landed = inl_push && run;
    if (run) begin

      if (desc_valid && desc_ready) begin
        if (!enable) fail("descriptor taken while disabled");
        if (to_send[0].retx) n_retx++;
        if (to_send[0].pushed) push_q.push_back(to_send[0]);
        void'(to_send.pop_front());
      end
      if (push_release) begin
        if (push_q.size() == 0) fail("push window released with nothing held");
        else void'(push_q.pop_front());
        n_release++;
      end
      if (cpl_valid && !desc_valid) fail("completion record without descriptor");
      if ((cpl_valid && cpl_ready) != (desc_valid && desc_ready && !desc_retx)) fail("completion record and descriptor out of step");
      if (desc_end != (desc_valid && desc_ready)) fail("desc_end is not the take of a whole message");
      if (rfail_valid) begin
        n_rfail++;
        if (!(desc_valid && desc_ready && desc_retx)) fail("rfail without a retransmission taken");
        if (exp_rfail.size() == 0) fail("unexpected rfail");
        else if (rfail_idx !== exp_rfail.pop_front()) fail("rfail: wrong entry");
      end
      if (cpl_valid && cpl_ready) begin
        if (exp_cpl.size() == 0) fail("unexpected completion record");
        else begin
          m_d = exp_cpl.pop_front();
          if (8'(cpl_err) !== m_d.err || cpl_msg_id !== m_d.msg_id || cpl_irq !== m_d.flags[0]) begin
            fail($sformatf("completion err %0d id %h irq %b, want %0d %h %b", cpl_err, cpl_msg_id, cpl_irq,
                           m_d.err, m_d.msg_id, m_d.flags[0]));
          end
          if (m_d.err != 0) n_bad++;
        end
      end
      if (job_valid && job_ready) begin
        if (exp_job.size() == 0) fail("unexpected job");
        else begin
          m_job = exp_job.pop_front();
          if (job_dest !== m_job.dest || job_flags !== m_job.flags || job_first !== m_job.first ||
              job_last !== m_job.last || job_len !== m_job.len || job_remote !== {m_job.msg_id[15:0], m_job.remote} ||
              job_msg_id !== m_job.msg_id || job_offset !== m_job.offset || job_src_off !== m_job.src_off ||
              {job_seq, job_lag, job_att, job_retx, job_ridx} !== m_job.rel ||
              job_rec !== {1'b1, job_ridx}) begin
            fail($sformatf("job len %0d off %0d first %b last %b, want len %0d off %0d first %b last %b",
                           job_len, job_offset, job_first, job_last, m_job.len, m_job.offset, m_job.first, m_job.last));
          end
          m_rd.word = m_job.local_addr[63:3];
          m_rd.left = 32'((int'(m_job.local_addr[2:0]) + int'(m_job.len) + 7) / 8);
          m_rd.inl = m_job.inl;
          m_rd.words = m_job.words;
          exp_rd.push_back(m_rd);
          n_jobs++;
        end
      end
      if (inl_push) begin
        if (exp_rd.size() == 0 || !exp_rd[0].inl) fail("inline word with no inline packet");
        else begin
          if (beat_due.size() != 0) fail("inline word while read beats are owed (order)");
          if (inl_data !== exp_rd[0].words[exp_rd[0].word[2:0]]) begin
            fail($sformatf("inline word %0d: %h, want %h", exp_rd[0].word[2:0], inl_data,
                           exp_rd[0].words[exp_rd[0].word[2:0]]));
          end
          exp_rd[0].word = exp_rd[0].word + 61'd1;
          exp_rd[0].left = exp_rd[0].left - 32'd1;
          if (exp_rd[0].left == 0) void'(exp_rd.pop_front());
          n_inl_words++;
        end
      end
      if (req_valid && req_ready) begin
        if (exp_rd.size() == 0 || exp_rd[0].inl) fail("read with no packet, or for an inline one");
        else begin
          m_room = 32 - int'(exp_rd[0].word[4:0]);
          m_want = (int'(exp_rd[0].left) < m_room) ? int'(exp_rd[0].left) : m_room;
          if (req_addr !== {exp_rd[0].word, 3'b0} || int'(req_beats) != m_want) begin
            fail($sformatf("read %h x%0d, want %h x%0d", req_addr, req_beats, {exp_rd[0].word, 3'b0}, m_want));
          end
          exp_rd[0].word = exp_rd[0].word + 61'(m_want);
          exp_rd[0].left = exp_rd[0].left - 32'(m_want);
          if (exp_rd[0].left == 0) void'(exp_rd.pop_front());
          for (int b = 0; b < int'(req_beats); b++) beat_due.push_back(cycle + lat + b);
          n_reads++;
        end
      end
      if (exp_rd.size() > 1) fail("next packet cut before the previous one's reads were issued");
    end
    @(posedge clk);
    cycle++;
  end

  task automatic wait_done(int limit);
    int t = 0;
    while ((to_send.size() != 0 || exp_cpl.size() != 0 || exp_rfail.size() != 0 || exp_job.size() != 0 || exp_rd.size() != 0) &&
           t < limit) begin
      @(negedge clk);
      t++;
    end
    if (t >= limit) begin
      fail($sformatf("timeout: %0d desc %0d cpl %0d jobs %0d reads left", to_send.size(), exp_cpl.size(),
                     exp_job.size(), exp_rd.size()));
    end
    repeat (10) @(negedge clk);
    if (job_valid || req_valid) fail("activity after the last descriptor");
  endtask

  function automatic logic [15:0] good_dest();
    return 16'($urandom_range(int'(dest_lo), int'(dest_hi)));
  endfunction

  function automatic logic [63:0] rnd64();
    return {$urandom(), $urandom()};
  endfunction

  // Descriptor word 1: a remote address below 2^48 and a destination context (50:48),
  // not so close to 2^48 that a test message could end past it.
  function automatic logic [63:0] rnd_remote();
    return {13'h0, 3'($urandom()), 16'($urandom_range(0, 16'hFFFE)), $urandom()};
  endfunction

  initial begin
    int mtus[4] = '{8, 64, 100, 1024};
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    run = 1'b1;

    // Bad descriptors and boundaries.
    set_mtu(1024);
    add_desc(rnd64(), rnd_remote(), 0, good_dest());
    add_desc(rnd64(), rnd_remote(), 32'(MSG_LEN_MAX + 1), good_dest());
    add_desc(rnd64(), rnd_remote(), 32'hFFFF_FFFF, good_dest());
    add_desc(rnd64(), rnd_remote(), 100, dest_lo - 16'd1);
    add_desc(rnd64(), rnd_remote(), 100, dest_hi + 16'd1);
    add_desc(rnd64(), rnd_remote(), 100, dest_lo);
    add_desc(rnd64(), rnd_remote(), 100, dest_hi);
    // remote address at or above 2^48, or a message ending past it: ADDR_RANGE
    add_desc(rnd64(), rnd_remote() | (64'(1) << $urandom_range(51, 63)), 100, good_dest());
    add_desc(rnd64(), 64'h0000_FFFF_FFFF_FFF0, 17, good_dest());
    add_desc(rnd64(), 64'h0003_FFFF_FFFF_FFF0, 16, good_dest());   // ends at 2^48: fine
    add_desc(64'h0000_0000_0000_00F9, 64'h0000_0000_0000_0102, 1, good_dest());
    wait_done(10000);
    if (n_bad != 7) fail($sformatf("%0d bad descriptors, want 7", n_bad));
    bc_pct = 25;
    rt_pct = 15;

    // Random traffic per MTU, stalls everywhere.
    foreach (mtus[k]) begin
      set_mtu(mtus[k]);
      p_desc = 70; p_cpl = 60; p_job = 50; p_req = 60; p_pop = 40; lat = 20;
      for (int i = 0; i < 60; i++) begin
        int c = $urandom_range(0, 9);
        if (c == 0) add_desc(rnd64(), rnd_remote(), 0, good_dest());
        else if (c == 1) add_desc(rnd64(), rnd_remote(), 200, 16'($urandom_range(0, 99)));
        else add_desc(rnd64(), rnd_remote(), ($urandom_range(0, 2) == 0) ? $urandom_range(1, 40) : $urandom_range(41, 3000),
                      good_dest());
      end
      wait_done(400000);
      // Fast consumer, long latency: the buffer limit is what paces the reads.
      p_desc = 100; p_cpl = 100; p_job = 100; p_req = 100; p_pop = 100; lat = 125;
      for (int i = 0; i < 10; i++) add_desc(rnd64(), rnd_remote(), $urandom_range(1, 3000), good_dest());
      wait_done(400000);
    end
    $display("%0d jobs, %0d reads", n_jobs, n_reads);

    // Inline traffic mixed with DMA traffic: ring inline (<= 8 bytes, 9..12 fail),
    // pushed inline (<= 64, 65..70 fail), pushed plain, and DMA messages in between.
    foreach (mtus[k]) begin
      set_mtu(mtus[k]);
      p_desc = 70; p_cpl = 60; p_job = 50; p_req = 60; p_pop = 40; lat = $urandom_range(3, 60);
      for (int i = 0; i < 100; i++) begin
        int c = $urandom_range(0, 6);
        if (c == 0) add_desc(rnd64(), rnd_remote(), $urandom_range(1, 8), good_dest(), 1'b1, 1'b0);
        else if (c == 1) add_desc(rnd64(), rnd_remote(), $urandom_range(9, 12), good_dest(), 1'b1, 1'b0);
        else if (c == 2) add_desc(rnd64(), rnd_remote(), $urandom_range(1, 64), good_dest(), 1'b1, 1'b1);
        else if (c == 3) add_desc(rnd64(), rnd_remote(), $urandom_range(65, 70), good_dest(), 1'b1, 1'b1);
        else if (c == 4) add_desc(rnd64(), rnd_remote(), $urandom_range(1, 300), good_dest(), 1'b0, 1'b1);
        else add_desc(rnd64(), rnd_remote(), $urandom_range(1, 300), good_dest());
      end
      wait_done(400000);
    end
    rt_pct = 0;
    $display("%0d retransmissions, %0d refused", n_retx, n_rfail);
    if (n_retx < 50 || n_rfail < 10) fail("too few retransmissions exercised");
    if (n_release != n_pushed) fail($sformatf("%0d releases for %0d pushed descriptors", n_release, n_pushed));
    bc_pct = 0;
    if (n_inl_words < 200) fail($sformatf("only %0d inline words exercised", n_inl_words));
    $display("%0d inline words, %0d pushed descriptors", n_inl_words, n_pushed);

    // Disabled: nothing is taken.
    enable = 1'b0;
    add_desc(rnd64(), rnd_remote(), 64, good_dest());
    repeat (200) @(negedge clk);
    if (exp_cpl.size() != 1) fail("descriptor taken while disabled");
    enable = 1'b1;
    wait_done(10000);

    // MSG_LEN_MAX is a legal length; flush it mid-way, like a ring reset does.
    for (int k = 0; k < 10; k++) begin
      p_pop = 50; lat = 20;
      if (k == 0) add_desc(rnd64(), rnd_remote(), 32'(MSG_LEN_MAX), good_dest());
      else add_desc(rnd64(), rnd_remote(), $urandom_range(1000, 5000), good_dest());
      add_desc(rnd64(), rnd_remote(), 500, good_dest());
      repeat ($urandom_range(5, 300)) @(negedge clk);
      @(negedge clk);
      flush = 1'b1; drain = 1'b1;
      @(negedge clk);
      flush = 1'b0;
      to_send.delete(); exp_cpl.delete(); exp_rfail.delete(); exp_job.delete(); exp_rd.delete(); beat_due.delete();
      push_q.delete();
      pbuf_count = '0;
      pbuf_push = 1'b0;
      inl_landed = 1'b0;
      repeat (3) @(negedge clk);
      drain = 1'b0;
      repeat (3) @(negedge clk);
      if (job_valid || req_valid) fail("activity after flush");
      add_desc(rnd64(), rnd_remote(), $urandom_range(1, 2000), good_dest());
      wait_done(100000);
    end

    if (errors != 0) $fatal(1, "tb_ddc_tx_read_engine: %0d errors", errors);
    $display("tb_ddc_tx_read_engine: PASS");
    $finish;
  end
endmodule
