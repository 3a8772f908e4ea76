"""Shared runner for the PyPI (YoWASP) WebAssembly tools: `make synth`, `make synth-check`
(rtl/synth/synth.py) and `make bitstream` (rtl/boards/bitstream.py).

Three things every caller needs and gets here once:
- Sources are copied into the job's own directory and named there by bare file name.
  YoWASP's WebAssembly sandbox maps the host's /tmp to a private temporary directory, so an
  absolute path under /tmp (a checkout in /tmp/ci/...) does not resolve inside the tool,
  while the working directory always does. rtl/formal/run_formal.py gets the same effect
  from SymbiYosys, which copies its [files] into the job's src/ folder.
- A job is skipped when its exact inputs were already built: the key is the SHA-256 of
  every staged file's name and content, the tool command lines and the pinned tool versions
  (rtl/synth/requirements.txt); any change to any of them runs the job again.
- Jobs run in a small thread pool (each job is one single-threaded WebAssembly process at a
  time), and the tools are compiled from WebAssembly once before the pool starts so that
  two first calls do not both compile (the compiled code is cached by YoWASP in
  $YOWASP_CACHE_DIR, default ~/.cache/YoWASP).
Python standard library only.
"""

import hashlib
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RTL = ROOT / "rtl"
VENV_BIN = ROOT / ".venv" / "bin"
REQUIREMENTS = RTL / "synth" / "requirements.txt"
PKGS = [RTL / "pkg" / "fasthsl_pkg.sv", RTL / "common" / "fasthsl_link_pkg.sv"]
KEY_FILE = ".inputs.sha256"

# Modules marked (* keep_hierarchy *) in the RTL are mapped on their own: read_slang
# with KEEP_MARKED keeps every module, synth_ecp5/synth_xilinx flatten all but the
# marked ones, and MAPPED_FLATTEN, run after mapping, makes the netlist flat again for
# stat and nextpnr (synth.py and the board builds). ABC maps the VOQ router 26% smaller
# with its buffers kept apart (rcube_voq_buffer, docs/SYNTH.md session 28).
KEEP_MARKED = ("--keep-hierarchy",)
MAPPED_FLATTEN = [
    "setattr -mod -unset keep_hierarchy",
    "flatten -noscopeinfo",
    # the scope cells synth_*'s own flatten left for the hierarchy it removed: no cell
    # library knows them
    "delete t:$scopeinfo",
    "opt_clean",
]


class ToolError(Exception):
    """A tool failed; the message carries the tail of its log."""


def tool(name):
    return VENV_BIN / f"yowasp-{name}"


def missing_tools(names):
    return [str(tool(n)) for n in names if not tool(n).exists()]


def warm_up(names):
    """Compiles each tool's WebAssembly once (cached by YoWASP afterwards)."""
    for n in names:
        flag = "-V" if n == "yosys" else "--version"
        subprocess.run([str(tool(n)), flag], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)


def stage(job_dir, files, libdirs=()):
    """Copies `files` and every .sv of `libdirs` into job_dir (flat); returns the bare names
    of `files` in order. Tools then read `-y .` for the library. Stale copies from an
    earlier run are removed so the job sees exactly today's sources."""
    job_dir.mkdir(parents=True, exist_ok=True)
    for old in job_dir.glob("*.sv"):
        old.unlink()
    files = [Path(f) for f in files]
    srcs = {}
    for f in files:
        if f.name in srcs:
            raise ToolError(f"two sources named {f.name}: {srcs[f.name]} and {f}")
        srcs[f.name] = f
    explicit = set(srcs)
    for d in libdirs:
        for f in sorted(Path(d).glob("*.sv")):
            if f.name in explicit:
                continue  # an explicit file (a package, a top) is the one read
            if f.name in srcs:
                raise ToolError(f"two library modules named {f.name}: {srcs[f.name]} and {f}")
            srcs[f.name] = f
    for name, f in srcs.items():
        shutil.copyfile(f, job_dir / name)
    return [f.name for f in files]


def input_key(job_dir, commands, extra_files=()):
    """SHA-256 over the staged sources (and extra inputs), the commands and the tool pins."""
    h = hashlib.sha256()
    h.update(REQUIREMENTS.read_bytes())
    for c in commands:
        # a tool by its name, not its path: the same job in another checkout is the same job
        words = [x.name if isinstance(x, Path) else str(x) for x in c]
        h.update(b"\0cmd\0" + " ".join(words).encode())
    paths = sorted(job_dir.glob("*.sv")) + [Path(p) for p in extra_files]
    for p in paths:
        h.update(b"\0file\0" + p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def is_cached(job_dir, key, outputs):
    kf = job_dir / KEY_FILE
    return (kf.exists() and kf.read_text().strip() == key
            and all((job_dir / o).exists() for o in outputs))


def mark_built(job_dir, key):
    (job_dir / KEY_FILE).write_text(key + "\n")


def forget(job_dir):
    (job_dir / KEY_FILE).unlink(missing_ok=True)


class Stopped(ToolError):
    """A run stopped by its watch function (the tool was still running)."""


def run(cmd, cwd, logfile, what, tail_lines=40, watch=None, poll_s=5.0):
    """Runs one tool in cwd; returns its wall time in seconds, raises ToolError on failure.
    `watch`, if given, is called every `poll_s` seconds while the tool runs; when it
    returns a message the tool is stopped and Stopped (a ToolError) raised with it."""
    t = time.monotonic()
    with open(logfile, "w") as f:
        proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, stdout=f,
                                stderr=subprocess.STDOUT)
        while True:
            try:
                rc = proc.wait(timeout=poll_s if watch else None)
                break
            except subprocess.TimeoutExpired:
                why = watch()
                if why:
                    proc.kill()
                    proc.wait()
                    raise Stopped(f"{what} stopped: {why}")
    if rc != 0:
        tail = Path(logfile).read_text(errors="replace").splitlines()[-tail_lines:]
        raise ToolError("\n".join(tail) + f"\n{what} failed (exit {rc}); full log: {logfile}")
    return time.monotonic() - t


def pool_map(fn, items, jobs):
    """fn over items, `jobs` at a time, results in order; a ToolError is returned, not
    raised, so one failing job does not hide the others' results."""
    def guarded(item):
        try:
            return fn(item)
        except ToolError as e:
            return e

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(guarded, items))
