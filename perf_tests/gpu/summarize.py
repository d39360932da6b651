#!/usr/bin/env python3
"""Markdown tables from the benchmark lines of a GPU run (perf_tests/gpu/run_checks.sh).

    perf_tests/gpu/summarize.py <folder with bench-*.jsonl>

One table per kernel: our time and bandwidth per matrix (and k, layout), the peers' times, and
the ratios sprocket-bench computed in the same run (peer time / our time: above 1, ours is
faster), then the geometric mean of each ratio.
"""
import glob
import json
import math
import os
import sys


def load(folder):
    lines = []
    for path in sorted(glob.glob(os.path.join(folder, "bench-*.jsonl"))):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    try:
                        lines.append(json.loads(line))
                    except json.JSONDecodeError:
                        pass
    return lines


def shape(r):
    parts = [r.get("matrix", "")]
    if "k" in r:
        parts.append("k=%s" % r["k"])
    if r.get("layout"):
        parts.append(r["layout"])
    if r.get("block_size"):
        parts.append("b=%s" % r["block_size"])
    return " ".join(p for p in parts if p)


def main(folder):
    lines = load(folder)
    stream = [r for r in lines if r.get("kernel") == "stream"]
    for r in stream:
        print("stream %s: %.1f GB/s (%s)" % (r.get("variant"), r.get("gbps", 0), r.get("space")))
    kernels = []
    for r in lines:
        if r.get("kernel") not in ("stream", None) and r["kernel"] not in kernels:
            kernels.append(r["kernel"])
    for kernel in kernels:
        rows = [r for r in lines if r.get("kernel") == kernel]
        ours = [r for r in rows if r.get("impl") == "sprocket"]
        # Apply ratios against the peers of the run (not the setup-inclusive or numeric ones); the
        # bench leaves out every ratio against a line whose --check failed.
        impls = {r.get("impl") for r in rows}
        ratio_keys = sorted({k for r in ours for k in r if k.startswith("ratio_vs_") and k[len("ratio_vs_"):] in impls})
        peers = [k[len("ratio_vs_"):] for k in ratio_keys]
        print("\n### %s\n" % kernel)
        head = ["matrix", "variant", "ours ms", "ours GB/s"] + ["%s ms" % p for p in peers] + \
               ["vs %s" % p for p in peers] + ["check"]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        logs = {k: [] for k in ratio_keys}
        for r in ours:
            cells = [shape(r), str(r.get("chosen_kernel", r.get("variant", ""))),
                     "%.4g" % (1e3 * r["seconds"]), "%.1f" % r.get("gbps", 0)]
            for p in peers:
                peer = [q for q in rows if q.get("impl") == p and shape(q) == shape(r)]
                algorithm = " (%s)" % peer[0]["peer_algorithm"] if peer and peer[0].get("peer_algorithm") else ""
                cells.append("%.4g%s" % (1e3 * peer[0]["seconds"], algorithm) if peer else "-")
            for k in ratio_keys:
                v = r.get(k)
                cells.append("%.2f" % v if isinstance(v, (int, float)) else "-")
                if isinstance(v, (int, float)) and v > 0:
                    logs[k].append(math.log(v))
            cells.append("ok" if r.get("check") is True else str(r.get("check", "")))
            print("| " + " | ".join(cells) + " |")
        for k in ratio_keys:
            if logs[k]:
                print("\ngeomean %s: %.2f over %d" % (k, math.exp(sum(logs[k]) / len(logs[k])), len(logs[k])))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
