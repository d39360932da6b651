#!/usr/bin/env python3
"""Ours against the host peers (default Intel MKL and Kokkos Kernels) on a benchmark that favours
no one: sprocket-bench's SpMV, BSR, SpMM and SpGEMM in two regimes, optionally beside a busy
neighbour, several runs, one table of medians per kernel and regime.

The rules (perf_tests/README.md, "A benchmark that favours no one"):
  - inside each process the bench interleaves the candidates and rotates which one runs first
    between repeats ("order": "rotated"); between runs this driver rotates the order of its
    processes (run r starts with process r mod n);
  - every peer's own preparation (its trial of its ways, its handles and analyses) is its
    setup_seconds, as our analysis is ours (the bench counts it);
  - the roof on every SpMV, BSR and SpMM line: bytes, GB/s and the fraction of the STREAM triad
    measured in the same process (--stream);
  - two regimes for every kernel: in cache (the published tables' problems,
    publish_host_tables.PROBLEMS) and memory-bound (generated matrices of the same families sized
    from the last-level cache read from this machine: the matrix, or for SpMM and SpGEMM the
    operands one product moves, at least --memory-factor times the LLC, capped by the options);
  - --neighbour busy: every process is run twice, quiet and with one busy process (a shell spin
    loop) pinned to one core, started before the bench and killed after it (and bounded by
    `timeout` in case this driver is killed), the two tables side by side;
  - --check on every line; a line whose check failed is reported as a failure, never in a ratio
    (the bench withholds ratio_vs_<peer> against it).

Usage: /usr/bin/python3 perf_tests/host_compare.py [--bench build/host/bin/sprocket-bench]
       [--kernels spmv,bsr,spmm,spgemm] [--peers mkl,kk] [--runs 3] [--regimes cache,memory]
       [--neighbour quiet|busy] [--llc-bytes N] [--memory-factor 2] [--memory-bytes N]
       [--spmm-memory-bytes N] [--spgemm-memory-bytes N] [--quick] [--out-dir perf_tests/results]
Writes <out-dir>/host-compare-<date>[-quick].jsonl (every line of every process, with run, regime,
neighbour and process keys added) and .md. Exit status 1 when a bench process failed or a check
failed (the tables are written first), 2 on bad usage.
"""
import argparse
import datetime
import glob
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import publish_host_tables as published  # noqa: E402  (the in-cache problem sets)

KERNELS = ("spmv", "bsr", "spmm", "spgemm")
REGIMES = {"cache": "in cache", "memory": "memory-bound"}
# Timed repeats per process (each kernel's cost per apply differs by orders of magnitude).
REPEAT = {"spmv": 20, "bsr": 20, "spmm": 10, "spgemm": 5}
# The memory-bound problems: the in-cache families (generated matrices; files have no larger
# sibling), each sized by its one size parameter. K of SpMM: the smaller of the in-cache K's.
MEMORY_FAMILIES = {
    "spmv": ["rmat:ef=16", "poisson3d", "elasticity:dof=3"],
    "bsr": ["elasticity:dof=3", "elasticity:dof=6"],
    "spmm": ["rmat:ef=16", "poisson3d", "banded:bw=64"],
    "spgemm": ["rmat:ef=16", "poisson3d", "elasticity:dof=3"],
}
MEMORY_SPMM_K = 32
QUICK_MEMORY_BYTES = 4 << 20
VALUE_BYTES, INDEX_BYTES, OFFSET_BYTES = 8, 4, 4  # double / int, as the bench's default types
# What a line may say about the library that ran it, printed in the header where present.
PEER_INFO_KEYS = ("peer_version", "peer_code_path", "peer_march", "peer_threads")


# ------------------------------------------------------------------------------------------------
# The machine


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def parse_size(text):
    """'532676608', '512K', '32 MiB', '260 MiB (2 instances)' -> bytes (0 when unreadable)."""
    m = re.match(r"\s*([\d.]+)\s*([KMGT]?)(i?B)?", text or "", re.I)
    if not m:
        return 0
    scale = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2).upper()]
    return int(float(m.group(1)) * scale)


def lscpu():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    info = {}
    for line in out.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            info[k.strip()] = v.strip()
    return info


def machine():
    """CPU model, core count and cache sizes as this machine reports them; llc_bytes is the
    last-level cache: getconf's, else the highest level in /sys, else lscpu's."""
    cpu = lscpu()
    model = ""
    for line in read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    model = model or cpu.get("Model name", "unknown")
    caches = {}
    for index in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cache/index*")):
        level = read(os.path.join(index, "level")).strip()
        kind = read(os.path.join(index, "type")).strip()
        size = parse_size(read(os.path.join(index, "size")).strip())
        if level and size:
            caches[f"L{level}{'d' if kind == 'Data' else 'i' if kind == 'Instruction' else ''}"] = size
    getconf = {}
    for name in ("LEVEL1_DCACHE_SIZE", "LEVEL2_CACHE_SIZE", "LEVEL3_CACHE_SIZE", "LEVEL4_CACHE_SIZE"):
        try:
            v = subprocess.run(["getconf", name], capture_output=True, text=True, timeout=10).stdout.strip()
            getconf[name] = int(v) if v.isdigit() else 0
        except (OSError, subprocess.SubprocessError):
            getconf[name] = 0
    llc, source = 0, ""
    for name in ("LEVEL4_CACHE_SIZE", "LEVEL3_CACHE_SIZE", "LEVEL2_CACHE_SIZE"):
        if getconf.get(name):
            llc, source = getconf[name], f"getconf {name}"
            break
    if not llc and caches:
        top = max(caches, key=lambda k: (int(k[1]), caches[k]))
        llc, source = caches[top], f"/sys/devices/system/cpu/cpu0/cache ({top})"
    if not llc:
        for key in ("L3 cache", "L2 cache"):
            if cpu.get(key):
                llc, source = parse_size(cpu[key]), f"lscpu {key}"
                break
    return {"model": model, "cores": os.cpu_count() or 1, "lscpu_caches": {k: v for k, v in cpu.items() if "cache" in k},
            "sys_caches": caches, "getconf": getconf, "llc_bytes": llc, "llc_source": source,
            "threads_per_core": cpu.get("Thread(s) per core", "?"), "flags_avx512": "avx512f" in read("/proc/cpuinfo")}


# ------------------------------------------------------------------------------------------------
# Memory-bound problems: the size parameter of each family from its rows / nnz formula


def family_shape(family, size):
    """(rows, nnz, nnz of A*A) of a generated family at `size`: exact nnz for the stencils (the
    boundary's missing neighbours counted), estimates for rmat and banded, whose entries are
    random, and for every A*A but poisson3d's."""
    name, _, params = family.partition(":")
    p = dict(kv.split("=") for kv in params.split(",") if kv)
    if name == "poisson3d":
        rows = size ** 3
        return rows, 7 * rows - 6 * size ** 2, 25 * rows
    if name == "elasticity":
        dof = int(p.get("dof", 3))
        rows = dof * size ** 3
        return rows, dof * dof * (3 * size - 2) ** 3, 125 * dof * rows
    if name == "rmat":
        rows = 1 << size
        nnz = int(0.8 * float(p.get("ef", 16)) * rows)  # duplicate edges merged: ~80% stay
        return rows, nnz, 30 * nnz  # A*A of a power-law graph (31x at scale 11): an estimate; the table shows C
    if name == "banded":
        bw = int(p["bw"])
        nnz = size * (bw + 1)  # fill 0.5 of 2 bw + 1
        return size, nnz, size * (2 * bw + 1)
    raise ValueError(family)


def spec_of(family, size):
    name, _, params = family.partition(":")
    key = {"poisson3d": "n", "elasticity": "n", "rmat": "scale", "banded": "n"}[name]
    return f"gen:{name}:{key}={size}" + (f",{params}" if params else "")


def csr_bytes(rows, nnz):
    return nnz * (VALUE_BYTES + INDEX_BYTES) + (rows + 1) * OFFSET_BYTES


def problem_bytes(kernel, family, size):
    """What must stream from memory each apply: A (SpMV, BSR), A with B and C (SpMM at K =
    MEMORY_SPMM_K), A and C = A*A (SpGEMM)."""
    rows, nnz, nnz_c = family_shape(family, size)
    if kernel == "spmm":
        return csr_bytes(rows, nnz) + 2 * rows * MEMORY_SPMM_K * VALUE_BYTES
    if kernel == "spgemm":
        return csr_bytes(rows, nnz) + csr_bytes(rows, nnz_c)
    return csr_bytes(rows, nnz)


def sized_spec(kernel, family, target):
    """The smallest member of the family whose problem_bytes reach target."""
    size = {"rmat": 4, "banded": 1024}.get(family.partition(":")[0], 4)
    while problem_bytes(kernel, family, size) < target:
        size = size + 1 if family.startswith("rmat") else (size * 2 if family.startswith("banded") else size + 1)
    if family.startswith("banded"):  # bisect down to the smallest power-of-two step's member
        lo = size // 2
        while lo + 1 < size:
            mid = (lo + size) // 2
            lo, size = (lo, mid) if problem_bytes(kernel, family, mid) >= target else (mid, size)
    return spec_of(family, size), problem_bytes(kernel, family, size)


# ------------------------------------------------------------------------------------------------
# Running sprocket-bench


def offered_peers(bench):
    """{kernel: set of peers this build offers} from --help ("peers: a, b (not in this build)")."""
    out = subprocess.run([bench, "--help"], capture_output=True, text=True, timeout=60).stdout
    offered, kernel = {}, None
    for line in out.splitlines():
        m = re.match(r"  (\w[\w-]*): ", line)
        if m:
            kernel = m.group(1)
        m = re.match(r"\s+peers: (.*)", line)
        if m and kernel:
            offered[kernel] = {p.strip() for p in m.group(1).split(",") if "not in this build" not in p and p.strip()}
    return offered


class Neighbour:
    """One busy process pinned to one core for the life of one bench process: started before it,
    killed after it; `timeout` kills it anyway after `limit` seconds (the driver itself killed)."""

    def __init__(self, core, limit):
        spin = ["sh", "-c", "while :; do :; done"]
        if shutil.which("taskset"):
            spin = ["taskset", "-c", str(core)] + spin
        if shutil.which("timeout"):
            spin = ["timeout", "-s", "KILL", str(int(limit))] + spin
        self.proc = subprocess.Popen(spin, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)

    def stop(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            print(f"host_compare: the busy neighbour {self.proc.pid} did not stop", file=sys.stderr)


NEIGHBOURS = []


def stop_neighbours(*_):
    for n in NEIGHBOURS:
        n.stop()
    NEIGHBOURS.clear()


def run_bench(args, job, peers, neighbour_core):
    kernel, regime, busy = job["kernel"], job["regime"], job["neighbour"] == "busy"
    cmd = [args.bench, "--kernel", kernel, "--check", "--json", "--stream",
           "--repeat", str(args.repeat or (2 if args.quick else REPEAT[kernel])),
           "--warmup", "1" if args.quick else str(args.warmup)]
    if args.quick:
        cmd += ["--stream-size", str(1 << 20)]
    for v in job.get("variants") or (["auto", "unsorted"] if kernel == "spgemm" else ["auto"]):
        cmd += ["--variant", v]
    for m in job["matrices"]:
        cmd += ["--matrix", published.matrix_arg(m)]
    cmd += ["--compare", ",".join(peers)] + job["extra"]
    env = dict(os.environ)
    env.setdefault("OMP_PROC_BIND", "spread")
    env.setdefault("OMP_PLACES", "threads")
    neighbour = Neighbour(neighbour_core, args.process_timeout + 30) if busy else None
    if neighbour:
        NEIGHBOURS.append(neighbour)
    start = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.process_timeout)
        rc, out, err = r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = 124, e.stdout or "", (e.stderr or "") + f"\ntimed out after {args.process_timeout} s"
        out = out.decode() if isinstance(out, bytes) else out
        err = err.decode() if isinstance(err, bytes) else err
    finally:
        if neighbour:
            neighbour.stop()
            NEIGHBOURS.remove(neighbour)
    rows = [json.loads(line) for line in out.splitlines() if line.strip().startswith("{")]
    return rows, rc, err, time.time() - start, cmd


# ------------------------------------------------------------------------------------------------
# Tables


def g3(v):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    if abs(v) >= 1000:
        return f"{v:.0f}"
    return f"{v:.3g}" if (v != 0 and abs(v) < 0.01) else f"{v:.2f}"


def spread(values):
    vals = [v for v in values if v is not None]
    if not vals:
        return "-"
    med = statistics.median(vals)
    return g3(med) if len(vals) == 1 else f"{g3(med)} ({g3(min(vals))}-{g3(max(vals))})"


def geomean(values):
    vals = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


def case_of(row):
    """The case a line belongs to: matrix, and K / layout for SpMM."""
    case = row.get("matrix", "")
    if row.get("kernel") == "spmm":
        case += f" K={row.get('k')} {row.get('layout')}"
    return case


def ours_for(kernel, peer):
    """Which of our variants a peer is compared with: SpGEMM's unsorted output with the unsorted peers."""
    return "unsorted" if kernel == "spgemm" and peer.endswith("_unsorted") else "auto"


def table(rows, kernel, regime, neighbour, peers):
    """Markdown lines of one kernel / regime / neighbour: per case and peer the median (min-max)
    over the runs of ratio_vs_<peer>, our and the peer's GB/s and of-triad fractions; a geomean and
    the worst case per peer."""
    mine = [r for r in rows if r.get("kernel") == kernel and r["regime"] == regime and r["neighbour"] == neighbour]
    if not mine:
        return []
    cases = []
    for r in mine:
        if case_of(r) not in cases:
            cases.append(case_of(r))
    # A peer this section's processes were not asked for (--spgemm-memory-sorted-only) has no column.
    not_run = [p for p in peers if not any(r.get("impl") == p for r in mine)]
    peers = [p for p in peers if p not in not_run]
    roof = kernel != "spgemm"
    head = ["case", "A MB"] + (["C MB"] if kernel == "spgemm" else [])
    for p in peers:
        head += [f"{p} / ours"] + ([f"ours GB/s", f"{p} GB/s", "ours of triad", f"{p} of triad"] if roof else
                                   ["ours s", f"{p} s", f"{p} setup s"])
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    medians = {p: {} for p in peers}
    failures = []
    for case in cases:
        lines = [r for r in mine if case_of(r) == case]
        for r in lines:
            if r.get("check") is False:
                failures.append(f"{r.get('impl')} {r.get('variant')} on {case} (run {r['run']})")
        first = lines[0]
        cells = [case, g3(csr_bytes(first.get("rows", 0), first.get("nnz", 0)) / 1e6)]
        if kernel == "spgemm":
            cells.append(g3(csr_bytes(first.get("rows", 0), first["nnz_c"]) / 1e6) if "nnz_c" in first else "-")
        for p in peers:
            ours = [r for r in lines if r.get("impl") == "sprocket" and r.get("variant") == ours_for(kernel, p)]
            theirs = [r for r in lines if r.get("impl") == p]
            ratios = [r.get(f"ratio_vs_{p}") for r in ours if r.get(f"ratio_vs_{p}") is not None]
            if ratios:
                medians[p][case] = statistics.median(ratios)
            ok = lambda rs: [r for r in rs if r.get("check") is not False]  # noqa: E731
            cell = spread(ratios) if ratios else ("FAIL" if any(r.get("check") is False for r in theirs + ours)
                                                 else "-")
            if roof:
                cells += [cell, spread([r.get("gbps") for r in ok(ours)]), spread([r.get("gbps") for r in ok(theirs)]),
                          spread([r.get("stream_fraction") for r in ok(ours)]),
                          spread([r.get("stream_fraction") for r in ok(theirs)])]
            else:
                cells += [cell, spread([r.get("seconds") for r in ok(ours)]), spread([r.get("seconds") for r in ok(theirs)]),
                          spread([r.get("setup_seconds") for r in ok(theirs)])]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    for p in peers:
        if medians[p]:
            worst = min(medians[p], key=medians[p].get)
            out.append(f"- **{p}**: geomean {g3(geomean(medians[p].values()))} over {len(medians[p])} case(s); "
                       f"worst case {worst}: {g3(medians[p][worst])}")
        else:
            out.append(f"- **{p}**: geomean - (no ratio: the peer did not run or failed its check)")
    for p in not_run:
        out.append(f"- {p}: not run in this regime")
    for f in failures:
        out.append(f"- check FAILED: {f} (no ratio taken from it)")
    return out + [""]


def write_md(path, args, mach, rows, processes, peers_by_kernel, dropped, sizes, target, when):
    L = [f"# Ours against {', '.join(args.peers)} on the host, "
         f"{' and '.join(REGIMES[r] for r in args.regimes)} ({when})", ""]
    L.append(f"Machine: {mach['model']}, {mach['cores']} cores ({mach['threads_per_core']} thread(s) per core), "
             f"AVX-512 {'yes' if mach['flags_avx512'] else 'no'}.")
    caches = ", ".join(f"{k} {v // 1024} KiB" for k, v in sorted(mach["sys_caches"].items()))
    conf = ", ".join(f"{k} {v}" for k, v in mach["getconf"].items() if v)
    L.append(f"Caches: /sys: {caches or '-'}; getconf: {conf or '-'}; lscpu: "
             + ("; ".join(f"{k} {v}" for k, v in mach["lscpu_caches"].items()) or "-")
             + f"; last-level cache used for sizing: {mach['llc_bytes'] / 2**20:.1f} MiB ({mach['llc_source']}).")
    L.append(f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '-')}, OMP_PROC_BIND="
             f"{os.environ.get('OMP_PROC_BIND', 'spread')}; bench: `{os.path.relpath(args.bench, ROOT)}`"
             + (" (--quick: tiny matrices, not publishable)" if args.quick else "") + ".")
    if os.environ.get("SPROCKET_BENCH_CORRUPT"):
        L.append(f"**SPROCKET_BENCH_CORRUPT={os.environ['SPROCKET_BENCH_CORRUPT']}: its results were made wrong on "
                 "purpose (a test of --check); nothing here is to be published.**")
    L.append("")
    for neighbour in args.neighbours:
        triads = [r["gbps"] for r in rows if r.get("kernel") == "stream" and r.get("variant") == "triad"
                  and r["neighbour"] == neighbour]
        L.append(f"STREAM triad ({neighbour}, every process): {spread(triads)} GB/s, median (min-max) "
                 f"over {len(triads)} process(es).")
    L.append("")
    L.append("Peers (what their lines say; absent: -):")
    L.append("")
    for p in sorted({p for ps in peers_by_kernel.values() for p in ps}):
        info = []
        for key in PEER_INFO_KEYS:
            vals = sorted({str(r[key]) for r in rows if r.get("impl") == p and key in r})
            info.append(f"{key} {', '.join(vals) if vals else '-'}")
        algs = sorted({str(r["peer_algorithm"]) for r in rows if r.get("impl") == p and "peer_algorithm" in r})
        info.append(f"peer_algorithm {', '.join(algs) if algs else '-'}")
        L.append(f"- {p}: " + "; ".join(info))
    for note in dropped:
        L.append(f"- {note}")
    L.append("")
    L.append("Rules: one sprocket-bench process per kernel, regime and neighbour, "
             f"{args.runs} run(s) with the order of the processes rotated (run r starts with process r mod n); "
             "inside each process the candidates interleaved and rotated between repeats (\"order\": \"rotated\"); "
             "`--check` on every line (a failed line is listed, never in a ratio); every peer's own preparation "
             "(its trial of its ways, its handles and optimisation) in its setup_seconds; the triad of the same "
             "process behind every of-triad fraction. A ratio is the peer's seconds over ours (ratio_vs_<peer>): "
             "above 1, ours is faster; median (min-max) over the runs; geomeans over the cases' medians.")
    L.append("")
    L.append("Memory-bound problems (sized from the last-level cache above: "
             f"at least {args.memory_factor} x LLC"
             + (f", capped at {args.memory_bytes / 1e6:.0f} MB" if args.memory_bytes else "")
             + "; SpMV and BSR: the matrix's bytes; SpMM: A, B and C at K = "
             f"{MEMORY_SPMM_K} (only that K); SpGEMM: A and C = A*A (C estimated; MB in the tables: measured))"
             + (f"; --quick: {target / 1e6:.0f} MB, in cache: a test of the driver, not of the regime" if args.quick
                else "") + ":")
    L.append("")
    for kernel, specs in sizes.items():
        L.append(f"- {kernel}: " + ", ".join(f"`{s}` (~{b / 1e6:.0f} MB)" for s, b in specs))
    L.append("")
    for kernel in args.kernels:
        for neighbour in args.neighbours:
            for regime in args.regimes:
                body = table(rows, kernel, regime, neighbour, peers_by_kernel[kernel])
                if body:
                    L.append(f"## {kernel}, {REGIMES[regime]}, {neighbour} neighbour" if neighbour == "busy"
                             else f"## {kernel}, {REGIMES[regime]}, quiet")
                    L.append("")
                    if kernel == "spgemm":
                        L.append("Sorted peers against our default (sorted) output, `_unsorted` peers against our "
                                 "`unsorted` variant; seconds are whole products.")
                        L.append("")
                    L += body
    bad = [p for p in processes if p["rc"] != 0]
    if bad:
        L.append("## Processes that failed")
        L.append("")
        for p in bad:
            L.append(f"- run {p['run']} {p['kernel']} {p['regime']} {p['neighbour']}: exit {p['rc']}: "
                     f"{p['err'].strip().splitlines()[-1] if p['err'].strip() else ''}")
        L.append("")
    L.append("Commands (run 1):")
    L.append("")
    for p in processes:
        if p["run"] == 1:
            L.append(f"    {' '.join(p['cmd'][1:])}" + ("   # beside a busy core" if p["neighbour"] == "busy" else ""))
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


# ------------------------------------------------------------------------------------------------


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "host", "bin", "sprocket-bench"))
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--peers", default="mkl,kk")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=0, help="timed repeats per process (default per kernel)")
    ap.add_argument("--regimes", default="cache,memory")
    ap.add_argument("--neighbour", choices=("quiet", "busy"), default="quiet",
                    help="busy: every process also beside one busy core, tables side by side")
    ap.add_argument("--neighbour-core", type=int, default=-1, help="the busy core (default: the last)")
    ap.add_argument("--llc-bytes", type=int, default=0, help="last-level cache (default: read from the machine)")
    ap.add_argument("--memory-factor", type=float, default=2.0, help="memory-bound problems >= this x LLC")
    ap.add_argument("--memory-bytes", type=int, default=0, help="cap (or, --quick, set) the memory-bound size")
    ap.add_argument("--spmm-memory-bytes", type=int, default=0, help="SpMM's own cap (its B and C count)")
    ap.add_argument("--spgemm-memory-bytes", type=int, default=0,
                    help="SpGEMM's own cap (a product of a memory-bound A is far costlier)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed calls per candidate before the repeats")
    ap.add_argument("--memory-families", default="",
                    help="memory-bound families per kernel instead of the defaults, e.g. "
                         "'bsr=elasticity:dof=3;spgemm=poisson3d' (families joined by +)")
    ap.add_argument("--spgemm-memory-sorted-only", action="store_true",
                    help="memory-bound SpGEMM: ours auto and the sorted peers only (no unsorted pair)")
    ap.add_argument("--process-timeout", type=int, default=3600, help="seconds one bench process may run")
    ap.add_argument("--quick", action="store_true", help="tiny matrices, 1 run: a smoke test")
    ap.add_argument("--out-dir", default=os.path.join(HERE, "results"))
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    args = ap.parse_args(argv)
    args.kernels = [k for k in args.kernels.split(",") if k]
    args.peers = [p for p in args.peers.split(",") if p]
    args.regimes = [r for r in args.regimes.split(",") if r]
    for k in args.kernels:
        if k not in KERNELS:
            ap.error(f"--kernels: {k} (valid: {', '.join(KERNELS)})")
    for r in args.regimes:
        if r not in REGIMES:
            ap.error(f"--regimes: {r} (valid: cache, memory)")
    if args.runs < 1:
        ap.error("--runs must be >= 1")
    if args.quick and "--runs" not in " ".join(argv):
        args.runs = 1
    args.neighbours = ["quiet", "busy"] if args.neighbour == "busy" else ["quiet"]
    args.bench = os.path.abspath(args.bench)
    return args


def main(argv):
    args = parse_args(argv)
    if not os.access(args.bench, os.X_OK):
        sys.exit(f"host_compare: no sprocket-bench at {args.bench} (build it: ninja -C build/host sprocket-bench)")
    mach = machine()
    llc = args.llc_bytes or mach["llc_bytes"]
    if not llc:
        sys.exit("host_compare: cannot read the last-level cache size; give --llc-bytes")
    mach["llc_bytes"] = llc
    if args.llc_bytes:
        mach["llc_source"] = "--llc-bytes"
    offered = offered_peers(args.bench)
    peers_by_kernel, dropped = {}, {}
    for kernel in args.kernels:
        wanted = list(args.peers)
        if kernel == "spgemm":  # the unsorted output of each peer beside our unsorted variant
            wanted += [p + "_unsorted" for p in args.peers if not p.endswith("_unsorted")]
        have = offered.get(kernel, set())
        peers_by_kernel[kernel] = [p for p in wanted if p in have]
        for p in wanted:
            if p not in have:
                dropped.setdefault(p, []).append(kernel)
    dropped = [f"{p}: not in this build of sprocket-bench (its --help), dropped from {', '.join(ks)}"
               for p, ks in dropped.items()]
    for note in dropped:
        print(f"host_compare: {note}", file=sys.stderr)

    families = {}
    for item in filter(None, args.memory_families.split(";")):
        kernel, _, names = item.partition("=")
        if kernel not in MEMORY_FAMILIES or not names:
            sys.exit(f"host_compare: --memory-families: '{item}' (kernel=family+family, kernels {', '.join(KERNELS)})")
        families[kernel] = names.split("+")
        for f in families[kernel]:
            if f.split(":")[0] not in {g.split(":")[0] for g in MEMORY_FAMILIES[kernel]}:
                sys.exit(f"host_compare: --memory-families: {kernel} has no family '{f}' "
                         f"(its families: {', '.join(MEMORY_FAMILIES[kernel])})")
    target = args.memory_factor * llc
    if args.quick:
        target = args.memory_bytes or QUICK_MEMORY_BYTES
    elif args.memory_bytes:
        target = min(target, args.memory_bytes)
    jobs, sizes = [], {}
    for kernel in args.kernels:
        for regime in args.regimes:
            extra = []
            if regime == "cache":
                matrices = published.QUICK[kernel] if args.quick else published.PROBLEMS[kernel]["matrices"]
                if kernel == "spmm":
                    extra = ["--k", "4" if args.quick else "32,128", "--layout", "both"]
            else:
                cap = {"spmm": args.spmm_memory_bytes, "spgemm": args.spgemm_memory_bytes}.get(kernel, 0)
                t = min(target, cap) if cap else target
                specs = [sized_spec(kernel, f, t) for f in families.get(kernel, MEMORY_FAMILIES[kernel])]
                sizes[kernel] = specs
                matrices = [s for s, _ in specs]
                if kernel == "spmm":
                    extra = ["--k", str(MEMORY_SPMM_K), "--layout", "both"]
            job = {"kernel": kernel, "regime": regime, "matrices": matrices, "extra": extra}
            if kernel == "spgemm" and regime == "memory" and args.spgemm_memory_sorted_only:
                # A product of a memory-bound A costs seconds and every peer tries its ways on it
                # first: the sorted outputs alone (ours auto, the sorted peers).
                job["variants"] = ["auto"]
                job["peers"] = [p for p in peers_by_kernel[kernel] if not p.endswith("_unsorted")]
            for neighbour in args.neighbours:
                jobs.append(dict(job, neighbour=neighbour))

    core = args.neighbour_core if args.neighbour_core >= 0 else mach["cores"] - 1
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, f: (stop_neighbours(), sys.exit(128 + s)))
    os.makedirs(args.out_dir, exist_ok=True)
    stem = os.path.join(args.out_dir, f"host-compare-{args.date}" + ("-quick" if args.quick else ""))
    rows, processes = [], []
    failed = False
    try:
        for run in range(1, args.runs + 1):
            shift = (run - 1) % len(jobs)
            for n, job in enumerate(jobs[shift:] + jobs[:shift]):
                got, rc, err, seconds, cmd = run_bench(args, job, job.get("peers") or peers_by_kernel[job["kernel"]], core)
                for row in got:
                    row.update({"run": run, "regime": job["regime"], "neighbour": job["neighbour"], "process": n})
                rows += got
                processes.append({"run": run, "kernel": job["kernel"], "regime": job["regime"],
                                  "neighbour": job["neighbour"], "rc": rc, "err": err, "cmd": cmd})
                failed |= rc != 0
                print(f"run {run} {job['kernel']} {job['regime']} {job['neighbour']}: {len(got)} lines, exit {rc}, "
                      f"{seconds:.0f} s", file=sys.stderr)
                if rc != 0:
                    print(err.strip()[-2000:], file=sys.stderr)
    finally:
        stop_neighbours()
    with open(stem + ".jsonl", "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    write_md(stem + ".md", args, mach, rows, processes, peers_by_kernel, dropped, sizes, target, args.date)
    print(f"wrote {stem}.md and {stem}.jsonl", file=sys.stderr)
    return 1 if failed or any(r.get("check") is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
