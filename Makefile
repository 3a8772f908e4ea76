# FastHSL: `make run` sets up and runs the demo on the simulated card; `make test` runs every check.
SHELL := /bin/bash
.DEFAULT_GOAL := help

CARGO    ?= cargo
PYTHON   ?= python3
FASTHSL  := target/release/fasthsl
RTL_TBS  := $(sort $(wildcard rtl/*/test/tb_*.sv rtl/*/*/test/tb_*.sv))
RTL_LINT_TOPS := ddc_nic rcube_router fasthsl_card
RTL_PKGS := rtl/pkg/fasthsl_pkg.sv rtl/common/fasthsl_link_pkg.sv
RTL_DIRS := -y rtl/common -y rtl/ddc -y rtl/rcube -y rtl/card
# Board tops (rtl/boards/<board>/*_top.sv), linted as simulated (no SYNTHESIS): vendor
# IP they instantiate comes from lint-only declarations (rtl/boards/xilinx7/).
RTL_BOARD_TOPS := $(sort $(wildcard rtl/boards/*/*_top.sv))
# Place-and-route wrappers (docs/SYNTH.md): Yosys reads them only in `make synth`, so lint
# catches a port list that drifted from its core on every change.
RTL_SYNTH_WRAPS := $(sort $(wildcard rtl/synth/synth_wrap_*.sv))
RTL_BOARD_DIRS := -y rtl/phy -y rtl/boards/common -y rtl/boards/xilinx7
# On a 2-core CI machine, two testbench builds at a time keep both cores busy.
JOBS     ?= 2

.PHONY: help run deps build demo test lint gen gen-check test-rtl test-rust test-vfio soak fuzz wave synth synth-check synth-ci ci-board bitstream formal clean $(RTL_TBS)

help:
	@echo "make run        install what is missing, build, run 'fasthsl demo' on the simulated cluster"
	@echo "make test       everything CI checks: contract drift, lint, RTL testbenches, formal proofs, ECP5 size record + bitstream, Rust tests, VFIO in QEMU"
	@echo "make lint       Verilator -Wall on the RTL tops, rustfmt --check, clippy -D warnings"
	@echo "make gen        regenerate RTL package, Rust module and docs from host/contract/contract.toml"
	@echo "make gen-check  fail if the generated files differ from what the contract generates"
	@echo "make test-rtl   every self-checking Verilator testbench (rtl/*/test/tb_*.sv)"
	@echo "make test-rust  cargo test (release: the Verilator model runs at full speed)"
	@echo "make synth      Yosys + nextpnr (PyPI yowasp) size/Fmax report -> docs/synth-report.json (REASON=\"why\" when a block got >10% worse)"
	@echo "make synth-ci   the CI slice of synth-check (part of make test): ECP5 sizes of router_fifo/router_voq/nic, Fmax of router_fifo and of the allocator and arbiter alone, $(CI_BOARD) bitstream"
	@echo "make synth-check  fresh synthesis vs the committed report (fail if a block grew or slowed >10% without a reason) + the $(CI_BOARD) bitstream"
	@echo "make formal     SymbiYosys proofs of FIFO, credits, arbiter, wormhole lock, NIC CSRs (PyPI yowasp; docs/FORMAL.md)"
	@echo "make bitstream BOARD=ulx3s  board bitstream with the open ECP5 tools -> target/bitstream/ (docs/BOARDS.md)"
	@echo "make bitstream BOARD=litefury  PCIe card (Artix-7 LiteFury) with AMD Vivado, which must be on PATH"
	@echo "make wave       a short 2-node demo that writes FST waveforms to target/wave/ (GTKWave, Surfer)"
	@echo "make test-vfio  the VFIO backend on a real kernel: QEMU + emulated IOMMU + edu device (~30-60 s; installs qemu, kernel)"
	@echo "make soak       router soak: 10M cycles of mixed + malformed traffic per topology and router (hours; SOAK_CYCLES=, SOAK_ARGS=)"
	@echo "make fuzz       NIC bad-input fuzzer: 10M random descriptor/CSR/push-window ops (~15-30 min; FUZZ_OPS=, FUZZ_SEED=)"

# --- set-up -------------------------------------------------------------------------------
# Everything the build needs comes from Debian's packages or crates.io; nothing is fetched
# from elsewhere. Installs only what is missing, so a second run costs nothing.
deps:
	@need=""; \
	for tool in verilator g++ make python3 perl; do command -v $$tool >/dev/null 2>&1 || need="$$need $$tool"; done; \
	if [ -n "$$need" ]; then \
	  echo "setup: installing$$need from Debian's packages"; \
	  if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; command -v sudo >/dev/null || { echo "setup: run as root: apt-get install$$need" >&2; exit 1; }; else SUDO=; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$need >/dev/null || exit 1; \
	fi; \
	command -v $(CARGO) >/dev/null || { echo "setup: cargo not found: install Rust (rustup) or Debian's cargo package" >&2; exit 1; }; \
	$(PYTHON) -c 'import tomllib' 2>/dev/null || { echo "setup: Python >= 3.11 (tomllib) is needed for the contract generator" >&2; exit 1; }; \
	case "$$(verilator --version | awk '{print $$2}')" in 5.*) ;; *) echo "setup: Verilator 5.x needed, found $$(verilator --version)" >&2; exit 1;; esac; \
	echo "setup: $$(verilator --version | cut -d' ' -f1-2), $$($(CARGO) --version | cut -d' ' -f1-2), $$($(PYTHON) --version)"

build: deps
	$(CARGO) build --release -p fasthsl-cli

run: build
	$(FASTHSL) demo

demo: run

wave: deps
	$(CARGO) build --release -p fasthsl-cli --features trace --target-dir target/trace
	target/trace/release/fasthsl demo --max-size 4096 --iterations 1 --wave target/wave
	@echo "waveforms: target/wave/*.fst, one per NIC and router model (open with gtkwave or surfer)"

# --- checks -------------------------------------------------------------------------------
test: deps gen-check lint test-rtl formal synth-ci test-rust test-vfio
	@echo "make test: all checks passed"

gen:
	$(PYTHON) host/contract/gen/contract_gen.py

gen-check:
	$(PYTHON) host/contract/gen/contract_gen.py --check

lint:
	@for top in $(RTL_LINT_TOPS); do \
	  echo "verilator --lint-only -Wall $$top"; \
	  verilator --lint-only -Wall rtl/verilator_waivers.vlt $(RTL_PKGS) $(RTL_DIRS) rtl/*/$$top.sv --top-module $$top || exit 1; \
	done
	@for f in $(RTL_BOARD_TOPS); do \
	  top=$$(basename $$f .sv); echo "verilator --lint-only -Wall $$top"; \
	  verilator --lint-only -Wall rtl/verilator_waivers.vlt $(RTL_PKGS) $(RTL_DIRS) $(RTL_BOARD_DIRS) -y $$(dirname $$f) $$f --top-module $$top || exit 1; \
	done
	@for f in $(RTL_SYNTH_WRAPS); do \
	  top=$$(basename $$f .sv); echo "verilator --lint-only -Wall $$top"; \
	  verilator --lint-only -Wall rtl/verilator_waivers.vlt $(RTL_PKGS) $(RTL_DIRS) -y rtl/synth $$f --top-module $$top || exit 1; \
	done
	$(PYTHON) rtl/boards/test/test_bitstream.py
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --release -- -D warnings

test-rtl:
	@$(MAKE) --no-print-directory -j$(JOBS) $(RTL_TBS)
	@echo "RTL testbenches: $(words $(RTL_TBS)) passed"

$(RTL_TBS):
	@rtl/scripts/run_tb.sh $@

test-rust:
	$(CARGO) test --workspace --release

# The VFIO backend against a real Linux kernel without an FPGA (host/vfio/tests/qemu_edu.rs):
# QEMU boots Debian's kernel with an emulated Intel IOMMU and QEMU's `edu` PCI device, and
# the guest drives edu through the backend. Part of `make test` (about a minute of TCG
# emulation). Installs what is missing from Debian's packages: QEMU, a kernel for the
# guest (linux-image-amd64: on a Debian host that is the usual kernel package), a static
# busybox for the guest's init, cpio.
test-vfio:
	@need=""; \
	command -v qemu-system-x86_64 >/dev/null 2>&1 || need="$$need qemu-system-x86"; \
	command -v cpio >/dev/null 2>&1 || need="$$need cpio"; \
	case "$$(LC_ALL=C ldd "$$(command -v busybox || echo /nonexistent)" 2>&1)" in \
	  *"not a dynamic executable"*) ;; *) need="$$need busybox-static" ;; esac; \
	ls /boot/vmlinuz-* /lib/modules/*/kernel/drivers/vfio/pci/vfio-pci.ko* >/dev/null 2>&1 || need="$$need linux-image-amd64"; \
	if [ -n "$$need" ]; then \
	  echo "test-vfio: installing$$need from Debian's packages"; \
	  if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; command -v sudo >/dev/null || { echo "test-vfio: run as root: apt-get install --no-install-recommends$$need" >&2; exit 1; }; else SUDO=; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$need >/dev/null || exit 1; \
	fi
	$(CARGO) test -p fasthsl-vfio --release --test qemu_edu -- --ignored --nocapture

# --- NIC fuzzing (not part of `make test`, which runs 100 000 operations with seed 1) ---
# host/driver/tests/fuzz.rs with many more operations and a fresh seed (printed, with the
# command that replays it). One JSON line with the counts and ops/s.
FUZZ_OPS  ?= 10000000
FUZZ_SEED ?= $(shell od -An -N4 -tu4 /dev/urandom | tr -d ' ')
fuzz: deps
	FUZZ_OPS=$(FUZZ_OPS) FUZZ_SEED=$(FUZZ_SEED) $(CARGO) test -p fasthsl-driver --release --test fuzz -- --nocapture

# --- router soak (not part of `make test`: hours; the short version is sim/tests/soak.rs) ---
# Saturating mixed traffic with malformed packets on star:8 full:8 ring:16 mesh:4x4 torus:4x4
# hypercube:6 ring:64 mesh:8x8, FIFO and VOQ routers; one JSON line per run in
# target/soak.json (wall time included), fails if any run does. See docs/ARCHITECTURE.md, Soak.
SOAK_CYCLES ?= 10000000
soak: deps
	@mkdir -p target
	set -o pipefail; $(CARGO) run --release -q -p fasthsl-sim --example soak -- \
	  --cycles $(SOAK_CYCLES) --jobs $(JOBS) $(SOAK_ARGS) | tee target/soak.json

# --- synthesis (docs/SYNTH.md): single-threaded WebAssembly tools, $(JOBS) jobs at a time;
# a job whose exact inputs were built before (target/synth, target/bitstream) is reused ---
# `make test` runs synth-ci: the size record (docs/synth-report.json, 10% rule) for the
# ECP5 rows of router_fifo, router_voq and nic, the Fmax of router_fifo and of three
# building blocks alone (the pipelined router's allocator, the three-stage one, a
# round-robin arbiter: about a minute), and the CI board's bitstream, in one job pool
# (~10 min cold on 2 cores).
# `make synth-check` is the whole record (both targets, both nodes' sizes, and the Fmax
# of router_fifo and node_fifo, the NIC beside the FIFO router) and `make synth` rewrites
# it (placing router_voq and the NIC too; the VOQ node, whose LUTs are mapped for area so
# that it routes on the 85F, ~20 min of P&R, only with SYNTH_ARGS="--pnr node").
CI_BOARD ?= ulx3s
.venv/.synth-deps: rtl/synth/requirements.txt
	$(PYTHON) -m venv .venv
	.venv/bin/pip install -q -r rtl/synth/requirements.txt
	touch $@

synth: .venv/.synth-deps
	$(PYTHON) rtl/synth/synth.py -j$(JOBS) $(if $(REASON),--reason "$(REASON)") $(SYNTH_ARGS)

ci-board: .venv/.synth-deps
	$(PYTHON) rtl/synth/test_synth_check.py
	$(PYTHON) rtl/boards/bitstream.py $(CI_BOARD)

SYNTH_CI_ARGS ?= --blocks router_fifo,router_voq,nic,alloc_voq_pipe,alloc_spec,arb_rr8 \
	--targets ecp5 --pnr router_fifo,alloc_voq_pipe,alloc_spec,arb_rr8
synth-ci: .venv/.synth-deps
	$(PYTHON) rtl/synth/test_synth_check.py
	$(PYTHON) rtl/synth/synth.py -j$(JOBS) --check $(SYNTH_CI_ARGS) --bitstream $(CI_BOARD)

synth-check: .venv/.synth-deps
	$(PYTHON) rtl/synth/test_synth_check.py
	$(PYTHON) rtl/synth/synth.py -j$(JOBS) --check $(if $(CI_BOARD),--bitstream $(CI_BOARD)) $(SYNTH_ARGS)

# --- formal (docs/FORMAL.md): proofs plus must-fail mutants, -j$(JOBS) ---
.venv/.formal-deps: rtl/formal/requirements.txt rtl/synth/requirements.txt
	@$(PYTHON) -m venv .venv && .venv/bin/pip install -q -r rtl/formal/requirements.txt || { \
	  echo "formal: could not install rtl/formal/requirements.txt (Yosys, SymbiYosys, Yices from PyPI) into .venv" >&2; exit 1; }
	@touch $@

formal: .venv/.formal-deps
	$(PYTHON) rtl/formal/run_formal.py -j$(JOBS) $(FORMAL_ARGS)

# A board bitstream (docs/BOARDS.md); the script lists the boards and says when a board's
# vendor tool is not installed. The CI board is also built by `make test` (synth-ci).
bitstream: .venv/.synth-deps
	$(PYTHON) rtl/boards/bitstream.py $(BOARD)

clean:
	$(CARGO) clean
