// tb_rcube_router_adapt on the VOQ router with the three pipeline options (REG_AVAIL,
// REG_POP, ALLOC_PIPE): the adaptive choice reads the queues and outputs while pops are
// pending.
module tb_rcube_router_adapt_pipe;
  tb_rcube_router_adapt #(.REG_AVAIL(1'b1), .REG_POP(1'b1), .ALLOC_PIPE(1'b1)) u_tb ();
endmodule
