// Sender side of end-to-end reliability: the table of messages sent but not yet
// acknowledged (docs/RELIABILITY.md).
//
// An entry is taken when the TX path starts a message (alloc) and names it by
// (dest, seq); the TX path carries the entry index along with the message and reports it
// back when the message's last packet has left (sent). Only then does the entry's timer
// run: a 64 KiB message spends ~33 us leaving the NIC, and that must not count against
// the round trip. The entry ends (done, with a result) on:
//   - an ACK for (dest, seq): OK;
//   - a NACK whose cause is a receiver reject: REJECTED (retransmitting cannot help);
//   - its timer expiring, or any other NACK, once retries_max_i retransmissions have
//     been spent: EXHAUSTED. Before that, the entry asks for a retransmission (retx) and
//     waits for its sent report again.
// An ACK or NACK that arrives while a (re)transmission is still leaving the NIC is kept
// and acted on at the sent report, so an entry index is never freed while the TX path
// still holds it. An ACK or NACK matching no entry (a late answer to a message already
// done, or the re-ACK of a duplicate) is counted (stray_o) and ignored.
//
// Results leave through done_valid_o in whatever order messages end; ring-order status
// write-back is the completion stage's business. The timebase is a free-running tick
// every 2^TICK_LOG2 cycles; a timeout of T ticks expires on the T-th tick after the sent
// report, (T-1)*2^TICK_LOG2+1 .. T*2^TICK_LOG2 cycles after it.
//
// A (re)transmission that could not be completed (its descriptor failed the checks when
// re-read, or a payload read failed: fail_*, or sent_fail_i with the sent report) ends
// the entry at once: EXHAUSTED, unless an answer kept during the transmission says more
// (an ACK to an earlier copy: OK; a reject: REJECTED). The lag port counts the live
// entries of one destination (the sender's lag field, docs/RELIABILITY.md).
module ddc_tx_rel_table #(
  parameter int unsigned ENTRIES   = 16,
  parameter int unsigned TICK_LOG2 = 8,
  parameter int unsigned TAG_W     = 16,
  parameter int unsigned SEQ_W     = 16,
  localparam int unsigned IdxW     = $clog2(ENTRIES)
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             flush_i,        // ring reset: forget everything, report nothing

  input  logic [15:0]      timeout_i,      // ticks after a sent report; 0 acts as 1
  input  logic [3:0]       retries_max_i,  // retransmissions allowed per message

  // A message starts.
  input  logic             alloc_valid_i,
  output logic             alloc_ready_o,
  input  logic [15:0]      alloc_dest_i,
  input  logic [SEQ_W-1:0] alloc_seq_i,
  input  logic [TAG_W-1:0] alloc_tag_i,    // opaque to the table (e.g. the LME slot)
  output logic [IdxW-1:0]  alloc_idx_o,

  // The last packet of a (re)transmission of entry sent_idx_i has left.
  input  logic             sent_valid_i,
  input  logic [IdxW-1:0]  sent_idx_i,
  input  logic             sent_fail_i,    // ... but it was cut (payload read error)

  // A retransmission of entry fail_idx_i was refused before it left (descriptor re-read).
  input  logic             fail_valid_i,
  input  logic [IdxW-1:0]  fail_idx_i,

  // An ACK or NACK from node ans_src_i for its message seq ans_seq_i.
  input  logic             ans_valid_i,
  input  logic [15:0]      ans_src_i,
  input  logic [SEQ_W-1:0] ans_seq_i,
  input  logic             ans_nack_i,
  input  logic             ans_reject_i,   // NACK cause: the receiver's window/key check

  // Retransmission request: the TX path re-reads the message from host memory.
  output logic             retx_valid_o,
  input  logic             retx_ready_i,
  output logic [IdxW-1:0]  retx_idx_o,
  output logic [TAG_W-1:0] retx_tag_o,
  output logic [15:0]      retx_dest_o,
  output logic [SEQ_W-1:0] retx_seq_o,
  output logic [3:0]       retx_tries_o,   // retransmissions spent, this one included

  // Live entries (not free) whose dest[5:0] is lag_dest_i, saturating at 15.
  input  logic [5:0]       lag_dest_i,
  output logic [3:0]       lag_o,

  // A message ends; the entry is free once this is taken. With done_sel_en_i the result
  // offered is entry done_sel_i's only (an in-order completion stage waits for its head),
  // else the lowest ended entry's.
  input  logic             done_sel_en_i,
  input  logic [IdxW-1:0]  done_sel_i,
  output logic             done_valid_o,
  input  logic             done_ready_i,
  output logic [IdxW-1:0]  done_idx_o,
  output logic [TAG_W-1:0] done_tag_o,
  output logic [1:0]       done_res_o,     // RES_OK, RES_EXHAUSTED, RES_REJECTED

  // Events for counters (several entries may expire on one tick: a count).
  output logic [IdxW:0]    timeouts_o,
  output logic             retx_o,
  output logic             stray_o
);
  localparam logic [1:0] ResOk        = 2'd0;
  localparam logic [1:0] ResExhausted = 2'd1;
  localparam logic [1:0] ResRejected  = 2'd2;

  typedef enum logic [2:0] {
    StFree,
    StSending,   // (re)transmission leaving the NIC
    StWait,      // timer running, waiting for the answer
    StRetx,      // retransmission requested, not yet taken
    StDone       // result waiting to be taken
  } st_e;

  // What an answer that arrived during StSending asks for, applied at the sent report.
  typedef enum logic [1:0] {
    PendNone,
    PendAck,
    PendNack,
    PendReject
  } pend_e;

  typedef struct packed {
    st_e              st;
    pend_e            pend;
    logic [15:0]      dest;
    logic [SEQ_W-1:0] seq;
    logic [3:0]       tries;   // retransmissions spent
    logic [15:0]      timer;   // ticks left in StWait
    logic [1:0]       res;
  } entry_t;

  entry_t [ENTRIES-1:0] ent_q, ent_d;

  // What the outputs read of an entry by index and nothing compares lives in distributed
  // RAM, written when the entry is taken: the tag, and a copy of (dest, seq) for the
  // retransmission request (the registers keep theirs for the answer's compares). Read
  // from the registers, the 16-way multiplexers of those 79 bits and the tag's registers
  // were a quarter of this table (1,400 LUT4, docs/SYNTH.md). An entry's fields are read
  // only while it is live, so the RAM needs no reset.
  (* ram_style = "distributed" *) logic [TAG_W+16+SEQ_W-1:0] key_mem [ENTRIES];

  logic [TICK_LOG2-1:0] presc_q;
  logic                 tick;
  assign tick = (presc_q == '1);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) presc_q <= '0;
    else         presc_q <= presc_q + 1'b1;
  end

  // Lowest free entry for alloc; lowest StRetx / StDone entry for the outputs. An index
  // is meaningful only with its flag (lowest_set), and is used only then.
  logic               free_any, retx_any, done_any;
  logic [IdxW-1:0]    free_idx, retx_idx, done_idx;
  logic [ENTRIES-1:0] is_free, is_retx, is_done;

  always_comb begin
    for (int i = 0; i < ENTRIES; i++) begin
      is_free[i] = (ent_q[i].st == StFree);
      is_retx[i] = (ent_q[i].st == StRetx);
      is_done[i] = (ent_q[i].st == StDone);
    end
  end

  lowest_set #(.N(ENTRIES)) u_free_pick (.v_i(is_free), .found_o(free_any), .idx_o(free_idx));
  lowest_set #(.N(ENTRIES)) u_retx_pick (.v_i(is_retx), .found_o(retx_any), .idx_o(retx_idx));
  lowest_set #(.N(ENTRIES)) u_done_pick (.v_i(is_done), .found_o(done_any), .idx_o(done_idx));

  assign alloc_ready_o = free_any && !flush_i;
  assign alloc_idx_o   = free_idx;
  // The retransmission request is the last cycle's pick, still asking (an answer or a
  // flush may have ended it since): the request's 52 bits are read behind the pick's
  // register instead of behind the state compares and the pick, whose index fanned out to
  // over 500 loads in the placed NIC (docs/SYNTH.md). A request goes out a cycle later,
  // and after a take the register names the entry just taken for a cycle, which no longer
  // asks: one idle cycle between requests, on a path that waits for timeouts.
  logic            retx_pick_q;
  logic [IdxW-1:0] retx_idx_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      retx_pick_q <= 1'b0;
      retx_idx_q  <= '0;
    end else begin
      retx_pick_q <= retx_any;
      retx_idx_q  <= retx_idx;
    end
  end
  logic retx_take;
  assign retx_valid_o  = retx_pick_q && is_retx[retx_idx_q];
  assign retx_take     = retx_valid_o && retx_ready_i;
  assign retx_idx_o    = retx_idx_q;
  assign {retx_tag_o, retx_dest_o, retx_seq_o} = key_mem[retx_idx_q];
  assign retx_tries_o  = ent_q[retx_idx_q].tries;

  // Summed as a tree (count_set): an increment per entry chained 16 adders in front of
  // the lag's way into the read engine and the job FIFO (docs/SYNTH.md).
  logic [ENTRIES-1:0] lag_hit;
  logic [IdxW+4:0]    lag_cnt;   // wide enough for any ENTRIES, so the clamp is real
  always_comb begin
    for (int i = 0; i < ENTRIES; i++) begin
      lag_hit[i] = ent_q[i].st != StFree && ent_q[i].dest[5:0] == lag_dest_i;
    end
  end
  count_set #(.N(ENTRIES), .W(IdxW + 5)) u_lag_count (.v_i(lag_hit), .count_o(lag_cnt));
  assign lag_o = (lag_cnt > (IdxW + 5)'(15)) ? 4'd15 : 4'(lag_cnt);
  logic [IdxW-1:0] done_pick;
  assign done_pick     = done_sel_en_i ? done_sel_i : done_idx;
  assign done_valid_o  = done_sel_en_i ? (ent_q[done_sel_i].st == StDone) : done_any;
  assign done_idx_o    = done_pick;
  logic [15+SEQ_W:0] done_key_unused;
  assign {done_tag_o, done_key_unused} = key_mem[done_pick];
  assign done_res_o    = ent_q[done_pick].res;

  // The answer's entry. (dest, seq) is unique among live entries as long as the sender
  // numbers each destination's messages with a sequence longer than the table.
  //
  // An answer acts a cycle after it arrives: the 32-bit compares against every entry are
  // registered (ans_eq_q), so neither the wire from the RX side nor the compares sit in
  // front of the entries' update, which was the NIC's deepest logic after the TX offer
  // was registered (docs/SYNTH.md). A compare made against an entry already live stays
  // true a cycle later, because only an alloc (of a free entry) changes dest and seq; so
  // ans_eq_q requires the entry live when compared, and the match checks the state again.
  logic               ans_valid_q, ans_hit;
  pend_e              ans_kind_q;
  logic [ENTRIES-1:0] ans_eq_q, ans_match, ans_first;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ans_valid_q <= 1'b0;
      ans_kind_q  <= PendNone;
      ans_eq_q    <= '0;
    end else begin
      ans_valid_q <= ans_valid_i && !flush_i;
      ans_kind_q  <= !ans_nack_i ? PendAck : ans_reject_i ? PendReject : PendNack;
      for (int i = 0; i < ENTRIES; i++) begin
        ans_eq_q[i] <= ent_q[i].st != StFree &&
                       ent_q[i].dest == ans_src_i && ent_q[i].seq == ans_seq_i;
      end
    end
  end

  always_comb begin
    for (int i = 0; i < ENTRIES; i++) begin
      ans_match[i] = ans_valid_q && ans_eq_q[i] &&
                     ent_q[i].st != StFree && ent_q[i].st != StDone;
    end
  end
  // The first match as a one-hot vector (the lowest set bit: x & -x, one carry chain), so
  // each entry's update reads its own bit: a first-match loop, and later an index encoded
  // by a tree and compared back per entry, ran between the 16 compares and the entries'
  // update (docs/SYNTH.md).
  assign ans_first = ans_match & (~ans_match + 1'b1);
  assign ans_hit   = (ans_match != '0);

  // A failed attempt: retransmit if the budget allows, else end EXHAUSTED.
  function automatic entry_t retry_or_fail(entry_t e, logic [3:0] max);
    entry_t r = e;
    if (e.tries < max) begin
      r.st    = StRetx;
      r.tries = e.tries + 1'b1;
    end else begin
      r.st  = StDone;
      r.res = ResExhausted;
    end
    return r;
  endfunction

  function automatic entry_t answer(entry_t e, pend_e a, logic [3:0] max);
    entry_t r = e;
    unique case (a)
      PendAck: begin
        r.st  = StDone;
        r.res = ResOk;
      end
      PendReject: begin
        r.st  = StDone;
        r.res = ResRejected;
      end
      PendNack: r = retry_or_fail(e, max);
      default:  r = e;
    endcase
    return r;
  endfunction

  logic [ENTRIES-1:0] timed_out;
  logic [IdxW:0]      timeout_ev;
  logic               retx_ev;

  always_comb begin
    ent_d      = ent_q;
    timed_out  = '0;
    retx_ev    = 1'b0;

    for (int i = 0; i < ENTRIES; i++) begin
      unique case (ent_q[i].st)
        StSending: begin
          if (ans_first[i]) begin
            // An ACK wins over anything kept before it: the receiver has the message.
            if (ent_q[i].pend != PendAck) ent_d[i].pend = ans_kind_q;
          end
          if ((sent_valid_i && sent_idx_i == IdxW'(i) && sent_fail_i) ||
              (fail_valid_i && fail_idx_i == IdxW'(i))) begin
            ent_d[i].st   = StDone;
            ent_d[i].res  = (ent_d[i].pend == PendAck)    ? ResOk :
                            (ent_d[i].pend == PendReject) ? ResRejected : ResExhausted;
            ent_d[i].pend = PendNone;
          end else if (sent_valid_i && sent_idx_i == IdxW'(i)) begin
            ent_d[i].timer = (timeout_i == '0) ? 16'd1 : timeout_i;
            ent_d[i].st    = StWait;
            if (ent_d[i].pend != PendNone) begin
              ent_d[i]      = answer(ent_d[i], ent_d[i].pend, retries_max_i);
              ent_d[i].pend = PendNone;
            end
          end
        end
        StWait: begin
          if (ans_first[i]) begin
            ent_d[i] = answer(ent_q[i], ans_kind_q, retries_max_i);
          end else if (tick) begin
            if (ent_q[i].timer <= 16'd1) begin
              ent_d[i]   = retry_or_fail(ent_q[i], retries_max_i);
              timed_out[i] = 1'b1;
            end else begin
              ent_d[i].timer = ent_q[i].timer - 1'b1;
            end
          end
        end
        StRetx: begin
          // A late ACK to an earlier copy still ends the message: the receiver has it. If
          // the TX path takes the request in the same cycle, the answer waits for the
          // sent report like any answer during a transmission.
          if (retx_take && retx_idx_q == IdxW'(i)) begin
            ent_d[i].st = StSending;
            retx_ev     = 1'b1;
            if (ans_first[i] && ans_kind_q != PendNack) begin
              ent_d[i].pend = ans_kind_q;
            end
          end else if (ans_first[i] && ans_kind_q != PendNack) begin
            ent_d[i] = answer(ent_q[i], ans_kind_q, retries_max_i);
          end
        end
        StDone: begin
          if (done_ready_i && done_pick == IdxW'(i)) ent_d[i].st = StFree;
        end
        default: begin
          if (alloc_valid_i && free_idx == IdxW'(i)) begin
            ent_d[i] = '{st: StSending, pend: PendNone, dest: alloc_dest_i, seq: alloc_seq_i,
                         tries: 4'd0, timer: 16'd0, res: ResOk};
          end
        end
      endcase
    end

    if (flush_i) begin
      for (int i = 0; i < ENTRIES; i++) ent_d[i].st = StFree;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ent_q <= '0;
    end else begin
      ent_q <= ent_d;
    end
  end

  // free_idx is free whenever free_any: the entry the alloc takes above.
  always_ff @(posedge clk_i) begin
    if (alloc_valid_i && free_any) key_mem[free_idx] <= {alloc_tag_i, alloc_dest_i, alloc_seq_i};
  end

  logic [IdxW:0] timeout_q;
  logic          retx_q, stray_q;

  // Timeouts of this cycle, counted in groups of four and then the groups: an increment
  // per entry inside the loop above chained ENTRIES adders behind the answer lookup (the
  // NIC's longest path once the TX offer and the RX verdict were registered).
  localparam int unsigned Groups = (ENTRIES + 3) / 4;
  always_comb begin
    logic [Groups*4-1:0] bits;
    logic [IdxW:0]       grp;   // at most min(4, ENTRIES): the padding bits are 0
    bits       = (Groups * 4)'(timed_out);
    timeout_ev = '0;
    for (int g = 0; g < int'(Groups); g++) begin
      grp = (IdxW + 1)'(bits[4*g]) + (IdxW + 1)'(bits[4*g+1]) +
            (IdxW + 1)'(bits[4*g+2]) + (IdxW + 1)'(bits[4*g+3]);
      timeout_ev = timeout_ev + grp;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      timeout_q <= '0;
      retx_q    <= 1'b0;
      stray_q   <= 1'b0;
    end else begin
      timeout_q <= flush_i ? '0 : timeout_ev;
      retx_q    <= retx_ev && !flush_i;
      stray_q   <= ans_valid_q && !ans_hit && !flush_i;
    end
  end

  assign timeouts_o = timeout_q;
  assign retx_o    = retx_q;
  assign stray_o   = stray_q;

endmodule
