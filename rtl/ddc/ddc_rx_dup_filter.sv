// Receiver side of end-to-end reliability: memory of recently completed messages, so a
// retransmitted copy of one (its ACK was lost) is neither written again nor reported
// again (docs/RELIABILITY.md).
//
// A completed message's key (source, msg_id) is inserted when its LMR entry is
// committed. Every packet is looked up before any of its bytes go to host memory (dup_o,
// combinational, in the egress's header cycle); a hit means "drop it, acknowledge again",
// and refreshes the entry, since its sender is evidently still retrying. An entry is
// remembered for hold_i ticks of 2^TICK_LOG2 cycles after its last touch; hold_i must
// cover the sender's whole retry budget (timeout x (retries + 1)) plus the network's
// transit, or a late copy would be delivered twice.
//
// An insert into a full table (ENTRIES messages completed within the hold time) takes
// the entry touched longest ago and counts it (evict_o): that message's late copies are
// no longer recognised. Sized so that does not happen at link rate: a completion needs at
// least one packet, 4+ link cycles, so 32 entries cover >= 128 cycles of back-to-back
// one-packet messages; the hold time the driver sets is checked against it in the docs.
module ddc_rx_dup_filter #(
  parameter int unsigned ENTRIES   = 32,
  parameter int unsigned TICK_LOG2 = 8,
  localparam int unsigned IdxW     = $clog2(ENTRIES)
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        flush_i,        // forget everything (receive side reset)
  input  logic [15:0] hold_i,         // ticks; 0 remembers nothing

  input  logic        query_valid_i,
  input  logic [15:0] query_src_i,
  input  logic [31:0] query_msg_i,
  output logic        dup_o,

  input  logic        insert_valid_i,
  input  logic [15:0] insert_src_i,
  input  logic [31:0] insert_msg_i,

  output logic        evict_o         // pulse: a remembered message was forgotten early
);
  typedef struct packed {
    logic        valid;
    logic [15:0] src;
    logic [31:0] msg;
    logic [15:0] age;   // ticks since the last touch, saturating
  } ent_t;

  ent_t [ENTRIES-1:0] ent_q, ent_d;

  logic [TICK_LOG2-1:0] presc_q;
  logic                 tick;
  assign tick = (presc_q == '1);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) presc_q <= '0;
    else         presc_q <= presc_q + 1'b1;
  end

  logic [ENTRIES-1:0] live;
  always_comb begin
    for (int i = 0; i < ENTRIES; i++) live[i] = ent_q[i].valid && (ent_q[i].age < hold_i);
  end

  // Lookups: the query's and the insert's key.
  logic            q_hit, i_hit;
  logic [IdxW-1:0] q_idx, i_idx;

  always_comb begin
    q_hit = 1'b0;
    i_hit = 1'b0;
    q_idx = '0;
    i_idx = '0;
    for (int i = ENTRIES - 1; i >= 0; i--) begin
      if (live[i] && ent_q[i].src == query_src_i && ent_q[i].msg == query_msg_i) begin
        q_hit = 1'b1;
        q_idx = IdxW'(i);
      end
      if (live[i] && ent_q[i].src == insert_src_i && ent_q[i].msg == insert_msg_i) begin
        i_hit = 1'b1;
        i_idx = IdxW'(i);
      end
    end
  end

  assign dup_o = query_valid_i && q_hit;

  // Where a new key goes: a dead entry if any, else the one touched longest ago.
  logic            dead_any;
  logic [IdxW-1:0] dead_idx, old_idx;
  logic [15:0]     old_age;

  always_comb begin
    dead_any = 1'b0;
    dead_idx = '0;
    old_idx  = '0;
    old_age  = '0;
    for (int i = ENTRIES - 1; i >= 0; i--) begin
      if (!live[i]) begin
        dead_any = 1'b1;
        dead_idx = IdxW'(i);
      end
    end
    for (int i = 0; i < ENTRIES; i++) begin
      if (ent_q[i].age >= old_age) begin
        old_age = ent_q[i].age;
        old_idx = IdxW'(i);
      end
    end
  end

  logic            do_insert, evict;
  logic [IdxW-1:0] ins_idx;

  assign do_insert = insert_valid_i && (hold_i != '0);
  assign ins_idx   = i_hit ? i_idx : (dead_any ? dead_idx : old_idx);
  assign evict     = do_insert && !i_hit && !dead_any;

  always_comb begin
    ent_d = ent_q;
    for (int i = 0; i < ENTRIES; i++) begin
      if (tick && ent_q[i].valid && ent_q[i].age != '1) ent_d[i].age = ent_q[i].age + 1'b1;
      if (!live[i]) ent_d[i].valid = 1'b0;
    end
    if (query_valid_i && q_hit) ent_d[q_idx].age = '0;
    if (do_insert) begin
      ent_d[ins_idx] = '{valid: 1'b1, src: insert_src_i, msg: insert_msg_i, age: 16'h0};
    end
    if (flush_i) begin
      for (int i = 0; i < ENTRIES; i++) ent_d[i].valid = 1'b0;
    end
  end

  logic evict_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int i = 0; i < ENTRIES; i++) ent_q[i] <= '0;
      evict_q <= 1'b0;
    end else begin
      ent_q   <= ent_d;
      evict_q <= evict && !flush_i;
    end
  end

  assign evict_o = evict_q;

endmodule
