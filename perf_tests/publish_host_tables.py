#!/usr/bin/env python3
"""The published host tables of sprocket-bench: every kernel against every peer it has, each peer
run as its experts run it (the bench's own set-ups: graphblas and graphblas9, Kokkos Kernels built
for this CPU, each peer's fastest algorithm on each problem), --check on every line.

What a published figure is here:
  - RUNS independent runs (default 3), interleaved: run 1 of every kernel, then run 2 of every
    kernel, ...; inside a run the bench itself interleaves ours and the peers apply by apply;
  - ours both ways in every run: one bench process with SPROCKET_HOST_ISA unset (our run-time
    AVX2 + FMA copies where the CPU has them) and one with SPROCKET_HOST_ISA=baseline (the baseline
    copies), each with all the peers, so every ratio compares lines of one process;
  - the median over the runs with the spread (min-max) of every ratio;
  - the machine's STREAM triad from each process (--stream) and the load average (/proc/loadavg)
    before and after each process, in the table;
  - setup-inclusive ratios for 1, 10 and 100 applies (ratio_vs_<peer>_incl_setup_<n>: the peer's
    set-up plus n applies over our analysis plus n applies);
  - no ratio against a line whose --check failed (the bench withholds it; a failed line of ours is
    an error of the run).

Usage: /usr/bin/python3 perf_tests/publish_host_tables.py [--bench build/host/bin/sprocket-bench]
       [--kernels spmv,bsr,spmm,sddmm,spgemm] [--runs 3] [--repeat N] [--quick] [--out-dir perf_tests/results]
Writes <out-dir>/<kernel>-host-<date>-fair.jsonl (every line of every run, with run, isa_env and
loadavg keys added) and <kernel>-host-<date>-fair.md.
"""
import argparse
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "matrices")

# The problems of each table: the families of the earlier tables (power-law graph, 3-D stencil,
# elasticity systems, banded, matrices from the collection), sized to run in minutes on 2 cores.
PROBLEMS = {
    "spmv": {"matrices": ["gen:rmat:scale=18,ef=16", "gen:poisson3d:n=100", "gen:elasticity:n=40,dof=3",
                          "shared:bcsstk16.mtx.gz"], "args": []},
    "bsr": {"matrices": ["gen:elasticity:n=40,dof=3", "gen:elasticity:n=30,dof=6"], "args": []},
    "spmm": {"matrices": ["gen:rmat:scale=15", "gen:poisson3d:n=48", "gen:banded:n=32768,bw=64",
                          "shared:bcsstk16.mtx.gz"], "args": ["--k", "32,128", "--layout", "both"]},
    "sddmm": {"matrices": ["gen:rmat:scale=15", "gen:poisson3d:n=48", "gen:banded:n=16384,bw=256"],
              "args": ["--k", "32,128"]},
    # Every peer tries its algorithms on each product (Kokkos Kernels 4, GraphBLAS 3, each 6 calls)
    # before the timed runs: the products are kept to tens of millions of multiplies.
    "spgemm": {"matrices": ["gen:rmat:scale=13", "gen:poisson3d:n=40", "gen:elasticity:n=16",
                            "shared:bcsstk16.mtx.gz", "shared:crystm01.mtx.gz"], "args": [], "repeat": 5},
}
QUICK = {
    "spmv": ["gen:rmat:scale=12", "gen:poisson3d:n=20"],
    "bsr": ["gen:elasticity:n=10,dof=3"],
    "spmm": ["gen:rmat:scale=11"],
    "sddmm": ["gen:rmat:scale=11"],
    "spgemm": ["gen:rmat:scale=11"],
}
# The peers of each kernel (every one the bench offers on the host; those not built are dropped).
PEERS = {
    "spmv": ["kk", "graphblas", "graphblas9"],
    "bsr": ["kk", "csr"],
    "spmm": ["kk", "graphblas", "graphblas9"],
    "sddmm": ["kokkos_team", "graphblas", "graphblas9"],
    "spgemm": ["kk", "kk_unsorted", "graphblas", "graphblas9"],
}
# Our variants on each table: the default, and SpGEMM's unsorted output beside kk_unsorted.
VARIANTS = {"spgemm": ["auto", "unsorted"]}
# Which peers a variant is compared with in the table, where not all: like with like (sorted
# output against sorted output, unsorted against unsorted).
PAIRED = {("spgemm", "auto"): {"kk", "graphblas", "graphblas9"}, ("spgemm", "unsorted"): {"kk_unsorted"}}
SETUP_APPLIES = (1, 10, 100)


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return [float(v) for v in f.read().split()[:3]]
    except OSError:
        return [float("nan")] * 3


def matrix_arg(spec):
    return os.path.join(SHARED, spec[len("shared:"):]) if spec.startswith("shared:") else spec


def available_peers(bench, kernel, wanted):
    """The peers this build offers for kernel (asks the bench: an unavailable peer is exit 2)."""
    out = []
    for peer in wanted:
        r = subprocess.run([bench, "--kernel", kernel, "--matrix", "gen:rmat:scale=4", "--compare", peer,
                            "--repeat", "1", "--warmup", "0", "--json"], capture_output=True, text=True)
        if r.returncode == 0:
            out.append(peer)
        else:
            print(f"  {kernel}: peer {peer} not run: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}",
                  file=sys.stderr)
    return out


def run_bench(bench, kernel, matrices, peers, extra, repeat, isa):
    env = dict(os.environ)
    env.setdefault("OMP_PROC_BIND", "spread")
    env.setdefault("OMP_PLACES", "threads")
    env.pop("SPROCKET_HOST_ISA", None)
    if isa == "baseline":
        env["SPROCKET_HOST_ISA"] = "baseline"
    cmd = [bench, "--kernel", kernel, "--check", "--json", "--stream", "--repeat", str(repeat)]
    for v in VARIANTS.get(kernel, ["auto"]):
        cmd += ["--variant", v]
    for m in matrices:
        cmd += ["--matrix", matrix_arg(m)]
    if peers:
        cmd += ["--compare", ",".join(peers)]
    cmd += extra
    before = loadavg()
    start = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    seconds = time.time() - start
    after = loadavg()
    rows = []
    for line in r.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            rows.append(json.loads(line))
    return rows, r.returncode, r.stderr, before, after, seconds, cmd


def fmt(v, digits=3):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}g}" if abs(v) < 1e-3 or abs(v) >= 1e4 else f"{v:.{digits}f}"
    return str(v)


def g3(v):
    return f"{v:.3g}" if (v != 0 and (abs(v) < 0.01 or abs(v) >= 1000)) else f"{v:.3f}"


def spread(values):
    """'median [min-max]' of the values, '-' when none."""
    vals = [v for v in values if v is not None]
    if not vals:
        return "-"
    med = statistics.median(vals)
    if len(vals) == 1:
        return g3(med)
    return f"{g3(med)} [{g3(min(vals))}-{g3(max(vals))}]"


def add_spgemm_amortized(rows):
    """SpGEMM lines carry a whole product in `seconds` (analysis included) and a re-run of the
    values in `numeric_seconds`: what a user pays for n products of one pattern is one full product
    and n - 1 numeric re-runs. Adds ratio_vs_<peer>_incl_setup_<n> to our lines on that basis
    (where both lines passed --check and have a numeric time)."""
    sections = {}
    for row in rows:
        if row.get("kernel") == "spgemm":
            sections.setdefault(section_key(row), []).append(row)
    for lines in sections.values():
        peers = {r["impl"]: r for r in lines if r.get("impl") != "sprocket"}
        for r in lines:
            if r.get("impl") != "sprocket" or r.get("check") is False or r.get("numeric_seconds") is None:
                continue
            for name, p in peers.items():
                if p.get("check") is False or p.get("numeric_seconds") is None:
                    continue
                for n in SETUP_APPLIES:
                    ours = r["seconds"] + (n - 1) * r["numeric_seconds"]
                    theirs = p["seconds"] + (n - 1) * p["numeric_seconds"]
                    r[f"ratio_vs_{name}_incl_setup_{n}"] = theirs / ours


def graphblas_copies_not_setup(rows):
    """GraphBLAS's copies of the operands are not a set-up of the peer (a GraphBLAS user's data is
    already in its objects): lines of a bench that still counted them (setup_seconds on a graphblas
    line) get their setup-inclusive ratios against it recomputed with none. Returns how many."""
    fixed = 0
    sections = {}
    for row in rows:
        if row.get("kernel") not in ("stream", "spgemm"):
            sections.setdefault((row.get("kernel"), section_key(row)), []).append(row)
    for lines in sections.values():
        # A line with peer_trial_seconds comes from a bench whose graphblas setup_seconds is the
        # trial of its ways alone (a set-up: bench_graphblas.hpp), its copies apart: kept.
        peers = {r["impl"]: r for r in lines if r.get("impl") in ("graphblas", "graphblas9")
                 and r.get("setup_seconds") is not None and "peer_trial_seconds" not in r}
        for r in lines:
            ours = r.get("setup_seconds", r.get("preprocess_seconds"))
            if r.get("impl") != "sprocket" or ours is None:
                continue
            for name, p in peers.items():
                if f"ratio_vs_{name}_incl_setup_1" not in r:
                    continue
                for n in SETUP_APPLIES:
                    r[f"ratio_vs_{name}_incl_setup_{n}"] = n * p["seconds"] / (ours + n * r["seconds"])
                fixed += 1
    for lines in sections.values():
        for p in lines:
            if p.get("impl") in ("graphblas", "graphblas9") and "setup_seconds" in p and "peer_trial_seconds" not in p:
                p["copy_seconds"] = p.pop("setup_seconds")
    return fixed


def section_key(row):
    keys = [row.get("matrix"), row.get("k"), row.get("layout"), row.get("form")]
    return tuple(k for k in keys if k is not None)


def problem_name(key):
    """A section's key as the table shows it: files by their name, not their path."""
    return " ".join(os.path.basename(str(k)) if os.sep in str(k) else str(k) for k in key)


def write_tables(kernel, runs, out_md, when, bench, cmds):
    """runs: list of dicts {run, isa, rows, before, after, seconds, status}."""
    ours = {}      # (section, isa, variant) -> list of rows over runs
    peers = {}     # (section, impl) -> list of rows
    triads = []
    loads = []
    for run in runs:
        loads.append((run["run"], run["isa"], run["before"], run["after"], run["seconds"]))
        for row in run["rows"]:
            if row.get("kernel") == "stream":
                if row.get("variant") == "triad":
                    triads.append(row.get("gbps"))
                continue
            key = section_key(row)
            if row.get("impl") == "sprocket":
                ours.setdefault((key, run["isa"], row.get("variant")), []).append(row)
            elif run["isa"] == "auto":
                peers.setdefault((key, row.get("impl")), []).append(row)
    peer_names = sorted({impl for (_, impl) in peers})
    lines = []
    lines.append(f"# {kernel}: Sprocket against its peers, as their experts run them (host)\n")
    lines.append(f"- Date: {when}; machine: {platform.machine()}, {os.cpu_count()} cores, "
                 f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}; "
                 f"{len({r['run'] for r in runs})} independent runs, interleaved with the other kernels' runs; "
                 "in each run ours twice (run-time AVX2 + FMA, and SPROCKET_HOST_ISA=baseline), each process with every peer.")
    if triads:
        lines.append(f"- STREAM triad in the same processes: median {statistics.median(triads):.1f} GB/s "
                     f"(min {min(triads):.1f}, max {max(triads):.1f}).")
    lines.append("- Load average (1 min) before / after each process: " + "; ".join(
        f"run {r} {isa}: {b[0]:.2f} / {a[0]:.2f}" + (f" ({s:.0f} s)" if s else "") for (r, isa, b, a, s) in loads) + ".")
    lines.append("- Every line passed --check unless the table says otherwise; no ratio is taken against a line "
                 "that failed it.")
    lines.append("- Ratios: peer time / our time (> 1: ours faster), median over the runs [min-max]. "
                 "`incl. setup n`: (peer set-up + n applies) / (our analysis + n applies)" +
                 ("; SpGEMM: (peer full product + (n-1) numeric re-runs) / (ours likewise), a full product "
                  "including every analysis." if kernel == "spgemm" else "."))
    lines.append("- Set-ups counted: our analysis (or plan construction); cuSPARSE's descriptors, buffers and "
                 "preprocessing; none for Kokkos Kernels (its spmv has none; its row partitioning, built once per "
                 "matrix, is not counted); none for GraphBLAS (its copies of the operands are not a set-up: a "
                 "GraphBLAS user's data is already in its objects).")
    lines.append(f"- Command per process (perf_tests/publish_host_tables.py): `{' '.join(cmds[0])}`\n")

    lines.append("## Ratios per problem\n")
    header = ["problem", "ours", "host_isa", "our seconds"]
    for p in peer_names:
        header += [f"vs {p}", f"vs {p} incl. setup 1 / 10 / 100"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for (key, isa, variant), rows in sorted(ours.items(), key=lambda kv: (str(kv[0][0]), kv[0][2], kv[0][1])):
        cells = [problem_name(key), variant, rows[0].get("host_isa", "-"),
                 spread([r.get("seconds") for r in rows])]
        for p in peer_names:
            if (kernel, variant) in PAIRED and p not in PAIRED[(kernel, variant)]:
                cells += ["", ""]
                continue
            cells.append(spread([r.get(f"ratio_vs_{p}") for r in rows]))
            parts = []
            for n in SETUP_APPLIES:
                vals = [r.get(f"ratio_vs_{p}_incl_setup_{n}") for r in rows]
                vals = [v for v in vals if v is not None]
                parts.append(f"{statistics.median(vals):.2f}" if vals else "-")
            cells.append(" / ".join(parts))
        withheld = sorted({r.get("ratios_withheld") for r in rows if r.get("ratios_withheld")})
        if withheld:
            cells[1] += " (withheld: " + "; ".join(withheld) + ")"
        lines.append("| " + " | ".join(cells) + " |")

    lines.append("\n## The peers' lines\n")
    lines.append("| problem | peer | algorithm chosen | seconds | setup s (GraphBLAS: its copies, not counted) | check | built for | version | trials (median s) |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for (key, impl), rows in sorted(peers.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        algos = sorted({r.get("peer_algorithm", "-") for r in rows})
        checks = sorted({"ok" if r.get("check") else "FAILED" for r in rows})
        lines.append("| " + " | ".join([
            problem_name(key), impl, ", ".join(algos), spread([r.get("seconds") for r in rows]),
            fmt(statistics.median([r.get("setup_seconds", r.get("copy_seconds")) for r in rows
                                   if r.get("setup_seconds", r.get("copy_seconds")) is not None])
                if any(r.get("setup_seconds", r.get("copy_seconds")) is not None for r in rows) else None),
            "/".join(checks), rows[0].get("peer_march", "-"), rows[0].get("peer_version", "-"),
            (rows[0].get("peer_trials") or "-").replace("|", "/")]) + " |")
    first_use = [(impl, r.get("peer_first_use_seconds")) for (key, impl), rs in peers.items() for r in rs
                 if r.get("peer_first_use_seconds") is not None]
    if first_use:
        lines.append("\nFirst call of the chosen GraphBLAS way (JIT compile, or load from its cache), seconds: " +
                     ", ".join(f"{impl} {max(v for i, v in first_use if i == impl):.3g} (max)"
                               for impl in sorted({i for i, _ in first_use})) + ".")
    failed = [run for run in runs if run["status"] != 0]
    if failed:
        lines.append("\nProcesses that exited with an error: " + ", ".join(
            f"run {r['run']} {r['isa']} (exit {r['status']})" for r in failed) + ".")
    with open(out_md, "w") as f:
        f.write("\n".join(lines) + "\n")


def geomean(values):
    vals = [v for v in values if v is not None and v > 0]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def summary_rows(kernel, runs):
    """Per (our variant, host_isa, peer): the geometric mean over the problems of each problem's
    median ratio, its floor and top, and the same for the setup-inclusive ratios."""
    per = {}  # (variant, isa, peer) -> {problem: {key: [values over runs]}}
    for run in runs:
        for row in run["rows"]:
            if row.get("impl") != "sprocket" or row.get("kernel") == "stream":
                continue
            for key, value in row.items():
                if not key.startswith("ratio_vs_") or not isinstance(value, (int, float)):
                    continue
                peer = key[len("ratio_vs_"):].split("_incl_setup_")[0]
                if (kernel, row.get("variant")) in PAIRED and peer not in PAIRED[(kernel, row.get("variant"))]:
                    continue
                what = key[len("ratio_vs_") + len(peer):] or "apply"
                slot = per.setdefault((row.get("variant"), row.get("host_isa"), peer), {})
                slot.setdefault(section_key(row), {}).setdefault(what, []).append(value)
    out = []
    for (variant, isa, peer), problems in sorted(per.items(), key=lambda kv: (kv[0][2], kv[0][0], kv[0][1])):
        medians = {}
        for problem, keys in problems.items():
            for what, values in keys.items():
                medians.setdefault(what, []).append(statistics.median(values))
        apply = medians.get("apply", [])
        out.append({"kernel": kernel, "variant": variant, "host_isa": isa, "peer": peer, "problems": len(apply),
                     "geomean": geomean(apply), "floor": min(apply) if apply else None,
                     "top": max(apply) if apply else None,
                     **{f"incl_setup_{n}": geomean(medians.get(f"_incl_setup_{n}", [])) for n in SETUP_APPLIES}})
    return out


def write_summary(path, when, all_rows, triads, loads):
    lines = ["# Sprocket against its peers on the host: the summary of the fair tables\n",
             f"- Date: {when}; machine: {platform.machine()}, {os.cpu_count()} cores, "
             f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}.",
             f"- STREAM triad over every process: median {statistics.median(triads):.1f} GB/s "
             f"(min {min(triads):.1f}, max {max(triads):.1f}); load average (1 min) between "
             f"{min(loads):.2f} and {max(loads):.2f}." if triads and loads else "- (no triad / load recorded)",
             "- Each figure: the geometric mean over the kernel's problems of each problem's median ratio "
             "over the runs (peer time / our time, > 1: ours faster), with the lowest and highest problem; "
             "`incl. setup n`: the same for (peer set-up + n applies) / (our analysis + n applies) "
             "(SpGEMM: full product + (n-1) numeric re-runs on both sides).",
             "- The per-kernel files beside this one (`<kernel>-host-<date>-fair.md`) have every problem, the "
             "peers' chosen algorithms and the spread.\n",
             "| kernel | ours | host_isa | peer | problems | geomean | floor | top | incl. setup 1 | incl. setup 10 | incl. setup 100 |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in all_rows:
        cell = lambda v: "-" if v is None else f"{v:.2f}"
        lines.append(f"| {r['kernel']} | {r['variant']} | {r['host_isa']} | {r['peer']} | {r['problems']} | "
                     f"{cell(r['geomean'])} | {cell(r['floor'])} | {cell(r['top'])} | {cell(r['incl_setup_1'])} | "
                     f"{cell(r['incl_setup_10'])} | {cell(r['incl_setup_100'])} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def render(a, kernels):
    """The tables again from the raw lines of an earlier run (each line carries run, isa_env and the
    load average around its process)."""
    summary, triads, loads = [], [], []
    when = a.render
    for k in kernels:
        base = os.path.join(a.out_dir, f"{k}-host-{a.render}-{a.suffix}")
        if not os.path.exists(base + ".jsonl"):
            print(f"no {base}.jsonl", file=sys.stderr)
            continue
        runs = {}
        for line in open(base + ".jsonl"):
            row = json.loads(line)
            key = (row["run"], row["isa_env"])
            run = runs.setdefault(key, {"run": row["run"], "isa": row["isa_env"], "rows": [], "status": 0,
                                        "before": row["loadavg_before"], "after": row["loadavg_after"],
                                        "seconds": 0})
            run["rows"].append(row)
        runs = [runs[key] for key in sorted(runs)]
        for run in runs:
            graphblas_copies_not_setup(run["rows"])
        cmds = [["(see the first lines of " + os.path.basename(base) + ".md)"]]
        old_md = base + ".md"
        if os.path.exists(old_md):
            for line in open(old_md):
                if line.startswith("- Date:"):
                    when = line[len("- Date: "):].split(";")[0]
                if line.startswith("- Command per process"):
                    cmds = [[line.split("`")[1]]]
        write_tables(k, runs, old_md, when, a.bench, cmds)
        summary += summary_rows(k, runs)
        for run in runs:
            loads += [run["before"][0], run["after"][0]]
            triads += [r.get("gbps") for r in run["rows"] if r.get("kernel") == "stream" and r.get("variant") == "triad"]
    write_summary(os.path.join(a.out_dir, f"summary-host-{a.render}-{a.suffix}.md"), when, summary, triads, loads)
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bench", default=os.path.join(ROOT, "build/host/bin/sprocket-bench"))
    p.add_argument("--kernels", default="spmv,bsr,spmm,sddmm,spgemm")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--quick", action="store_true", help="small problems, for a smoke run")
    p.add_argument("--out-dir", default=os.path.join(ROOT, "perf_tests/results"))
    p.add_argument("--suffix", default="fair")
    p.add_argument("--render", metavar="DATE", default="",
                   help="write the tables again from <out-dir>/<kernel>-host-DATE-<suffix>.jsonl (no runs)")
    a = p.parse_args()
    kernels = [k for k in a.kernels.split(",") if k]
    if a.render:
        return render(a, kernels)
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    os.makedirs(a.out_dir, exist_ok=True)
    peers = {k: available_peers(a.bench, k, PEERS[k]) for k in kernels}
    results = {k: [] for k in kernels}
    cmds = {k: [] for k in kernels}
    for run in range(1, a.runs + 1):
        for k in kernels:
            matrices = QUICK[k] if a.quick else PROBLEMS[k]["matrices"]
            for isa in ("auto", "baseline"):
                repeat = min(a.repeat, PROBLEMS[k].get("repeat", a.repeat))
                rows, status, err, before, after, seconds, cmd = run_bench(
                    a.bench, k, matrices, peers[k], PROBLEMS[k]["args"], repeat, isa)
                cmds[k].append(cmd)
                print(f"run {run} {k} {isa}: {len(rows)} lines, exit {status}, {seconds:.0f} s, "
                      f"load {before[0]:.2f} -> {after[0]:.2f}", file=sys.stderr)
                if status != 0:
                    print(err[-2000:], file=sys.stderr)
                add_spgemm_amortized(rows)
                graphblas_copies_not_setup(rows)
                for row in rows:
                    row.update({"run": run, "isa_env": isa, "loadavg_before": before, "loadavg_after": after})
                results[k].append({"run": run, "isa": isa, "rows": rows, "status": status, "before": before,
                                   "after": after, "seconds": seconds})
                # Every process's lines as they come (a run cut short keeps what it measured).
                with open(os.path.join(a.out_dir, f"{k}-host-{date}-{a.suffix}.partial.jsonl"), "a") as f:
                    for row in rows:
                        f.write(json.dumps(row) + "\n")
    status = 0
    summary, triads, loads = [], [], []
    for k in kernels:
        summary += summary_rows(k, results[k])
        for run in results[k]:
            loads += [run["before"][0], run["after"][0]]
            triads += [r.get("gbps") for r in run["rows"] if r.get("kernel") == "stream" and r.get("variant") == "triad"]
    write_summary(os.path.join(a.out_dir, f"summary-host-{date}-{a.suffix}.md"), when, summary, triads, loads)
    for k in kernels:
        base = os.path.join(a.out_dir, f"{k}-host-{date}-{a.suffix}")
        with open(base + ".jsonl", "w") as f:
            for run in results[k]:
                for row in run["rows"]:
                    f.write(json.dumps(row) + "\n")
        if os.path.exists(base + ".partial.jsonl"):
            os.remove(base + ".partial.jsonl")
        write_tables(k, results[k], base + ".md", when, a.bench, cmds[k])
        print(f"wrote {base}.md and .jsonl", file=sys.stderr)
        if any(r["status"] != 0 for r in results[k]):
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
