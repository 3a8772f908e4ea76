// Packet sources of the rcube_router testbenches that queue whole packets ahead
// (tb_rcube_router, tb_rcube_router_bcast): one ring of flits per input, sent while the
// source holds credits. Included after rcube_tb_link.svh; needs localparam SRING.

  link_flit_t src_ring[NP][SRING];
  int         src_rd[NP], src_wr[NP];

  function automatic void src_ring_init();
    for (int i = 0; i < NP; i++) begin
      src_rd[i] = 0; src_wr[i] = 0;
    end
  endfunction

  function automatic int src_q(int i);
    return src_wr[i] - src_rd[i];
  endfunction

  function automatic void src_push(int i, link_flit_t f);
    src_ring[i][src_wr[i] % SRING] = f;
    src_wr[i]++;
  endfunction

  // A flit is queued and a credit held.
  function automatic bit src_can_send(int i);
    return src_q(i) > 0 && src_cred[i] > 0;
  endfunction

  function automatic link_flit_t src_pop(int i);
    link_flit_t f = src_ring[i][src_rd[i] % SRING];
    src_rd[i]++;
    src_flit_sent(i);
    return f;
  endfunction
