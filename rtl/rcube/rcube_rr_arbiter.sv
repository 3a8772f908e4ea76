// Round-robin arbiter: one-hot grant among N requesters.
//
// The grant is combinational from req_i and the priority pointer. The pointer moves
// past the winner only when ack_i says the grant was used, so a requester that wins
// but cannot proceed keeps its priority (the iSLIP rule for accept pointers, which the
// VOQ version of the router will rely on). Requesters at or above the pointer are
// served first, lowest index first; then the ones below it.
module rcube_rr_arbiter #(
  parameter int unsigned N = 8,
  localparam int unsigned IdxW = (N > 1) ? $clog2(N) : 1
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic [N-1:0]    req_i,
  input  logic            ack_i,
  output logic [N-1:0]    gnt_o,
  output logic [IdxW-1:0] idx_o,
  output logic            valid_o
);

  logic [IdxW-1:0] ptr_q, ptr_d;

  // Two lowest_set trees (rr_pick), not a scan: a scan is a chain of N two-way choices on
  // the FIFO router's allocation path (input buffer -> request -> grant -> crossbar).
  rr_pick #(.N(N)) u_pick (.req_i(req_i), .ptr_i(ptr_q), .valid_o(valid_o), .idx_o(idx_o));

  always_comb begin
    gnt_o = '0;
    if (valid_o) gnt_o[idx_o] = 1'b1;
  end

  always_comb begin
    ptr_d = ptr_q;
    if (valid_o && ack_i) begin
      ptr_d = (32'(idx_o) == N - 1) ? '0 : idx_o + 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ptr_q <= '0;
    end else begin
      ptr_q <= ptr_d;
    end
  end

endmodule
