#!/usr/bin/env python3
"""Nsight Compute's counts of a GPU run beside sprocket-cuda-profile's, per launch of one apply.

    perf_tests/gpu/ncu_compare.py <results-dir> [--profile build/host/bin/sprocket-cuda-profile]

<results-dir> holds what perf_tests/gpu/run_checks.sh's ncu stage wrote: ncu-cases.txt (one line
per case: its name, then sprocket-bench's arguments) and ncu-<name>.csv (`ncu --csv --page raw`).
For each case the tool profiles the same apply in the CPU emulation (--json); the apply's launches
are matched with the last launches ncu recorded whose kernel names follow the same sequence (the
benchmark's last apply). Prints a Markdown table: requests, sectors per request, shared-memory
bank-conflict ways and time, ncu's beside the tool's.
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys


def base_name(kernel):
    """'void Sprocket::Impl::cuda::spmv_subvector_kernel<4>(...)' or 'spmv_subvector_kernel<X>' ->
    'spmv_subvector_kernel'."""
    k = re.sub(r"\(.*$", "", kernel)
    depth, out = 0, ""
    for c in k:
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif depth == 0:
            out += c
    return out.split("::")[-1].split(" ")[-1]


def read_ncu(path):
    rows = []
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    if len(lines) < 2:
        return rows
    reader = csv.DictReader(lines)
    for i, r in enumerate(reader):
        if i == 0 and r.get("ID", "").strip() == "":  # the units line
            continue
        rows.append(r)
    return rows


def number(r, key):
    v = r.get(key, "")
    try:
        return float(v.replace(",", ""))
    except ValueError:
        return 0.0


def same_kernel(ncu_name, tool_name):
    a, b = base_name(ncu_name), base_name(tool_name)
    return a == b or a.endswith("_" + b) or b.endswith("_" + a)


def profile_args(bench_args):
    out, i = [], 0
    while i < len(bench_args):
        if bench_args[i] in ("--kernel", "--matrix", "--k", "--layout", "--variant") and i + 1 < len(bench_args):
            out += bench_args[i:i + 2]
            i += 2
        else:
            i += 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--profile", default=os.path.join(os.path.dirname(__file__), "../../build/host/bin/sprocket-cuda-profile"))
    ap.add_argument("--resources", help="cuda-resources.txt of the run (registers per kernel)")
    a = ap.parse_args()
    cases_file = os.path.join(a.results, "ncu-cases.txt")
    if not os.path.exists(cases_file):
        sys.exit(f"ncu_compare: no {cases_file} (the run's ncu stage did not run)")
    print("| case | launch | ncu requests | tool requests | ncu sectors/req | tool sectors/req | "
          "ncu bank ways | tool bank ways | ncu ms | tool predicted ms |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for line in open(cases_file):
        parts = line.split()
        if not parts:
            continue
        name, args = parts[0], parts[1:]
        ncu = read_ncu(os.path.join(a.results, f"ncu-{name}.csv"))
        cmd = [a.profile, "--json"] + profile_args(args)
        if a.resources:
            cmd += ["--resources", a.resources]
        try:
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            tool = json.loads(out.strip().splitlines()[-1])
        except (subprocess.CalledProcessError, ValueError, IndexError) as e:
            print(f"| {name} | profile failed: {e} | | | | | | | | |")
            continue
        launches = tool["launch_list"]
        n = len(launches)
        start = None
        for s in range(len(ncu) - n, -1, -1):
            if all(same_kernel(ncu[s + i].get("Kernel Name", ""), launches[i]["kernel"]) for i in range(n)):
                start = s
                break
        if start is None:
            print(f"| {name} | no window of {n} launches in ncu's {len(ncu)} matches the tool's sequence | | | | | | | | |")
            continue
        for i, l in enumerate(launches):
            r = ncu[start + i]
            req = sum(number(r, f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum") for op in ("ld", "st", "atom", "red"))
            sec = number(r, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") + number(r, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
            wf = number(r, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum") + number(r, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")
            bc = number(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum") + number(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
            ways = wf / (wf - bc) if wf > bc > 0 else 1.0
            t = number(r, "gpu__time_duration.sum")
            ms = t / 1e6  # ncu reports nanoseconds in raw CSV
            print(f"| {name} | {i} {base_name(l['kernel'])} | {req:.0f} | {l['requests']:.0f} | "
                  f"{(sec / req if req else 0):.2f} | {l['sectors_per_request']:.2f} | {ways:.2f} | "
                  f"{l['bank_conflict_ways']:.2f} | {ms:.4f} | {l['predicted_ms']:.4f} |")


if __name__ == "__main__":
    main()
