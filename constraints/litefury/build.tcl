# LiteFury bitstream, project-less Vivado flow:
#   vivado -mode batch -source constraints/litefury/build.tcl -tclargs <repo root> <out dir>
# (rtl/boards/vivado_flow.py runs exactly this for `make bitstream BOARD=litefury`).
# Out: <out>/litefury_fasthsl_top.bit (JTAG), .bin and .mcs (SPI flash), reports.
# Fails when timing is not met (like the ECP5 flow): fix the design, not the constraint.

if {[llength $argv] != 2} {
  error "usage: vivado -mode batch -source build.tcl -tclargs <repo root> <out dir>"
}
set root [file normalize [lindex $argv 0]]
set out  [file normalize [lindex $argv 1]]
set part xc7a100tfgg484-2L
set top  litefury_fasthsl_top
file mkdir $out
cd $out
set_param general.maxThreads 2

create_project -in_memory -part $part
set ipdir [file join $out ip]
source [file join $root constraints litefury xdma_ip.tcl]
synth_ip [get_ips xdma_fasthsl]

# the design: packages first, then every module the top reaches (one per file); the
# lint/Yosys declarations in rtl/boards/xilinx7 are NOT read: Vivado has the real cells
set pkgs [list [file join $root rtl pkg fasthsl_pkg.sv] [file join $root rtl common fasthsl_link_pkg.sv]]
set srcs {}
foreach dir {rtl/common rtl/ddc rtl/rcube rtl/card rtl/phy rtl/boards/common rtl/boards/litefury} {
  foreach f [lsort [glob -nocomplain [file join $root $dir *.sv]]] {
    if {[lsearch -exact $pkgs $f] < 0} { lappend srcs $f }
  }
}
read_verilog -sv [concat $pkgs $srcs]
read_xdc [file join $root constraints litefury litefury_fasthsl.xdc]

synth_design -top $top -part $part -verilog_define SYNTHESIS
report_utilization -file synth_utilization.rpt
opt_design
place_design
phys_opt_design
route_design
report_utilization -file utilization.rpt
report_timing_summary -max_paths 20 -file timing.rpt
report_clock_interaction -file clock_interaction.rpt
report_drc -file drc.rpt

set wns [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]]
set whs [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -hold]]
puts "build: WNS $wns ns, WHS $whs ns"
if {$wns < 0 || $whs < 0} {
  error "timing not met (WNS $wns ns, WHS $whs ns): see $out/timing.rpt"
}

write_bitstream -force -bin_file $top.bit
# 128 Mb (16 MiB) S25FL flash, SPI x4, image at 0 [N: the vendor's update image flow
# differs; this is a plain single image]
write_cfgmem -force -format mcs -size 16 -interface SPIx4 -loadbit "up 0x0 $top.bit" $top.mcs
puts "build: wrote $out/$top.bit, $top.bin, $top.mcs"
