# Reads numbers from host/contract/contract.toml for the Vivado scripts (plain Tcl, so
# rtl/boards/test/test_bitstream.py checks it with tclsh against the generated constants).

# The value of one [[constants]] entry of the contract (a minimal reader for the
# `name = "X"` / `value = <int>` lines of that file; underscores in numbers allowed).
proc fasthsl_contract_value {toml name} {
  set fh [open $toml r]
  set lines [split [read $fh] "\n"]
  close $fh
  set in_const 0
  set cur ""
  foreach line $lines {
    set line [string trim $line]
    if {[string match {\[\[*} $line]} {
      set in_const [string equal $line {[[constants]]}]
      set cur ""
      continue
    }
    if {!$in_const} { continue }
    if {[regexp {^name\s*=\s*"([A-Za-z0-9_]+)"} $line -> n]} {
      set cur $n
    } elseif {$cur eq $name && [regexp {^value\s*=\s*(0[xX][0-9A-Fa-f_]+|[0-9_]+)} $line -> v]} {
      return [expr {[string map {_ ""} $v]}]
    }
  }
  error "contract.toml: no constant $name"
}
