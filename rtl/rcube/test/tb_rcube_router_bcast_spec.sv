// tb_rcube_router_bcast on the VOQ router with the three-stage allocator (ALLOC_SPEC,
// rcube_spec_alloc) and the other pipeline options (REG_AVAIL, REG_POP): broadcasts taken
// whole through the allocator's pick, set and take stages, three cycles more than a take
// in rcube_islip_alloc.
module tb_rcube_router_bcast_spec;
  tb_rcube_router_bcast #(.REG_AVAIL(1'b1), .REG_POP(1'b1), .ALLOC_SPEC(1'b1)) u_tb ();
endmodule
