// Router CSR page: identification, per-input event counters, the stall timeout and the
// routing tables.
//
// Offsets come from the generated contract package: a register array is decoded by
// subtracting its base and dividing by its stride (constants, so this is bit slicing
// for the power-of-two strides of the contract), so a contract change that moves
// registers needs no edit here. Only the valid bit and port field of RT_CTRL are
// stored (and the adaptive mask); reserved bits read as zero. Registers of inputs the router does not have
// decode as unknown.
//
// The tables are a register file written one entry per request. Decoding the index
// once (rather than comparing the address against every register) and writing only
// the addressed entry keeps the logic small and also keeps a cycle-based simulator
// from re-evaluating the whole table every cycle.
//
// Broadcast tables (RT_BC_MASK, RT_BC_BOUNDS) keep 8-bit bounds: broadcast ranges name
// nodes below BCAST_NODES only, so the upper bits of each bound read as zero.
module rcube_cfg #(
  parameter int unsigned NPORTS = 8
) (
  input  logic                                                                  clk_i,
  input  logic                                                                  rst_ni,
  // configuration port
  input  logic                                                                  cfg_req_valid_i,
  input  logic                                                                  cfg_req_write_i,
  input  logic [11:0]                                                           cfg_req_addr_i,
  input  logic [31:0]                                                           cfg_req_wdata_i,
  output logic                                                                  cfg_rsp_valid_o,
  output logic [31:0]                                                           cfg_rsp_rdata_o,
  // counter events, one bit per input
  input  logic [NPORTS-1:0]                                                     drop_inc_i,
  input  logic [NPORTS-1:0]                                                     eep_inc_i,
  input  logic [NPORTS-1:0]                                                     tmo_inc_i,
  // stall timeout of the inputs (RT_TMO_CYCLES; 0: off)
  output logic [15:0]                                                           tmo_cycles_o,
  // routing tables, [input][entry]
  output logic [NPORTS-1:0][fasthsl_pkg::ROUTE_ENTRIES-1:0]                     entry_valid_o,
  output fasthsl_pkg::route_bounds_t [NPORTS-1:0][fasthsl_pkg::ROUTE_ENTRIES-1:0] entry_bounds_o,
  output logic [NPORTS-1:0][fasthsl_pkg::ROUTE_ENTRIES-1:0][2:0]                entry_port_o,
  output logic [NPORTS-1:0][fasthsl_pkg::ROUTE_ENTRIES-1:0][7:0]                entry_amask_o,
  // broadcast tables, [input][output]
  output logic [NPORTS-1:0][NPORTS-1:0]                                         bc_en_o,
  output logic [NPORTS-1:0][NPORTS-1:0][7:0]                                    bc_lo_o,
  output logic [NPORTS-1:0][NPORTS-1:0][7:0]                                    bc_hi_o
);
  import fasthsl_pkg::*;

  localparam int unsigned NEntries = NPORTS * ROUTE_ENTRIES;
  localparam int unsigned EntryW   = $clog2(NEntries);
  localparam int unsigned PortW    = $clog2(NPORTS);

  // Does the page offset `addr` hit element 0..count-1 of a register array at
  // base + stride * idx? idx_of gives that element. Strides are powers of two (checked
  // below), so both are a 13-bit subtract and bit slices: with 32-bit arithmetic, `%` and
  // `/`, the decode mapped to carry chains 32 bits long, the FIFO router's worst path
  // once its arbiters were trees (rtl/rcube/README.md, Timing).
  function automatic logic [12:0] off_of(logic [11:0] addr, logic [11:0] base);
    return {1'b0, addr} - {1'b0, base};   // bit 12: addr below base
  endfunction
  function automatic logic in_array(logic [11:0] addr, logic [11:0] base,
                                    int unsigned stride, int unsigned count);
    logic [12:0] off;
    off = off_of(addr, base);
    return !off[12] && (32'(off[11:0]) & (stride - 1)) == 0 &&
           (32'(off[11:0]) >> $clog2(stride)) < count;
  endfunction
  function automatic int unsigned idx_of(logic [11:0] addr, logic [11:0] base,
                                         int unsigned stride);
    return 32'(off_of(addr, base)) >> $clog2(stride);
  endfunction

  logic rd_req, wr_req;
  assign rd_req = cfg_req_valid_i && !cfg_req_write_i;
  assign wr_req = cfg_req_valid_i && cfg_req_write_i;

  // ---- decode ----
  localparam int unsigned DropRegs = (NPORTS < RT_DROP_COUNT) ? NPORTS : RT_DROP_COUNT;
  localparam int unsigned EepRegs  = (NPORTS < RT_EEP_COUNT) ? NPORTS : RT_EEP_COUNT;
  localparam int unsigned TmoRegs  = (NPORTS < RT_TMO_COUNT) ? NPORTS : RT_TMO_COUNT;

  logic              is_bounds, is_ctrl, is_drop, is_eep, is_tmo, is_tmo_cycles;
  logic              is_bc_mask, is_bc_bounds;
  logic [PortW-1:0]  bc_mask_idx, bc_in_idx, bc_out_idx;
  logic [EntryW-1:0] bounds_idx, ctrl_idx;
  logic [PortW-1:0]  drop_idx, eep_idx, tmo_idx;
  always_comb begin
    is_bounds  = in_array(cfg_req_addr_i, 12'(RT_BOUNDS_OFFSET), RT_BOUNDS_STRIDE, NEntries);
    is_ctrl    = in_array(cfg_req_addr_i, 12'(RT_CTRL_OFFSET), RT_CTRL_STRIDE, NEntries);
    is_drop    = in_array(cfg_req_addr_i, 12'(RT_DROP_OFFSET), RT_DROP_STRIDE, DropRegs);
    is_eep     = in_array(cfg_req_addr_i, 12'(RT_EEP_OFFSET), RT_EEP_STRIDE, EepRegs);
    bounds_idx = EntryW'(idx_of(cfg_req_addr_i, 12'(RT_BOUNDS_OFFSET), RT_BOUNDS_STRIDE));
    ctrl_idx   = EntryW'(idx_of(cfg_req_addr_i, 12'(RT_CTRL_OFFSET), RT_CTRL_STRIDE));
    drop_idx   = PortW'(idx_of(cfg_req_addr_i, 12'(RT_DROP_OFFSET), RT_DROP_STRIDE));
    eep_idx    = PortW'(idx_of(cfg_req_addr_i, 12'(RT_EEP_OFFSET), RT_EEP_STRIDE));
    is_bc_mask = in_array(cfg_req_addr_i, 12'(RT_BC_MASK_OFFSET), RT_BC_MASK_STRIDE, NPORTS);
    bc_mask_idx = PortW'(idx_of(cfg_req_addr_i, 12'(RT_BC_MASK_OFFSET), RT_BC_MASK_STRIDE));
    // Index input * ROUTER_PORTS + output; outputs this router lacks decode as unknown.
    is_bc_bounds = in_array(cfg_req_addr_i, 12'(RT_BC_BOUNDS_OFFSET), RT_BC_BOUNDS_STRIDE,
                            NPORTS * ROUTER_PORTS) &&
                   (idx_of(cfg_req_addr_i, 12'(RT_BC_BOUNDS_OFFSET), RT_BC_BOUNDS_STRIDE) %
                    ROUTER_PORTS < NPORTS);
    bc_in_idx  = PortW'(idx_of(cfg_req_addr_i, 12'(RT_BC_BOUNDS_OFFSET), RT_BC_BOUNDS_STRIDE) /
                        ROUTER_PORTS);
    bc_out_idx = PortW'(idx_of(cfg_req_addr_i, 12'(RT_BC_BOUNDS_OFFSET), RT_BC_BOUNDS_STRIDE) %
                        ROUTER_PORTS);
    is_tmo     = in_array(cfg_req_addr_i, 12'(RT_TMO_OFFSET), RT_TMO_STRIDE, TmoRegs);
    tmo_idx    = PortW'(idx_of(cfg_req_addr_i, 12'(RT_TMO_OFFSET), RT_TMO_STRIDE));
    is_tmo_cycles = (cfg_req_addr_i == 12'(RT_TMO_CYCLES_OFFSET));
  end

  // ---- broadcast tables ----
  logic [NPORTS-1:0][NPORTS-1:0]      bc_en_q;
  logic [NPORTS-1:0][NPORTS-1:0][7:0] bc_lo_q, bc_hi_q;
  route_bounds_t                      wr_bc_bounds;
  assign wr_bc_bounds = route_bounds_t'(cfg_req_wdata_i);
  assign bc_en_o = bc_en_q;
  assign bc_lo_o = bc_lo_q;
  assign bc_hi_o = bc_hi_q;

  // ---- routing tables ----
  // Flat [input * ROUTE_ENTRIES + entry], the register index order of the contract.
  logic [NEntries-1:0]          valid_q;
  route_bounds_t [NEntries-1:0] bounds_q;
  logic [NEntries-1:0][2:0]     port_q;
  logic [NEntries-1:0][7:0]     amask_q;

  route_ctrl_t wr_ctrl;
  assign wr_ctrl = route_ctrl_t'(cfg_req_wdata_i);
  logic unused_ctrl_rsvd;
  assign unused_ctrl_rsvd = ^{wr_ctrl.rsvd3, wr_ctrl.rsvd16};

  assign entry_valid_o  = valid_q;
  assign entry_bounds_o = bounds_q;
  assign entry_port_o   = port_q;
  assign entry_amask_o  = amask_q;

  // ---- counters ----
  // The events come from every input's arrival logic (a drop is the route lookup's miss),
  // spread over the chip; a flop per event keeps the long wires to this block out of the
  // arrival's cycle (the pipelined routers' placed worst paths ran from a link register
  // through the lookup to these counters, session 43). A counter moves a cycle later.
  logic [NPORTS-1:0]       drop_ev_q, eep_ev_q, tmo_ev_q;
  logic [NPORTS-1:0][31:0] drop_cnt_q, eep_cnt_q, tmo_cnt_q;
  logic [15:0]             tmo_cycles_q;
  assign tmo_cycles_o = tmo_cycles_q;

  // ---- read-back copies of the tables ----
  // The lookups need every entry in registers; a CSR read needs one. Read from the
  // registers, the tables' read-back was a 64-way multiplexer of 60 bits, three quarters
  // of this block (4,800 of 6,200 LUT4 at NPORTS 8, docs/SYNTH.md). So each write also goes
  // to a distributed-RAM copy that reads serve. RAM has no reset: an entry not written
  // since reset reads as its reset value, zero, by its `written` bit.
  localparam int unsigned BcW = 2 * PortW;   // {input, output}
  (* ram_style = "distributed" *) logic [31:0] bounds_rb [NEntries];
  (* ram_style = "distributed" *) logic [11:0] ctrl_rb [NEntries];   // {valid, amask, port}
  (* ram_style = "distributed" *) logic [15:0] bc_rb [2**BcW];       // {hi, lo}
  logic [NEntries-1:0] bounds_written_q, ctrl_written_q;
  logic [2**BcW-1:0]   bc_written_q;
  logic [BcW-1:0]      bc_idx;
  assign bc_idx = {bc_in_idx, bc_out_idx};

  always_ff @(posedge clk_i) begin
    if (wr_req && is_bounds) bounds_rb[bounds_idx] <= cfg_req_wdata_i;
    if (wr_req && is_ctrl)   ctrl_rb[ctrl_idx] <= {wr_ctrl.valid, wr_ctrl.amask, wr_ctrl.port};
    if (wr_req && is_bc_bounds) bc_rb[bc_idx] <= {wr_bc_bounds.hi[7:0], wr_bc_bounds.lo[7:0]};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      bounds_written_q <= '0;
      ctrl_written_q   <= '0;
      bc_written_q     <= '0;
    end else begin
      if (wr_req && is_bounds)    bounds_written_q[bounds_idx] <= 1'b1;
      if (wr_req && is_ctrl)      ctrl_written_q[ctrl_idx]     <= 1'b1;
      if (wr_req && is_bc_bounds) bc_written_q[bc_idx]         <= 1'b1;
    end
  end

  logic [31:0] bounds_rd;
  logic [11:0] ctrl_rd;
  logic [15:0] bc_rd;
  assign bounds_rd = bounds_written_q[bounds_idx] ? bounds_rb[bounds_idx] : '0;
  assign ctrl_rd   = ctrl_written_q[ctrl_idx] ? ctrl_rb[ctrl_idx] : '0;
  assign bc_rd     = bc_written_q[bc_idx] ? bc_rb[bc_idx] : '0;

  // ---- read mux ----
  logic [31:0] rdata;
  always_comb begin
    rdata = 32'hFFFF_FFFF;
    if (cfg_req_addr_i == 12'(RT_ID_OFFSET))    rdata = ID_MAGIC;
    if (cfg_req_addr_i == 12'(RT_PORTS_OFFSET)) rdata = 32'(NPORTS);
    if (is_drop)   rdata = drop_cnt_q[drop_idx];
    if (is_eep)    rdata = eep_cnt_q[eep_idx];
    if (is_tmo)    rdata = tmo_cnt_q[tmo_idx];
    if (is_tmo_cycles) rdata = 32'(tmo_cycles_q);
    if (is_bounds) rdata = bounds_rd;
    if (is_ctrl)   rdata = route_ctrl_t'{valid: ctrl_rd[11], rsvd16: '0, amask: ctrl_rd[10:3],
                                         rsvd3: '0, port: ctrl_rd[2:0]};
    if (is_bc_mask)   rdata = 32'(bc_en_q[bc_mask_idx]);
    if (is_bc_bounds) rdata = route_bounds_t'{hi: 16'(bc_rd[15:8]), lo: 16'(bc_rd[7:0])};
  end

  logic        rsp_valid_q;
  logic [31:0] rsp_rdata_q;
  assign cfg_rsp_valid_o = rsp_valid_q;
  assign cfg_rsp_rdata_o = rsp_rdata_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q     <= '0;
      bounds_q    <= '0;
      port_q      <= '0;
      amask_q     <= '0;
      drop_ev_q   <= '0;
      eep_ev_q    <= '0;
      tmo_ev_q    <= '0;
      drop_cnt_q  <= '0;
      eep_cnt_q   <= '0;
      bc_en_q     <= '0;
      bc_lo_q     <= '0;
      bc_hi_q     <= '0;
      tmo_cnt_q   <= '0;
      tmo_cycles_q <= 16'(RT_TMO_CYCLES_RESET);
      rsp_valid_q <= 1'b0;
      rsp_rdata_q <= '0;
    end else begin
      if (wr_req && is_tmo_cycles) tmo_cycles_q <= cfg_req_wdata_i[15:0];
      if (wr_req && is_bounds) bounds_q[bounds_idx] <= route_bounds_t'(cfg_req_wdata_i);
      if (wr_req && is_ctrl) begin
        valid_q[ctrl_idx] <= wr_ctrl.valid;
        port_q[ctrl_idx]  <= wr_ctrl.port;
        amask_q[ctrl_idx] <= wr_ctrl.amask;
      end
      if (wr_req && is_bc_mask) bc_en_q[bc_mask_idx] <= cfg_req_wdata_i[NPORTS-1:0];
      if (wr_req && is_bc_bounds) begin
        bc_lo_q[bc_in_idx][bc_out_idx] <= wr_bc_bounds.lo[7:0];
        bc_hi_q[bc_in_idx][bc_out_idx] <= wr_bc_bounds.hi[7:0];
      end
      drop_ev_q <= drop_inc_i;
      eep_ev_q  <= eep_inc_i;
      tmo_ev_q  <= tmo_inc_i;
      for (int unsigned i = 0; i < NPORTS; i++) begin
        if (drop_ev_q[i]) drop_cnt_q[i] <= drop_cnt_q[i] + 32'd1;
        if (eep_ev_q[i])  eep_cnt_q[i]  <= eep_cnt_q[i] + 32'd1;
        if (tmo_ev_q[i])  tmo_cnt_q[i]  <= tmo_cnt_q[i] + 32'd1;
      end
      rsp_valid_q <= rd_req;
      if (rd_req) rsp_rdata_q <= rdata;
    end
  end

  // in_array / idx_of take strides that are powers of two, and bases inside the 4 KiB page.
  if (RT_BOUNDS_OFFSET >= 16'h1000 || RT_CTRL_OFFSET >= 16'h1000 || RT_DROP_OFFSET >= 16'h1000 ||
      RT_EEP_OFFSET >= 16'h1000 || RT_TMO_OFFSET >= 16'h1000 || RT_BC_MASK_OFFSET >= 16'h1000 ||
      RT_BC_BOUNDS_OFFSET >= 16'h1000) begin : gen_base_check
    $error("rcube_cfg: a register array of the contract starts outside the router page");
  end
  function automatic bit pow2(int unsigned x);
    return (x & (x - 1)) == 0;
  endfunction
  if (!pow2(RT_BOUNDS_STRIDE) || !pow2(RT_CTRL_STRIDE) || !pow2(RT_DROP_STRIDE) ||
      !pow2(RT_EEP_STRIDE) || !pow2(RT_TMO_STRIDE) || !pow2(RT_BC_MASK_STRIDE) ||
      !pow2(RT_BC_BOUNDS_STRIDE)) begin : gen_stride_check
    $error("rcube_cfg: a register array stride of the contract is not a power of two");
  end

  // The table index space of the contract must cover every input of this router.
  if (NEntries > RT_BOUNDS_COUNT || NEntries > RT_CTRL_COUNT) begin : gen_table_check
    $error("rcube_cfg: NPORTS * ROUTE_ENTRIES exceeds the contract's table registers");
  end

endmodule
