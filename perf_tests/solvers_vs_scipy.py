#!/usr/bin/env python3
"""Time to solution: sprocket-solve against SciPy on the shared matrices, on the same machine in
one run (interleaved per matrix and repeat), written as a markdown table.

Linear systems (the nonsymmetric shared matrices): block GMRES, block 4, restart 30, tol 1e-8,
B = A X* with sprocket-solve's X* (--rhs ones: column 0 all ones, column j 1 + j (i mod 7) / 7),
against SciPy's spilu (its defaults) + gmres (restart 30, tol 1e-8) column by column.
Eigenpairs (the SPD shared matrices): the 5 smallest by LOBPCG, per matrix either with the complete
incomplete Cholesky on the AMD ordering as preconditioner (--prec ic --ic-drop 0 --reorder amd) or
on (A - 0 I)^{-1} by CHOLMOD (--shift-invert 0), whichever the --sweep run found faster, against
eigsh in shift-invert mode (sigma = 0, SuperLU inside); the eigenvalues must agree to 1e-8.

Time to solution = setup (operator analysis, preconditioner / factorization) + solve, the median
of --repeat runs; ours from sprocket-solve's JSON (setup_seconds + seconds: the process start and
file reading are not counted for either side). Iterations: ours block iterations (each applies
the operator to 4 vectors at once), SciPy's gmres inner iterations summed over the 4 columns.

Usage: perf_tests/solvers_vs_scipy.py [--solve build/host/bin/sprocket-solve]
       [--matrices ../shared/matrices] [--repeat 3] [--out perf_tests/results/solvers-vs-scipy.md]
       [--sweep]  (instead: every preconditioner / eigensolver variant of ours, per matrix)
Needs Debian's python3-scipy (run with /usr/bin/python3 where another python is first on PATH).
"""
import os

# SciPy's side on one OpenBLAS thread, set before NumPy loads it: Debian's NumPy links the pthreads
# OpenBLAS, whose idle workers spin for a while after each call and so take a core from the
# two-thread sprocket-solve started next (its barriers then wait on a descheduled thread: 2-8x
# slower, measured). SciPy's spilu, gmres and SuperLU gain nothing from BLAS threads on these sizes.
# sprocket-solve runs with the caller's environment (OMP_NUM_THREADS).
_CALLER_ENV = dict(os.environ)
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import argparse
import gzip
import json
import math
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
import scipy
import scipy.io
import scipy.sparse.linalg as sla

# Preconditioner per nonsymmetric matrix: the fastest time to solution of ilu0, iluk 1, iluk 2,
# ilut (spilu's defaults), ilut drop 1e-3 fill 5 and lu in the --sweep run on the 2-core machine
# (2026-11-26; perf_tests/results/solvers-vs-scipy-2026-11-26.md lists it). rajat01 is singular
# (spilu and splu both report "Factor is exactly singular"): UMFPACK's LU of A + 1e-10 I (the
# consistent right-hand sides then converge in one iteration; the complete ILUTP reaches 5e-9 on
# one thread but stalls at 1.8e-8 in one column on two, at the edge of what rounding allows).
SYSTEMS = {
    "sherman5": ["--prec", "ilu0"],
    "orsirr_1": ["--prec", "iluk", "--ilu-level", "1"],
    "watt_2": ["--prec", "iluk", "--ilu-level", "1"],
    "hor_131": ["--prec", "ilut", "--ilut-drop", "1e-3", "--ilut-fill", "5"],
    "west0479": ["--prec", "iluk", "--ilu-level", "2"],
    "rajat01": ["--prec", "lu", "--shift", "-1e-10"],
}
# Eigensolver setting per SPD matrix (5 smallest, tol 1e-8): the fastest of EIGEN_VARIANTS in the
# --sweep run on the 2-core machine (perf_tests/results/solvers-vs-scipy-2026-11-26.md lists it).
EIGEN_VARIANTS = {
    "ic, drop 0, amd": ["--prec", "ic", "--ic-drop", "0", "--reorder", "amd"],
    "cholesky": ["--prec", "cholesky"],
    "shift-invert 0": ["--shift-invert", "0", "--prec", "cholesky"],
}
EIGEN = {
    "bcsstk13": "cholesky",
    "bcsstk15": "cholesky",
    "msc04515": "shift-invert 0",
    "1138_bus": "ic, drop 0, amd",
}


def load(folder, name):
    with gzip.open(os.path.join(folder, name + ".mtx.gz")) as f:
        return scipy.io.mmread(f).tocsr()


def ours(solve, matrix, args, required=True):
    cmd = [solve, "--matrix", matrix, "--json", "--quiet"] + args
    out = subprocess.run(cmd, capture_output=True, text=True, env=_CALLER_ENV)
    line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "{}"
    try:
        j = json.loads(line)
    except json.JSONDecodeError:
        if not required:  # the sweep: a variant that refuses the matrix (lu on singular rajat01)
            return {}
        sys.exit("sprocket-solve printed no JSON: " + " ".join(cmd) + "\n" + out.stdout + out.stderr)
    return j


def known_solution(n, s):
    i = np.arange(n)
    X = np.ones((n, s))
    for j in range(1, s):
        X[:, j] = 1 + j * (i % 7) / 7
    return X


def scipy_gmres(A, s):
    B = A @ known_solution(A.shape[0], s)
    t0 = time.perf_counter()
    try:
        ilu = sla.spilu(A.tocsc())
    except RuntimeError as e:
        return {"failed": str(e)}
    setup = time.perf_counter() - t0
    M = sla.LinearOperator(A.shape, ilu.solve)
    iterations, worst, converged = 0, 0.0, True
    t0 = time.perf_counter()
    for j in range(s):
        count = [0]

        def callback(_r, count=count):
            count[0] += 1

        x, info = sla.gmres(A, B[:, j], M=M, tol=1e-8, atol=0, restart=30, maxiter=1000, callback=callback,
                            callback_type="pr_norm")
        iterations += count[0]
        converged = converged and info == 0
        worst = max(worst, np.linalg.norm(B[:, j] - A @ x) / np.linalg.norm(B[:, j]))
    solve = time.perf_counter() - t0
    return {"setup": setup, "solve": solve, "iterations": iterations, "residual": worst,
            "converged": converged and worst <= 1e-8 * (1 + 1e-6)}


def scipy_eigsh(A, k):
    t0 = time.perf_counter()
    w, V = sla.eigsh(A.tocsc(), k=k, sigma=0, which="LM", tol=1e-10)
    total = time.perf_counter() - t0
    r = max(np.linalg.norm(A @ V[:, i] - w[i] * V[:, i]) / abs(w[i]) for i in range(k))
    return {"seconds": total, "values": np.sort(w), "residual": r}


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def sweep(a):
    """One table per kind: time to solution (ms) and iterations of every variant, median of --repeat."""
    systems = {"ilu0": ["--prec", "ilu0"], "iluk 1": ["--prec", "iluk", "--ilu-level", "1"],
               "iluk 2": ["--prec", "iluk", "--ilu-level", "2"], "ilut": ["--prec", "ilut"],
               "ilut 1e-3, 5": ["--prec", "ilut", "--ilut-drop", "1e-3", "--ilut-fill", "5"], "lu": ["--prec", "lu"]}
    print("| matrix | " + " | ".join(systems) + " |")
    print("|---|" + "---:|" * len(systems))
    for name in SYSTEMS:
        path = os.path.join(a.matrices, name + ".mtx.gz")
        cells = []
        for args in systems.values():
            runs = [ours(a.solve, path, ["--solver", "bgmres", "--block", "4", "--restart", "30", "--tol", "1e-8",
                                         "--max-iterations", "1000", "--rhs", "ones"] + args, required=False)
                    for _ in range(a.repeat)]
            ok = all(r.get("converged") for r in runs)
            t = median([r["setup_seconds"] + r["seconds"] for r in runs if "seconds" in r])
            cells.append(f"{t * 1e3:.1f}, {runs[0].get('iterations', '-')}" if ok else "-")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print()
    print("| matrix | " + " | ".join(EIGEN_VARIANTS) + " |")
    print("|---|" + "---:|" * len(EIGEN_VARIANTS))
    for name in EIGEN:
        path = os.path.join(a.matrices, name + ".mtx.gz")
        cells = []
        for args in EIGEN_VARIANTS.values():
            extra = [] if "--shift-invert" in args else ["--which", "smallest"]
            runs = [ours(a.solve, path, ["--solver", "lobpcg", "--nev", "5", "--tol", "1e-8"] + args + extra,
                         required=False) for _ in range(a.repeat)]
            ok = all(r.get("converged") for r in runs)
            t = median([r["setup_seconds"] + r["seconds"] for r in runs if "seconds" in r])
            cells.append(f"{t * 1e3:.1f}, {runs[0].get('iterations', '-')}" if ok else "-")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--solve", default=os.path.join(root, "build/host/bin/sprocket-solve"))
    p.add_argument("--matrices", default=os.path.join(root, "../shared/matrices"))
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--out", default="")
    p.add_argument("--sweep", action="store_true",
                   help="time every preconditioner / eigensolver variant per matrix instead (what chose the settings)")
    a = p.parse_args()
    if a.sweep:
        sweep(a)
        return
    rows, ratios, bounds = [], [], []
    for name, prec in SYSTEMS.items():
        A = load(a.matrices, name)
        path = os.path.join(a.matrices, name + ".mtx.gz")
        mine, theirs = [], []
        for _ in range(a.repeat):
            mine.append(ours(a.solve, path, ["--solver", "bgmres", "--block", "4", "--restart", "30", "--tol", "1e-8",
                                             "--max-iterations", "1000", "--rhs", "ones"] + prec))
            theirs.append(scipy_gmres(A, 4))
        t_ours = median([m["setup_seconds"] + m["seconds"] for m in mine])
        ok_ours = all(m["converged"] for m in mine)
        if "failed" in theirs[0]:
            scipy_cell, ratio = "fails: " + theirs[0]["failed"], None
        else:
            t_scipy = median([t["setup"] + t["solve"] for t in theirs])
            ok = all(t["converged"] for t in theirs)
            scipy_cell = f"{t_scipy * 1e3:.1f} ms, {theirs[0]['iterations']} it" + ("" if ok else " (not converged)")
            ratio = t_scipy / t_ours if ok and ok_ours else None
            # SciPy gave up (maxiter) where we converged: its time until then bounds the ratio below.
            if ok_ours and not ok:
                bounds.append(t_scipy / t_ours)
        if ratio:
            ratios.append(ratio)
        ours_cell = f"{t_ours * 1e3:.1f} ms, {mine[0]['iterations']} it" + ("" if ok_ours else " (not converged)")
        cell = f"{ratio:.2f}x" if ratio else (f">= {bounds[-1]:.0f}x" if ok_ours and "failed" not in theirs[0]
                                                and not all(t["converged"] for t in theirs) else "-")
        rows.append(f"| {name} (gmres) | {' '.join(prec)} | {ours_cell} | {scipy_cell} | {cell} |")
        print(rows[-1], flush=True)
    for name, variant in EIGEN.items():
        A = load(a.matrices, name)
        path = os.path.join(a.matrices, name + ".mtx.gz")
        args = ["--solver", "lobpcg", "--nev", "5", "--tol", "1e-8"] + EIGEN_VARIANTS[variant]
        if "--shift-invert" not in args:
            args += ["--which", "smallest"]
        mine, theirs = [], []
        for _ in range(a.repeat):
            mine.append(ours(a.solve, path, args))
            theirs.append(scipy_eigsh(A, 5))
        t_ours = median([m["setup_seconds"] + m["seconds"] for m in mine])
        t_scipy = median([t["seconds"] for t in theirs])
        ok_ours = all(m["converged"] for m in mine)
        values = np.array(mine[0].get("eigenvalues", []))
        agree = len(values) == 5 and np.max(np.abs(np.sort(values) - theirs[0]["values"]) /
                                            np.abs(theirs[0]["values"])) <= 1e-8
        ratio = t_scipy / t_ours if ok_ours and agree else None
        if ratio:
            ratios.append(ratio)
        rows.append(f"| {name} (5 smallest) | {variant} | {t_ours * 1e3:.1f} ms, {mine[0]['iterations']} it"
                    + ("" if ok_ours else " (not converged)") + ("" if agree else ", eigenvalues disagree")
                    + f" | {t_scipy * 1e3:.1f} ms (eigsh shift-invert) | " + (f"{ratio:.2f}x" if ratio else "-") + " |")
        print(rows[-1], flush=True)
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else float("nan")
    head = [
        "# Time to solution: sprocket-solve against SciPy",
        "",
        f"- Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: {platform.machine()}, "
        f"{os.cpu_count()} cores, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '(unset)')}; "
        f"SciPy {scipy.__version__}, NumPy {np.__version__}; median of {a.repeat}, interleaved.",
        "- Command: perf_tests/solvers_vs_scipy.py (its docstring says what is timed).",
        "",
        "| problem | ours | ours: time, iterations | SciPy: time, iterations | SciPy time / ours |",
        "|---|---|---:|---:|---:|",
    ]
    tail = ["", f"geomean of SciPy time / ours over {len(ratios)} problems both solved: **{geomean:.2f}x**"]
    if bounds:
        both = ratios + bounds
        lower = math.exp(sum(math.log(r) for r in both) / len(both))
        tail.append(f"geomean over {len(both)} problems, counting SciPy's time until it gave up (maxiter) where we "
                    f"converged as a lower bound of that ratio: **>= {lower:.2f}x**")
    text = "\n".join(head + rows + tail) + "\n"
    print("\n".join(tail[1:]))
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
