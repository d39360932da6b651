#!/usr/bin/env python3
"""Our smoothed-aggregation AMG against hypre's BoomerAMG, on the same machine in one run
(interleaved per problem and repeat), written as a markdown table.

Both sides solve the same problems: the matrix from the same generator spec or file, 4 right-hand
sides B = A X* with sprocket-solve's X* (--rhs ones: column 0 all ones, column j 1 + j (i mod 7) / 7),
zero initial guess, restart 30, relative tolerance 1e-8.

  ours:  sprocket-solve --matrix M --solver bgmres --block 4 --restart 30 --tol 1e-8
         --max-iterations 1000 --prec amg --json --quiet  (block GMRES on the 4 columns at once; elasticity adds
         --amg-nullspace rigid-body)
  hypre: sprocket-hypre-amg --matrix M --block 4 --restart 30 --tol 1e-8 --max-iterations 1000
         --json  (hypre's GMRES
         column by column, one BoomerAMG V-cycle per preconditioner application, BoomerAMG set up
         once; hypre's defaults; for gen:elasticity both scalar AMG and systems AMG with
         --num-functions <dof>)

Iterations: ours are block iterations (each applies A and the preconditioner to 4 vectors at
once); hypre's the most any column needed. Times (median of --repeats): setup = the AMG
hierarchy (ours: preconditioner_setup_seconds; hypre: BoomerAMG setup), solve = the iterations
of all 4 right-hand sides (ours: seconds; hypre: the 4 GMRES solves). Matrix generation and
reading, and hypre's matrix assembly, are not counted for either side. Debian's hypre is built
without OpenMP: hypre runs one thread on one MPI rank while ours uses OMP_NUM_THREADS threads.

Usage: /usr/bin/python3 perf_tests/amg_vs_hypre.py [--solve build/host/bin/sprocket-solve]
       [--hypre build/host/bin/sprocket-hypre-amg] [--problems SPEC ...] [--quick] [--repeats 3]
       [--out perf_tests/results/amg-vs-hypre-<date>.md]
The results file is written when our side ran (sprocket-solve accepts --prec amg) or when --out
is given; the table is printed either way.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

PROBLEMS = ["gen:poisson3d:n=64", "gen:elasticity:n=24,dof=3"]
QUICK_PROBLEMS = ["gen:poisson3d:n=24", "gen:elasticity:n=10,dof=3"]
COMMON = ["--block", "4", "--restart", "30", "--tol", "1e-8", "--max-iterations", "1000"]


def elasticity_dof(spec):
    """The dof of a gen:elasticity spec (the generator's default 3), None for anything else."""
    prefix = "gen:elasticity:"
    if not spec.startswith(prefix):
        return None
    for kv in spec[len(prefix):].split(","):
        if kv.startswith("dof="):
            return int(kv[4:])
    return 3


def run_json(cmd):
    """Runs cmd; returns (object from its last stdout line, None) or (None, why it gave none)."""
    out = subprocess.run(cmd, capture_output=True, text=True)
    lines = out.stdout.strip().splitlines()
    if lines:
        try:
            return json.loads(lines[-1]), None
        except json.JSONDecodeError:
            pass
    why = (out.stderr.strip() or out.stdout.strip() or "no output").splitlines()
    return None, f"exit {out.returncode}: " + (why[0] if why else "")


def ours_cmd(solve, spec):
    cmd = [solve, "--matrix", spec, "--solver", "bgmres"] + COMMON + ["--prec", "amg", "--json", "--quiet"]
    if elasticity_dof(spec):
        cmd += ["--amg-nullspace", "rigid-body"]
    return cmd


def probe_ours(solve):
    """None when sprocket-solve accepts --prec amg, else the reason it does not."""
    if not os.path.exists(solve):
        return f"{solve} not built"
    out = subprocess.run([solve, "--matrix", "gen:poisson3d:n=4", "--solver", "bgmres", "--prec", "amg", "--json",
                          "--quiet"], capture_output=True, text=True)
    if out.returncode == 2 and "--prec" in out.stderr:
        return "sprocket-solve does not accept --prec amg yet (" + out.stderr.strip().splitlines()[0] + ")"
    return None


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt_s(x):
    return "-" if x is None else f"{x:.3f}"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--solve", default=os.path.join(root, "build/host/bin/sprocket-solve"))
    p.add_argument("--hypre", default=os.path.join(root, "build/host/bin/sprocket-hypre-amg"))
    p.add_argument("--problems", nargs="+", metavar="SPEC", help="matrices (gen:... or files); default: "
                   + " ".join(PROBLEMS))
    p.add_argument("--quick", action="store_true", help="small sizes: " + " ".join(QUICK_PROBLEMS)
                   + " (one repeat unless --repeats is given)")
    p.add_argument("--repeats", type=int, default=None, help="runs per side and problem, median reported (default 3)")
    p.add_argument("--out", default="", help="markdown file (default perf_tests/results/amg-vs-hypre-<date>.md)")
    a = p.parse_args()
    problems = a.problems or (QUICK_PROBLEMS if a.quick else PROBLEMS)
    repeats = a.repeats if a.repeats is not None else (1 if a.quick else 3)
    if repeats < 1:
        sys.exit("--repeats must be >= 1")
    if not os.path.exists(a.hypre):
        sys.exit(f"{a.hypre} not found: build it (cmake --build <build> --target sprocket-hypre-amg; needs Debian's "
                 "libhypre-dev, see cmake/install-packages.sh)")

    ours_missing = probe_ours(a.solve)
    if ours_missing:
        print(f"NOTE: {ours_missing}: only the hypre side runs.", flush=True)

    rows, hypre_version, notes = [], "?", []
    for spec in problems:
        dof = elasticity_dof(spec)
        variants = [("1 function", [])]
        if dof and dof > 1:
            variants.append((f"{dof} functions", ["--num-functions", str(dof)]))
        mine, mine_error = [], ours_missing
        theirs = {name: [] for name, _ in variants}
        theirs_error = {}
        for _ in range(repeats):
            if not mine_error:
                j, why = run_json(ours_cmd(a.solve, spec))
                if j is None:
                    mine_error = why
                else:
                    mine.append(j)
            for name, extra in variants:
                if name in theirs_error:
                    continue
                j, why = run_json([a.hypre, "--matrix", spec] + COMMON + extra + ["--json"])
                if j is None:
                    theirs_error[name] = why
                else:
                    theirs[name].append(j)
                    hypre_version = j.get("hypre_version", hypre_version)
        if mine_error and not ours_missing:
            notes.append(f"{spec}: sprocket-solve failed: {mine_error}")
        ours_it = mine[0]["iterations"] if mine else None
        ours_ok = all(m.get("converged") for m in mine)
        ours_setup = median([m.get("preconditioner_setup_seconds") for m in mine])
        ours_solve = median([m.get("seconds") for m in mine])
        ours_cell = "-" if ours_it is None else f"{ours_it}" + ("" if ours_ok else " (not converged)")
        for name, _ in variants:
            runs = theirs[name]
            if not runs:
                notes.append(f"{spec} ({name}): sprocket-hypre-amg failed: {theirs_error.get(name)}")
                continue
            h = runs[0]
            ok = all(r["converged"] for r in runs)
            h_it = h["iterations"]
            ratio = f"{ours_it / h_it:.2f}" if ours_it is not None and h_it else "-"
            hierarchy = f"{h['levels']} / {h['operator_complexity']:.2f} / {h['grid_complexity']:.2f}"
            if mine and "levels" in mine[0] and "operator_complexity" in mine[0]:
                ours_h = f"{mine[0]['levels']} / {mine[0]['operator_complexity']:.2f}"
            else:
                ours_h = "-"
            rows.append(f"| {spec} | {h['rows']} / {h['nnz']} | {name}, theta {h['strong_threshold']:g} | {ours_cell} | "
                        f"{h_it}" + ("" if ok else " (not converged)") + f" | {ratio} | {fmt_s(ours_setup)} | "
                        f"{fmt_s(median([r['setup_seconds'] for r in runs]))} | {fmt_s(ours_solve)} | "
                        f"{fmt_s(median([r['seconds'] for r in runs]))} | {ours_h} | {hierarchy} |")
            print(rows[-1], flush=True)

    date = time.strftime("%Y-%m-%d", time.gmtime())
    head = [
        "# Our smoothed-aggregation AMG against hypre's BoomerAMG",
        "",
        f"- Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: {platform.machine()}, "
        f"{os.cpu_count()} cores, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '(unset)')}; "
        f"hypre {hypre_version} (Debian, no OpenMP: 1 thread, 1 MPI rank); median of {repeats}, interleaved.",
        "- Command: perf_tests/amg_vs_hypre.py (its docstring says what is timed). Ours: block GMRES, block 4, "
        "restart 30, tol 1e-8, `--prec amg` (elasticity: `--amg-nullspace rigid-body`); hypre: GMRES per column, "
        "restart 30, tol 1e-8, one BoomerAMG V-cycle per application, hypre's defaults.",
        "- Iterations: ours block iterations (4 vectors each), hypre's the most over the 4 columns. Seconds: setup = "
        "the AMG hierarchy, solve = all 4 right-hand sides.",
    ]
    if ours_missing:
        head.append(f"- **Ours did not run**: {ours_missing}.")
    head += [
        "",
        "| problem | rows / nnz | hypre variant | ours: iterations | hypre: iterations | ours / hypre | ours: setup s | "
        "hypre: setup s | ours: solve s | hypre: solve s | ours: levels / op. complexity | "
        "hypre: levels / op. / grid complexity |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    text = "\n".join(head + rows + ([""] + [f"- {n}" for n in notes] if notes else [])) + "\n"
    for n in notes:
        print("NOTE:", n)
    out = a.out
    if not out and not ours_missing:
        out = os.path.join(here, "results", f"amg-vs-hypre-{date}.md")
    if out:
        with open(out, "w") as f:
            f.write(text)
        print(f"wrote {out}")
    else:
        print("(no results file written: our side did not run; pass --out to write one anyway)")


if __name__ == "__main__":
    main()
