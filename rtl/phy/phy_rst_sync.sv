// Reset synchronizer: asserts asynchronously (works with the clock stopped, e.g. a
// link's forwarded clock while the cable is unplugged), releases two edges after
// rst_ni rises, synchronously to clk_i, so no flop sees the release near its edge.
module phy_rst_sync (
  input  logic clk_i,
  input  logic rst_ni,
  output logic rst_no
);
  logic meta_q, sync_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      meta_q <= 1'b0;
      sync_q <= 1'b0;
    end else begin
      meta_q <= 1'b1;
      sync_q <= meta_q;
    end
  end

  assign rst_no = sync_q;

endmodule
