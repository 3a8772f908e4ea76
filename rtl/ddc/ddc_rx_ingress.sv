// RX ingress: checks each packet as it streams in and issues a verdict with its last flit.
//
// Every flit goes into the flit buffer, tagged with an end-of-packet mark; the verdict
// (accept or drop) is pushed into a separate queue together with the end-of-packet flit,
// so the egress only starts on a packet whose verdict is known (store and forward) and a
// dropped packet is discarded at the buffer head, which keeps credit return one stream.
//
// Checks (the first that fails names the drop cause, one counter per packet):
//   malformed: EEP on the last flit, or fewer than 5 flits (3 header, >= 1 payload,
//              trailer; 4 for an answer), or no `last` within MAX_FLITS flits;
//   crc:       CRC-32 of all flits before the trailer != trailer crc;
//   malformed: data (WRITE, BCAST): len outside 1..MTU_MAX, payload flits !=
//              ceil((remote_addr % 8 + len) / 8); answers (ACK, NACK, NACK_REJECT):
//              len != 0 or any payload flit; any other ptype;
//   dest:      dest != NODE_ID (BCAST: NODE_ID outside the range) or the NIC is disabled;
//   ctx:       data only: the destination context (dctx) has no LMR ring here
//              (ctx_rx_en_i clear);
//   window:    data only: [remote_addr, remote_addr + len) not inside the receive window
//              RXWIN;
//   reject:    refused by the receive window table (ddc_rx_window, its verdict win_rej_i).
// Window and table refusals are also reported as one reject pulse with its reason, while
// the pkt_* header fields still hold the refused packet (the next header replaces them
// one cycle after the pulse at the earliest).
// The CRC goes first among the header checks because a corrupted header makes them
// meaningless; the framing checks go before it because a cut-short or runaway packet has
// no trailer to check against.
//
// A packet reaching MAX_FLITS without `last` is cut there: its stored flits get a drop
// verdict, and every further flit up to its `last` is stored as a one-flit dropped
// packet, so a runaway sender never fills the buffer with an undecided packet.
//
// The window check and the expected flit count are registered one cycle after the header
// arrives (a valid packet has at least two flits more), keeping the 64-bit compare off
// the path of the last-flit decision. The table check (two stages, from pkt_* outputs)
// is ready by the last flit of the shortest valid packet.
module ddc_rx_ingress
  import fasthsl_pkg::*;
#(
  // Longest valid packet: 3 header flits, a full MTU starting at lane 7, the trailer.
  parameter int unsigned MAX_FLITS = (7 + MTU_MAX + 7) / 8 + 4
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // configuration
  input  logic                         enable_i,
  input  logic [15:0]                  node_id_i,
  input  logic [63:0]                  rxwin_base_i,
  input  logic [63:0]                  rxwin_size_i,
  input  logic [CTX_COUNT-1:0]         ctx_rx_en_i,   // contexts that receive
  // link (already registered by the caller)
  input  fasthsl_link_pkg::link_flit_t flit_i,
  // to the flit buffer (never full: the link is credit controlled)
  output logic                         buf_push_o,
  output logic                         buf_eop_o,
  output logic [63:0]                  buf_data_o,
  // to the verdict queue, one entry per buffered packet
  output logic                         vrd_push_o,
  output logic                         vrd_accept_o,
  // one-cycle drop pulses, one per dropped packet
  output logic                         drop_crc_o,
  output logic                         drop_dest_o,
  output logic                         drop_malformed_o,
  output logic                         drop_window_o,
  // receive window table: the packet's header fields, its verdict, refusal events
  output logic [3:0]                   pkt_ptype_o,
  output logic [15:0]                  pkt_src_o,
  output logic [15:0]                  pkt_key_o,
  output logic [47:0]                  pkt_addr_o,
  output logic [15:0]                  pkt_len_o,
  output logic [31:0]                  pkt_msg_id_o,
  input  win_rej_e                     win_rej_i,
  output logic                         reject_o,
  output win_rej_e                     reject_reason_o,
  output logic [2:0]                   pkt_dctx_o,
  output logic                         drop_ctx_o
);
  localparam int unsigned IdxW = $clog2(MAX_FLITS);

  logic [IdxW-1:0] idx_q, idx_d;            // flits of the current packet already stored
  logic            discard_q, discard_d;    // inside an over-long packet, after the cut
  logic [31:0]     crc_q, crc_d;
  pkt_hdr_w0_t     hdr0_q, hdr0_d;
  logic [63:0]     raddr_q, raddr_d;
  logic [13:0]     exp_pay_q, exp_pay_d;    // payload flits the header announces
  logic            win_ok_q, win_ok_d;
  logic            drop_crc_q, drop_crc_d;
  logic            drop_dest_q, drop_dest_d;
  logic            drop_malformed_q, drop_malformed_d;
  logic            drop_window_q, drop_window_d;
  logic            drop_table_d;
  win_rej_e        reject_reason_q;
  logic [31:0]     msg_id_q, msg_id_d;
  logic            drop_ctx_q, drop_ctx_d;

  logic [31:0] crc_next;
  crc32_d64 u_crc (
    .crc_i (crc_q),
    .data_i(flit_i.data),
    .crc_o (crc_next)
  );

  // Header-derived checks, registered (see above).
  logic [63:0] win_off;
  logic [63:0] len64;
  always_comb begin
    len64     = 64'(hdr0_q.len);
    win_off   = 64'(raddr_q[47:0]) - rxwin_base_i;
    // Written without raddr + len so that no sum can wrap past 2^64.
    win_ok_d  = (64'(raddr_q[47:0]) >= rxwin_base_i) && (rxwin_size_i >= len64) &&
                (win_off <= rxwin_size_i - len64);
    exp_pay_d = 14'((17'(raddr_q[2:0]) + 17'(hdr0_q.len) + 17'd7) >> 3);
  end

  // Verdict of a packet ending with flit_i.
  logic framing_bad, crc_bad, hdr_bad, dest_bad, ctx_bad, is_ans;
  always_comb begin
    // Answers (docs/RELIABILITY.md) are header only.
    is_ans      = hdr0_q.ptype inside {PTYPE_ACK, PTYPE_NACK, PTYPE_NACK_REJECT};
    // 4 flits is an answer's size; a 4-flit packet of another type stays malformed
    // (framing) whatever its CRC, as a short data packet always was.
    framing_bad = flit_i.err || (idx_q < IdxW'(3)) || (idx_q == IdxW'(3) && !is_ans);
    crc_bad     = ~crc_q != flit_i.data[31:0];
    hdr_bad     = is_ans ? ((hdr0_q.len != '0) || (idx_q != IdxW'(3))) :
                  (!(hdr0_q.ptype inside {PTYPE_WRITE, PTYPE_BCAST}) || (hdr0_q.len == '0) ||
                   (hdr0_q.len > 11'(MTU_MAX)) || (14'(idx_q) - 14'd3 != exp_pay_q));
    // A broadcast names a range (lo | hi << 8): a NIC outside it drops and counts it.
    dest_bad    = !enable_i ||
                  ((hdr0_q.ptype == PTYPE_BCAST) ?
                   (node_id_i < 16'(hdr0_q.dest[7:0]) || node_id_i > 16'(hdr0_q.dest[15:8])) :
                   (hdr0_q.dest != node_id_i));
    ctx_bad     = !ctx_rx_en_i[hdr0_q.dctx];
  end

  logic cut;
  always_comb begin
    idx_d            = idx_q;
    discard_d        = discard_q;
    crc_d            = crc_q;
    hdr0_d           = hdr0_q;
    raddr_d          = raddr_q;
    drop_crc_d       = 1'b0;
    drop_dest_d      = 1'b0;
    drop_malformed_d = 1'b0;
    drop_window_d    = 1'b0;
    drop_table_d     = 1'b0;
    msg_id_d         = msg_id_q;
    drop_ctx_d       = 1'b0;
    vrd_accept_o     = 1'b0;
    cut              = !discard_q && !flit_i.last && (idx_q == IdxW'(MAX_FLITS - 1));
    buf_push_o       = flit_i.valid;
    buf_data_o       = flit_i.data;
    buf_eop_o        = flit_i.last || discard_q || cut;
    vrd_push_o       = flit_i.valid && buf_eop_o;

    if (flit_i.valid) begin
      if (discard_q) begin
        if (flit_i.last) discard_d = 1'b0;
      end else if (flit_i.last || cut) begin
        idx_d     = '0;
        crc_d     = '1;
        discard_d = cut;
        if (cut || framing_bad) drop_malformed_d = 1'b1;
        else if (crc_bad)       drop_crc_d = 1'b1;
        else if (hdr_bad)       drop_malformed_d = 1'b1;
        else if (dest_bad)      drop_dest_d = 1'b1;
        else if (ctx_bad && !is_ans) drop_ctx_d = 1'b1;
        else if (!win_ok_q && !is_ans) drop_window_d = 1'b1;
        else if (win_rej_i != WIN_REJ_NONE) drop_table_d = 1'b1;
        else                    vrd_accept_o = 1'b1;
      end else begin
        idx_d = idx_q + 1'b1;
        crc_d = crc_next;
        if (idx_q == IdxW'(0)) hdr0_d = pkt_hdr_w0_t'(flit_i.data);
        if (idx_q == IdxW'(1)) raddr_d = flit_i.data;
        if (idx_q == IdxW'(2)) msg_id_d = flit_i.data[31:0];
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      idx_q            <= '0;
      discard_q        <= 1'b0;
      crc_q            <= '1;
      hdr0_q           <= '0;
      raddr_q          <= '0;
      exp_pay_q        <= '0;
      win_ok_q         <= 1'b0;
      drop_crc_q       <= 1'b0;
      drop_dest_q      <= 1'b0;
      drop_malformed_q <= 1'b0;
      drop_window_q    <= 1'b0;
      reject_o         <= 1'b0;
      reject_reason_q  <= WIN_REJ_NONE;
      msg_id_q         <= '0;
      drop_ctx_q       <= 1'b0;
    end else begin
      idx_q            <= idx_d;
      discard_q        <= discard_d;
      crc_q            <= crc_d;
      hdr0_q           <= hdr0_d;
      raddr_q          <= raddr_d;
      exp_pay_q        <= exp_pay_d;
      win_ok_q         <= win_ok_d;
      drop_crc_q       <= drop_crc_d;
      drop_dest_q      <= drop_dest_d;
      drop_malformed_q <= drop_malformed_d;
      drop_window_q    <= drop_window_d;
      reject_o         <= drop_window_d || drop_table_d;
      reject_reason_q  <= drop_window_d ? WIN_REJ_RXWIN : win_rej_i;
      msg_id_q         <= msg_id_d;
      drop_ctx_q       <= drop_ctx_d;
    end
  end

  assign drop_crc_o       = drop_crc_q;
  assign drop_dest_o      = drop_dest_q;
  assign drop_malformed_o = drop_malformed_q;
  assign drop_window_o    = drop_window_q;
  assign reject_reason_o  = reject_reason_q;

  assign pkt_ptype_o  = hdr0_q.ptype;
  assign pkt_src_o    = hdr0_q.src;
  assign pkt_dctx_o   = hdr0_q.dctx;
  assign pkt_key_o    = raddr_q[63:48];
  assign pkt_addr_o   = raddr_q[47:0];
  assign pkt_len_o    = 16'(hdr0_q.len);
  assign pkt_msg_id_o = msg_id_q;

  logic unused_hdr0;
  assign unused_hdr0 = ^{hdr0_q.flags, hdr0_q.attempt, hdr0_q.lag, hdr0_q.rsvd62, hdr0_q.last, hdr0_q.first};
  assign drop_ctx_o       = drop_ctx_q;

endmodule
