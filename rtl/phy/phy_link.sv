// Board-to-board link PHY: carries one router link (flits one way, credits the other,
// see fasthsl_link_pkg) over a cable with 6 pins per direction: a forwarded clock, a
// frame mark and 4 data lanes, single data rate. The board top forwards tx clock = the
// local core clock (inverted, so the far end samples mid-bit) next to tx_frame_o and
// tx_lane_o; rx_clk_i is the far end's clock. Boards run from different oscillators.
//
// Each 20-beat frame (phy_ser) carries one flit slot, up to 7 returned credits, the
// sender's LOCK flag (it receives our frames well) and RUN flag, protected by a CRC-8.
// Received frames cross into the local clock through phy_async_fifo (one frame per 20
// far-end cycles; this side takes one per cycle, so the FIFO only fills if the far
// clock is 20x faster, which then shows as a bad frame). Credits travel inside frames,
// so they cross clock domains as counts, exactly.
//
// Link state, all in the local clock domain:
//   SILENT  send nothing for SILENT_CYCLES, ignore what arrives. The far end's watchdog
//           (WDOG_CYCLES without a frame) sees the silence and goes SILENT too, so both
//           ends always restart together and no frame of the old session survives.
//   TRAIN   send idle frames (RUN flag 0). LOCK_FRAMES good frames in a row = locked;
//           locked, the far end reports LOCK (so both directions work) and the receive
//           buffer has drained into the router -> RUN.
//   RUN     send flits against the far end's credits, announce RX_DEPTH credits once
//           (in the first RUN frames), then one per flit passed on to the router.
// Any bad frame (CRC, cut frame), watchdog timeout, flit beyond the credits given, flit
// outside RUN, RUN flag 0 after the far end was seen in RUN, LOCK flag 0 in RUN
// -> SILENT. In TRAIN before the far end was seen in RUN, a bad frame or a timeout only
// restarts the lock count: the noise of a cable being plugged in.
// The watchdog and silence times assume the two clocks are within a factor of ~4.
// Credit rule: the counter of the far end's credits is 0 in SILENT and counts credits
// of good RUN-flagged frames in TRAIN and RUN; pending credits to return are dropped on
// leaving RUN. Both ends re-learn everything after each SILENT.
// Flit rule: nothing is lost or duplicated while the link stays in RUN. A link loss
// cuts the packet in flight: the receiving side ends it towards its router with an EEP
// flit (last + err; a buffer slot is kept for it), and the sending side discards the
// rest of it. Outside RUN, flits from the router are discarded (counted in tx_drop_o)
// a whole packet at a time, so the router never blocks on a dead link.
module phy_link #(
  parameter int unsigned TX_DEPTH      = 4,     // flits buffered from the router
  parameter int unsigned RX_DEPTH      = 8,     // credits announced to the far end
  parameter int unsigned LOCK_FRAMES   = 8,
  parameter int unsigned WDOG_CYCLES   = 256,
  parameter int unsigned SILENT_CYCLES = 2048
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // router side: flits to send (from a router output) and that output's credits
  input  fasthsl_link_pkg::link_flit_t tx_flit_i,
  output logic                         tx_credit_o,
  // router side: flits received (to a router input) and that input's credits
  output fasthsl_link_pkg::link_flit_t rx_flit_o,
  input  logic                         rx_credit_i,
  // cable, transmit direction (clock: clk_i, forwarded by the board top)
  output logic                         tx_frame_o,
  output logic [3:0]                   tx_lane_o,
  // cable, receive direction
  input  logic                         rx_clk_i,
  input  logic                         rx_frame_i,
  input  logic [3:0]                   rx_lane_i,
  // status: level, and one-cycle event pulses to count
  output logic                         link_up_o,
  output logic                         bad_frame_o,  // a bad frame arrived (not in SILENT)
  output logic                         link_down_o,  // left RUN
  output logic                         tx_drop_o     // a flit from the router discarded
);
  import fasthsl_link_pkg::*;

  localparam int unsigned CredW  = 8;   // far-end / router credit counters
  localparam int unsigned PendW  = $clog2(RX_DEPTH + 1) + 1;
  localparam int unsigned WdogW  = $clog2(WDOG_CYCLES + 1);
  localparam int unsigned SilW   = $clog2(SILENT_CYCLES + 1);
  localparam int unsigned LockW  = $clog2(LOCK_FRAMES + 1);
  localparam int unsigned RxBufW = $clog2(RX_DEPTH + 2);

  if (RX_DEPTH < 1 || RX_DEPTH > 127) begin : gen_rx_depth_check
    $error("phy_link: RX_DEPTH must be 1..127");
  end

  // Frame payload, 72 bits: {credits[2:0], lock, run, valid, last, err, data[63:0]}.
  typedef struct packed {
    logic [2:0]  credits;
    logic        lock;    // the sender is locked on our frames
    logic        run;
    logic        valid;
    logic        last;
    logic        err;
    logic [63:0] data;
  } frame_t;

  typedef enum logic [1:0] {
    StSilent,
    StTrain,
    StRun
  } state_e;

  state_e state_q, state_d;

  // ---- receive: cable -> far clock domain -> async FIFO -> local ----
  logic   rx_rst_n;
  logic   des_valid, des_ready, des_good;
  logic   [71:0] des_payload;
  logic   ent_valid, ent_good;
  logic   [71:0] ent_payload;
  frame_t ent;

  phy_rst_sync u_rx_rst (
    .clk_i (rx_clk_i),
    .rst_ni(rst_ni),
    .rst_no(rx_rst_n)
  );

  phy_deser u_deser (
    .clk_i        (rx_clk_i),
    .rst_ni       (rx_rst_n),
    .frame_i      (rx_frame_i),
    .lane_i       (rx_lane_i),
    .out_valid_o  (des_valid),
    .out_ready_i  (des_ready),
    .out_payload_o(des_payload),
    .out_good_o   (des_good)
  );

  phy_async_fifo #(
    .WIDTH(73),
    .DEPTH(4)
  ) u_cdc (
    .wr_clk_i  (rx_clk_i),
    .wr_rst_ni (rx_rst_n),
    .wr_valid_i(des_valid),
    .wr_ready_o(des_ready),
    .wr_data_i ({des_good, des_payload}),
    .rd_clk_i  (clk_i),
    .rd_rst_ni (rst_ni),
    .rd_valid_o(ent_valid),
    .rd_ready_i(1'b1),
    .rd_data_o ({ent_good, ent_payload})
  );
  assign ent = frame_t'(ent_payload);

  // ---- receive buffer -> router input ----
  logic              rxb_push, rxb_pop, rxb_in_ready, rxb_out_valid, eep_push;
  logic [65:0]       rxb_in, rxb_out;
  logic [RxBufW-1:0] rxb_count;
  logic [CredW-1:0]  rtr_cred_q;
  link_flit_t        rx_flit_q;
  logic              rx_in_pkt_q;

  // RX_DEPTH slots for credited flits plus one for the EEP a link loss may add.
  fifo_sync #(
    .WIDTH(66),
    .DEPTH(RX_DEPTH + 1)
  ) u_rx_buf (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (rxb_push || eep_push),
    .in_ready_o (rxb_in_ready),
    .in_data_i  (eep_push ? {1'b1, 1'b1, 64'b0} : rxb_in),
    .out_valid_o(rxb_out_valid),
    .out_ready_i(rxb_pop),
    .out_data_o (rxb_out),
    .count_o    (rxb_count)
  );
  assign rxb_in  = {ent.last, ent.err, ent.data};
  assign rxb_pop = rxb_out_valid && (rtr_cred_q != '0);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rtr_cred_q  <= '0;
      rx_flit_q   <= LINK_FLIT_IDLE;
      rx_in_pkt_q <= 1'b0;
    end else begin
      rtr_cred_q <= rtr_cred_q + CredW'(rx_credit_i) - CredW'(rxb_pop);
      rx_flit_q  <= rxb_pop ? '{valid: 1'b1, last: rxb_out[65], err: rxb_out[64],
                               data: rxb_out[63:0]}
                            : LINK_FLIT_IDLE;
      if (rxb_push || eep_push) rx_in_pkt_q <= eep_push ? 1'b0 : !ent.last;
    end
  end
  assign rx_flit_o = rx_flit_q;

  // ---- transmit buffer (router output -> frames) ----
  logic        txb_valid, txb_pop, txb_ready, tx_send_flit, tx_discard;
  logic [65:0] txb_out;
  logic        tx_in_pkt_q, tx_drop_pkt_q;
  logic [$clog2(TX_DEPTH + 1)-1:0] txb_count;
  logic        unused_txb_count;
  assign unused_txb_count = ^txb_count;

  fifo_sync #(
    .WIDTH(66),
    .DEPTH(TX_DEPTH)
  ) u_tx_buf (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (tx_flit_i.valid),
    .in_ready_o (txb_ready),
    .in_data_i  ({tx_flit_i.last, tx_flit_i.err, tx_flit_i.data}),
    .out_valid_o(txb_valid),
    .out_ready_i(txb_pop),
    .out_data_o (txb_out),
    .count_o    (txb_count)
  );

  link_credit_return #(
    .DEPTH(TX_DEPTH)
  ) u_tx_credit (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .slot_freed_i(txb_pop),
    .credit_o    (tx_credit_o)
  );

  // ---- frames out ----
  logic             ser_load, locked;
  logic [CredW-1:0] far_cred_q;
  logic [PendW-1:0] pend_q;
  logic [2:0]       cred_send;
  frame_t           tx_frame;

  assign cred_send = (state_q != StRun) ? 3'd0
                   : (pend_q > PendW'(7)) ? 3'd7 : 3'(pend_q);
  // A packet cut by a link loss is discarded to its end, even if the link is back.
  assign tx_discard   = txb_valid && ((state_q != StRun) || (tx_in_pkt_q && tx_drop_pkt_q));
  assign tx_send_flit = txb_valid && !tx_discard && ser_load && (far_cred_q != '0);
  assign txb_pop      = tx_send_flit || tx_discard;

  always_comb begin
    tx_frame         = '0;
    tx_frame.credits = cred_send;
    tx_frame.lock    = locked;
    tx_frame.run     = (state_q == StRun);
    tx_frame.valid   = tx_send_flit;
    tx_frame.last    = txb_out[65];
    tx_frame.err     = txb_out[64];
    tx_frame.data    = txb_out[63:0];
  end

  phy_ser u_ser (
    .clk_i    (clk_i),
    .rst_ni   (rst_ni),
    .send_i   (state_q != StSilent),
    .payload_i(tx_frame),
    .load_o   (ser_load),
    .frame_o  (tx_frame_o),
    .lane_o   (tx_lane_o)
  );

  // ---- link state ----
  logic             far_run_q;    // a good RUN frame was seen since the last SILENT
  logic [LockW-1:0] good_q;
  logic [WdogW-1:0] wdog_q;
  logic [SilW-1:0]  sil_q;
  logic             ent_ok, ent_bad, fail, wdog_fire, flit_in, far_lock_q;

  assign ent_ok    = ent_valid && ent_good && (state_q != StSilent);
  assign ent_bad   = ent_valid && !ent_good && (state_q != StSilent);
  assign wdog_fire = (wdog_q == WdogW'(WDOG_CYCLES)) && (state_q != StSilent);
  assign flit_in   = ent_ok && ent.valid;
  assign locked    = (good_q == LockW'(LOCK_FRAMES));
  assign rxb_push  = flit_in && (state_q == StRun) && (32'(rxb_count) < RX_DEPTH);

  // Reasons to go SILENT; in TRAIN before the far end ran, bad frames and silence
  // only restart the lock count (handled below).
  always_comb begin
    fail = 1'b0;
    if (state_q == StRun || far_run_q) begin
      if (ent_bad || wdog_fire) fail = 1'b1;
      if (ent_ok && !ent.run && far_run_q) fail = 1'b1;
      if (ent_ok && !ent.lock && state_q == StRun) fail = 1'b1;
    end
    if (flit_in && !rxb_push) fail = 1'b1;  // no credit given, or not in RUN
  end

  always_comb begin
    state_d = state_q;
    unique case (state_q)
      StSilent: if (sil_q == SilW'(SILENT_CYCLES)) state_d = StTrain;
      StTrain: begin
        if (fail) state_d = StSilent;
        else if (locked && far_lock_q && rxb_count == '0) state_d = StRun;
      end
      StRun:    if (fail) state_d = StSilent;
      default:  state_d = StSilent;
    endcase
  end

  // The EEP goes in when the link is lost with a packet half passed to the router.
  assign eep_push = (state_d == StSilent) && (state_q != StSilent) && rx_in_pkt_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q       <= StSilent;
      far_run_q     <= 1'b0;
      far_lock_q    <= 1'b0;
      good_q        <= '0;
      wdog_q        <= '0;
      sil_q         <= '0;
      far_cred_q    <= '0;
      pend_q        <= '0;
      tx_in_pkt_q   <= 1'b0;
      tx_drop_pkt_q <= 1'b0;
    end else begin
      state_q <= state_d;
      sil_q   <= (state_q == StSilent) ? sil_q + SilW'(1) : '0;
      wdog_q  <= (ent_valid || state_q == StSilent || wdog_fire) ? '0 : wdog_q + WdogW'(1);

      if (state_d == StSilent) begin
        far_run_q  <= 1'b0;
        far_lock_q <= 1'b0;
        good_q     <= '0;
        far_cred_q <= '0;
      end else begin
        if (ent_ok && ent.run) far_run_q <= 1'b1;
        if (ent_ok) far_lock_q <= ent.lock;
        else if (ent_bad || wdog_fire) far_lock_q <= 1'b0;
        if (ent_bad || wdog_fire) good_q <= '0;
        else if (ent_ok && good_q != LockW'(LOCK_FRAMES)) good_q <= good_q + LockW'(1);
        far_cred_q <= far_cred_q
                    + ((ent_ok && ent.run) ? CredW'(ent.credits) : '0)
                    - CredW'(tx_send_flit);
      end

      if (state_d != StRun) pend_q <= '0;
      else if (state_q != StRun) pend_q <= PendW'(RX_DEPTH);
      else pend_q <= pend_q + PendW'(rxb_pop) - (ser_load ? PendW'(cred_send) : '0);

      if (txb_pop) begin
        tx_in_pkt_q   <= !txb_out[65];
        tx_drop_pkt_q <= tx_discard;
      end
    end
  end

  assign link_up_o   = (state_q == StRun);
  assign bad_frame_o = ent_bad;
  assign link_down_o = (state_q == StRun) && (state_d != StRun);
  assign tx_drop_o   = tx_discard;

`ifndef SYNTHESIS
  always_comb begin : a_phy_link
    if (rst_ni) begin
      assert (!(tx_flit_i.valid && !txb_ready))
        else $error("phy_link: flit from the router without a credit");
      assert (!(eep_push && !rxb_in_ready)) else $error("phy_link: no slot for the EEP");
      assert (32'(pend_q) <= RX_DEPTH) else $error("phy_link: more credits owed than slots");
    end
  end
`endif

endmodule
