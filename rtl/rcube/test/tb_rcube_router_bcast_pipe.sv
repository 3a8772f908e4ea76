// tb_rcube_router_bcast on the VOQ router with the three pipeline options (REG_AVAIL,
// REG_POP, ALLOC_PIPE): the broadcast acquisition and the output-set FIFO popped on the
// decision, with pops carried out a cycle later.
module tb_rcube_router_bcast_pipe;
  tb_rcube_router_bcast #(.REG_AVAIL(1'b1), .REG_POP(1'b1), .ALLOC_PIPE(1'b1)) u_tb ();
endmodule
