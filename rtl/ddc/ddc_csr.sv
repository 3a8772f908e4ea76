// NIC register file (BAR0 page 0): configuration, ring indices, interrupts, counters.
//
// Every register of the contract's "nic" block with its reset value and access type.
// A rejected access (undefined offset, write to a read-only register, bad value, ring
// index out of range) changes no state, sets its ERR_STATUS bit and bumps CNT_CSR_ERR.
// Bits above a register's width are ignored on write and read as 0; range checks look at
// the whole 32-bit value, so 32'h0001_0000 is not silently truncated into a valid index.
//
// INT_STATUS.ERROR is not stored: it reads as |ERR_STATUS, so it stays set while any
// error is pending and clears when software clears ERR_STATUS (writing 1 to it is a
// no-op). Hardware events win over a simultaneous write-1-to-clear, so no event is lost.
// Counters are 32-bit and wrap.
//
// LME_DONE and LMR_NEW events pass through a coalescer each (ddc_int_coal, thresholds in
// INT_COAL_*) before they set INT_STATUS. The coalescers run whatever INT_MASK says, so
// unmasking a source raises the line at once if it has signalled meanwhile; a ring reset
// (the lme/lmr_reset pulse) drops that ring's pending events, which describe entries that
// no longer exist. ERROR is never coalesced: errors are rare and want attention now.
// The per-context bits (CTX_LME_DONE, CTX_LMR_NEW: bits 8+n and 16+n for contexts 1..7)
// are set at once with the event of their context, next to the coalesced LME_DONE /
// LMR_NEW that count every context's events: the one interrupt line, and a handler
// that wants to wake one context's waiter reads which.
//
// LME_SIZE / LMR_SIZE writes zero the ring's producer/consumer: the index held here is
// cleared with the write, the one held by TX (LME_CONS) / RX (LMR_PROD) on the
// registered lme_reset_o / lmr_reset_o pulse, which is high in the first cycle the new
// size is visible.
//
// The push window (PUSH_DESC, PUSH_DATA) is write-only and lives in ddc_push, which snoops
// the same bus; here its writes are accepted, and the trigger (PUSH_DESC[7]) is applied
// as an LME_PROD write: the doorbell holds whether or not the push is taken.
module ddc_csr
  import fasthsl_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,
  // CSR bus: at most one request per cycle, always accepted
  input  logic        csr_req_valid_i,
  input  logic        csr_req_write_i,
  input  logic [11:0] csr_req_addr_i,
  input  logic [31:0] csr_req_wdata_i,
  output logic        csr_rsp_valid_o,
  output logic [31:0] csr_rsp_rdata_o,
  // configuration
  output logic        enable_o,
  output logic [15:0] node_id_o,
  output logic [15:0] mtu_o,
  output logic [15:0] dest_lo_o,
  output logic [15:0] dest_hi_o,
  output logic [63:0] lme_base_o,
  output logic [15:0] lme_size_o,
  output logic [15:0] lme_prod_o,
  output logic        lme_reset_o,
  input  logic [15:0] lme_cons_i,
  output logic [63:0] lmr_base_o,
  output logic [15:0] lmr_size_o,
  output logic [15:0] lmr_cons_o,
  output logic        lmr_reset_o,
  input  logic [15:0] lmr_prod_i,
  output logic [63:0] rxwin_base_o,
  output logic [63:0] rxwin_size_o,
  output logic        ack_off_o,          // REL_CTRL.ACK_OFF
  output logic        sender_wait_o,      // REL_CTRL.SENDER_WAIT
  output logic [15:0] rel_timeout_o,      // REL_TIMEOUT
  output logic        dedup_o,            // REL_CTRL.DEDUP
  output logic        early_nack_o,       // REL_CTRL.EARLY_NACK
  output logic [3:0]  rel_retries_o,      // REL_RETRIES
  output logic [4:0]  tx_quantum_o,       // TX_QUANTUM (0: whole messages)
  // one-cycle event pulses
  input  logic        tx_desc_done_i,
  input  logic        tx_desc_err_i,
  input  logic        tx_desc_irq_i,
  input  logic [2:0]  tx_desc_irq_ctx_i,   // the context of that descriptor
  input  logic        tx_pkt_sent_i,
  input  logic        rx_pkt_i,
  input  logic        rx_msg_i,
  input  logic        rx_msg_irq_i,
  input  logic [2:0]  rx_msg_irq_ctx_i,    // the context of that LMR entry
  input  logic        rx_drop_crc_i,
  input  logic        rx_drop_dest_i,
  input  logic        rx_drop_malformed_i,
  input  logic        rx_drop_window_i,
  input  logic        rx_drop_ctx_i,
  input  logic        rx_dup_i,           // a duplicate packet dropped (REL_CTRL.DEDUP)
  input  logic        rx_seq_evict_i,     // a seq window slot taken over
  input  logic        rx_early_nack_i,    // an early NACK asked for (REL_CTRL.EARLY_NACK)
  input  logic        rx_lmr_full_i,      // a context 1..7 message dropped: its LMR ring full
  input  logic        push_free_i,
  input  logic        push_accept_i,
  input  logic        push_reject_i,
  input  logic        dma_rd_err_i,
  input  logic        rx_msg_expired_i,
  input  logic        rx_track_full_i,
  input  logic        ack_tx_i,
  input  logic        nack_tx_i,
  input  logic        ack_rx_i,
  input  logic        nack_rx_i,
  input  logic [1:0]  ans_drop_i,         // answers dropped this cycle (0..2)
  input  logic        rel_retx_i,         // a retransmission started
  input  logic [4:0]  rel_timeouts_i,     // answer timeouts this cycle (several per tick)
  // receive window block (ddc_rx_window): its registers are answered from here
  input  logic        win_hit_i,
  input  logic        win_wr_ok_i,
  input  logic [31:0] win_rdata_i,
  input  logic        win_reject_i,
  // rejected accesses to the context pages (ddc_ctx_csr): ERR_STATUS bits 3:0, counted here
  input  logic [3:0]  ctx_csr_err_i,
  // interrupt (level)
  output logic        irq_o
);
  // INT_STATUS / INT_MASK bits
  localparam int unsigned IntLmeDone = 0;
  localparam int unsigned IntLmrNew  = 1;
  localparam int unsigned IntError   = 2;
  // ERR_STATUS bits
  localparam int unsigned ErrCsrBadAddr  = 0;
  localparam int unsigned ErrCsrBadValue = 1;
  localparam int unsigned ErrLmeProdRange = 2;
  localparam int unsigned ErrLmrConsRange = 3;
  localparam int unsigned ErrDescError   = 4;
  localparam int unsigned ErrRxDrop      = 5;
  localparam int unsigned ErrPushReject  = 6;
  localparam int unsigned ErrWinReject   = ERR_WIN_REJECT_BIT;
  localparam int unsigned ErrW           = ErrWinReject + 1;

  // Counter indices, in register order
  localparam int unsigned CntTxDesc        = 0;
  localparam int unsigned CntTxPkts        = 1;
  localparam int unsigned CntRxPkts        = 2;
  localparam int unsigned CntRxMsgs        = 3;
  localparam int unsigned CntDescErr       = 4;
  localparam int unsigned CntCsrErr        = 5;
  localparam int unsigned CntRxCrcErr      = 6;
  localparam int unsigned CntRxDropDest    = 7;
  localparam int unsigned CntRxDropMalform = 8;
  localparam int unsigned CntRxDropWindow  = 9;
  localparam int unsigned CntPush          = 10;
  localparam int unsigned CntPushReject    = 11;
  localparam int unsigned CntDmaRdErr      = 12;
  localparam int unsigned CntRxMsgExpired  = 13;
  localparam int unsigned CntRxTrackFull   = 14;
  localparam int unsigned CntAckTx         = 15;
  localparam int unsigned CntNackTx        = 16;
  localparam int unsigned CntAckRx         = 17;
  localparam int unsigned CntNackRx        = 18;
  localparam int unsigned CntAnsDrop       = 19;
  localparam int unsigned CntRxDropCtx     = 20;
  localparam int unsigned CntRxDup         = 21;
  localparam int unsigned CntRxSeqEvict    = 22;
  localparam int unsigned CntRetx          = 23;
  localparam int unsigned CntRelTimeout    = 24;
  localparam int unsigned CntRxEarlyNack   = 25;
  localparam int unsigned CntRxLmrFull     = 26;
  localparam int unsigned NumCnt           = 27;

  logic        enable_q, enable_d;
  logic [15:0] node_id_q, node_id_d;
  logic [15:0] mtu_q, mtu_d;
  logic [15:0] dest_lo_q, dest_lo_d;
  logic [15:0] dest_hi_q, dest_hi_d;
  logic [63:0] lme_base_q, lme_base_d;
  logic [15:0] lme_size_q, lme_size_d;
  logic [15:0] lme_prod_q, lme_prod_d;
  logic        lme_reset_q, lme_reset_d;
  logic [63:0] lmr_base_q, lmr_base_d;
  logic [15:0] lmr_size_q, lmr_size_d;
  logic [15:0] lmr_cons_q, lmr_cons_d;
  logic        lmr_reset_q, lmr_reset_d;
  logic [63:0] rxwin_base_q, rxwin_base_d;
  logic [63:0] rxwin_size_q, rxwin_size_d;
  logic        ack_off_q, ack_off_d;
  logic        sender_wait_q, sender_wait_d;
  logic [15:0] rel_timeout_q, rel_timeout_d;
  logic        dedup_q, dedup_d;
  logic        early_nack_q, early_nack_d;
  logic [3:0]  rel_retries_q, rel_retries_d;
  logic [4:0]  tx_quantum_q, tx_quantum_d;
  logic [1:0]  int_status_q, int_status_d;   // LME_DONE, LMR_NEW; ERROR is derived
  logic [23:0] int_mask_q, int_mask_d;
  logic [7:0]  int_ctx_lme_q, int_ctx_lme_d;   // CTX_LME_DONE, bit n = context n
  logic [7:0]  int_ctx_lmr_q, int_ctx_lmr_d;   // CTX_LMR_NEW
  int_coal_t   coal_lme_q, coal_lme_d;
  int_coal_t   coal_lmr_q, coal_lmr_d;
  logic        coal_lme_fire, coal_lmr_fire;
  logic [ErrW-1:0] err_status_q, err_status_d;
  logic [NumCnt-1:0][31:0] cnt_q, cnt_d;
  logic        rsp_valid_q;
  logic [31:0] rsp_rdata_q, rsp_rdata_d;

  logic [15:0] addr;
  logic [31:0] wdata;
  logic        req_write, req_read;
  assign addr      = {4'h0, csr_req_addr_i};
  assign wdata     = csr_req_wdata_i;
  assign req_write = csr_req_valid_i && csr_req_write_i;
  assign req_read  = csr_req_valid_i && !csr_req_write_i;

  // Push window offsets (word aligned); index 7 of PUSH_DESC is the trigger.
  logic push_win, push_trigger;
  assign push_win = (addr[1:0] == 2'b00) &&
                    (((addr >= PUSH_DESC_OFFSET) &&
                      (addr < PUSH_DESC_OFFSET + 16'(PUSH_DESC_COUNT * PUSH_DESC_STRIDE))) ||
                     ((addr >= PUSH_DATA_OFFSET) &&
                      (addr < PUSH_DATA_OFFSET + 16'(PUSH_DATA_COUNT * PUSH_DATA_STRIDE))));
  assign push_trigger = (addr == PUSH_DESC_OFFSET + 16'((PUSH_DESC_COUNT - 1) *
                                                        PUSH_DESC_STRIDE));

  logic [23:0] int_status_rd;
  always_comb begin
    int_status_rd             = {int_ctx_lmr_q, int_ctx_lme_q, 5'b0, 1'b0, int_status_q};
    int_status_rd[IntError]   = |err_status_q;
  end

  // Ring sizes and MTU checked on the full word.
  logic ring_size_ok, mtu_ok, tx_quantum_ok;
  assign ring_size_ok = (wdata != '0) && (wdata <= 32'(RING_SIZE_MAX));
  assign mtu_ok       = (wdata >= 32'd8) && (wdata <= 32'(MTU_MAX)) && (wdata[2:0] == '0);
  // Below 64 bytes a segment would be shorter than a packet's header and trailer; above
  // 2^24 no message is long enough to be cut (MSG_LEN_MAX).
  assign tx_quantum_ok = (wdata == '0) || ((wdata >= 32'd6) && (wdata <= 32'd24));

  // ---- read data and decode ----
  logic rd_known;
  always_comb begin
    rd_known    = 1'b1;
    rsp_rdata_d = '0;
    unique case (addr)
      ID_OFFSET:                    rsp_rdata_d = ID_MAGIC;
      VERSION_OFFSET:               rsp_rdata_d = CONTRACT_VERSION;
      NODE_ID_OFFSET:               rsp_rdata_d = 32'(node_id_q);
      CTRL_OFFSET:                  rsp_rdata_d = 32'(enable_q);
      MTU_OFFSET:                   rsp_rdata_d = 32'(mtu_q);
      DEST_RANGE_OFFSET:            rsp_rdata_d = {dest_hi_q, dest_lo_q};
      LME_BASE_LO_OFFSET:           rsp_rdata_d = lme_base_q[31:0];
      LME_BASE_HI_OFFSET:           rsp_rdata_d = lme_base_q[63:32];
      LME_SIZE_OFFSET:              rsp_rdata_d = 32'(lme_size_q);
      LME_PROD_OFFSET:              rsp_rdata_d = 32'(lme_prod_q);
      LME_CONS_OFFSET:              rsp_rdata_d = 32'(lme_cons_i);
      PUSH_STATUS_OFFSET:           rsp_rdata_d = 32'(push_free_i);
      LMR_BASE_LO_OFFSET:           rsp_rdata_d = lmr_base_q[31:0];
      LMR_BASE_HI_OFFSET:           rsp_rdata_d = lmr_base_q[63:32];
      LMR_SIZE_OFFSET:              rsp_rdata_d = 32'(lmr_size_q);
      LMR_PROD_OFFSET:              rsp_rdata_d = 32'(lmr_prod_i);
      LMR_CONS_OFFSET:              rsp_rdata_d = 32'(lmr_cons_q);
      RXWIN_BASE_LO_OFFSET:         rsp_rdata_d = rxwin_base_q[31:0];
      RXWIN_BASE_HI_OFFSET:         rsp_rdata_d = rxwin_base_q[63:32];
      RXWIN_SIZE_LO_OFFSET:         rsp_rdata_d = rxwin_size_q[31:0];
      RXWIN_SIZE_HI_OFFSET:         rsp_rdata_d = rxwin_size_q[63:32];
      INT_STATUS_OFFSET:            rsp_rdata_d = 32'(int_status_rd);
      INT_MASK_OFFSET:              rsp_rdata_d = 32'(int_mask_q);
      INT_COAL_LME_DONE_OFFSET:     rsp_rdata_d = coal_lme_q;
      INT_COAL_LMR_NEW_OFFSET:      rsp_rdata_d = coal_lmr_q;
      ERR_STATUS_OFFSET:            rsp_rdata_d = 32'(err_status_q);
      CNT_TX_DESC_OFFSET:           rsp_rdata_d = cnt_q[CntTxDesc];
      CNT_TX_PKTS_OFFSET:           rsp_rdata_d = cnt_q[CntTxPkts];
      CNT_RX_PKTS_OFFSET:           rsp_rdata_d = cnt_q[CntRxPkts];
      CNT_RX_MSGS_OFFSET:           rsp_rdata_d = cnt_q[CntRxMsgs];
      CNT_DESC_ERR_OFFSET:          rsp_rdata_d = cnt_q[CntDescErr];
      CNT_CSR_ERR_OFFSET:           rsp_rdata_d = cnt_q[CntCsrErr];
      CNT_RX_CRC_ERR_OFFSET:        rsp_rdata_d = cnt_q[CntRxCrcErr];
      CNT_RX_DROP_DEST_OFFSET:      rsp_rdata_d = cnt_q[CntRxDropDest];
      CNT_RX_DROP_MALFORMED_OFFSET: rsp_rdata_d = cnt_q[CntRxDropMalform];
      CNT_RX_DROP_WINDOW_OFFSET:    rsp_rdata_d = cnt_q[CntRxDropWindow];
      CNT_PUSH_OFFSET:              rsp_rdata_d = cnt_q[CntPush];
      CNT_PUSH_REJECT_OFFSET:       rsp_rdata_d = cnt_q[CntPushReject];
      CNT_DMA_RD_ERR_OFFSET:        rsp_rdata_d = cnt_q[CntDmaRdErr];
      CNT_RX_MSG_EXPIRED_OFFSET:    rsp_rdata_d = cnt_q[CntRxMsgExpired];
      CNT_RX_TRACK_FULL_OFFSET:     rsp_rdata_d = cnt_q[CntRxTrackFull];
      REL_CTRL_OFFSET:              rsp_rdata_d = 32'({early_nack_q, dedup_q, sender_wait_q,
                                                         ack_off_q});
      REL_TIMEOUT_OFFSET:           rsp_rdata_d = 32'(rel_timeout_q);
      REL_RETRIES_OFFSET:           rsp_rdata_d = 32'(rel_retries_q);
      TX_QUANTUM_OFFSET:            rsp_rdata_d = 32'(tx_quantum_q);
      CNT_RETX_OFFSET:              rsp_rdata_d = cnt_q[CntRetx];
      CNT_REL_TIMEOUT_OFFSET:       rsp_rdata_d = cnt_q[CntRelTimeout];
      CNT_ACK_TX_OFFSET:            rsp_rdata_d = cnt_q[CntAckTx];
      CNT_NACK_TX_OFFSET:           rsp_rdata_d = cnt_q[CntNackTx];
      CNT_ACK_RX_OFFSET:            rsp_rdata_d = cnt_q[CntAckRx];
      CNT_NACK_RX_OFFSET:           rsp_rdata_d = cnt_q[CntNackRx];
      CNT_ANS_DROP_OFFSET:          rsp_rdata_d = cnt_q[CntAnsDrop];
      CNT_RX_DROP_CTX_OFFSET:       rsp_rdata_d = cnt_q[CntRxDropCtx];
      CNT_RX_DUP_OFFSET:            rsp_rdata_d = cnt_q[CntRxDup];
      CNT_RX_SEQ_EVICT_OFFSET:      rsp_rdata_d = cnt_q[CntRxSeqEvict];
      CNT_RX_EARLY_NACK_OFFSET:     rsp_rdata_d = cnt_q[CntRxEarlyNack];
      CNT_RX_LMR_FULL_OFFSET:       rsp_rdata_d = cnt_q[CntRxLmrFull];
      default: begin
        rd_known    = win_hit_i;
        rsp_rdata_d = win_hit_i ? win_rdata_i : 32'hFFFF_FFFF;
      end
    endcase
  end

  // ---- writes ----
  // Each rejected access sets exactly one of the CSR error bits below.
  logic [3:0] csr_err;
  logic [1:0] int_clr;
  logic [7:0] int_ctx_lme_clr, int_ctx_lmr_clr;
  logic [ErrW-1:0] err_clr;
  always_comb begin
    enable_d     = enable_q;
    node_id_d    = node_id_q;
    mtu_d        = mtu_q;
    dest_lo_d    = dest_lo_q;
    dest_hi_d    = dest_hi_q;
    lme_base_d   = lme_base_q;
    lme_size_d   = lme_size_q;
    lme_prod_d   = lme_prod_q;
    lme_reset_d  = 1'b0;
    lmr_base_d   = lmr_base_q;
    lmr_size_d   = lmr_size_q;
    lmr_cons_d   = lmr_cons_q;
    lmr_reset_d  = 1'b0;
    rxwin_base_d = rxwin_base_q;
    rxwin_size_d = rxwin_size_q;
    ack_off_d    = ack_off_q;
    sender_wait_d = sender_wait_q;
    rel_timeout_d = rel_timeout_q;
    dedup_d       = dedup_q;
    early_nack_d  = early_nack_q;
    rel_retries_d = rel_retries_q;
    tx_quantum_d  = tx_quantum_q;
    int_mask_d   = int_mask_q;
    coal_lme_d   = coal_lme_q;
    coal_lmr_d   = coal_lmr_q;
    int_clr      = '0;
    int_ctx_lme_clr = '0;
    int_ctx_lmr_clr = '0;
    err_clr      = '0;
    csr_err      = '0;

    if (req_read && !rd_known) csr_err[ErrCsrBadAddr] = 1'b1;

    if (req_write && push_win) begin
      if (push_trigger) begin
        // Bits 31:16 of the trigger are the pushed descriptor's key (ddc_push).
        if (wdata[15:0] < lme_size_q) lme_prod_d = wdata[15:0];
        else                          csr_err[ErrLmeProdRange] = 1'b1;
      end
    end else if (req_write) begin
      unique case (addr)
        NODE_ID_OFFSET:       node_id_d = wdata[15:0];
        CTRL_OFFSET:          enable_d = wdata[0];
        MTU_OFFSET: begin
          if (mtu_ok) mtu_d = wdata[15:0];
          else        csr_err[ErrCsrBadValue] = 1'b1;
        end
        DEST_RANGE_OFFSET: begin
          dest_lo_d = wdata[15:0];
          dest_hi_d = wdata[31:16];
        end
        LME_BASE_LO_OFFSET:   lme_base_d[31:0] = wdata;
        LME_BASE_HI_OFFSET:   lme_base_d[63:32] = wdata;
        LME_SIZE_OFFSET: begin
          if (ring_size_ok) begin
            lme_size_d  = wdata[15:0];
            lme_prod_d  = '0;
            lme_reset_d = 1'b1;
          end else begin
            csr_err[ErrCsrBadValue] = 1'b1;
          end
        end
        LME_PROD_OFFSET: begin
          if (wdata < 32'(lme_size_q)) lme_prod_d = wdata[15:0];
          else                         csr_err[ErrLmeProdRange] = 1'b1;
        end
        LMR_BASE_LO_OFFSET:   lmr_base_d[31:0] = wdata;
        LMR_BASE_HI_OFFSET:   lmr_base_d[63:32] = wdata;
        LMR_SIZE_OFFSET: begin
          if (ring_size_ok) begin
            lmr_size_d  = wdata[15:0];
            lmr_cons_d  = '0;
            lmr_reset_d = 1'b1;
          end else begin
            csr_err[ErrCsrBadValue] = 1'b1;
          end
        end
        LMR_CONS_OFFSET: begin
          if (wdata < 32'(lmr_size_q)) lmr_cons_d = wdata[15:0];
          else                         csr_err[ErrLmrConsRange] = 1'b1;
        end
        RXWIN_BASE_LO_OFFSET: rxwin_base_d[31:0] = wdata;
        RXWIN_BASE_HI_OFFSET: rxwin_base_d[63:32] = wdata;
        RXWIN_SIZE_LO_OFFSET: rxwin_size_d[31:0] = wdata;
        RXWIN_SIZE_HI_OFFSET: rxwin_size_d[63:32] = wdata;
        INT_STATUS_OFFSET: begin
          int_clr         = wdata[1:0];
          int_ctx_lme_clr = wdata[15:8];
          int_ctx_lmr_clr = wdata[23:16];
        end
        INT_MASK_OFFSET:      int_mask_d = wdata[23:0];
        INT_COAL_LME_DONE_OFFSET: coal_lme_d = wdata;
        INT_COAL_LMR_NEW_OFFSET:  coal_lmr_d = wdata;
        ERR_STATUS_OFFSET:    err_clr = wdata[ErrW-1:0];
        REL_CTRL_OFFSET: begin
          ack_off_d     = wdata[REL_CTRL_ACK_OFF_BIT];
          sender_wait_d = wdata[REL_CTRL_SENDER_WAIT_BIT];
          dedup_d       = wdata[REL_CTRL_DEDUP_BIT];
          early_nack_d  = wdata[REL_CTRL_EARLY_NACK_BIT];
        end
        REL_TIMEOUT_OFFSET:   rel_timeout_d = wdata[15:0];
        REL_RETRIES_OFFSET:   rel_retries_d = wdata[3:0];
        TX_QUANTUM_OFFSET: begin
          if (tx_quantum_ok) tx_quantum_d = wdata[4:0];
          else               csr_err[ErrCsrBadValue] = 1'b1;
        end
        // ddc_rx_window's registers (written there), read-only registers, undefined offsets
        default:              if (!win_wr_ok_i) csr_err[ErrCsrBadAddr] = 1'b1;
      endcase
    end
  end

  // ---- status, interrupts, counters ----
  ddc_int_coal u_coal_lme (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .count_i (coal_lme_q.count),
    .cycles_i(coal_lme_q.cycles),
    .event_i (tx_desc_irq_i),
    .clear_i (lme_reset_q),
    .fire_o  (coal_lme_fire)
  );

  ddc_int_coal u_coal_lmr (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .count_i (coal_lmr_q.count),
    .cycles_i(coal_lmr_q.cycles),
    .event_i (rx_msg_irq_i),
    .clear_i (lmr_reset_q),
    .fire_o  (coal_lmr_fire)
  );

  logic [ErrW-1:0] err_set;
  always_comb begin
    err_set                  = '0;
    err_set[3:0]             = csr_err | ctx_csr_err_i;
    err_set[ErrDescError]    = tx_desc_err_i;
    err_set[ErrRxDrop]       = rx_drop_crc_i || rx_drop_dest_i || rx_drop_malformed_i ||
                               rx_drop_window_i || rx_drop_ctx_i || rx_lmr_full_i;
    err_set[ErrPushReject]   = push_reject_i;
    err_set[ErrWinReject]    = win_reject_i;
    err_status_d             = (err_status_q & ~err_clr) | err_set;

    int_status_d             = int_status_q & ~int_clr;
    int_status_d[IntLmeDone] = int_status_d[IntLmeDone] || coal_lme_fire;
    int_status_d[IntLmrNew]  = int_status_d[IntLmrNew] || coal_lmr_fire;
    // Context 0's bits stay 0: it has LME_DONE and LMR_NEW.
    int_ctx_lme_d = int_ctx_lme_q & ~int_ctx_lme_clr;
    int_ctx_lmr_d = int_ctx_lmr_q & ~int_ctx_lmr_clr;
    if (tx_desc_irq_i && tx_desc_irq_ctx_i != '0) int_ctx_lme_d[tx_desc_irq_ctx_i] = 1'b1;
    if (rx_msg_irq_i && rx_msg_irq_ctx_i != '0)   int_ctx_lmr_d[rx_msg_irq_ctx_i] = 1'b1;

    cnt_d = cnt_q;
    // A TX that signals an error without the done pulse still completed a descriptor.
    cnt_d[CntTxDesc]        = cnt_q[CntTxDesc] + 32'(tx_desc_done_i || tx_desc_err_i);
    cnt_d[CntTxPkts]        = cnt_q[CntTxPkts] + 32'(tx_pkt_sent_i);
    cnt_d[CntRxPkts]        = cnt_q[CntRxPkts] + 32'(rx_pkt_i);
    cnt_d[CntRxMsgs]        = cnt_q[CntRxMsgs] + 32'(rx_msg_i);
    cnt_d[CntDescErr]       = cnt_q[CntDescErr] + 32'(tx_desc_err_i);
    // One request per cycle: a page-0 and a context-page rejection never coincide.
    cnt_d[CntCsrErr]        = cnt_q[CntCsrErr] + 32'(|{csr_err, ctx_csr_err_i});
    cnt_d[CntRxCrcErr]      = cnt_q[CntRxCrcErr] + 32'(rx_drop_crc_i);
    cnt_d[CntRxDropDest]    = cnt_q[CntRxDropDest] + 32'(rx_drop_dest_i);
    cnt_d[CntRxDropMalform] = cnt_q[CntRxDropMalform] + 32'(rx_drop_malformed_i);
    cnt_d[CntRxDropWindow]  = cnt_q[CntRxDropWindow] + 32'(rx_drop_window_i);
    cnt_d[CntPush]          = cnt_q[CntPush] + 32'(push_accept_i);
    cnt_d[CntPushReject]    = cnt_q[CntPushReject] + 32'(push_reject_i);
    cnt_d[CntDmaRdErr]      = cnt_q[CntDmaRdErr] + 32'(dma_rd_err_i);
    cnt_d[CntRxMsgExpired]  = cnt_q[CntRxMsgExpired] + 32'(rx_msg_expired_i);
    cnt_d[CntRxTrackFull]   = cnt_q[CntRxTrackFull] + 32'(rx_track_full_i);
    cnt_d[CntAckTx]         = cnt_q[CntAckTx] + 32'(ack_tx_i);
    cnt_d[CntNackTx]        = cnt_q[CntNackTx] + 32'(nack_tx_i);
    cnt_d[CntAckRx]         = cnt_q[CntAckRx] + 32'(ack_rx_i);
    cnt_d[CntNackRx]        = cnt_q[CntNackRx] + 32'(nack_rx_i);
    cnt_d[CntAnsDrop]       = cnt_q[CntAnsDrop] + 32'(ans_drop_i);
    cnt_d[CntRxDropCtx]     = cnt_q[CntRxDropCtx] + 32'(rx_drop_ctx_i);
    cnt_d[CntRxDup]         = cnt_q[CntRxDup] + 32'(rx_dup_i);
    cnt_d[CntRxSeqEvict]    = cnt_q[CntRxSeqEvict] + 32'(rx_seq_evict_i);
    cnt_d[CntRxEarlyNack]   = cnt_q[CntRxEarlyNack] + 32'(rx_early_nack_i);
    cnt_d[CntRxLmrFull]     = cnt_q[CntRxLmrFull] + 32'(rx_lmr_full_i);
    cnt_d[CntRetx]          = cnt_q[CntRetx] + 32'(rel_retx_i);
    cnt_d[CntRelTimeout]    = cnt_q[CntRelTimeout] + 32'(rel_timeouts_i);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      enable_q     <= 1'b0;
      node_id_q    <= '0;
      mtu_q        <= 16'(MTU_MAX);
      dest_lo_q    <= '0;
      dest_hi_q    <= 16'hFFFF;
      lme_base_q   <= '0;
      lme_size_q   <= '0;
      lme_prod_q   <= '0;
      lme_reset_q  <= 1'b0;
      lmr_base_q   <= '0;
      lmr_size_q   <= '0;
      lmr_cons_q   <= '0;
      lmr_reset_q  <= 1'b0;
      rxwin_base_q <= '0;
      rxwin_size_q <= '0;
      ack_off_q    <= 1'b0;
      sender_wait_q <= 1'b0;
      rel_timeout_q <= 16'd256;
      dedup_q       <= 1'b0;
      early_nack_q  <= 1'b0;
      rel_retries_q <= 4'd0;
      tx_quantum_q  <= 5'(TX_QUANTUM_RESET);
      int_status_q <= '0;
      int_mask_q   <= '0;
      int_ctx_lme_q <= '0;
      int_ctx_lmr_q <= '0;
      coal_lme_q   <= '0;
      coal_lmr_q   <= '0;
      err_status_q <= '0;
      cnt_q        <= '0;
      rsp_valid_q  <= 1'b0;
      rsp_rdata_q  <= '0;
    end else begin
      enable_q     <= enable_d;
      node_id_q    <= node_id_d;
      mtu_q        <= mtu_d;
      dest_lo_q    <= dest_lo_d;
      dest_hi_q    <= dest_hi_d;
      lme_base_q   <= lme_base_d;
      lme_size_q   <= lme_size_d;
      lme_prod_q   <= lme_prod_d;
      lme_reset_q  <= lme_reset_d;
      lmr_base_q   <= lmr_base_d;
      lmr_size_q   <= lmr_size_d;
      lmr_cons_q   <= lmr_cons_d;
      lmr_reset_q  <= lmr_reset_d;
      rxwin_base_q <= rxwin_base_d;
      rxwin_size_q <= rxwin_size_d;
      ack_off_q    <= ack_off_d;
      sender_wait_q <= sender_wait_d;
      rel_timeout_q <= rel_timeout_d;
      dedup_q       <= dedup_d;
      early_nack_q  <= early_nack_d;
      rel_retries_q <= rel_retries_d;
      tx_quantum_q  <= tx_quantum_d;
      int_status_q <= int_status_d;
      int_mask_q   <= int_mask_d;
      int_ctx_lme_q <= int_ctx_lme_d;
      int_ctx_lmr_q <= int_ctx_lmr_d;
      coal_lme_q   <= coal_lme_d;
      coal_lmr_q   <= coal_lmr_d;
      err_status_q <= err_status_d;
      cnt_q        <= cnt_d;
      rsp_valid_q  <= req_read;
      if (req_read) rsp_rdata_q <= rsp_rdata_d;
    end
  end

  assign csr_rsp_valid_o = rsp_valid_q;
  assign csr_rsp_rdata_o = rsp_rdata_q;

  assign enable_o     = enable_q;
  assign node_id_o    = node_id_q;
  assign mtu_o        = mtu_q;
  assign dest_lo_o    = dest_lo_q;
  assign dest_hi_o    = dest_hi_q;
  // Ring bases are 32-byte aligned (one entry); the low bits are kept for read-back only.
  assign lme_base_o   = {lme_base_q[63:5], 5'b0};
  assign lme_size_o   = lme_size_q;
  assign lme_prod_o   = lme_prod_q;
  assign lme_reset_o  = lme_reset_q;
  assign lmr_base_o   = {lmr_base_q[63:5], 5'b0};
  assign lmr_size_o   = lmr_size_q;
  assign lmr_cons_o   = lmr_cons_q;
  assign lmr_reset_o  = lmr_reset_q;
  assign rxwin_base_o = rxwin_base_q;
  assign rxwin_size_o = rxwin_size_q;
  assign ack_off_o    = ack_off_q;
  assign sender_wait_o = sender_wait_q;
  assign rel_timeout_o = rel_timeout_q;
  assign dedup_o       = dedup_q;
  assign early_nack_o  = early_nack_q;
  assign rel_retries_o = rel_retries_q;
  assign tx_quantum_o  = tx_quantum_q;

  assign irq_o = |(int_status_rd & int_mask_q);

endmodule
