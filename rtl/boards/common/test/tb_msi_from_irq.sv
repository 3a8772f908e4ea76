// Self-checking testbench for msi_from_irq. The grant side here stands for the XDMA
// bridge's MSI interface: it grants a request after a random delay (and only while MSI
// is enabled). Checked: one MSI per rising edge of irq; none while irq stays low; a line
// held high gets a repeat after RETRIGGER cycles (and not before); an edge while MSI is
// disabled is sent once it is enabled; an edge in the cycle of a grant gets its own
// message; the request stays up until granted.
module tb_msi_from_irq;
  localparam int Retrig = 40;
  logic clk = 1'b0;
  always #5 clk = ~clk;
  logic rst_n = 1'b0;
  logic irq = 1'b0, en = 1'b1, req, grant = 1'b0, sent;
  logic [4:0] vec;
  int n_sent = 0, cyc = 0, last_sent = 0;
  bit auto_grant = 1'b1;

  msi_from_irq #(.RETRIGGER(Retrig)) dut (
    .clk_i(clk), .rst_ni(rst_n), .irq_i(irq), .msi_enable_i(en), .msi_request_o(req),
    .msi_grant_i(grant), .msi_vector_num_o(vec), .sent_o(sent));

  always @(posedge clk) begin
    cyc++;
    if (req && !en) $fatal(1, "msi: request while MSI disabled");
    if (vec !== 5'd0) $fatal(1, "msi: vector %0d", vec);
    if (sent) begin
      n_sent++;
      last_sent = cyc;
    end
  end
  // the bridge: grant a request after 0..5 cycles, for one cycle
  always @(negedge clk) begin
    if (auto_grant) grant <= req && !grant && ($urandom_range(0, 2) == 0);
  end

  task automatic idle(int n);
    repeat (n) @(negedge clk);
  endtask

  initial begin
    int k;
    repeat (3) @(posedge clk);
    rst_n = 1'b1;
    idle(100);
    if (n_sent != 0) $fatal(1, "msi: %0d MSIs with irq low", n_sent);
    // short pulses: one MSI each
    for (int i = 0; i < 20; i++) begin
      irq = 1'b1; idle($urandom_range(1, 5)); irq = 1'b0; idle($urandom_range(15, 30));
    end
    if (n_sent != 20) $fatal(1, "msi: %0d MSIs for 20 pulses", n_sent);
    // held high: a first MSI, then one per RETRIGGER after the previous grant
    k = n_sent;
    irq = 1'b1;
    idle(Retrig * 5 + 3);
    irq = 1'b0;
    idle(30);
    if (n_sent - k < 5 || n_sent - k > 6) $fatal(1, "msi: %0d MSIs in %0d cycles high", n_sent - k, Retrig * 5);
    // disabled: nothing goes out, the edge is remembered
    en = 1'b0;
    k = n_sent;
    irq = 1'b1; idle(3); irq = 1'b0;
    idle(100);
    if (n_sent != k) $fatal(1, "msi: MSI while disabled");
    en = 1'b1;
    idle(30);
    if (n_sent != k + 1) $fatal(1, "msi: remembered edge not sent once enabled");
    // a request holds until granted; an edge in the grant cycle is a new message
    auto_grant = 1'b0;
    grant = 1'b0;
    k = n_sent;
    irq = 1'b1; idle(1); irq = 1'b0;
    idle(25);
    if (!req) $fatal(1, "msi: request dropped before its grant");
    irq = 1'b1;   // rising edge seen in the same cycle as the grant below
    grant = 1'b1;
    idle(1);
    grant = 1'b0;
    irq = 1'b0;
    idle(1);
    if (n_sent != k + 1) $fatal(1, "msi: grant not counted");
    if (!req) $fatal(1, "msi: edge in the grant cycle lost");
    grant = 1'b1; idle(1); grant = 1'b0;
    idle(5);
    if (n_sent != k + 2 || req) $fatal(1, "msi: second message wrong");
    $display("tb_msi_from_irq: %0d MSIs", n_sent);
    $display("PASS");
    $finish;
  end
endmodule
