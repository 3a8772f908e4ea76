#!/usr/bin/env bash
# Builds and runs one self-checking Verilator testbench: rtl/<area>/test/tb_<name>.sv.
# Modules are found by name (one module per file) in rtl/common, rtl/ddc, rtl/rcube, rtl/card,
# rtl/phy, rtl/boards/common, rtl/boards/ulx3s;
# packages come first. `include files shared by testbenches (rtl/<area>/test/*.svh) are found
# in the testbench's own folder, and so are testbench modules another testbench instantiates
# with other parameters (tb_rcube_router_bcast_pipe runs tb_rcube_router_bcast).
# A testbench passes when it exits 0 and prints "PASS".
set -euo pipefail
tb_file=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
name=$(basename "$tb_file" .sv)
tb_dir=$(cd "$(dirname "$tb_file")" && pwd)
build=${BUILD_DIR:-$root/target/rtl}/$name
mkdir -p "$build"
# Testbenches build at -O0: compile time dominates their run time (C++ of the 8x8
# router tb: 55 s at -O0, 160 s at Verilator's default -Os).
verilator --binary --timing --assert -Wall -Wno-fatal \
  -MAKEFLAGS "OPT_FAST=${TB_OPT:--O0} OPT_SLOW=-O0 OPT_GLOBAL=-O0" \
  --top-module "$name" -Mdir "$build" -o "$name" \
  "$root/rtl/verilator_waivers.vlt" \
  "$root/rtl/pkg/fasthsl_pkg.sv" "$root/rtl/common/fasthsl_link_pkg.sv" \
  -y "$root/rtl/common" -y "$root/rtl/ddc" -y "$root/rtl/rcube" -y "$root/rtl/card" \
  -y "$root/rtl/phy" -y "$root/rtl/boards/common" -y "$root/rtl/boards/ulx3s" \
  -y "$tb_dir" "+incdir+$tb_dir" "$tb_file" >"$build/build.log" 2>&1 || { cat "$build/build.log"; echo "FAIL $name (build)"; exit 1; }
# -Wno-fatal lets us print every warning; any warning still fails the test.
if grep -q '^%Warning' "$build/build.log"; then
  grep -A3 '^%Warning' "$build/build.log"; echo "FAIL $name (Verilator warnings)"; exit 1
fi
if "$build/$name" >"$build/run.log" 2>&1 && grep -q PASS "$build/run.log"; then
  echo "ok   $name"
else
  cat "$build/run.log"; echo "FAIL $name"; exit 1
fi
