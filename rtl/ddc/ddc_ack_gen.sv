// Receiver side of end-to-end reliability: builds the ACK and NACK packets
// (docs/RELIABILITY.md).
//
// Three event sources, each queued on its own so none waits for another:
//   - cpl:    a message completed (ddc_rx_msg_track's complete, or a duplicate of a
//             completed message that must be acknowledged again)        -> PTYPE_ACK
//   - nack:   a message the receiver gave up (its tracker entry expired)   -> PTYPE_NACK
//   - reject: the receive window/key check refused a message (h-ctx)      -> PTYPE_NACK_REJECT
// An answer goes back to the message's source and names it by msg_id. It is header only
// (len 0): three header flits and the CRC trailer, 4 link cycles. For a NACK the header's
// flags field carries the cause detail (reject_cause_i for a reject), since an answer
// has no descriptor flags to carry.
//
// When a queue is full its event is dropped and counted (drop_o): a lost answer costs the
// sender a timeout and a retransmission, which the receiver acknowledges again, so
// nothing is lost for good and the RX path never stalls on the reverse direction.
//
// The output is a flit stream with valid/ready; whoever shares the link with the TX
// packetizer grants it between packets and keeps granting until last.
module ddc_ack_gen
  import fasthsl_pkg::*;
#(
  parameter int unsigned QDEPTH = 8
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [15:0] node_id_i,

  input  logic        cpl_valid_i,
  input  logic [15:0] cpl_src_i,
  input  logic [31:0] cpl_msg_id_i,

  input  logic        nack_valid_i,
  input  logic [15:0] nack_src_i,
  input  logic [31:0] nack_msg_id_i,

  // Tied off until the window/key check (h-ctx) drives it.
  input  logic        reject_valid_i,
  input  logic [15:0] reject_src_i,
  input  logic [31:0] reject_msg_i,
  input  logic [7:0]  reject_cause_i,

  output logic        out_valid_o,
  input  logic        out_ready_i,
  output logic [63:0] out_data_o,
  output logic        out_last_o,

  output logic        ack_sent_o,    // pulse: an ACK's trailer left
  output logic        nack_sent_o,   // pulse: a NACK's (either kind) trailer left
  output logic [1:0]  drops_o        // events that found their queue full this cycle
);
  typedef struct packed {
    logic [15:0] dest;
    logic [31:0] msg_id;
    logic [7:0]  cause;
  } ev_t;

  localparam int unsigned CntW = $clog2(QDEPTH + 1);

  ev_t  [2:0]           q_in, q_out;
  logic [2:0]           q_push, q_in_ready, q_valid, q_pop;
  logic [2:0][CntW-1:0] q_count_unused;

  // Index 0 = reject, 1 = nack, 2 = ack: the fixed priority below. Answers are 4 flits,
  // so a queue behind another waits at most a few packets.
  assign q_push = {cpl_valid_i, nack_valid_i, reject_valid_i};
  assign q_in[0] = '{dest: reject_src_i, msg_id: reject_msg_i, cause: reject_cause_i};
  assign q_in[1] = '{dest: nack_src_i, msg_id: nack_msg_id_i, cause: 8'h00};
  assign q_in[2] = '{dest: cpl_src_i, msg_id: cpl_msg_id_i, cause: 8'h00};

  for (genvar g = 0; g < 3; g++) begin : gen_q
    fifo_sync #(
      .WIDTH($bits(ev_t)),
      .DEPTH(QDEPTH)
    ) u_q (
      .clk_i      (clk_i),
      .rst_ni     (rst_ni),
      .in_valid_i (q_push[g]),
      .in_ready_o (q_in_ready[g]),
      .in_data_i  (q_in[g]),
      .out_valid_o(q_valid[g]),
      .out_ready_i(q_pop[g]),
      .out_data_o (q_out[g]),
      .count_o    (q_count_unused[g])
    );
  end

  // The output is a register. An answer's first flit is built from the queue heads in the
  // cycle before it is offered, and its event leaves its queue then. So
  // the TX packetizer, which multiplexes answers onto the link, sees flops instead of the
  // queues' read multiplexers and the CRC: the placed NIC's worst paths started at these
  // queues (docs/SYNTH.md). An answer leaves a cycle later than it would unregistered;
  // answers still follow each other without an idle cycle.
  logic        any;
  logic [1:0]  pick;
  always_comb begin
    any  = |q_valid;
    pick = 2'd0;
    if (q_valid[0])      pick = 2'd0;
    else if (q_valid[1]) pick = 2'd1;
    else                 pick = 2'd2;
  end

  function automatic ptype_e ptype_of(logic [1:0] src);
    unique case (src)
      2'd0:    return PTYPE_NACK_REJECT;
      2'd1:    return PTYPE_NACK;
      default: return PTYPE_ACK;
    endcase
  endfunction

  // out_last_q is beat_q == 3 (asserted below), kept as a flop of its own so the
  // packetizer's decision on an answer's last flit reads a register, not a compare.
  logic        out_valid_q, out_valid_d, out_last_q, out_last_d;
  logic [63:0] out_data_q, out_data_d;
  logic [31:0] msg_id_q, msg_id_d;   // the answer's msg_id, for its third flit
  logic [1:0]  sel_q, sel_d;     // the queue of the answer in the output register
  logic [1:0]  beat_q, beat_d;   // the output flit: 0..2 header, 3 trailer
  logic [31:0] crc_q, crc_d, crc_next;   // over the answer's flits already sent

  pkt_hdr_w0_t w0;
  pkt_hdr_w1_t w1;
  pkt_hdr_w2_t w2;
  pkt_trl_t    trl;

  assign w0  = '{rsvd62: 2'b00, dctx: 3'd0, len: 11'h0, lag: 4'd0, flags: q_out[pick].cause[3:0],
                 attempt: 2'b00, last: 1'b1, first: 1'b1, ptype: ptype_of(pick),
                 src: node_id_i, dest: q_out[pick].dest};
  assign w1  = '{key: 16'h0, remote_addr: 48'h0};
  assign w2  = '{seq: 8'h0, offset: 24'h0, msg_id: msg_id_q};
  assign trl = '{rsvd32: 32'h0, crc: ~crc_next};

  crc32_d64 u_crc (
    .crc_i (crc_q),
    .data_i(out_data_q),
    .crc_o (crc_next)
  );

  logic fire, load;
  assign fire = out_valid_q && out_ready_i;
  assign load = (!out_valid_q || (fire && out_last_q)) && any;

  always_comb begin
    out_valid_d = out_valid_q;
    out_last_d  = out_last_q;
    out_data_d  = out_data_q;
    msg_id_d    = msg_id_q;
    sel_d       = sel_q;
    beat_d      = beat_q;
    crc_d       = crc_q;
    q_pop       = '0;
    if (fire) begin
      beat_d = beat_q + 1'b1;
      crc_d  = crc_next;
      unique case (beat_q)
        2'd0: out_data_d = w1;
        2'd1: out_data_d = w2;
        2'd2: begin
          out_data_d = trl;
          out_last_d = 1'b1;
        end
        default: begin
          out_valid_d = 1'b0;
          out_last_d  = 1'b0;
        end
      endcase
    end
    if (load) begin
      q_pop[pick] = 1'b1;
      msg_id_d    = q_out[pick].msg_id;
      sel_d       = pick;
      out_valid_d = 1'b1;
      out_last_d  = 1'b0;
      out_data_d  = w0;
      beat_d      = 2'd0;
      crc_d       = 32'hFFFF_FFFF;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_valid_q <= 1'b0;
      out_last_q  <= 1'b0;
      out_data_q  <= '0;
      msg_id_q    <= '0;
      sel_q       <= '0;
      beat_q      <= '0;
      crc_q       <= 32'hFFFF_FFFF;
    end else begin
      out_valid_q <= out_valid_d;
      out_last_q  <= out_last_d;
      out_data_q  <= out_data_d;
      msg_id_q    <= msg_id_d;
      sel_q       <= sel_d;
      beat_q      <= beat_d;
      crc_q       <= crc_d;
    end
  end

  assign out_valid_o = out_valid_q;
  assign out_data_o  = out_data_q;
  assign out_last_o  = out_last_q;

  logic       ack_sent_q, nack_sent_q;
  logic [1:0] drop_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ack_sent_q  <= 1'b0;
      nack_sent_q <= 1'b0;
      drop_q      <= '0;
    end else begin
      ack_sent_q  <= fire && out_last_q && (sel_q == 2'd2);
      nack_sent_q <= fire && out_last_q && (sel_q != 2'd2);
      drop_q      <= 2'(q_push[0] && !q_in_ready[0]) + 2'(q_push[1] && !q_in_ready[1]) +
                     2'(q_push[2] && !q_in_ready[2]);
    end
  end

`ifndef SYNTHESIS
  a_last_beat: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                out_last_q == (beat_q == 2'd3));
`endif

  assign ack_sent_o  = ack_sent_q;
  assign nack_sent_o = nack_sent_q;
  assign drops_o     = drop_q;

endmodule
