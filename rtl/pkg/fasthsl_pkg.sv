// Generated from host/contract/contract.toml by host/contract/gen/contract_gen.py. Do not edit: run `make gen`.

package fasthsl_pkg;

  localparam logic [31:0] CONTRACT_VERSION = 32'h00010008;
  // Value of the ID register: ASCII 'FSHL'.
  localparam logic [31:0] ID_MAGIC = 32'h4653484C;
  // Width of a node id.
  localparam int unsigned NODE_W = 16;
  // The sender's answer timer ticks every 2^REL_TICK_LOG2 core cycles (REL_TIMEOUT).
  localparam int unsigned REL_TICK_LOG2 = 8;
  // TX_QUANTUM at reset: log2 of the bytes of one message sent before the TX serves the next context (4 KiB).
  localparam int unsigned TX_QUANTUM_RESET = 12;
  // Largest payload of one packet, bytes. A multiple of 8.
  localparam int unsigned MTU_MAX = 1024;
  // Largest message a descriptor may carry, bytes (16 MiB).
  localparam int unsigned MSG_LEN_MAX = 16777216;
  // Largest LME/LMR ring, entries.
  localparam int unsigned RING_SIZE_MAX = 4096;
  // Largest inline payload of a pushed descriptor, bytes: 8 in the local_addr field, the rest in PUSH_DATA.
  localparam int unsigned INLINE_MAX = 64;
  // Largest inline payload of a descriptor read from the LME ring (it fits the local_addr field).
  localparam int unsigned INLINE_RING_MAX = 8;
  // Largest DMA read request, 8-byte beats (256 bytes).
  localparam int unsigned DMA_RD_BEATS_MAX = 32;
  // Interval routing entries per router input.
  localparam int unsigned ROUTE_ENTRIES = 8;
  // Broadcast ranges encode node ids in 8 bits: a broadcast reaches only nodes 0..BCAST_NODES-1.
  localparam int unsigned BCAST_NODES = 256;
  // Largest payload of one broadcast packet, bytes: the NIC cuts broadcasts into packets of at most this much (and at most MTU), so a broadcast packet is at most BCAST_PKT_FLITS flits.
  localparam int unsigned BCAST_MTU = 64;
  // Largest broadcast packet, flits (3 header + 9 payload for 64 bytes at any alignment + 1 trailer). A router starts a broadcast only when every output of its set has this many credits, so a started broadcast never stalls (router input buffers must hold at least this many flits).
  localparam int unsigned BCAST_PKT_FLITS = 13;
  // Ports of one router.
  localparam int unsigned ROUTER_PORTS = 8;
  // Reset value of the router's stall timeout RT_TMO_CYCLES: long enough that only a packet whose sender lost its end (or died) is cut off.
  localparam int unsigned RT_TMO_CYCLES_RESET = 4096;
  // BAR0 offset of the local router's CSR page on a card (NIC + router).
  localparam int unsigned ROUTER_CSR_BASE = 4096;
  // User-level contexts of a NIC: LME/LMR ring pairs, each with its own register page (ctx registers). Context n's page is CTX_PAGE_BASE + n * CTX_PAGE_STRIDE; page 0's ring registers are context 0's.
  localparam int unsigned CTX_COUNT = 8;
  // BAR0 offset of context 0's register page.
  localparam int unsigned CTX_PAGE_BASE = 8192;
  // Bytes between two context pages: one 4 KiB page each, so a process maps only its own.
  localparam int unsigned CTX_PAGE_STRIDE = 4096;
  // Size of BAR0, bytes: page 0 the NIC, page 1 the router, then the CTX_COUNT context pages; a power of two, as a PCI BAR's size is. Offsets past the last context page are undefined (CSR_BAD_ADDR).
  localparam int unsigned BAR0_SIZE = 65536;
  // PCI vendor id the card enumerates with (to be assigned; see docs/HARDWARE.md).
  localparam int unsigned PCI_VENDOR_ID = 7893;
  // PCI device id of the FastHSL card.
  localparam int unsigned PCI_DEVICE_ID = 18515;
  // MSI vectors the card requests (one: the NIC's interrupt line, INT_STATUS says why).
  localparam int unsigned MSI_VECTORS = 1;

  // Completion error code a descriptor (LME status) or an LMR entry carries.
  typedef enum logic [7:0] {
    DESC_ERR_OK = 8'd0,
    DESC_ERR_ZERO_LEN = 8'd1,
    DESC_ERR_LEN_TOO_BIG = 8'd2,
    DESC_ERR_BAD_DEST = 8'd3,
    DESC_ERR_INLINE_LEN = 8'd4,
    DESC_ERR_RETRY_EXHAUSTED = 8'd5,
    DESC_ERR_ADDR_RANGE = 8'd11,
    DESC_ERR_DMA_RD = 8'd10,
    DESC_ERR_BCAST_RANGE = 8'd15,
    DESC_ERR_REJECTED = 8'd16
  } desc_err_e;

  // Why the receiver refused a packet (WIN_REJ_INFO.reason). Checked in this order; the first failing check names the reason.
  typedef enum logic [3:0] {
    WIN_REJ_NONE = 4'd0,
    WIN_REJ_RXWIN = 4'd1,
    WIN_REJ_INVALID = 4'd2,
    WIN_REJ_KEY = 4'd3,
    WIN_REJ_CTX = 4'd4,
    WIN_REJ_PERM = 4'd5,
    WIN_REJ_RANGE = 4'd6
  } win_rej_e;

  // Packet type (header word 0).
  typedef enum logic [3:0] {
    PTYPE_WRITE = 4'd0,
    PTYPE_ACK = 4'd1,
    PTYPE_NACK = 4'd2,
    PTYPE_NACK_REJECT = 4'd3,
    PTYPE_BCAST = 4'd4
  } ptype_e;

  // Descriptor flags (lme_desc.flags, copied into packets and LMR entries).
  localparam int unsigned DESC_FLAG_IRQ_LOCAL_BIT = 0;
  localparam int unsigned DESC_FLAG_IRQ_REMOTE_BIT = 1;
  localparam int unsigned DESC_FLAG_BCAST_BIT = 2;
  localparam int unsigned DESC_FLAG_ADAPTIVE_BIT = 3;
  localparam int unsigned DESC_FLAG_INLINE_BIT = 8;

  // Status word bits (lme_desc.status, lmr_entry.status); low 8 bits are a desc_err code.
  localparam int unsigned STATUS_DONE_BIT = 15;

  // NIC CTRL register bits.
  localparam int unsigned CTRL_ENABLE_BIT = 0;

  // NIC REL_CTRL register bits (end-to-end reliability, docs/RELIABILITY.md).
  localparam int unsigned REL_CTRL_ACK_OFF_BIT = 0;
  localparam int unsigned REL_CTRL_SENDER_WAIT_BIT = 1;
  localparam int unsigned REL_CTRL_DEDUP_BIT = 2;
  localparam int unsigned REL_CTRL_EARLY_NACK_BIT = 3;

  // INT_STATUS / INT_MASK bits.
  localparam int unsigned INT_LME_DONE_BIT = 0;
  localparam int unsigned INT_LMR_NEW_BIT = 1;
  localparam int unsigned INT_ERROR_BIT = 2;
  localparam int unsigned INT_CTX_LME_DONE_BIT = 8;
  localparam int unsigned INT_CTX_LME_DONE_COUNT = 8;
  localparam int unsigned INT_CTX_LMR_NEW_BIT = 16;
  localparam int unsigned INT_CTX_LMR_NEW_COUNT = 8;

  // ERR_STATUS bits (sticky, write 1 to clear).
  localparam int unsigned ERR_CSR_BAD_ADDR_BIT = 0;
  localparam int unsigned ERR_CSR_BAD_VALUE_BIT = 1;
  localparam int unsigned ERR_LME_PROD_RANGE_BIT = 2;
  localparam int unsigned ERR_LMR_CONS_RANGE_BIT = 3;
  localparam int unsigned ERR_DESC_ERROR_BIT = 4;
  localparam int unsigned ERR_RX_DROP_BIT = 5;
  localparam int unsigned ERR_PUSH_REJECT_BIT = 6;
  localparam int unsigned ERR_WIN_REJECT_BIT = 16;

  // WIN_CFG register bits.
  localparam int unsigned WIN_CFG_ENFORCE_BIT = 0;

  // PUSH_STATUS register bits.
  localparam int unsigned PUSH_FREE_BIT = 0;

  // lme_desc: LME ring entry (send descriptor), written by the driver, read by the NIC. Status written back by the NIC.
  localparam int unsigned LME_DESC_WORDS = 4;
  typedef struct packed {
    logic [63:0] local_addr;
  } lme_desc_w0_t;  // 64 bits
  typedef struct packed {
    logic [12:0] rsvd51;
    logic [2:0] dctx;
    logic [47:0] remote_addr;
  } lme_desc_w1_t;  // 64 bits
  typedef struct packed {
    logic [15:0] flags;
    logic [15:0] dest;
    logic [31:0] len;
  } lme_desc_w2_t;  // 64 bits
  typedef struct packed {
    logic [15:0] key;
    logic [15:0] status;
    logic [31:0] msg_id;
  } lme_desc_w3_t;  // 64 bits

  // lmr_entry: LMR ring entry, written by the receiving NIC after the last packet of a message landed. Word 0 is written last, so a set STATUS_DONE means the entry is complete.
  localparam int unsigned LMR_ENTRY_WORDS = 4;
  typedef struct packed {
    logic [31:0] msg_id;
    logic [15:0] status;
    logic [15:0] src;
  } lmr_entry_w0_t;  // 64 bits
  typedef struct packed {
    logic [63:0] addr;
  } lmr_entry_w1_t;  // 64 bits
  typedef struct packed {
    logic [15:0] rsvd48;
    logic [15:0] flags;
    logic [31:0] len;
  } lmr_entry_w2_t;  // 64 bits
  typedef struct packed {
    logic [63:0] rsvd0;
  } lmr_entry_w3_t;  // 64 bits

  // pkt_hdr: Packet header: the first three flits of every packet. Self-describing, so packets may arrive in any order (the receiver counts a message's bytes to see it complete). Payload flits follow, their byte lanes aligned to remote_addr (lane = address mod 8; unused lanes zero), then one trailer flit.
  localparam int unsigned PKT_HDR_WORDS = 3;
  typedef struct packed {
    logic [1:0] rsvd62;
    logic [2:0] dctx;
    logic [10:0] len;
    logic [3:0] lag;
    logic [3:0] flags;
    logic [1:0] attempt;
    logic [0:0] last;
    logic [0:0] first;
    logic [3:0] ptype;
    logic [15:0] src;
    logic [15:0] dest;
  } pkt_hdr_w0_t;  // 64 bits
  typedef struct packed {
    logic [15:0] key;
    logic [47:0] remote_addr;
  } pkt_hdr_w1_t;  // 64 bits
  typedef struct packed {
    logic [7:0] seq;
    logic [23:0] offset;
    logic [31:0] msg_id;
  } pkt_hdr_w2_t;  // 64 bits

  // pkt_trl: Packet trailer: the last flit. CRC-32 (IEEE 802.3, reflected, as crc32fast) over the header and payload flits, 8 bytes each, little-endian, unused lanes zero.
  localparam int unsigned PKT_TRL_WORDS = 1;
  typedef struct packed {
    logic [31:0] rsvd32;
    logic [31:0] crc;
  } pkt_trl_t;  // 64 bits

  // route_bounds: Router table entry bounds register (32 bits, one word of a 32-bit register): destinations lo..hi inclusive.
  localparam int unsigned ROUTE_BOUNDS_WORDS = 1;
  typedef struct packed {
    logic [15:0] hi;
    logic [15:0] lo;
  } route_bounds_t;  // 32 bits

  // int_coal: Interrupt coalescing thresholds of one source (INT_COAL_LME_DONE, INT_COAL_LMR_NEW; 32 bits). The source's pending events are signalled (its INT_STATUS bit set) as soon as their number reaches count OR cycles core cycles have passed since the first of them; a threshold of 0 signals at once, so the reset value 0 means no coalescing.
  localparam int unsigned INT_COAL_WORDS = 1;
  typedef struct packed {
    logic [15:0] cycles;
    logic [15:0] count;
  } int_coal_t;  // 32 bits

  // win_ctrl: Receive window control register WIN_CTRL (32 bits). A window's key is tag << 4 | its index.
  localparam int unsigned WIN_CTRL_WORDS = 1;
  typedef struct packed {
    logic [11:0] tag;
    logic [12:0] rsvd7;
    logic [2:0] owner;
    logic [0:0] rsvd3;
    logic [0:0] bcast;
    logic [0:0] write;
    logic [0:0] valid;
  } win_ctrl_t;  // 32 bits

  // win_rej_info: WIN_REJ_INFO register (32 bits): the first refused packet since the log was cleared.
  localparam int unsigned WIN_REJ_INFO_WORDS = 1;
  typedef struct packed {
    logic [0:0] valid;
    logic [6:0] rsvd24;
    logic [3:0] ptype;
    logic [3:0] reason;
    logic [15:0] src;
  } win_rej_info_t;  // 32 bits

  // route_ctrl: Router table entry control register (32 bits).
  localparam int unsigned ROUTE_CTRL_WORDS = 1;
  typedef struct packed {
    logic [0:0] valid;
    logic [14:0] rsvd16;
    logic [7:0] amask;
    logic [4:0] rsvd3;
    logic [2:0] port;
  } route_ctrl_t;  // 32 bits

  // nic registers (byte offsets)
  localparam logic [15:0] ID_OFFSET = 16'h0000;
  localparam logic [15:0] VERSION_OFFSET = 16'h0004;
  localparam logic [15:0] NODE_ID_OFFSET = 16'h0008;
  localparam logic [15:0] CTRL_OFFSET = 16'h000C;
  localparam logic [15:0] MTU_OFFSET = 16'h0010;
  localparam logic [15:0] DEST_RANGE_OFFSET = 16'h0014;
  localparam logic [15:0] LME_BASE_LO_OFFSET = 16'h0020;
  localparam logic [15:0] LME_BASE_HI_OFFSET = 16'h0024;
  localparam logic [15:0] LME_SIZE_OFFSET = 16'h0028;
  localparam logic [15:0] LME_PROD_OFFSET = 16'h002C;
  localparam logic [15:0] LME_CONS_OFFSET = 16'h0030;
  localparam logic [15:0] PUSH_STATUS_OFFSET = 16'h0034;
  localparam logic [15:0] LMR_BASE_LO_OFFSET = 16'h0040;
  localparam logic [15:0] LMR_BASE_HI_OFFSET = 16'h0044;
  localparam logic [15:0] LMR_SIZE_OFFSET = 16'h0048;
  localparam logic [15:0] LMR_PROD_OFFSET = 16'h004C;
  localparam logic [15:0] LMR_CONS_OFFSET = 16'h0050;
  localparam logic [15:0] RXWIN_BASE_LO_OFFSET = 16'h0060;
  localparam logic [15:0] RXWIN_BASE_HI_OFFSET = 16'h0064;
  localparam logic [15:0] RXWIN_SIZE_LO_OFFSET = 16'h0068;
  localparam logic [15:0] RXWIN_SIZE_HI_OFFSET = 16'h006C;
  localparam logic [15:0] INT_STATUS_OFFSET = 16'h0080;
  localparam logic [15:0] INT_MASK_OFFSET = 16'h0084;
  localparam logic [15:0] ERR_STATUS_OFFSET = 16'h0088;
  localparam logic [15:0] INT_COAL_LME_DONE_OFFSET = 16'h0090;
  localparam logic [15:0] INT_COAL_LMR_NEW_OFFSET = 16'h0094;
  localparam logic [15:0] REL_CTRL_OFFSET = 16'h0098;
  localparam logic [15:0] REL_TIMEOUT_OFFSET = 16'h009C;
  localparam logic [15:0] REL_RETRIES_OFFSET = 16'h00A0;
  localparam logic [15:0] TX_QUANTUM_OFFSET = 16'h00A4;
  localparam logic [15:0] WIN_CFG_OFFSET = 16'h00E0;
  localparam logic [15:0] WIN_REJ_INFO_OFFSET = 16'h00E4;
  localparam logic [15:0] WIN_REJ_MSG_ID_OFFSET = 16'h00E8;
  localparam logic [15:0] WIN_REJ_ADDR_LO_OFFSET = 16'h00EC;
  localparam logic [15:0] WIN_REJ_ADDR_HI_OFFSET = 16'h00F0;
  localparam logic [15:0] WIN_BASE_LO_OFFSET = 16'h0300;
  localparam int unsigned WIN_BASE_LO_COUNT = 16;
  localparam int unsigned WIN_BASE_LO_STRIDE = 16;
  localparam logic [15:0] WIN_BASE_HI_OFFSET = 16'h0304;
  localparam int unsigned WIN_BASE_HI_COUNT = 16;
  localparam int unsigned WIN_BASE_HI_STRIDE = 16;
  localparam logic [15:0] WIN_LEN_OFFSET = 16'h0308;
  localparam int unsigned WIN_LEN_COUNT = 16;
  localparam int unsigned WIN_LEN_STRIDE = 16;
  localparam logic [15:0] WIN_CTRL_OFFSET = 16'h030C;
  localparam int unsigned WIN_CTRL_COUNT = 16;
  localparam int unsigned WIN_CTRL_STRIDE = 16;
  localparam logic [15:0] PUSH_DESC_OFFSET = 16'h0200;
  localparam int unsigned PUSH_DESC_COUNT = 8;
  localparam int unsigned PUSH_DESC_STRIDE = 4;
  localparam logic [15:0] PUSH_DATA_OFFSET = 16'h0220;
  localparam int unsigned PUSH_DATA_COUNT = 14;
  localparam int unsigned PUSH_DATA_STRIDE = 4;
  localparam logic [15:0] CNT_TX_DESC_OFFSET = 16'h0100;
  localparam logic [15:0] CNT_TX_PKTS_OFFSET = 16'h0104;
  localparam logic [15:0] CNT_RX_PKTS_OFFSET = 16'h0108;
  localparam logic [15:0] CNT_RX_MSGS_OFFSET = 16'h010C;
  localparam logic [15:0] CNT_DESC_ERR_OFFSET = 16'h0110;
  localparam logic [15:0] CNT_CSR_ERR_OFFSET = 16'h0114;
  localparam logic [15:0] CNT_RX_CRC_ERR_OFFSET = 16'h0118;
  localparam logic [15:0] CNT_RX_DROP_DEST_OFFSET = 16'h011C;
  localparam logic [15:0] CNT_RX_DROP_MALFORMED_OFFSET = 16'h0120;
  localparam logic [15:0] CNT_RX_DROP_WINDOW_OFFSET = 16'h0124;
  localparam logic [15:0] CNT_PUSH_OFFSET = 16'h0128;
  localparam logic [15:0] CNT_PUSH_REJECT_OFFSET = 16'h012C;
  localparam logic [15:0] CNT_RX_MSG_EXPIRED_OFFSET = 16'h0130;
  localparam logic [15:0] CNT_RX_TRACK_FULL_OFFSET = 16'h0134;
  localparam logic [15:0] CNT_RX_REJECT_KEY_OFFSET = 16'h0180;
  localparam logic [15:0] CNT_RX_REJECT_PERM_OFFSET = 16'h0184;
  localparam logic [15:0] CNT_RX_REJECT_RANGE_OFFSET = 16'h0188;
  localparam logic [15:0] CNT_RX_DROP_CTX_OFFSET = 16'h0164;
  localparam logic [15:0] CNT_DMA_RD_ERR_OFFSET = 16'h0160;
  localparam logic [15:0] CNT_ACK_TX_OFFSET = 16'h0138;
  localparam logic [15:0] CNT_NACK_TX_OFFSET = 16'h013C;
  localparam logic [15:0] CNT_ACK_RX_OFFSET = 16'h0140;
  localparam logic [15:0] CNT_NACK_RX_OFFSET = 16'h0144;
  localparam logic [15:0] CNT_ANS_DROP_OFFSET = 16'h0148;
  localparam logic [15:0] CNT_RETX_OFFSET = 16'h014C;
  localparam logic [15:0] CNT_REL_TIMEOUT_OFFSET = 16'h0150;
  localparam logic [15:0] CNT_RX_DUP_OFFSET = 16'h0154;
  localparam logic [15:0] CNT_RX_SEQ_EVICT_OFFSET = 16'h0158;
  localparam logic [15:0] CNT_RX_EARLY_NACK_OFFSET = 16'h015C;
  localparam logic [15:0] CNT_RX_LMR_FULL_OFFSET = 16'h0168;

  // router registers (byte offsets)
  localparam logic [15:0] RT_ID_OFFSET = 16'h0000;
  localparam logic [15:0] RT_PORTS_OFFSET = 16'h0004;
  localparam logic [15:0] RT_DROP_OFFSET = 16'h0010;
  localparam int unsigned RT_DROP_COUNT = 8;
  localparam int unsigned RT_DROP_STRIDE = 4;
  localparam logic [15:0] RT_EEP_OFFSET = 16'h0030;
  localparam int unsigned RT_EEP_COUNT = 8;
  localparam int unsigned RT_EEP_STRIDE = 4;
  localparam logic [15:0] RT_TMO_OFFSET = 16'h0070;
  localparam int unsigned RT_TMO_COUNT = 8;
  localparam int unsigned RT_TMO_STRIDE = 4;
  localparam logic [15:0] RT_TMO_CYCLES_OFFSET = 16'h0090;
  localparam logic [15:0] RT_BOUNDS_OFFSET = 16'h0100;
  localparam int unsigned RT_BOUNDS_COUNT = 64;
  localparam int unsigned RT_BOUNDS_STRIDE = 8;
  localparam logic [15:0] RT_CTRL_OFFSET = 16'h0104;
  localparam int unsigned RT_CTRL_COUNT = 64;
  localparam int unsigned RT_CTRL_STRIDE = 8;
  localparam logic [15:0] RT_BC_MASK_OFFSET = 16'h0050;
  localparam int unsigned RT_BC_MASK_COUNT = 8;
  localparam int unsigned RT_BC_MASK_STRIDE = 4;
  localparam logic [15:0] RT_BC_BOUNDS_OFFSET = 16'h0300;
  localparam int unsigned RT_BC_BOUNDS_COUNT = 64;
  localparam int unsigned RT_BC_BOUNDS_STRIDE = 4;

  // ctx registers (byte offsets, inside each page CTX_PAGE_BASE + n * CTX_PAGE_STRIDE, n < CTX_COUNT)
  localparam logic [15:0] CTX_ID_OFFSET = 16'h0000;
  localparam logic [15:0] CTX_LME_BASE_LO_OFFSET = 16'h0020;
  localparam logic [15:0] CTX_LME_BASE_HI_OFFSET = 16'h0024;
  localparam logic [15:0] CTX_LME_SIZE_OFFSET = 16'h0028;
  localparam logic [15:0] CTX_LME_PROD_OFFSET = 16'h002C;
  localparam logic [15:0] CTX_LME_CONS_OFFSET = 16'h0030;
  localparam logic [15:0] CTX_LMR_BASE_LO_OFFSET = 16'h0040;
  localparam logic [15:0] CTX_LMR_BASE_HI_OFFSET = 16'h0044;
  localparam logic [15:0] CTX_LMR_SIZE_OFFSET = 16'h0048;
  localparam logic [15:0] CTX_LMR_PROD_OFFSET = 16'h004C;
  localparam logic [15:0] CTX_LMR_CONS_OFFSET = 16'h0050;

endpackage
