// N copies of one W-bit register, for a signal with hundreds of loads: each copy drives
// one client's share.
//
// nextpnr neither buffers nor duplicates a driver, so a flop with hundreds of loads is
// one net spread over the chip, and its 4-7 ns were the longest hops of the NIC's placed
// critical paths (docs/SYNTH.md, sessions 20-21). Yosys merges flops with the same input
// (opt_merge) unless they carry `keep`; the attribute on the process keeps the copies.
module ff_fanout #(
  parameter int unsigned W = 1,
  parameter int unsigned N = 2
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic [W-1:0]          d_i,
  output logic [N-1:0][W-1:0]   q_o
);
  for (genvar i = 0; i < N; i++) begin : gen_copy
    (* keep *)
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) q_o[i] <= '0;
      else         q_o[i] <= d_i;
    end
  end
endmodule
