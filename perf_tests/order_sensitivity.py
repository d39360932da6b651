#!/usr/bin/env python3
"""How much do the published ratios depend on the order of the timed calls?

The published tables (publish_host_tables.py) time every implementation interleaved: repeat r calls
ours, then each peer, once each, so a call finds in the caches what the previous implementation
left there. A peer's own trials at set-up (peer_trials) call it back to back instead, and for the
GraphBLAS peers these were up to 2x faster than its interleaved median. This script runs the same
problems, peers and variants as the tables (our default instruction set) with sprocket-bench
--order interleaved and --order consecutive (each implementation's warm-up and timed calls back to
back, its operands warm), the two orders alternating, and reports every peer's geometric-mean ratio
(peer seconds / ours) both ways. A ratio that moves between the orders is one the tables' order
decides: the note says which.

Usage: /usr/bin/python3 perf_tests/order_sensitivity.py [--bench build/host/bin/sprocket-bench]
       [--kernels spmv,spmm,sddmm,spgemm] [--rounds 2] [--repeat N] [--quick] [--out-dir perf_tests/results]
Writes <out-dir>/order-sensitivity-host-<date>.jsonl (every line, with round and order keys) and .md.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import publish_host_tables as tables  # noqa: E402

ORDERS = ("interleaved", "consecutive")


def section_key(row):
    """The tables' section key with our variant in front (SpGEMM runs two)."""
    return (row.get("variant"),) + tables.section_key(row)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", default=os.path.join(tables.ROOT, "build/host/bin/sprocket-bench"))
    p.add_argument("--kernels", default="spmv,spmm,sddmm,spgemm")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--repeat", type=int, default=None)
    p.add_argument("--quick", action="store_true", help="small problems, one round (a smoke run)")
    p.add_argument("--out-dir", default=os.path.join(tables.ROOT, "perf_tests/results"))
    args = p.parse_args()
    kernels = [k for k in args.kernels.split(",") if k]
    for k in kernels:
        if k not in tables.PROBLEMS:
            p.error(f"unknown kernel {k} (valid: {', '.join(tables.PROBLEMS)})")
    rounds = 1 if args.quick else args.rounds
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    stem = os.path.join(args.out_dir, f"order-sensitivity-host-{date}" + ("-quick" if args.quick else ""))
    peers = {k: tables.available_peers(args.bench, k, tables.PEERS[k]) for k in kernels}
    lines = []
    started = datetime.datetime.now(datetime.timezone.utc)
    for r in range(1, rounds + 1):
        for kernel in kernels:
            problem = tables.PROBLEMS[kernel]
            matrices = tables.QUICK[kernel] if args.quick else problem["matrices"]
            repeat = args.repeat or (3 if args.quick else problem.get("repeat", 10))
            # Alternate which order goes first, so drift over the run does not favour one.
            for order in ORDERS if r % 2 else reversed(ORDERS):
                rows, rc, err, before, after, seconds, cmd = tables.run_bench(
                    args.bench, kernel, matrices, peers[kernel], problem["args"] + ["--order", order], repeat, "auto")
                if rc != 0:
                    sys.exit(f"{kernel} ({order}): sprocket-bench exited {rc}: {err.strip()[-2000:]}")
                for row in rows:
                    row.update({"round": r, "order": order, "loadavg_before": before, "loadavg_after": after})
                    lines.append(row)
                print(f"round {r} {kernel} {order}: {len(rows)} lines in {seconds:.0f} s, load {before[0]:.2f}",
                      file=sys.stderr)
    finished = datetime.datetime.now(datetime.timezone.utc)
    os.makedirs(args.out_dir, exist_ok=True)
    with open(stem + ".jsonl", "w") as f:
        for row in lines:
            f.write(json.dumps(row) + "\n")

    # ratio[(kernel, peer, order)][section] = [ratio per round]
    ratios = {}
    ours_seconds = {}
    for row in lines:
        if row.get("impl") != "sprocket" or row.get("kernel") == "stream":
            continue
        kernel, order = row["kernel"], row["order"]
        ours_seconds.setdefault((kernel, order), {}).setdefault(section_key(row), []).append(row["seconds"])
        for key, value in row.items():
            if key.startswith("ratio_vs_") and "_incl_setup_" not in key:
                peer = key[len("ratio_vs_"):]
                paired = tables.PAIRED.get((kernel, row.get("variant")))
                if paired is not None and peer not in paired:
                    continue
                ratios.setdefault((kernel, peer, order), {}).setdefault(section_key(row), []).append(value)

    def median_geomean(kernel, peer, order):
        per_section = ratios.get((kernel, peer, order), {})
        return tables.geomean([statistics.median(v) for v in per_section.values()]), len(per_section)

    triads = [row["gbps"] for row in lines if row.get("kernel") == "stream" and row.get("variant") == "triad"]
    loads = [row["loadavg_before"][0] for row in lines if "loadavg_before" in row]
    out = [
        f"# Ratios by the order of the timed calls (host, {date})",
        "",
        f"- Run {started:%H:%M}-{finished:%H:%M} UTC on {platform.machine()}, {os.cpu_count()} cores; "
        f"STREAM triad {min(triads):.1f}-{max(triads):.1f} GB/s; load average (1 min) "
        f"{min(loads):.2f}-{max(loads):.2f}." if triads and loads else f"- Run {started:%H:%M}-{finished:%H:%M} UTC.",
        f"- The problems, peers and variants of the published tables; ours with our default instruction set; "
        f"{rounds} round(s), each with one sprocket-bench process per order, the two orders alternating.",
        "- interleaved: repeat r calls every implementation once in turn (what the tables use). consecutive: each "
        "implementation's warm-up and timed calls back to back, its operands warm in the caches.",
        "- Ratio: the peer's median seconds over ours, > 1 means ours is faster; geometric mean over the problems "
        "(each problem's median over the rounds).",
        "",
        "| kernel | peer | problems | interleaved | consecutive | consecutive / interleaved |",
        "|---|---|---|---|---|---|",
    ]
    for kernel in kernels:
        for peer in sorted({p for (k, p, _) in ratios if k == kernel}):
            a, n = median_geomean(kernel, peer, "interleaved")
            b, _ = median_geomean(kernel, peer, "consecutive")
            change = f"{b / a:.2f}" if a and b else "-"
            out.append(f"| {kernel} | {peer} | {n} | {tables.fmt(a)} | {tables.fmt(b)} | {change} |")
    out += ["", "Ours alone: our median seconds consecutive over interleaved (geometric mean over the problems):", ""]
    for kernel in kernels:
        a = ours_seconds.get((kernel, "interleaved"), {})
        b = ours_seconds.get((kernel, "consecutive"), {})
        common = [s for s in a if s in b]
        g = tables.geomean([statistics.median(b[s]) / statistics.median(a[s]) for s in common])
        out.append(f"- {kernel}: {tables.fmt(g)} over {len(common)} problems")
    out += ["", f"Raw lines: `{os.path.basename(stem)}.jsonl`.", ""]
    with open(stem + ".md", "w") as f:
        f.write("\n".join(out))
    print("\n".join(out))


if __name__ == "__main__":
    main()
