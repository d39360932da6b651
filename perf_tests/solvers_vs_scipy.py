#!/usr/bin/env python3
"""Time to solution: sprocket-solve against SciPy on the shared matrices, on the same machine in
one run (interleaved per matrix and repeat), written as a markdown table. Each side gets a sweep of
settings of about the same size in the same run, and the table compares each side's best.

Linear systems (the nonsymmetric shared matrices): B = A X* with sprocket-solve's X* (--rhs ones:
column 0 all ones, column j 1 + j (i mod 7) / 7), 4 right-hand sides, restart 30, relative
tolerance 1e-8 on the true residual of every column, at most 1000 iterations.
  ours:  block GMRES (block 4) with each of 6 preconditioners (SYSTEM_SETTINGS: ilu0, iluk 1,
         iluk 2, ilut (defaults), ilut drop 1e-3 fill 5, lu = UMFPACK's complete LU), plus LU of
         A - shift I where SYSTEMS_SHIFT gives a shift (rajat01 is singular).
  SciPy: gmres column by column (restart 30, at most 34 restart cycles = 1020 inner iterations,
         like our 1000) preconditioned by spilu with each of 8 settings (SCIPY_ILU: drop_tol 1e-4
         (SciPy's default), 1e-3, 1e-2 x permc_spec COLAMD (the default), MMD_AT_PLUS_A at
         fill_factor 10 (the default), and drop_tol 1e-4 at fill_factor 30 with either ordering),
         and splu (SuperLU's complete LU, then one direct solve of the 4 columns) with either
         ordering; where we get a shift, SciPy gets splu of A - shift I (either ordering, then one
         direct solve) too. The residual is always checked against A itself.
Eigenpairs (the SPD shared matrices): the 5 smallest, relative tolerance 1e-8 on both sides.
  ours:  LOBPCG with 3 settings (EIGEN_SETTINGS: incomplete Cholesky drop 0 on the AMD ordering,
         CHOLMOD Cholesky as preconditioner, shift-invert at 0 by CHOLMOD).
  SciPy: eigsh (ARPACK Lanczos, tol 1e-8) with 3 settings: plain (which='SA', at most 500
         restarts), shift-invert at sigma = 0 (its default SuperLU factorization of A), and
         shift-invert at 0 with OPinv = SuperLU in symmetric mode (MMD_AT_PLUS_A ordering, diagonal
         pivoting), the setting SuperLU advises for symmetric matrices.
  The tolerances mean different things (ours: ||A x - lambda x|| / (|lambda| ||x||) <= 1e-8 for
  every pair; ARPACK: the accuracy of the Ritz values of the operator it iterates on), so both
  sides' worst relative residual in our definition is computed and printed, and SciPy's
  eigenvalues must agree with ours to 1e-8 (relative).

Time to solution = setup (operator analysis, preconditioner / factorization) + solve, the median
of --repeat runs per setting; best = the least median among the settings that converged. Ours
from sprocket-solve's JSON (setup_seconds + seconds: the process start and file reading are not
counted); SciPy in a separate Python process per matrix, repeat and thread count (its threads end
with it, so they take no core from the sprocket-solve started next), timed around the SciPy calls only (the matrix
read and its conversion to CSC are not counted). Iterations: ours block iterations (each applies
the operator to 4 vectors at once), SciPy's gmres inner iterations summed over the 4 columns.

Threads: ours with OMP_NUM_THREADS=2 and again with 1 (two columns); SciPy with
OPENBLAS_NUM_THREADS=OMP_NUM_THREADS=2 and again with 1 (--scipy-threads), every SciPy setting
at each, SciPy's best over both compared. NumPy's BLAS may use both cores, but SuperLU (spilu,
splu, eigsh's shift-invert) and ARPACK are serial and the BLAS calls they make are small level 1-2
ones here; with 2 BLAS threads and the other core busy, SuperLU's factorization of rajat01 took
30x longer than with 1 (measured), hence both.

Usage: /usr/bin/python3 perf_tests/solvers_vs_scipy.py [--solve build/host/bin/sprocket-solve]
       [--matrices ../shared/matrices] [--repeat 3] [--out perf_tests/results/solvers-vs-scipy-<date>.md]
       [--quick] [--only NAME ...] [--threads 2] [--scipy-threads 2 1]
--quick: hor_131, rajat01 and 1138_bus, one repeat (a smoke test). --sweep is accepted for
compatibility (every setting of both sides is always run and listed now).
Needs Debian's python3-scipy (run with /usr/bin/python3 where another python is first on PATH).
"""
# The SciPy side runs in a child process of this script (--scipy-worker), its thread counts set in
# its environment before NumPy loads its BLAS, so no BLAS thread outlives a measurement (idle
# OpenBLAS workers spin for a while after each call and took a core from the two-thread
# sprocket-solve started next when SciPy ran in this process: 2-8x slower, measured); this process
# never imports NumPy.
import argparse
import gzip
import inspect
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

TOL = 1e-8             # both sides, linear systems and eigenpairs
MAX_ITERATIONS = 1000  # ours: iterations; SciPy: ceil(1000 / 30) = 34 restart cycles of 30
RESTART = 30
NEV = 5

SYSTEMS = ["sherman5", "orsirr_1", "watt_2", "hor_131", "west0479", "rajat01"]
# Matrices that are singular (spilu and splu report "Factor is exactly singular"): both sides also
# get the LU of A - shift I (consistent right-hand sides then converge in one GMRES iteration).
SYSTEMS_SHIFT = {"rajat01": 1e-10}
SYSTEM_SETTINGS = {
    "ilu0": ["--prec", "ilu0"],
    "iluk 1": ["--prec", "iluk", "--ilu-level", "1"],
    "iluk 2": ["--prec", "iluk", "--ilu-level", "2"],
    "ilut": ["--prec", "ilut"],
    "ilut 1e-3, 5": ["--prec", "ilut", "--ilut-drop", "1e-3", "--ilut-fill", "5"],
    "lu": ["--prec", "lu"],
}
# spilu settings: (drop_tol, fill_factor, permc_spec).
SCIPY_ILU = [(1e-4, 10, "COLAMD"), (1e-3, 10, "COLAMD"), (1e-2, 10, "COLAMD"),
             (1e-4, 10, "MMD_AT_PLUS_A"), (1e-3, 10, "MMD_AT_PLUS_A"), (1e-2, 10, "MMD_AT_PLUS_A"),
             (1e-4, 30, "COLAMD"), (1e-4, 30, "MMD_AT_PLUS_A")]
# splu (complete LU, then one direct solve of the 4 columns) with either ordering: on rajat01
# COLAMD's factor has 22x the fill of MMD_AT_PLUS_A's and takes 130x longer.
SPLU_ORDERINGS = ["COLAMD", "MMD_AT_PLUS_A"]

EIGEN = ["bcsstk13", "bcsstk15", "msc04515", "1138_bus"]
EIGEN_SETTINGS = {
    "ic, drop 0, amd": ["--prec", "ic", "--ic-drop", "0", "--reorder", "amd", "--which", "smallest"],
    "cholesky": ["--prec", "cholesky", "--which", "smallest"],
    "shift-invert 0": ["--shift-invert", "0", "--prec", "cholesky"],
}
SCIPY_EIGEN = ["eigsh plain (SA)", "eigsh sigma 0", "eigsh sigma 0, SuperLU symmetric mode"]

QUICK = (["hor_131", "rajat01"], ["1138_bus"])


def ilu_name(drop, fill, permc):
    return f"spilu {drop:g}, {fill}, {permc}"


def scipy_system_settings(name):
    out = [ilu_name(*s) for s in SCIPY_ILU] + [f"splu, {permc}" for permc in SPLU_ORDERINGS]
    if name in SYSTEMS_SHIFT:
        out += [f"splu of A + {SYSTEMS_SHIFT[name]:g} I, {permc}" for permc in SPLU_ORDERINGS]
    return out


def scipy_label(setting, threads):
    return f"{setting} [{threads} BLAS thr]"


def ours_system_settings(name):
    out = dict(SYSTEM_SETTINGS)
    if name in SYSTEMS_SHIFT:
        out[f"lu, shift -{SYSTEMS_SHIFT[name]:g}"] = ["--prec", "lu", "--shift", f"-{SYSTEMS_SHIFT[name]:g}"]
    return out


# ---------------------------------------------------------------------------------------------
# SciPy side (a child process: --scipy-worker KIND PATH NAME)


def scipy_worker(kind, path, name):
    import numpy as np
    import scipy
    import scipy.io
    import scipy.sparse as sp
    import scipy.sparse.linalg as sla

    with gzip.open(path) as f:
        A = scipy.io.mmread(f).tocsr().astype(np.float64)
    Acsc = A.tocsc()
    results = {"scipy": scipy.__version__, "numpy": np.__version__}
    rtol_kw = "rtol" if "rtol" in inspect.signature(sla.gmres).parameters else "tol"
    if kind == "gmres":
        s = 4
        n = A.shape[0]
        i = np.arange(n)
        X = np.ones((n, s))
        for j in range(1, s):
            X[:, j] = 1 + j * (i % 7) / 7
        B = A @ X
        nb = np.linalg.norm(B, axis=0)

        def run_gmres(M):
            iterations, worst, converged = 0, 0.0, True
            for j in range(s):
                count = [0]

                def callback(_r, count=count):
                    count[0] += 1

                x, info = sla.gmres(A, B[:, j], M=M, atol=0, restart=RESTART,
                                    maxiter=math.ceil(MAX_ITERATIONS / RESTART), callback=callback,
                                    callback_type="pr_norm", **{rtol_kw: TOL})
                iterations += count[0]
                converged = converged and info == 0
                worst = max(worst, np.linalg.norm(B[:, j] - A @ x) / nb[j])
            return iterations, worst, converged

        for setting in scipy_system_settings(name):
            r = {}
            t0 = time.perf_counter()
            try:
                if setting.startswith("splu"):
                    # Complete LU (of A, or of A + shift I for a singular A), then one direct solve.
                    permc = setting.rsplit(", ", 1)[1]
                    M = Acsc
                    if setting.startswith("splu of A"):
                        M = (A + SYSTEMS_SHIFT[name] * sp.identity(A.shape[0], format="csr")).tocsc()
                    t0 = time.perf_counter()
                    lu = sla.splu(M, permc_spec=permc)
                    setup = time.perf_counter() - t0
                    t1 = time.perf_counter()
                    Xs = lu.solve(B)
                    solve = time.perf_counter() - t1
                    worst = float(np.max(np.linalg.norm(B - A @ Xs, axis=0) / nb))
                    r = {"setup": setup, "solve": solve, "iterations": 0, "residual": worst,
                         "converged": bool(worst <= TOL * (1 + 1e-6))}
                else:
                    drop, fill, permc = next(c for c in SCIPY_ILU if ilu_name(*c) == setting)
                    f = sla.spilu(Acsc, drop_tol=drop, fill_factor=fill, permc_spec=permc)
                    setup = time.perf_counter() - t0
                    M = sla.LinearOperator(A.shape, f.solve)
                    t1 = time.perf_counter()
                    iterations, worst, converged = run_gmres(M)
                    solve = time.perf_counter() - t1
                    r = {"setup": setup, "solve": solve, "iterations": iterations, "residual": worst,
                         "converged": bool(converged and worst <= TOL * (1 + 1e-6))}
            except (RuntimeError, ValueError, MemoryError) as e:
                r = {"failed": str(e).splitlines()[0] if str(e) else type(e).__name__}
            results[setting] = r
    else:
        k = NEV
        for setting in SCIPY_EIGEN:
            t0 = time.perf_counter()
            try:
                if setting == "eigsh plain (SA)":
                    w, V = sla.eigsh(A, k=k, which="SA", tol=TOL, maxiter=500)
                elif setting == "eigsh sigma 0":
                    w, V = sla.eigsh(Acsc, k=k, sigma=0, which="LM", tol=TOL)
                else:
                    lu = sla.splu(Acsc, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                                  options={"SymmetricMode": True})
                    OPinv = sla.LinearOperator(A.shape, lu.solve, dtype=np.float64)
                    w, V = sla.eigsh(A, k=k, sigma=0, which="LM", tol=TOL, OPinv=OPinv)
                total = time.perf_counter() - t0
                order = np.argsort(w)
                w, V = w[order], V[:, order]
                res = max(float(np.linalg.norm(A @ V[:, i] - w[i] * V[:, i]) / (abs(w[i]) * np.linalg.norm(V[:, i])))
                          for i in range(k))
                results[setting] = {"setup": 0.0, "solve": total, "values": [float(x) for x in w], "residual": res,
                                    "converged": True}
            except sla.ArpackNoConvergence as e:
                results[setting] = {"failed": "ArpackNoConvergence: " + str(e).splitlines()[0],
                                    "seconds_until_gave_up": time.perf_counter() - t0}
            except (RuntimeError, ValueError, MemoryError) as e:
                results[setting] = {"failed": str(e).splitlines()[0] if str(e) else type(e).__name__}
    print(json.dumps(results))


def scipy_run(kind, path, name, threads):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--scipy-worker", kind, path, name],
                         capture_output=True, text=True, env=env)
    try:
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        sys.exit(f"SciPy worker failed on {name}:\n{out.stdout}{out.stderr}")


# ---------------------------------------------------------------------------------------------
# Our side


def ours(solve, matrix, args, env):
    """sprocket-solve's JSON, or {} when it printed none (a variant that refuses the matrix)."""
    cmd = [solve, "--matrix", matrix, "--json", "--quiet"] + args
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "{}"
    try:
        j = json.loads(line)
    except json.JSONDecodeError:
        return {"failed": (out.stderr.strip().splitlines() or ["no JSON"])[0]}
    return j


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def summarize_ours(runs):
    ok = bool(runs) and all(r.get("converged") for r in runs)
    t = median([r["setup_seconds"] + r["seconds"] for r in runs if "seconds" in r])
    first = runs[0] if runs else {}
    return {"time": t, "converged": ok, "iterations": first.get("iterations"), "first": first,
            "failed": first.get("failed")}


def summarize_scipy(runs):
    if any("failed" in r for r in runs):
        r = next(r for r in runs if "failed" in r)
        return {"time": None, "converged": False, "failed": r["failed"],
                "gave_up": median([x.get("seconds_until_gave_up") for x in runs])}
    t = median([r["setup"] + r["solve"] for r in runs])
    return {"time": t, "converged": all(r["converged"] for r in runs), "iterations": runs[0].get("iterations"),
            "residual": max(r["residual"] for r in runs), "first": runs[0], "gave_up": t}


def best(summaries):
    ok = [(k, s) for k, s in summaries.items() if s["converged"] and s["time"] is not None]
    return min(ok, key=lambda kv: kv[1]["time"]) if ok else (None, None)


def fmt_ms(t):
    return "-" if t is None else f"{t * 1e3:.1f} ms"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    if "--scipy-worker" in sys.argv:
        i = sys.argv.index("--scipy-worker")
        scipy_worker(*sys.argv[i + 1:i + 4])
        return
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--solve", default=os.path.join(root, "build/host/bin/sprocket-solve"))
    p.add_argument("--matrices", default=os.path.join(root, "../shared/matrices"))
    p.add_argument("--repeat", type=int, default=None, help="runs per setting, median reported (default 3; --quick 1)")
    p.add_argument("--out", default="")
    p.add_argument("--quick", action="store_true", help="hor_131, rajat01 and 1138_bus, one repeat (smoke test)")
    p.add_argument("--only", nargs="+", metavar="NAME", help="only these matrices")
    p.add_argument("--threads", type=int, default=2, help="our OpenMP threads in the first column (default 2; the "
                   "second column is always 1 thread)")
    p.add_argument("--scipy-threads", type=int, nargs="+", default=[2, 1],
                   help="SciPy's OPENBLAS_NUM_THREADS = OMP_NUM_THREADS, each value a run of every SciPy setting "
                   "(default: 2 and 1; SciPy's best over both is compared)")
    p.add_argument("--sweep", action="store_true", help="accepted for compatibility: every setting is always run")
    a = p.parse_args()
    repeat = a.repeat if a.repeat is not None else (1 if a.quick else 3)
    if repeat < 1:
        sys.exit("--repeat must be >= 1")
    systems, eigen = (QUICK if a.quick else (SYSTEMS, EIGEN))
    if a.only:
        systems = [m for m in SYSTEMS if m in a.only]
        eigen = [m for m in EIGEN if m in a.only]
    if not os.path.exists(a.solve):
        sys.exit(f"{a.solve} not found: build sprocket-solve")
    thread_counts = [a.threads] + ([1] if a.threads != 1 else [])
    base = dict(os.environ)
    for key in ("OPENBLAS_NUM_THREADS",):
        base.pop(key, None)
    envs = {t: dict(base, OMP_NUM_THREADS=str(t), OMP_PROC_BIND=base.get("OMP_PROC_BIND", "false")) for t in
            thread_counts}

    started = time.gmtime()
    load_before = os.getloadavg()
    rows, sweep_sys, sweep_eig = [], [], []
    ratios = {t: [] for t in thread_counts}
    bounds = {t: [] for t in thread_counts}
    versions = {}

    ncol = max(len(thread_counts), len(a.scipy_threads))

    def thread_at(counts, i):
        return counts[i] if i < len(counts) else None

    def cells_for(name, mine, theirs, ours_names, scipy_names):
        """Sweep table rows of one matrix: every setting of each side, one column per thread count."""
        out = []
        bests = {t: best(mine[t])[0] for t in thread_counts}
        for k in ours_names:
            cells = []
            for i in range(ncol):
                t = thread_at(thread_counts, i)
                if t is None:
                    cells.append("")
                    continue
                s = mine[t][k]
                cell = (f"{fmt_ms(s['time'])}, {s['iterations']} it" if s["converged"] else
                        ("refused" if s.get("failed") else "not converged"))
                cells.append(f"**{cell}**" if k == bests[t] else cell)
            out.append(f"| {name} | ours | {k} | " + " | ".join(cells) + " |")
        b, _ = best(theirs)
        for k in scipy_names:
            cells = []
            for i in range(ncol):
                th = thread_at(a.scipy_threads, i)
                if th is None:
                    cells.append("")
                    continue
                s = theirs[scipy_label(k, th)]
                if s.get("failed"):
                    cell = "fails: " + s["failed"][:60]
                else:
                    it = s.get("iterations")
                    cell = fmt_ms(s["time"]) + (f", {it} it" if it is not None else "") + \
                        f", residual {s['residual']:.1e}" + ("" if s["converged"] else " (not converged)")
                cells.append(f"**{cell}**" if scipy_label(k, th) == b else cell)
            out.append(f"| {name} | SciPy | {k} | " + " | ".join(cells) + " |")
        return out

    for name in systems:
        path = os.path.join(a.matrices, name + ".mtx.gz")
        settings = ours_system_settings(name)
        mine_runs = {t: {k: [] for k in settings} for t in thread_counts}
        scipy_runs = {th: [] for th in a.scipy_threads}
        for _ in range(repeat):
            for t in thread_counts:
                for k, args in settings.items():
                    mine_runs[t][k].append(ours(a.solve, path, ["--solver", "bgmres", "--block", "4", "--restart",
                                                                str(RESTART), "--tol", f"{TOL:g}", "--max-iterations",
                                                                str(MAX_ITERATIONS), "--rhs", "ones"] + args, envs[t]))
            for th in a.scipy_threads:
                scipy_runs[th].append(scipy_run("gmres", path, name, th))
        first = scipy_runs[a.scipy_threads[0]][0]
        versions = {"scipy": first["scipy"], "numpy": first["numpy"]}
        mine = {t: {k: summarize_ours(v) for k, v in mine_runs[t].items()} for t in thread_counts}
        theirs = {scipy_label(k, th): summarize_scipy([r[k] for r in scipy_runs[th]])
                  for k in scipy_system_settings(name) for th in a.scipy_threads}
        sweep_sys += cells_for(name, mine, theirs, list(settings), scipy_system_settings(name))
        sb_name, sb = best(theirs)
        cells = [f"{name} (gmres)"]
        for t in thread_counts:
            ob_name, ob = best(mine[t])
            cells += [ob_name or "-", f"{fmt_ms(ob['time'])}, {ob['iterations']} it" if ob else "none converged"]
        if sb:
            cells += [sb_name, f"{fmt_ms(sb['time'])}, {sb['iterations']} it"]
        else:
            failed = [s for s in theirs.values() if s.get("failed")]
            cells += ["-", f"none of {len(theirs)} converged" + (f" ({len(failed)} refused the matrix)" if failed
                                                                else "")]
        for t in thread_counts:
            _, ob = best(mine[t])
            if ob and sb:
                ratios[t].append(sb["time"] / ob["time"])
                cells.append(f"{sb['time'] / ob['time']:.2f}x")
            elif ob and not sb:
                # SciPy's least time until it gave up (none converged) bounds its time to solution below.
                gave_up = [s["gave_up"] for s in theirs.values() if not s.get("failed") and s.get("gave_up")]
                if gave_up and len(gave_up) == len(theirs):
                    bounds[t].append(min(gave_up) / ob["time"])
                    cells.append(f">= {min(gave_up) / ob['time']:.0f}x")
                else:
                    cells.append("-")
            else:
                cells.append("-")
        rows.append("| " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)

    for name in eigen:
        path = os.path.join(a.matrices, name + ".mtx.gz")
        mine_runs = {t: {k: [] for k in EIGEN_SETTINGS} for t in thread_counts}
        scipy_runs = {th: [] for th in a.scipy_threads}
        for _ in range(repeat):
            for t in thread_counts:
                for k, args in EIGEN_SETTINGS.items():
                    mine_runs[t][k].append(ours(a.solve, path, ["--solver", "lobpcg", "--nev", str(NEV), "--tol",
                                                                f"{TOL:g}"] + args, envs[t]))
            for th in a.scipy_threads:
                scipy_runs[th].append(scipy_run("eig", path, name, th))
        first = scipy_runs[a.scipy_threads[0]][0]
        versions = {"scipy": first["scipy"], "numpy": first["numpy"]}
        mine = {t: {k: summarize_ours(v) for k, v in mine_runs[t].items()} for t in thread_counts}
        theirs = {scipy_label(k, th): summarize_scipy([r[k] for r in scipy_runs[th]])
                  for k in SCIPY_EIGEN for th in a.scipy_threads}
        # SciPy's eigenvalues must agree with ours (any converged setting of ours: they agree with each other).
        reference = next((s["first"].get("eigenvalues") for t in thread_counts for s in mine[t].values()
                          if s["converged"] and s["first"].get("eigenvalues")), None)
        for k, s in theirs.items():
            if s["converged"] and reference and len(reference) == NEV:
                ref = sorted(reference)
                vals = s["first"]["values"]
                s["agree"] = max(abs(x - y) / abs(y) for x, y in zip(vals, ref)) <= TOL
                if not s["agree"]:
                    s["converged"] = False
                    s["failed"] = "eigenvalues disagree with ours"
        sweep_eig += cells_for(name, mine, theirs, list(EIGEN_SETTINGS), SCIPY_EIGEN)
        sb_name, sb = best(theirs)
        cells = [f"{name} (5 smallest)"]
        for t in thread_counts:
            ob_name, ob = best(mine[t])
            if ob:
                worst = max(ob["first"].get("residuals") or [float("nan")])
                cells += [ob_name, f"{fmt_ms(ob['time'])}, {ob['iterations']} it, residual {worst:.1e}"]
            else:
                cells += ["-", "none converged"]
        cells += [sb_name or "-", f"{fmt_ms(sb['time'])}, residual {sb['residual']:.1e}" if sb else
                  "none converged"]
        for t in thread_counts:
            _, ob = best(mine[t])
            if ob and sb:
                ratios[t].append(sb["time"] / ob["time"])
                cells.append(f"{sb['time'] / ob['time']:.2f}x")
            else:
                cells.append("-")
        rows.append("| " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)

    load_after = os.getloadavg()
    t0 = thread_counts[0]
    head = [
        "# Time to solution: sprocket-solve against SciPy",
        "",
        f"- Date: {time.strftime('%Y-%m-%d %H:%M UTC', started)}; machine: {platform.machine()}, {os.cpu_count()} "
        f"cores, load average {load_before[0]:.2f} at start, {load_after[0]:.2f} at end; SciPy "
        f"{versions.get('scipy', '?')}, NumPy {versions.get('numpy', '?')}; median of {repeat} per setting, "
        "interleaved (per matrix and repeat: every setting of ours, then SciPy's).",
        f"- Command: perf_tests/solvers_vs_scipy.py --repeat {repeat}" + (" --quick" if a.quick else "") +
        (f" --only {' '.join(a.only)}" if a.only else "") + " (its docstring says what is timed).",
        f"- Threads: ours OMP_NUM_THREADS={t0}" + (" and again 1 (separate columns)" if len(thread_counts) > 1 else "")
        + f", OMP_PROC_BIND={envs[t0]['OMP_PROC_BIND']}; SciPy in its own process with OPENBLAS_NUM_THREADS="
        "OMP_NUM_THREADS=" + " and again ".join(str(th) for th in a.scipy_threads) + " (every SciPy setting at each; "
        "its best over all is compared, the thread count shown in brackets). NumPy's BLAS can use 2 threads, but "
        "SuperLU (spilu, splu, eigsh's shift-invert) and ARPACK are serial, and the BLAS calls they make are small "
        "level 1-2 ones here: SciPy effectively runs on one core.",
        f"- Tolerance: {TOL:g} on both sides: linear systems, the true relative residual of every column "
        f"(at most {MAX_ITERATIONS} iterations: ours {MAX_ITERATIONS} block iterations, SciPy "
        f"{math.ceil(MAX_ITERATIONS / RESTART)} restart cycles of {RESTART}); eigenpairs, ours LOBPCG's "
        f"||A x - lambda x|| / (|lambda| ||x||) <= {TOL:g} per pair, SciPy eigsh tol={TOL:g} (ARPACK's Ritz-value "
        "accuracy; its worst residual in our definition is printed, and its eigenvalues must agree with ours "
        f"to {TOL:g}).",
        "- Tuning budget, per matrix, every setting run in this run and listed below; each side's best (least "
        "median time among the converged) is compared. Linear systems: ours 6 preconditioners (ilu0, iluk 1, "
        "iluk 2, ilut, ilut drop 1e-3 fill 5, UMFPACK LU) + block GMRES; SciPy 8 spilu settings (drop_tol "
        "1e-4 / 1e-3 / 1e-2 x permc_spec COLAMD / MMD_AT_PLUS_A at fill_factor 10, drop_tol 1e-4 at fill_factor 30 "
        "with both orderings) + gmres, and splu (complete LU, one direct solve of the 4 columns) with either "
        "ordering; rajat01 (singular) adds the LU of A + 1e-10 I on both sides (ours: as GMRES preconditioner; "
        "SciPy: splu with either ordering, one direct solve), residuals checked against A. Eigenpairs: ours LOBPCG with 3 settings "
        "(IC drop 0 on AMD, CHOLMOD Cholesky, shift-invert 0), SciPy eigsh with 3 (plain which='SA', "
        "shift-invert sigma 0, shift-invert sigma 0 with SuperLU in symmetric mode).",
        "- Time = setup + solve (ours: sprocket-solve's setup_seconds + seconds; SciPy: the factorization + the "
        "4 gmres / direct solves, or the eigsh call); process start and file reading not counted for either. "
        "Iterations: ours block iterations (4 vectors each), SciPy's gmres inner iterations summed over the 4 "
        "columns (0: direct solve).",
        "",
    ]
    cols = ["problem"]
    for t in thread_counts:
        cols += [f"ours ({t} thr): best setting", f"ours ({t} thr): time, iterations"]
    cols += ["SciPy: best setting", "SciPy: time, iterations"] + [f"SciPy / ours ({t} thr)" for t in thread_counts]
    table = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" if "setting" in c or c == "problem" else "---:"
                                                          for c in cols) + "|"]
    tail = [""]
    for t in thread_counts:
        tail.append(f"- ours on {t} thread{'s' if t > 1 else ''}: geomean of SciPy time / ours over "
                    f"{len(ratios[t])} problems both solved: **{geomean(ratios[t]):.2f}x**")
        if bounds[t]:
            tail.append(f"  - over {len(ratios[t]) + len(bounds[t])} problems, counting SciPy's least time until it "
                        "gave up where no SciPy setting converged and ours did as a lower bound of that ratio: "
                        f"**>= {geomean(ratios[t] + bounds[t]):.2f}x**")
    sweep = [
        "",
        f"Every setting (median of {repeat}; time to solution, iterations; each side's best in bold: ours per "
        "thread count, SciPy over both):",
        "",
        "| matrix | side | setting | " + " | ".join(
            f"ours {thread_at(thread_counts, i) or '-'} thr / SciPy {thread_at(a.scipy_threads, i) or '-'} BLAS thr"
            for i in range(ncol)) + " |",
        "|---|---|---|" + "---:|" * ncol,
    ] + sweep_sys + sweep_eig
    text = "\n".join(head + table + rows + tail + sweep) + "\n"
    print("\n".join(tail[1:]))
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
        print(f"wrote {a.out}")
    else:
        print("\n".join(sweep))


if __name__ == "__main__":
    main()
