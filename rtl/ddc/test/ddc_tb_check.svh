// Error counting shared by the ddc testbenches that go on after a failed check: `CHECK
// reports the condition with the time and counts it; tb_verdict prints the result at the
// end ("PASS", which rtl/scripts/run_tb.sh looks for, only when nothing failed). Included
// inside a testbench module.

  int errors = 0;
`define CHECK(cond, msg) if (!(cond)) begin errors++; $display("ERROR @%0t: %s", $time, msg); end

  function automatic void tb_verdict();
    if (errors == 0) $display("PASS");
    else $display("FAIL: %0d errors", errors);
  endfunction
