// A round-robin choice, without the pointer: the lowest requester at or above ptr_i, or
// else the lowest one. The caller keeps the pointer and decides when it moves (past the
// context taken, which need not be the current choice, or only when a grant was used).
//
// Two lowest_set trees, one over the requesters at or above the pointer and one over
// all, instead of a scan loop: the scan was a chain of N two-way choices on the NIC's
// descriptor read and offer paths (docs/SYNTH.md).
module rr_pick #(
  parameter int unsigned N = 8,
  localparam int unsigned IdxW = (N > 1) ? $clog2(N) : 1
) (
  input  logic [N-1:0]    req_i,
  input  logic [IdxW-1:0] ptr_i,
  output logic            valid_o,
  output logic [IdxW-1:0] idx_o
);
  logic [N-1:0]    upper_req;
  logic            upper_any;
  logic [IdxW-1:0] upper_idx, any_idx;

  always_comb begin
    for (int unsigned k = 0; k < N; k++) upper_req[k] = req_i[k] && (k >= 32'(ptr_i));
  end

  lowest_set #(.N(N)) u_upper (.v_i(upper_req), .found_o(upper_any), .idx_o(upper_idx));
  lowest_set #(.N(N)) u_any   (.v_i(req_i),     .found_o(valid_o),   .idx_o(any_idx));

  assign idx_o = upper_any ? upper_idx : any_idx;
endmodule
