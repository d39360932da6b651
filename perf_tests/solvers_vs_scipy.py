#!/usr/bin/env python3
"""Time to solution: sprocket-solve against SciPy on the shared matrices, on the same machine in
one run (interleaved per matrix and repeat), written as a markdown table.

Linear systems (the nonsymmetric shared matrices): block GMRES, block 4, restart 30, tol 1e-8,
B = A X* with sprocket-solve's X* (--rhs ones: column 0 all ones, column j 1 + j (i mod 7) / 7),
against SciPy's spilu (its defaults) + gmres (restart 30, tol 1e-8) column by column.
Eigenpairs (the SPD shared matrices): the 5 smallest by LOBPCG with complete incomplete Cholesky
on the AMD ordering (--prec ic --ic-drop 0 --reorder amd), against eigsh in shift-invert mode
(sigma = 0, SuperLU inside).

Time to solution = setup (operator analysis, preconditioner / factorization) + solve, the median
of --repeat runs; ours from sprocket-solve's JSON (setup_seconds + seconds: the process start and
file reading are not counted for either side). Iterations: ours block iterations (each applies
the operator to 4 vectors at once), SciPy's gmres inner iterations summed over the 4 columns.

Usage: perf_tests/solvers_vs_scipy.py [--solve build/host/bin/sprocket-solve]
       [--matrices ../shared/matrices] [--repeat 3] [--out perf_tests/results/solvers-vs-scipy.md]
Needs Debian's python3-scipy (run with /usr/bin/python3 where another python is first on PATH).
"""
import argparse
import gzip
import json
import math
import os
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
# ilut (spilu's defaults) and ilut drop 1e-3 fill 5 in one sweep on the 2-core machine
# (2026-11-26; perf_tests/results/solvers-vs-scipy-2026-11-26.md lists it). rajat01 is singular
# (spilu and splu both report "Factor is exactly singular"): only the complete ILUTP converges.
SYSTEMS = {
    "sherman5": ["--prec", "iluk", "--ilu-level", "2"],
    "orsirr_1": ["--prec", "ilut"],
    "watt_2": ["--prec", "iluk", "--ilu-level", "1"],
    "hor_131": ["--prec", "iluk", "--ilu-level", "1"],
    "west0479": ["--prec", "iluk", "--ilu-level", "2"],
    "rajat01": ["--prec", "ilut", "--ilut-drop", "0", "--ilut-fill", "1000"],
}
EIGEN = ["bcsstk13", "bcsstk15", "msc04515", "1138_bus"]


def load(folder, name):
    with gzip.open(os.path.join(folder, name + ".mtx.gz")) as f:
        return scipy.io.mmread(f).tocsr()


def ours(solve, matrix, args):
    cmd = [solve, "--matrix", matrix, "--json", "--quiet"] + args
    out = subprocess.run(cmd, capture_output=True, text=True)
    line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "{}"
    try:
        j = json.loads(line)
    except json.JSONDecodeError:
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


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--solve", default=os.path.join(root, "build/host/bin/sprocket-solve"))
    p.add_argument("--matrices", default=os.path.join(root, "../shared/matrices"))
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--out", default="")
    a = p.parse_args()
    rows, ratios = [], []
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
        if ratio:
            ratios.append(ratio)
        ours_cell = f"{t_ours * 1e3:.1f} ms, {mine[0]['iterations']} it" + ("" if ok_ours else " (not converged)")
        rows.append(f"| {name} (gmres) | {' '.join(prec)} | {ours_cell} | {scipy_cell} | "
                    + (f"{ratio:.2f}x" if ratio else "-") + " |")
        print(rows[-1], flush=True)
    for name in EIGEN:
        A = load(a.matrices, name)
        path = os.path.join(a.matrices, name + ".mtx.gz")
        args = ["--solver", "lobpcg", "--nev", "5", "--which", "smallest", "--prec", "ic", "--ic-drop", "0",
                "--reorder", "amd", "--tol", "1e-8"]
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
        rows.append(f"| {name} (5 smallest) | ic, drop 0, amd | {t_ours * 1e3:.1f} ms, {mine[0]['iterations']} it"
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
    text = "\n".join(head + rows + tail) + "\n"
    print(tail[-1])
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
