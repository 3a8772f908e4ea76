// Receiver side of the link credit protocol (see fasthsl_link_pkg).
//
// One credit pulse per freed buffer slot. Pending credits sit in a counter preset to
// DEPTH at reset, so the post-reset announcement (one pulse per cycle) and credits for
// slots freed meanwhile share the wire without a separate start-up state machine.
// The pulse is registered: links cross model boundaries in the simulator.
module link_credit_return #(
  parameter int unsigned DEPTH = 16
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic slot_freed_i,  // a buffer slot was freed this cycle
  output logic credit_o
);
  localparam int unsigned CountW = $clog2(DEPTH + 1);

  logic [CountW-1:0] pend_q, pend_d;
  logic              credit_q, credit_d;

  always_comb begin
    credit_d = (pend_q != '0) || slot_freed_i;
    pend_d   = pend_q + CountW'(slot_freed_i) - CountW'(credit_d);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pend_q   <= CountW'(DEPTH);
      credit_q <= 1'b0;
    end else begin
      pend_q   <= pend_d;
      credit_q <= credit_d;
    end
  end

  assign credit_o = credit_q;

`ifndef SYNTHESIS
  // Pending credits only drain after reset (a free with nothing pending goes straight
  // out), so more than DEPTH pending means a credit was created, and a wrap below zero
  // shows up as a huge count.
  always_comb begin : a_pend_range
    if (rst_ni) begin
      assert (32'(pend_q) <= DEPTH)
        else $error("link_credit_return: pending credits above DEPTH");
    end
  end
`endif

endmodule
