// Place-and-route top for one 8-input rcube_rr_arbiter, its requests and acknowledge
// from flops of synth_io_shift and its grant into flops: the shortest decision a router
// makes in a cycle (request -> round-robin pick -> grant, and the pointer past the
// winner), so its Fmax is what one arbitration per cycle allows on the device.
// Synthesis only.
module synth_wrap_arb (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic sin_i,
  input  logic load_i,
  output logic sout_o
);
  localparam int unsigned N    = 8;
  localparam int unsigned IdxW = $clog2(N);
  localparam int unsigned InW  = N + 1;
  localparam int unsigned OutW = N + IdxW + 1;

  logic [N-1:0]    req, gnt;
  logic            ack, valid;
  logic [IdxW-1:0] idx;
  logic [InW-1:0]  core_in;
  logic [OutW-1:0] core_out;

  assign {req, ack} = core_in;
  assign core_out   = {gnt, idx, valid};

  synth_io_shift #(
    .IN_W (InW),
    .OUT_W(OutW)
  ) u_io (
    .clk_i     (clk_i),
    .sin_i     (sin_i),
    .load_i    (load_i),
    .sout_o    (sout_o),
    .core_in_o (core_in),
    .core_out_i(core_out)
  );

  rcube_rr_arbiter #(
    .N(N)
  ) u_core (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .req_i  (req),
    .ack_i  (ack),
    .gnt_o  (gnt),
    .idx_o  (idx),
    .valid_o(valid)
  );
endmodule
