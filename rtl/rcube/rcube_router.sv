// RCUBE-style wormhole router: NPORTS inputs and outputs, interval routing per input,
// credit flow control on every link. Two organisations, chosen by VOQ:
//
// VOQ = 0: one FIFO per input, round-robin allocation per output. Datapath: in_flit_i
//   -> input FIFO (route looked up on entry) -> arbitration + crossbar -> output
//   register. Head-of-line blocking limits it to ~0.6 of link rate under uniform load.
// VOQ = 1: virtual output queues per input in one shared buffer (rcube_voq_buffer),
//   an iSLIP allocator with wormhole connections (rcube_islip_alloc). Allocation runs
//   in parallel with the buffer write and pops the buffer through a read register;
//   the next cycle is crossbar + output register only. How close it gets to link rate
//   under uniform load depends on how many packets BUF_DEPTH holds: 0.95 needs ~32
//   (README, measured table).
//
// Either way a head flit entering in cycle t leaves in cycle t+2 when its output is
// free and has a credit (VOQ: one cycle later for each of REG_AVAIL, REG_POP and
// ALLOC_PIPE, two for ALLOC_SPEC), and both link outputs (out_flit_o, in_credit_o) come straight
// from flops, so routers can be chained with a registered link and no combinational
// path between them.
module rcube_router #(
  parameter int unsigned NPORTS    = 8,
  parameter int unsigned BUF_DEPTH = 16,   // flits per input buffer (the link credit pool)
  parameter bit          VOQ       = 1'b1, // virtual output queues + iSLIP (else FIFO inputs)
  parameter int unsigned ITERS     = 1,    // iSLIP iterations per cycle (VOQ only)
  // VOQ, ITERS > 1: grant pointers also move on later iterations' matches (faster
  // desynchronisation; the allocator's waiting bound still holds: rcube_islip_alloc)
  parameter bit          GRANT_ALL = 1'b0,
  // VOQ only: 1 registers each input's arrival logic (route and broadcast lookup,
  // adaptive choice) before the buffer, out of the allocator's cycle (zero-load latency
  // 3 cycles per hop, not 2; rtl/rcube/README.md, Timing)
  parameter bit          REG_AVAIL = 1'b0,
  // VOQ only: 1 carries out the allocator's pops a cycle after the decision, from a
  // register, so the allocator's cycle ends there instead of in the buffers' state (one
  // more cycle per hop; rtl/rcube/README.md, Timing)
  parameter bit          REG_POP   = 1'b0,
  // VOQ only, ITERS = 1: 1 grants in one cycle and accepts in the next (rcube_islip_alloc
  // PIPE), one more cycle for each new connection (and per hop)
  parameter bit          ALLOC_PIPE = 1'b0,
  // VOQ only, experimental: 1 allocates with rcube_spec_alloc instead (grant, accept,
  // commit in three cycles: two more per hop than ITERS = 1 without ALLOC_PIPE; its own
  // cycle places at 80 MHz alone against 55 for ALLOC_PIPE), with rcube_islip_alloc's
  // waiting bound (its default FAIR_MATCHES). The buffers give it the second- and
  // third-flit hints (rcube_voq_buffer LOOKAHEAD).
  parameter bit          ALLOC_SPEC = 1'b0
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  fasthsl_link_pkg::link_flit_t [NPORTS-1:0] in_flit_i,
  output logic [NPORTS-1:0]                         in_credit_o,
  output fasthsl_link_pkg::link_flit_t [NPORTS-1:0] out_flit_o,
  input  logic [NPORTS-1:0]                         out_credit_i,
  // configuration port: router CSR page (offsets from fasthsl_pkg RT_*), 32-bit registers
  input  logic        cfg_req_valid_i,
  input  logic        cfg_req_write_i,
  input  logic [11:0] cfg_req_addr_i,   // byte offset, 4-aligned
  input  logic [31:0] cfg_req_wdata_i,
  output logic        cfg_rsp_valid_o,  // pulses exactly one cycle after each READ request
  output logic [31:0] cfg_rsp_rdata_o
);
  import fasthsl_pkg::*;
  import fasthsl_link_pkg::*;

  localparam int unsigned PortW = $clog2(NPORTS);
  // Output credit counters hold the neighbour's buffer, as deep as ours in a network of
  // like routers (NICs announce less). 12 bits up to 2048 flits, so the card's router is
  // unchanged; deeper buffers (the simulator's saturation model) get a 13th.
  localparam int unsigned CreditW = (BUF_DEPTH > 2048) ? 13 : 12;

  if (NPORTS < 2 || NPORTS > ROUTER_PORTS) begin : gen_nports_check
    $error("rcube_router: NPORTS must be 2..ROUTER_PORTS");
  end
  if (BUF_DEPTH < 1 || BUF_DEPTH > 4096) begin : gen_depth_check
    $error("rcube_router: BUF_DEPTH must be 1..4096 (13-bit credit counters)");
  end
  if (VOQ && (ITERS < 1 || ITERS > NPORTS)) begin : gen_iters_check
    $error("rcube_router: ITERS must be 1..NPORTS");
  end
  if (VOQ && ALLOC_PIPE && ITERS != 1) begin : gen_pipe_check
    $error("rcube_router: ALLOC_PIPE needs ITERS = 1");
  end

  // ---- configuration ----
  logic [NPORTS-1:0]                                drop_inc, eep_inc;
  logic [NPORTS-1:0][ROUTE_ENTRIES-1:0]             entry_valid;
  route_bounds_t [NPORTS-1:0][ROUTE_ENTRIES-1:0]    entry_bounds;
  logic [NPORTS-1:0][ROUTE_ENTRIES-1:0][2:0]        entry_port;
  logic [NPORTS-1:0][ROUTE_ENTRIES-1:0][7:0]        entry_amask;
  logic [NPORTS-1:0][NPORTS-1:0]                    bc_en;
  logic [NPORTS-1:0][NPORTS-1:0][7:0]               bc_lo, bc_hi;

  logic [NPORTS-1:0] tmo_inc;
  logic [15:0]       tmo_cycles;

  rcube_cfg #(
    .NPORTS(NPORTS)
  ) u_cfg (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .cfg_req_valid_i(cfg_req_valid_i),
    .cfg_req_write_i(cfg_req_write_i),
    .cfg_req_addr_i (cfg_req_addr_i),
    .cfg_req_wdata_i(cfg_req_wdata_i),
    .cfg_rsp_valid_o(cfg_rsp_valid_o),
    .cfg_rsp_rdata_o(cfg_rsp_rdata_o),
    .drop_inc_i     (drop_inc),
    .eep_inc_i      (eep_inc),
    .tmo_inc_i      (tmo_inc),
    .tmo_cycles_o   (tmo_cycles),
    .entry_valid_o  (entry_valid),
    .entry_bounds_o (entry_bounds),
    .entry_port_o   (entry_port),
    .entry_amask_o  (entry_amask),
    .bc_en_o        (bc_en),
    .bc_lo_o        (bc_lo),
    .bc_hi_o        (bc_hi)
  );

  if (VOQ) begin : gen_voq
    // ---- inputs ----
    link_flit_t [NPORTS-1:0]             rd_flit;
    logic       [NPORTS-1:0][NPORTS-1:0] avail;       // [input][output]
    logic       [NPORTS-1:0][NPORTS-1:0] last;        // [input][output]
    logic       [NPORTS-1:0][NPORTS-1:0] last2, last3;  // [input][output], ALLOC_SPEC only
    logic       [NPORTS-1:0]             pop, credit_ok;
    logic       [NPORTS-1:0][PortW-1:0]  pop_port, xsel;
    logic       [NPORTS-1:0][NPORTS-1:0] pop_oh;      // [input][output]
    logic       [NPORTS-1:0]             xvalid, sched;
    logic       [NPORTS-1:0]             bc_avail, bc_last, pop_bc, bc_start, credit_bc;
    logic       [NPORTS-1:0][NPORTS-1:0] bc_mask;     // [input][output]
    logic       [NPORTS-1:0]             out_open, out_busy, out_calm;

    for (genvar i = 0; i < NPORTS; i++) begin : gen_in
      rcube_voq_input #(
        .NPORTS   (NPORTS),
        .BUF_DEPTH(BUF_DEPTH),
        .INPORT   (i),
        .REG_AVAIL(REG_AVAIL),
        .REG_POP  (REG_POP),
        .LOOKAHEAD(ALLOC_SPEC)
      ) u_in (
        .clk_i         (clk_i),
        .rst_ni        (rst_ni),
        .in_flit_i     (in_flit_i[i]),
        .in_credit_o   (in_credit_o[i]),
        .entry_valid_i (entry_valid[i]),
        .entry_bounds_i(entry_bounds[i]),
        .entry_port_i  (entry_port[i]),
        .entry_amask_i (entry_amask[i]),
        .bc_en_i       (bc_en[i]),
        .bc_lo_i       (bc_lo[i]),
        .bc_hi_i       (bc_hi[i]),
        .avail_o       (avail[i]),
        .last_o        (last[i]),
        .last2_o       (last2[i]),
        .last3_o       (last3[i]),
        .pop_i         (pop[i]),
        .pop_port_i    (pop_port[i]),
        .pop_oh_i      (pop_oh[i]),
        .bc_avail_o    (bc_avail[i]),
        .bc_last_o     (bc_last[i]),
        .bc_mask_o     (bc_mask[i]),
        .pop_bc_i      (pop_bc[i]),
        .bc_start_i    (bc_start[i]),
        .out_busy_i    (out_busy),
        .out_calm_i    (out_calm),
        .rd_flit_o     (rd_flit[i]),
        .tmo_cycles_i  (tmo_cycles),
        .drop_o        (drop_inc[i]),
        .eep_o         (eep_inc[i]),
        .tmo_o         (tmo_inc[i])
      );
    end

    // ---- allocation ----
    if (ALLOC_SPEC) begin : gen_alloc_spec
      rcube_spec_alloc #(
        .NPORTS  (NPORTS),
        .XBAR_LAT(REG_POP ? 2 : 1)
      ) u_alloc (
        .clk_i      (clk_i),
        .rst_ni     (rst_ni),
        .avail_i    (avail),
        .credit_ok_i(credit_ok),
        .last_i     (last),
        .last2_i    (last2),
        .last3_i    (last3),
        .credit_bc_i(credit_bc),
        .bc_avail_i (bc_avail),
        .bc_last_i  (bc_last),
        .bc_mask_i  (bc_mask),
        .pop_o      (pop),
        .pop_port_o (pop_port),
        .pop_oh_o   (pop_oh),
        .pop_bc_o   (pop_bc),
        .bc_start_o (bc_start),
        .out_open_o (out_open),
        .sched_o    (sched),
        .xvalid_o   (xvalid),
        .xsel_o     (xsel)
      );
    end else begin : gen_alloc_islip
      logic unused_last23;   // '0: rcube_islip_alloc opens an output after the last flit
      assign unused_last23 = ^{last2, last3};
      rcube_islip_alloc #(
        .NPORTS   (NPORTS),
        .ITERS    (ITERS),
        .GRANT_ALL(GRANT_ALL),
        .PIPE     (ALLOC_PIPE),
        // with REG_POP the pops, so the flits, leave the buffers a cycle after the decision
        .XBAR_LAT (REG_POP ? 2 : 1)
      ) u_alloc (
        .clk_i      (clk_i),
        .rst_ni     (rst_ni),
        .avail_i    (avail),
        .credit_ok_i(credit_ok),
        .credit_bc_i(credit_bc),
        .last_i     (last),
        .bc_last_i  (bc_last),
        .bc_avail_i (bc_avail),
        .bc_mask_i  (bc_mask),
        .pop_o      (pop),
        .pop_port_o (pop_port),
        .pop_oh_o   (pop_oh),
        .pop_bc_o   (pop_bc),
        .bc_start_o (bc_start),
        .out_open_o (out_open),
        .sched_o    (sched),
        .xvalid_o   (xvalid),
        .xsel_o     (xsel)
      );
    end

    // For the adaptive choice of arriving heads.
    assign out_busy = out_open | ~credit_ok;
    assign out_calm = ~out_open & credit_bc;

    // ---- outputs ----
    for (genvar o = 0; o < NPORTS; o++) begin : gen_out
      rcube_voq_output #(
        .NPORTS  (NPORTS),
        .CREDIT_W(CreditW)
      ) u_out (
        .clk_i      (clk_i),
        .rst_ni     (rst_ni),
        .credit_ok_o(credit_ok[o]),
        .credit_bc_o(credit_bc[o]),
        .sched_i    (sched[o]),
        .flit_i     (rd_flit),
        .xvalid_i   (xvalid[o]),
        .xsel_i     (xsel[o]),
        .out_flit_o (out_flit_o[o]),
        .credit_i   (out_credit_i[o])
      );
    end
  end else begin : gen_fifo
    // No broadcast replication here (rcube_input_port drops broadcasts).
    // ... nor adaptive routing: a FIFO input has one queue, so a packet's output is fixed
    // when it is stored.
    logic unused_bc;
    assign unused_bc = ^{bc_en, bc_lo, bc_hi, entry_amask};
    // ---- inputs ----
    // in_req[i][o]: input i's buffer head wants output o; out_req is the transpose.
    link_flit_t [NPORTS-1:0]              head_flit;
    logic       [NPORTS-1:0][NPORTS-1:0]  in_req, out_req, out_gnt;
    logic       [NPORTS-1:0]              in_pop;

    // The stall timeout is a VOQ input feature: a FIFO input would need a spare slot
    // for the EEP flit.
    assign tmo_inc = '0;
    logic unused_tmo;
    assign unused_tmo = ^tmo_cycles;

    for (genvar i = 0; i < NPORTS; i++) begin : gen_in
      rcube_input_port #(
        .NPORTS   (NPORTS),
        .BUF_DEPTH(BUF_DEPTH)
      ) u_in (
        .clk_i         (clk_i),
        .rst_ni        (rst_ni),
        .in_flit_i     (in_flit_i[i]),
        .in_credit_o   (in_credit_o[i]),
        .entry_valid_i (entry_valid[i]),
        .entry_bounds_i(entry_bounds[i]),
        .entry_port_i  (entry_port[i]),
        .head_flit_o   (head_flit[i]),
        .req_o         (in_req[i]),
        .pop_i         (in_pop[i]),
        .drop_o        (drop_inc[i]),
        .eep_o         (eep_inc[i])
      );
    end

    // ---- crossbar control ----
    // in_req rows are one-hot or zero; rows without a request are skipped (no logic
    // change: their column bits stay zero), so a simulator does not move every bit of
    // the matrix each cycle.
    always_comb begin
      out_req = '0;
      for (int unsigned i = 0; i < NPORTS; i++) begin
        if (in_req[i] != '0) begin
          for (int unsigned o = 0; o < NPORTS; o++) begin
            out_req[o][i] = in_req[i][o];
          end
        end
      end
    end

    // An input's head is wanted by one output only, so at most one output grants it:
    // in_pop is the OR of the grant rows.
    always_comb begin
      in_pop = '0;
      for (int unsigned o = 0; o < NPORTS; o++) begin
        in_pop = in_pop | out_gnt[o];
      end
    end

    // ---- outputs ----
    for (genvar o = 0; o < NPORTS; o++) begin : gen_out
      rcube_output_port #(
        .NPORTS  (NPORTS),
        .CREDIT_W(CreditW)
      ) u_out (
        .clk_i     (clk_i),
        .rst_ni    (rst_ni),
        .req_i     (out_req[o]),
        .flit_i    (head_flit),
        .gnt_o     (out_gnt[o]),
        .out_flit_o(out_flit_o[o]),
        .credit_i  (out_credit_i[o])
      );
    end

  end

endmodule
