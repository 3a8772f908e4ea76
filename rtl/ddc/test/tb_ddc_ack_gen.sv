// Self-checking test of ddc_ack_gen: random completion, NACK and reject events (several
// in one cycle, bursts that overflow the queues) against a consumer with random
// back-pressure. Every packet must be 4 flits with last on the trailer only, carry the
// right type, destination, source, msg_id, cause, zero length and address, and a CRC-32
// that a bit-serial reference computes; each source's answers must come out exactly once
// and in order, except those reported dropped; a pending reject goes before pending ACKs.
module tb_ddc_ack_gen;
  import fasthsl_pkg::*;

  localparam int unsigned QDepth = 4;
  localparam logic [15:0] Node   = 16'h0042;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  always #5 clk = ~clk;

  logic        cpl_v = 1'b0, nack_v = 1'b0, rej_v = 1'b0;
  logic [15:0] cpl_src = '0, nack_src = '0, rej_src = '0;
  logic [31:0] cpl_mid = '0, nack_mid = '0, rej_mid = '0;
  logic [7:0]  rej_cause = '0;
  logic        out_valid, out_ready = 1'b0, out_last;
  logic [63:0] out_data;
  logic        ack_sent, nack_sent;
  logic [1:0]  drops;

  ddc_ack_gen #(
    .QDEPTH(QDepth)
  ) dut (
    .clk_i         (clk),
    .rst_ni        (rst_n),
    .node_id_i     (Node),
    .cpl_valid_i   (cpl_v),
    .cpl_src_i     (cpl_src),
    .cpl_msg_id_i  (cpl_mid),
    .nack_valid_i  (nack_v),
    .nack_src_i    (nack_src),
    .nack_msg_id_i (nack_mid),
    .reject_valid_i(rej_v),
    .reject_src_i  (rej_src),
    .reject_msg_i  (rej_mid),
    .reject_cause_i(rej_cause),
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

  typedef struct {
    int dest;
    int mid;
    int cause;
  } ev_t;

  // Expected answers per source, in order: 0 reject, 1 nack, 2 ack. The model mirrors the
  // queues' occupancy to know which events were accepted.
  ev_t exp_q0[$], exp_q1[$], exp_q2[$];

  // One queue per source: version 5.006 of the simulator cannot index an array of
  // queues by a variable.
  function automatic void exp_push(int s, ev_t e);
    if (s == 0) exp_q0.push_back(e);
    else if (s == 1) exp_q1.push_back(e);
    else exp_q2.push_back(e);
  endfunction

  function automatic int exp_size(int s);
    return (s == 0) ? exp_q0.size() : (s == 1) ? exp_q1.size() : exp_q2.size();
  endfunction

  function automatic ev_t exp_pop(int s);
    if (s == 0) return exp_q0.pop_front();
    else if (s == 1) return exp_q1.pop_front();
    else return exp_q2.pop_front();
  endfunction
  int  occ[3] = '{0, 0, 0};
  int  n_drop_model = 0, n_drop_dut = 0, n_ack_ev = 0, n_nack_ev = 0;
  int  n_pkts[3] = '{0, 0, 0};

  logic [63:0] flits[$];
  logic [1:0]  cur_src;
  int          loaded[$];   // queues whose head moved to the output register, in order

  initial begin
    int cycles;
    repeat (3) @(negedge clk);
    rst_n = 1'b1;
    @(negedge clk);

    for (cycles = 0; cycles < 40000; cycles++) begin
      // Bursty sources: phases of heavy load overflow the queues.
      int load = ((cycles / 500) % 3 == 0) ? 2 : 12;
      cpl_v  = ($urandom_range(0, load) == 0) && cycles < 38000;
      nack_v = ($urandom_range(0, load * 2) == 0) && cycles < 38000;
      rej_v  = ($urandom_range(0, load * 2) == 0) && cycles < 38000;
      cpl_src = 16'($urandom); cpl_mid = $urandom;
      nack_src = 16'($urandom); nack_mid = $urandom;
      rej_src = 16'($urandom); rej_mid = $urandom; rej_cause = 8'($urandom_range(0, 15));  // causes are win_rej codes: 4 bits
      out_ready = ($urandom_range(0, 3) != 0);
      #1;
      // Output: collect a packet, check it at its trailer.
      if (out_valid && out_ready) begin
        pkt_hdr_w0_t w0;
        if (flits.size() == 0) begin
          w0 = out_data;
          cur_src = (w0.ptype == PTYPE_NACK_REJECT) ? 2'd0 :
                    (w0.ptype == PTYPE_NACK) ? 2'd1 : 2'd2;
          `CHECK(w0.ptype inside {PTYPE_ACK, PTYPE_NACK, PTYPE_NACK_REJECT}, "bad ptype")
          // Fixed priority, decided when the answer entered the output register.
          if (loaded.size() == 0) begin
            `CHECK(0, "an answer the output register was not loaded with")
          end else begin
            `CHECK(int'(cur_src) == loaded.pop_front(), "answer of the wrong queue")
          end
        end
        `CHECK(out_last == (flits.size() == 3), "last flag on the wrong flit")
        flits.push_back(out_data);
        if (out_last) begin
          logic [63:0] w [3];
          pkt_hdr_w2_t w2;
          pkt_trl_t    t;
          ev_t         e;
          for (int i = 0; i < 3; i++) w[i] = flits[i];
          w0 = w[0];
          w2 = w[2];
          t  = flits[3];
          `CHECK(t.crc == crc_ref(w) && t.rsvd32 == '0, "trailer CRC")
          if (exp_size(int'(cur_src)) == 0) begin
            `CHECK(0, "answer nobody asked for")
          end else begin
            e = exp_pop(int'(cur_src));
            `CHECK(int'(w0.dest) == e.dest && w0.src == Node && int'(w2.msg_id) == e.mid &&
                   int'(w0.flags) == e.cause, $sformatf("header of a type-%0d answer", cur_src))
            `CHECK(w0.len == '0 && w0.first && w0.last && w0.attempt == '0 && w0.lag == '0 && w[1] == '0 &&
                   w2.offset == '0, "answer not header-only")
          end
          n_pkts[cur_src]++;
          flits.delete();
        end
      end
      // Queue model: accept if room. The DUT pops a queue when its head moves to the
      // output register, which is free when empty or when its trailer leaves; the head
      // taken is the first non-empty queue's (reject, nack, ack).
      begin
        logic [2:0] push;
        logic [2:0] pop;
        push = {cpl_v, nack_v, rej_v};
        pop = '0;
        if (!out_valid || (out_ready && out_last)) begin
          for (int s = 0; s < 3; s++) begin
            if (pop == '0 && occ[s] > 0) begin
              pop[s] = 1'b1;
              loaded.push_back(s);
            end
          end
        end
        for (int s = 0; s < 3; s++) begin
          if (push[s]) begin
            if (occ[s] < int'(QDepth)) begin
              ev_t e;
              e.dest  = (s == 0) ? int'(rej_src) : (s == 1) ? int'(nack_src) : int'(cpl_src);
              e.mid   = (s == 0) ? int'(rej_mid) : (s == 1) ? int'(nack_mid) : int'(cpl_mid);
              e.cause = (s == 0) ? int'(rej_cause) : 0;
              exp_push(s, e);
              occ[s]++;
            end else begin
              n_drop_model++;
            end
          end
          if (pop[s]) occ[s]--;
        end
      end
      @(negedge clk);
    end
    // Drain.
    cpl_v = 0; nack_v = 0; rej_v = 0; out_ready = 1'b1;
    repeat (200) @(negedge clk);
    for (int s = 0; s < 3; s++) `CHECK(exp_size(s) == 0, $sformatf("source %0d answers lost", s))
    `CHECK(n_drop_dut == n_drop_model, $sformatf("drops: dut %0d model %0d", n_drop_dut, n_drop_model))
    `CHECK(n_ack_ev == n_pkts[2] && n_nack_ev == n_pkts[0] + n_pkts[1], "sent pulses")
    `CHECK(n_drop_model > 50 && n_pkts[0] > 100 && n_pkts[1] > 100 && n_pkts[2] > 1000,
           "traffic mix too thin")
    $display("answers: %0d reject, %0d nack, %0d ack; %0d dropped", n_pkts[0], n_pkts[1],
             n_pkts[2], n_drop_model);
    tb_verdict();
    $finish;
  end

  always @(posedge clk) begin
    n_drop_dut += int'(drops);
    n_ack_ev   += int'(ack_sent);
    n_nack_ev  += int'(nack_sent);
  end

endmodule
