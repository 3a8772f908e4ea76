// tb_rcube_router's checks on the VOQ router with the three-stage allocator
// (ALLOC_SPEC, rcube_spec_alloc): 8x8/16 with the other pipeline options (REG_AVAIL,
// REG_POP; the configuration for a faster clock) and 5x5/4 (credit turn-around on small
// buffers). Zero-load latency two cycles more per hop than without ALLOC_PIPE. The
// single stream at 8x8/16 may idle its output once (session 42: 600 flits in 601 cycles;
// the buffers' second- and third-flit hints let the allocator hand the output from one
// packet to the next without the idle cycle each handover cost before). At 5x5/4,
// without REG_POP, the stream is not held to a rate: the hints ignore the flit pushed in
// the same cycle, and a 4-flit buffer rarely holds the flits they need stored (the rate
// is printed: 0.912).
// tb_rcube_router_env lives in tb_rcube_router.sv (not a file of its own, which is how the
// build finds modules), hence the include.
`include "tb_rcube_router.sv"

module tb_rcube_router_spec;
  logic done8, done5;
  tb_rcube_router_env #(.NP(8), .DEPTH(16), .CDLY(2), .RANDOM_CYCLES(30000), .RATE_IDLE(1),
                        .VOQ(1'b1), .REG_AVAIL(1'b1), .REG_POP(1'b1), .ALLOC_SPEC(1'b1))
    u_env8 (.done_o(done8));
  tb_rcube_router_env #(.NP(5), .DEPTH(4), .CDLY(1), .RANDOM_CYCLES(20000), .CHECK_RATE(1'b0),
                        .VOQ(1'b1), .ALLOC_SPEC(1'b1)) u_env5 (.done_o(done5));
  initial begin
    wait (done8 && done5);
    $display("tb_rcube_router_spec: PASS");
    $finish;
  end
endmodule
