// fifo_sync whose head is a flip-flop: the same ports, cycle for cycle (same DEPTH, same
// in_ready_o, out_valid_o, out_data_o and count_o), but out_data_o leaves a register
// instead of the storage's read.
//
// Why: a block RAM's read without its output register (DP16KD: 5.8 ns clock-to-data on
// the ECP5-85F, speed 6) starts the NIC's worst paths when its data fans out to a whole
// packet engine (docs/SYNTH.md, session 49). A register stage after the RAM would cost
// a cycle, and Yosys merges one whose input is the bare read data into the RAM's own read
// register, which gains nothing (session 48). Here the head register loads either the RAM's
// read or, when the storage is empty, the pushed word itself: no cycle is added, and the
// multiplexer in front of it keeps it a register of its own.
//
// The storage holds DEPTH - 1 words (fifo_sync with REG_READ: block RAM) and the head
// one. The storage is never filled while the head is empty (a push goes straight to the
// head then), so the head is valid exactly when the FIFO holds anything.
module fifo_sync_oreg #(
  parameter int unsigned WIDTH = 8,
  parameter int unsigned DEPTH = 4,   // >= 2
  localparam int unsigned CountW = $clog2(DEPTH + 1)
) (
  input  logic              clk_i,
  input  logic              rst_ni,

  input  logic              in_valid_i,
  output logic              in_ready_o,
  input  logic [WIDTH-1:0]  in_data_i,

  output logic              out_valid_o,
  input  logic              out_ready_i,
  output logic [WIDTH-1:0]  out_data_o,

  output logic [CountW-1:0] count_o
);
  localparam int unsigned RamCountW = $clog2(DEPTH);

  logic                 ram_push, ram_valid, ram_pop;
  logic [WIDTH-1:0]     ram_data;
  logic [RamCountW-1:0] ram_count;

  logic             head_valid_q;
  logic [WIDTH-1:0] head_data_q;
  logic             head_load;   // the head is empty or leaves: it takes the next word
  logic             bypass;      // ... and that word is the one pushed now

  assign head_load = !head_valid_q || out_ready_i;
  assign bypass    = head_load && !ram_valid;
  assign ram_pop   = head_load && ram_valid;
  assign ram_push  = in_valid_i && !bypass;

  fifo_sync #(
    .WIDTH   (WIDTH),
    .DEPTH   (DEPTH - 1),
    .REG_READ(1'b1)
  ) u_ram (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .in_valid_i (ram_push),
    .in_ready_o (in_ready_o),
    .in_data_i  (in_data_i),
    .out_valid_o(ram_valid),
    .out_ready_i(ram_pop),
    .out_data_o (ram_data),
    .count_o    (ram_count)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)        head_valid_q <= 1'b0;
    else if (head_load) head_valid_q <= ram_valid || in_valid_i;
  end

  // No reset: read only behind head_valid_q.
  always_ff @(posedge clk_i) begin
    if (head_load) head_data_q <= ram_valid ? ram_data : in_data_i;
  end

  assign out_valid_o = head_valid_q;
  assign out_data_o  = head_data_q;
  assign count_o     = CountW'(ram_count) + CountW'(head_valid_q);

`ifndef SYNTHESIS
  // The storage full means the head is valid too (DEPTH words), so its in_ready_o is the
  // whole FIFO's.
  always_comb begin : a_head_first
    if (rst_ni) begin
      assert (!ram_valid || head_valid_q) else $error("fifo_sync_oreg: words behind an empty head");
    end
  end
  if (DEPTH < 2) begin : gen_depth_check
    initial $fatal(1, "fifo_sync_oreg: DEPTH must be at least 2");
  end
`endif

endmodule
