// Test traffic source and sink on one router port, so a board (or two cabled boards)
// can exercise its links with nothing but a UART.
// Source: after start_i (ignored while busy_o), packets of len_i flits (1..255; 0 counts as 1) to dest_i,
// count_i of them (0: until stop_i), back to back as the router's credits allow.
// Head flit {seq[19:0], len[7:0], 4'h0, src[15:0], dest[15:0]}: dest where the router
// looks for it, and bits 35:32 zero because routers read them as the packet type
// (WRITE; a broadcast type would be dropped by the FIFO router). Then flits
// i = 1..len-1 carrying {4'h0, seq, i, 4'h0, ~seq, ~i}.
// Sink: takes every flit at once (credits straight back) and checks each packet it
// receives, from any source: flit data, `last` exactly on the length the head gives,
// no `err` (EEP). rcvd_o counts good packets, rx_err_o bad ones.
module board_traffic (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // to the router input port / its credits
  output fasthsl_link_pkg::link_flit_t out_flit_o,
  input  logic                         out_credit_i,
  // from the router output port / credits back to it
  input  fasthsl_link_pkg::link_flit_t in_flit_i,
  output logic                         in_credit_o,
  // control
  input  logic                         start_i,
  input  logic                         stop_i,
  input  logic [15:0]                  src_i,
  input  logic [15:0]                  dest_i,
  input  logic [7:0]                   len_i,
  input  logic [31:0]                  count_i,
  // status
  output logic                         busy_o,
  output logic [31:0]                  sent_o,
  output logic [31:0]                  rcvd_o,
  output logic [31:0]                  rx_err_o
);
  import fasthsl_link_pkg::*;

  function automatic logic [63:0] body(logic [19:0] seq, logic [7:0] idx);
    return {4'h0, seq, idx, 4'h0, ~seq, ~idx};
  endfunction

  // ---- source ----
  logic        busy_q, stop_q;
  logic [4:0]  cred_q;           // router input buffers are at most 16 deep here
  logic [19:0] seq_q;
  logic [7:0]  idx_q, len_q;
  logic [15:0] dest_q;
  logic [31:0] sent_q, goal_q;
  link_flit_t  out_q;
  logic        send, pkt_end;
  logic [7:0]  len_start;

  assign len_start = (len_i == '0) ? 8'd1 : len_i;
  assign send      = busy_q && (cred_q != '0);
  assign pkt_end   = send && (idx_q == len_q - 8'd1);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      stop_q <= 1'b0;
      cred_q <= '0;
      seq_q  <= '0;
      idx_q  <= '0;
      len_q  <= 8'd1;
      dest_q <= '0;
      sent_q <= '0;
      goal_q <= '0;
      out_q  <= LINK_FLIT_IDLE;
    end else begin
      cred_q <= cred_q + 5'(out_credit_i) - 5'(send);
      out_q  <= LINK_FLIT_IDLE;
      if (send) begin
        out_q <= '{valid: 1'b1, last: pkt_end, err: 1'b0,
                   data: (idx_q == '0) ? {seq_q, len_q, 4'h0, src_i, dest_q} : body(seq_q, idx_q)};
        idx_q <= pkt_end ? '0 : idx_q + 8'd1;
      end
      if (pkt_end) begin
        seq_q  <= seq_q + 20'd1;
        sent_q <= sent_q + 32'd1;
        // stop after this packet: asked to, or the count is reached
        if (stop_q || (goal_q != '0 && sent_q + 32'd1 == goal_q)) busy_q <= 1'b0;
      end
      if (stop_i) stop_q <= 1'b1;
      // a start while running is ignored (stop first), so a packet is never cut
      if (start_i && !busy_q) begin
        busy_q <= 1'b1;
        stop_q <= 1'b0;
        len_q  <= len_start;
        dest_q <= dest_i;
        goal_q <= (count_i == '0) ? '0 : sent_q + count_i;
      end
    end
  end

  assign out_flit_o = out_q;
  assign busy_o     = busy_q;
  assign sent_o     = sent_q;

  // ---- sink ----
  logic        in_pkt_q, bad_q;
  logic [19:0] rseq_q;
  logic [7:0]  ridx_q, rlen_q;
  logic [31:0] rcvd_q, rerr_q;
  logic        bad_now;
  logic [7:0]  hlen;

  link_credit_return #(
    .DEPTH(4)
  ) u_credit (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .slot_freed_i(in_flit_i.valid),
    .credit_o    (in_credit_o)
  );

  assign hlen = in_flit_i.data[43:36];

  always_comb begin
    bad_now = in_flit_i.err;
    if (!in_pkt_q) begin
      bad_now = bad_now || (hlen == '0) || (in_flit_i.last != (hlen == 8'd1));
    end else begin
      bad_now = bad_now || (in_flit_i.data != body(rseq_q, ridx_q))
                        || (in_flit_i.last != (ridx_q == rlen_q - 8'd1));
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_pkt_q <= 1'b0;
      bad_q    <= 1'b0;
      rseq_q   <= '0;
      ridx_q   <= '0;
      rlen_q   <= '0;
      rcvd_q   <= '0;
      rerr_q   <= '0;
    end else if (in_flit_i.valid) begin
      if (!in_pkt_q) begin
        rseq_q <= in_flit_i.data[63:44];
        rlen_q <= hlen;
      end
      ridx_q   <= in_pkt_q ? ridx_q + 8'd1 : 8'd1;
      in_pkt_q <= !in_flit_i.last;
      bad_q    <= in_flit_i.last ? 1'b0 : (bad_q || bad_now);
      if (in_flit_i.last) begin
        if (bad_q || bad_now) rerr_q <= rerr_q + 32'd1;
        else                  rcvd_q <= rcvd_q + 32'd1;
      end
    end
  end

  assign rcvd_o   = rcvd_q;
  assign rx_err_o = rerr_q;

endmodule
