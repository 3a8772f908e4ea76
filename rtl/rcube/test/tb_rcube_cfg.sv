// Checks rcube_cfg's routing and broadcast tables: what a write stores reaches the
// lookups' outputs and reads back, for NPORTS = 8 and 5 on one bus (registers of inputs
// or outputs a router lacks read as unknown, all ones). Tables read back zero after
// reset, also after a reset in the middle of a run: reads come from distributed-RAM
// copies that a reset cannot clear, so each entry's `written` bit must.
module tb_rcube_cfg;
  import fasthsl_pkg::*;

  localparam int NP = 8;   // rcube_tb_cfg.svh's tasks need it; the helpers used here do not

  logic clk = 1'b0;
  always #5 clk = ~clk;
  logic rst_n = 1'b0;

  logic        cfg_valid = 1'b0, cfg_write = 1'b0;
  logic [11:0] cfg_addr = '0;
  logic [31:0] cfg_wdata = '0;

  `include "rcube_tb_cfg.svh"
  `include "../../ddc/test/ddc_tb_check.svh"

  logic        rv8, rv5;
  logic [31:0] rd8, rd5;
  logic [7:0][ROUTE_ENTRIES-1:0]                ev8;
  route_bounds_t [7:0][ROUTE_ENTRIES-1:0]       eb8;
  logic [7:0][ROUTE_ENTRIES-1:0][2:0]           ep8;
  logic [7:0][ROUTE_ENTRIES-1:0][7:0]           ea8;
  logic [7:0][7:0]                              be8;
  logic [7:0][7:0][7:0]                         bl8, bh8;
  logic [4:0][ROUTE_ENTRIES-1:0]                ev5;
  route_bounds_t [4:0][ROUTE_ENTRIES-1:0]       eb5;
  logic [4:0][ROUTE_ENTRIES-1:0][2:0]           ep5;
  logic [4:0][ROUTE_ENTRIES-1:0][7:0]           ea5;
  logic [4:0][4:0]                              be5;
  logic [4:0][4:0][7:0]                         bl5, bh5;
  logic [15:0] tc8, tc5;

  rcube_cfg #(.NPORTS(8)) dut8 (
    .clk_i(clk), .rst_ni(rst_n), .cfg_req_valid_i(cfg_valid), .cfg_req_write_i(cfg_write),
    .cfg_req_addr_i(cfg_addr), .cfg_req_wdata_i(cfg_wdata), .cfg_rsp_valid_o(rv8),
    .cfg_rsp_rdata_o(rd8), .drop_inc_i('0), .eep_inc_i('0), .tmo_inc_i('0),
    .tmo_cycles_o(tc8), .entry_valid_o(ev8), .entry_bounds_o(eb8), .entry_port_o(ep8),
    .entry_amask_o(ea8), .bc_en_o(be8), .bc_lo_o(bl8), .bc_hi_o(bh8)
  );
  rcube_cfg #(.NPORTS(5)) dut5 (
    .clk_i(clk), .rst_ni(rst_n), .cfg_req_valid_i(cfg_valid), .cfg_req_write_i(cfg_write),
    .cfg_req_addr_i(cfg_addr), .cfg_req_wdata_i(cfg_wdata), .cfg_rsp_valid_o(rv5),
    .cfg_rsp_rdata_o(rd5), .drop_inc_i('0), .eep_inc_i('0), .tmo_inc_i('0),
    .tmo_cycles_o(tc5), .entry_valid_o(ev5), .entry_bounds_o(eb5), .entry_port_o(ep5),
    .entry_amask_o(ea5), .bc_en_o(be5), .bc_lo_o(bl5), .bc_hi_o(bh5)
  );

  // The model: what each table register holds, by [input][entry] and [input][output].
  logic [31:0] m_bounds [8][ROUTE_ENTRIES];
  route_ctrl_t m_ctrl   [8][ROUTE_ENTRIES];
  logic [7:0]  m_bc_lo  [8][8];
  logic [7:0]  m_bc_hi  [8][8];

  task automatic model_reset();
    for (int i = 0; i < 8; i++) begin
      for (int e = 0; e < ROUTE_ENTRIES; e++) begin
        m_bounds[i][e] = '0;
        m_ctrl[i][e]   = '0;
      end
      for (int o = 0; o < 8; o++) begin
        m_bc_lo[i][o] = '0;
        m_bc_hi[i][o] = '0;
      end
    end
  endtask

  // Table register kinds: 0 bounds, 1 ctrl, 2 broadcast bounds; (i, j) = (input, entry)
  // or (input, output).
  function automatic logic [11:0] reg_addr(int kind, int i, int j);
    return (kind == 0) ? bounds_addr(i, j) : (kind == 1) ? ctrl_addr(i, j) : bc_bounds_addr(i, j);
  endfunction

  function automatic logic [31:0] expected(int kind, int i, int j, int nports);
    if (i >= nports || (kind == 2 && j >= nports)) return 32'hFFFF_FFFF;
    unique case (kind)
      0:       return m_bounds[i][j];
      1:       return m_ctrl[i][j];
      default: return {8'h00, m_bc_hi[i][j], 8'h00, m_bc_lo[i][j]};
    endcase
  endfunction

  task automatic write_reg(int kind, int i, int j, logic [31:0] d);
    route_ctrl_t c;
    cfg_wr(reg_addr(kind, i, j), d);
    unique case (kind)
      0: m_bounds[i][j] = d;
      1: begin
        c = route_ctrl_t'(d);
        m_ctrl[i][j] = '{valid: c.valid, rsvd16: '0, amask: c.amask, rsvd3: '0, port: c.port};
      end
      default: begin
        m_bc_lo[i][j] = d[7:0];
        m_bc_hi[i][j] = d[23:16];
      end
    endcase
  endtask

  task automatic read_reg(int kind, int i, int j);
    cfg_valid = 1'b1; cfg_write = 1'b0; cfg_addr = reg_addr(kind, i, j);
    @(negedge clk);
    cfg_valid = 1'b0;
    `CHECK(rv8 && rv5, $sformatf("no response to the read of %h", reg_addr(kind, i, j)))
    `CHECK(rd8 == expected(kind, i, j, 8),
           $sformatf("NPORTS 8: %h read %h, expected %h", reg_addr(kind, i, j), rd8,
                     expected(kind, i, j, 8)))
    `CHECK(rd5 == expected(kind, i, j, 5),
           $sformatf("NPORTS 5: %h read %h, expected %h", reg_addr(kind, i, j), rd5,
                     expected(kind, i, j, 5)))
  endtask

  task automatic read_all();
    for (int kind = 0; kind < 3; kind++) begin
      for (int i = 0; i < 8; i++) begin
        for (int j = 0; j < 8; j++) read_reg(kind, i, j);
      end
    end
  endtask

  // What the lookups see: the model, field by field.
  task automatic check_outputs();
    for (int i = 0; i < 8; i++) begin
      for (int e = 0; e < ROUTE_ENTRIES; e++) begin
        `CHECK(ev8[i][e] == m_ctrl[i][e].valid && ep8[i][e] == m_ctrl[i][e].port &&
               ea8[i][e] == m_ctrl[i][e].amask && eb8[i][e] == m_bounds[i][e],
               $sformatf("NPORTS 8: table entry %0d/%0d differs from what was written", i, e))
        if (i < 5) begin
          `CHECK(ev5[i][e] == m_ctrl[i][e].valid && ep5[i][e] == m_ctrl[i][e].port &&
                 ea5[i][e] == m_ctrl[i][e].amask && eb5[i][e] == m_bounds[i][e],
                 $sformatf("NPORTS 5: table entry %0d/%0d differs from what was written", i, e))
        end
      end
      for (int o = 0; o < 8; o++) begin
        `CHECK(bl8[i][o] == m_bc_lo[i][o] && bh8[i][o] == m_bc_hi[i][o],
               $sformatf("NPORTS 8: broadcast bounds %0d/%0d differ", i, o))
        if (i < 5 && o < 5) begin
          `CHECK(bl5[i][o] == m_bc_lo[i][o] && bh5[i][o] == m_bc_hi[i][o],
                 $sformatf("NPORTS 5: broadcast bounds %0d/%0d differ", i, o))
        end
      end
    end
  endtask

  task automatic random_ops(int n);
    int kind, i, j;
    for (int k = 0; k < n; k++) begin
      kind = $urandom_range(2);
      i    = $urandom_range(7);
      j    = $urandom_range(7);
      if ($urandom_range(1) == 0) write_reg(kind, i, j, $urandom);
      else                        read_reg(kind, i, j);
    end
    check_outputs();
  endtask

  initial begin
    model_reset();
    repeat (2) @(negedge clk);
    rst_n = 1'b1;
    @(negedge clk);
    read_all();
    check_outputs();
    random_ops(3000);
    read_all();

    // A reset in the middle of a run: every table reads zero again.
    rst_n = 1'b0;
    @(negedge clk);
    rst_n = 1'b1;
    model_reset();
    @(negedge clk);
    read_all();
    check_outputs();
    random_ops(3000);
    read_all();
    tb_verdict();
    $finish;
  end
endmodule
