// BAR0 from the PCIe bridge (e.g. Xilinx XDMA M_AXI_B in AXI bridge mode, or an AXI4-Lite
// master: tie the IDs to 0 and the lengths to 0) onto the core's CSR bus.
//
// The host reaches BAR0 with single 32-bit reads and writes (docs/HARDWARE.md); on the
// 64-bit bus a register at offset A sits in byte lanes 4*A[2]..4*A[2]+3. One access at a
// time, and a read waits for its answer however late it comes: the card answers two
// cycles after the request, a clock crossing (card_cdc) a few cycles later, and exactly
// one answer comes back per read request. Reads and writes alternate when both wait.
//
// Anything else is refused without touching a register and answered SLVERR, so the
// bridge never waits: bursts (LEN > 0; every beat answered), reads wider than 4 bytes,
// writes whose strobes are not exactly the 4 bytes of one register. err_o pulses once
// per refused access. Offsets at or above 2^ADDR_W wrap (the bridge decodes BAR0 by size).
module axi_csr_slave #(
  parameter int unsigned ID_W   = 4,
  parameter int unsigned ADDR_W = 13
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // AXI4 slave (from the bridge's BAR0 master)
  input  logic              s_axi_awvalid_i,
  output logic              s_axi_awready_o,
  input  logic [ID_W-1:0]   s_axi_awid_i,
  input  logic [63:0]       s_axi_awaddr_i,
  input  logic [7:0]        s_axi_awlen_i,
  input  logic              s_axi_wvalid_i,
  output logic              s_axi_wready_o,
  input  logic [63:0]       s_axi_wdata_i,
  input  logic [7:0]        s_axi_wstrb_i,
  output logic              s_axi_bvalid_o,
  input  logic              s_axi_bready_i,
  output logic [ID_W-1:0]   s_axi_bid_o,
  output logic [1:0]        s_axi_bresp_o,
  input  logic              s_axi_arvalid_i,
  output logic              s_axi_arready_o,
  input  logic [ID_W-1:0]   s_axi_arid_i,
  input  logic [63:0]       s_axi_araddr_i,
  input  logic [7:0]        s_axi_arlen_i,
  input  logic [2:0]        s_axi_arsize_i,
  output logic              s_axi_rvalid_o,
  input  logic              s_axi_rready_i,
  output logic [ID_W-1:0]   s_axi_rid_o,
  output logic [63:0]       s_axi_rdata_o,
  output logic [1:0]        s_axi_rresp_o,
  output logic              s_axi_rlast_o,
  // core CSR bus (fasthsl_card, or card_cdc in front of it): requests always accepted,
  // one answer per read request
  output logic              csr_req_valid_o,
  output logic              csr_req_write_o,
  output logic [ADDR_W-1:0] csr_req_addr_o,
  output logic [31:0]       csr_req_wdata_o,
  input  logic              csr_rsp_valid_i,
  input  logic [31:0]       csr_rsp_rdata_i,
  // one pulse per refused access
  output logic              err_o
);
  localparam logic [1:0] RespOkay   = 2'b00;
  localparam logic [1:0] RespSlvErr = 2'b10;

  typedef enum logic [2:0] {
    StIdle, StWrData, StWrResp, StRdReq, StRdCap, StRdResp
  } state_e;

  state_e            state_d, state_q;
  logic [ID_W-1:0]   id_d, id_q;
  logic [ADDR_W-1:0] addr_d, addr_q;
  logic [7:0]        len_d, len_q, beat_d, beat_q;
  logic              bad_d, bad_q;
  logic              prefer_rd_d, prefer_rd_q;
  logic [31:0]       rdata_d, rdata_q;
  logic              req_valid_d, req_valid_q, req_write_d, req_write_q;
  logic [31:0]       req_wdata_d, req_wdata_q;
  logic              err_d, err_q;

  logic take_rd, take_wr, w_fire, w_final, strb_ok;

  // one access at a time; alternate when both channels wait
  assign take_rd = (state_q == StIdle) && s_axi_arvalid_i &&
                   (!s_axi_awvalid_i || prefer_rd_q);
  assign take_wr = (state_q == StIdle) && s_axi_awvalid_i && !take_rd;
  assign s_axi_arready_o = take_rd;
  assign s_axi_awready_o = take_wr;
  assign s_axi_wready_o  = (state_q == StWrData);
  assign w_fire          = s_axi_wvalid_i && s_axi_wready_o;
  assign w_final         = w_fire && (beat_q == len_q);
  assign strb_ok         = addr_q[2] ? (s_axi_wstrb_i == 8'hf0) : (s_axi_wstrb_i == 8'h0f);

  assign s_axi_bvalid_o = (state_q == StWrResp);
  assign s_axi_bid_o    = id_q;
  assign s_axi_bresp_o  = bad_q ? RespSlvErr : RespOkay;
  assign s_axi_rvalid_o = (state_q == StRdResp);
  assign s_axi_rid_o    = id_q;
  assign s_axi_rdata_o  = {rdata_q, rdata_q};
  assign s_axi_rresp_o  = bad_q ? RespSlvErr : RespOkay;
  assign s_axi_rlast_o  = (beat_q == len_q);

  assign csr_req_valid_o = req_valid_q;
  assign csr_req_write_o = req_write_q;
  assign csr_req_addr_o  = {addr_q[ADDR_W-1:2], 2'b00};
  assign csr_req_wdata_o = req_wdata_q;
  assign err_o           = err_q;

  always_comb begin
    state_d     = state_q;
    id_d        = id_q;
    addr_d      = addr_q;
    len_d       = len_q;
    beat_d      = beat_q;
    bad_d       = bad_q;
    prefer_rd_d = prefer_rd_q;
    rdata_d     = rdata_q;
    req_valid_d = 1'b0;
    req_write_d = req_write_q;
    req_wdata_d = req_wdata_q;
    err_d       = 1'b0;
    unique case (state_q)
      StIdle: begin
        if (take_rd) begin
          id_d        = s_axi_arid_i;
          addr_d      = s_axi_araddr_i[ADDR_W-1:0];
          len_d       = s_axi_arlen_i;
          beat_d      = '0;
          bad_d       = (s_axi_arlen_i != '0) || (s_axi_arsize_i > 3'd2);
          prefer_rd_d = 1'b0;
          rdata_d     = '0;
          err_d       = bad_d;
          req_valid_d = !bad_d;
          req_write_d = 1'b0;
          state_d     = bad_d ? StRdResp : StRdReq;
        end else if (take_wr) begin
          id_d        = s_axi_awid_i;
          addr_d      = s_axi_awaddr_i[ADDR_W-1:0];
          len_d       = s_axi_awlen_i;
          beat_d      = '0;
          bad_d       = (s_axi_awlen_i != '0);
          prefer_rd_d = 1'b1;
          state_d     = StWrData;
        end
      end
      StWrData: begin
        if (w_fire) beat_d = beat_q + 8'd1;
        if (w_final) begin
          bad_d       = bad_q || !strb_ok;
          err_d       = bad_d;
          req_valid_d = !bad_d;
          req_write_d = 1'b1;
          req_wdata_d = addr_q[2] ? s_axi_wdata_i[63:32] : s_axi_wdata_i[31:0];
          state_d     = StWrResp;
        end
      end
      StWrResp: begin
        if (s_axi_bready_i) state_d = StIdle;
      end
      StRdReq: begin
        state_d = StRdCap;  // the request is on the bus (from flops) this cycle

      end
      StRdCap: begin
        if (csr_rsp_valid_i) begin
          rdata_d = csr_rsp_rdata_i;
          state_d = StRdResp;
        end
      end
      StRdResp: begin
        if (s_axi_rready_i) begin
          beat_d = beat_q + 8'd1;
          if (beat_q == len_q) state_d = StIdle;
        end
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= StIdle;
      id_q        <= '0;
      addr_q      <= '0;
      len_q       <= '0;
      beat_q      <= '0;
      bad_q       <= 1'b0;
      prefer_rd_q <= 1'b0;
      rdata_q     <= '0;
      req_valid_q <= 1'b0;
      req_write_q <= 1'b0;
      req_wdata_q <= '0;
      err_q       <= 1'b0;
    end else begin
      state_q     <= state_d;
      id_q        <= id_d;
      addr_q      <= addr_d;
      len_q       <= len_d;
      beat_q      <= beat_d;
      bad_q       <= bad_d;
      prefer_rd_q <= prefer_rd_d;
      rdata_q     <= rdata_d;
      req_valid_q <= req_valid_d;
      req_write_q <= req_write_d;
      req_wdata_q <= req_wdata_d;
      err_q       <= err_d;
    end
  end

  logic unused_addr;
  assign unused_addr = ^{s_axi_awaddr_i[63:ADDR_W], s_axi_araddr_i[63:ADDR_W], addr_q[1:0]};

endmodule
