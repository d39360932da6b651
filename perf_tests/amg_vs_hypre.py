#!/usr/bin/env python3
"""Our smoothed-aggregation AMG against hypre's BoomerAMG, on the same machine in one run
(interleaved per problem and repeat), written as a markdown table.

Both sides solve the same problems: the matrix from the same generator spec or file, 4 right-hand
sides B = A X* with sprocket-solve's X* (--rhs ones: column 0 all ones, column j 1 + j (i mod 7) / 7),
zero initial guess, restart 30, relative tolerance 1e-8, and both recompute the true residuals.

  ours:  sprocket-solve --matrix M --solver bgmres --block 4 --restart 30 --tol 1e-8
         --max-iterations 1000 --prec amg [--amg-degree d] --json --quiet  (block GMRES on the 4
         columns at once; elasticity adds --amg-nullspace rigid-body), OMP_NUM_THREADS threads
  hypre: mpirun -np R sprocket-hypre-amg --matrix M --block 4 --restart 30 --tol 1e-8
         --max-iterations 1000 <setting> --json  (hypre's GMRES column by column, one BoomerAMG
         V-cycle per preconditioner application, BoomerAMG set up once), R MPI ranks of one thread
         each (Debian's hypre has MPI but no OpenMP)

Cores: the main table gives each side the same number of cores, ours --threads OpenMP threads
(default 2) against hypre on --ranks MPI ranks (default 2); a second table has ours on 1 thread
against hypre on 1 rank (--no-one-core leaves it out). --bind cores (default) binds both sides the
same way (mpirun --bind-to core; OMP_PROC_BIND=close, OMP_PLACES=cores), --bind none binds neither.

Settings and tuning budget: every hypre setting follows hypre's recommendations for 3-D problems
(strength threshold 0.5, extended+i interpolation (6) with at most 4 entries per row, HMIS or PMIS
coarsening, aggressive coarsening on the first level); for elasticity (gen:elasticity, dof=3) also
systems AMG with nodal coarsening and the rigid-body rotations as interpolation vectors, the options
hypre's developers use for elasticity (MFEM's HypreBoomerAMG::SetElasticityOptions: nodal 4,
nodal diag 1, GM-2 interpolation vectors with at most 4 entries per row of Q, smoothed vectors,
one refinement of the interpolation weights; the translations are the per-function constants
that unknown-based interpolation reproduces without them). Our Chebyshev degree 4 was chosen from
a sweep of 3 settings (degree 3 / 4 / 5), so hypre gets 3 settings too (HYPRE_SETTINGS below:
HMIS with aggressive coarsening on 1 level, PMIS with 1 level, HMIS without). --sweep runs all 3 of
each side (ours: --amg-degree 3, 4, 5), lists every one, and the main table compares the best of
each side (least median setup + solve); without --sweep each side runs its first setting (ours:
degree 4, its default; hypre: HMIS, aggressive on 1 level). The published table uses --sweep.

Iterations, per right-hand side: ours are block iterations (each applies A and the preconditioner
to the 4 columns at once), hypre's per-column iterations (listed, with their sum). "A-products per
right-hand side" counts the matrix-vector products (= preconditioner applications) a right-hand
side got: ours the block iterations (one product with each column per block iteration), hypre the
mean of its per-column iterations (residual products at start and restart are left out on both
sides). Times (median of --repeats): setup = the AMG hierarchy (ours: preconditioner_setup_seconds;
hypre: BoomerAMG setup, slowest rank), solve = the iterations of all 4 right-hand sides (ours:
seconds; hypre: the 4 GMRES solves, slowest rank). Matrix generation and reading, and hypre's
matrix assembly, are not counted for either side.

Usage: /usr/bin/python3 perf_tests/amg_vs_hypre.py [--solve build/host/bin/sprocket-solve]
       [--hypre build/host/bin/sprocket-hypre-amg] [--problems SPEC ...] [--quick] [--repeats 3]
       [--sweep] [--ranks 2] [--threads 2] [--no-one-core] [--bind cores|none] [--mpirun mpirun]
       [--out perf_tests/results/amg-vs-hypre-<date>.md]
The results file (and next to it every run's JSON, <out>.jsonl) is written when our side ran
(sprocket-solve accepts --prec amg) or when --out is given; the tables are printed either way.
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

PROBLEMS = ["gen:poisson3d:n=64", "gen:elasticity:n=24,dof=3"]
QUICK_PROBLEMS = ["gen:poisson3d:n=24", "gen:elasticity:n=10,dof=3"]
COMMON = ["--block", "4", "--restart", "30", "--tol", "1e-8", "--max-iterations", "1000"]

# hypre's 3 settings (the first is the one run without --sweep). Common to all: hypre's 3-D advice.
HYPRE_COMMON = ["--strong-threshold", "0.5", "--interp-type", "6", "--pmax", "4"]
HYPRE_SETTINGS = [
    ("HMIS, agg 1", ["--coarsen-type", "hmis", "--agg-levels", "1"]),
    ("PMIS, agg 1", ["--coarsen-type", "pmis", "--agg-levels", "1"]),
    ("HMIS, agg 0", ["--coarsen-type", "hmis", "--agg-levels", "0"]),
]
# Elasticity (dof 3): nodal coarsening and the rigid-body rotations as interpolation vectors.
HYPRE_ELASTICITY = ["--nodal", "4", "--nodal-diag", "1", "--interp-vectors", "rigid-body-rotations",
                    "--interp-vec-variant", "2", "--interp-vec-qmax", "4", "--smooth-interp-vectors", "1",
                    "--interp-refine", "1"]
# Ours: Chebyshev degree (the first, 4, is the default and the one run without --sweep).
OURS_SETTINGS = [("degree 4", ["--amg-degree", "4"]), ("degree 3", ["--amg-degree", "3"]),
                 ("degree 5", ["--amg-degree", "5"])]


def elasticity_dof(spec):
    """The dof of a gen:elasticity spec (the generator's default 3), None for anything else."""
    prefix = "gen:elasticity:"
    if not spec.startswith(prefix):
        return None
    for kv in spec[len(prefix):].split(","):
        if kv.startswith("dof="):
            return int(kv[4:])
    return 3


def run_json(cmd, env):
    """Runs cmd; returns (object from its last stdout line, None) or (None, why it gave none)."""
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    lines = out.stdout.strip().splitlines()
    if lines:
        try:
            return json.loads(lines[-1]), None
        except json.JSONDecodeError:
            pass
    why = (out.stderr.strip() or out.stdout.strip() or "no output").splitlines()
    return None, f"exit {out.returncode}: " + (why[0] if why else "")


def ours_cmd(solve, spec, extra):
    cmd = [solve, "--matrix", spec, "--solver", "bgmres"] + COMMON + ["--prec", "amg"] + extra + ["--json", "--quiet"]
    if elasticity_dof(spec):
        cmd += ["--amg-nullspace", "rigid-body"]
    return cmd


def hypre_args(spec, extra):
    args = ["--matrix", spec] + COMMON + HYPRE_COMMON + extra
    dof = elasticity_dof(spec)
    if dof == 3:
        args += ["--num-functions", "3"] + HYPRE_ELASTICITY
    elif dof and dof > 1:
        args += ["--num-functions", str(dof), "--nodal", "4"]
    return args + ["--json", "--quiet"]


def mpirun_prefix(mpirun, ranks, bind):
    if not mpirun:
        return []
    cmd = [mpirun]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd += ["--allow-run-as-root", "--oversubscribe"]  # Open MPI refuses root without them
    cmd += ["--bind-to", "core" if bind == "cores" else "none", "-np", str(ranks)]
    return cmd


def probe_ours(solve):
    """None when sprocket-solve accepts --prec amg and --amg-degree, else the reason it does not."""
    if not os.path.exists(solve):
        return f"{solve} not built"
    out = subprocess.run([solve, "--matrix", "gen:poisson3d:n=4", "--solver", "bgmres", "--prec", "amg",
                          "--amg-degree", "4", "--json", "--quiet"], capture_output=True, text=True)
    if out.returncode == 2 and "--" in out.stderr:
        return "sprocket-solve does not accept --prec amg --amg-degree (" + out.stderr.strip().splitlines()[0] + ")"
    return None


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt_s(x):
    return "-" if x is None else f"{x:.3f}"


def summarize(runs):
    """Medians and the first run's counts of one setting's runs (all JSON objects of one side)."""
    if not runs:
        return None
    setup_key = "preconditioner_setup_seconds" if "preconditioner_setup_seconds" in runs[0] else "setup_seconds"
    setup = median([r.get(setup_key) for r in runs])
    solve = median([r.get("seconds") for r in runs])
    total = median([r.get(setup_key, 0) + r.get("seconds", 0) for r in runs])
    return {"setup": setup, "solve": solve, "total": total, "converged": all(r.get("converged") for r in runs),
            "first": runs[0], "runs": len(runs)}


def best(summaries):
    """The converged setting with the least median setup + solve: (name, summary) or (None, None)."""
    ok = [(name, s) for name, s in summaries.items() if s and s["converged"] and s["total"] is not None]
    if not ok:
        return None, None
    return min(ok, key=lambda kv: kv[1]["total"])


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
    p.add_argument("--repeats", type=int, default=None, help="runs per side, setting and problem, median reported "
                   "(default 3)")
    p.add_argument("--sweep", action="store_true", help="run all 3 settings of each side and compare the best of each")
    p.add_argument("--ranks", type=int, default=2, help="hypre's MPI ranks in the main table (default 2)")
    p.add_argument("--threads", type=int, default=None, help="our OpenMP threads in the main table (default: --ranks)")
    p.add_argument("--no-one-core", action="store_true", help="leave out the second table (1 thread against 1 rank)")
    p.add_argument("--bind", choices=["cores", "none"], default="cores",
                   help="cores: mpirun --bind-to core and OMP_PROC_BIND=close OMP_PLACES=cores; none: neither binds")
    p.add_argument("--mpirun", default=shutil.which("mpirun") or "", help="MPI launcher (default: mpirun on PATH)")
    p.add_argument("--out", default="", help="markdown file (default perf_tests/results/amg-vs-hypre-<date>.md)")
    a = p.parse_args()
    problems = a.problems or (QUICK_PROBLEMS if a.quick else PROBLEMS)
    repeats = a.repeats if a.repeats is not None else (1 if a.quick else 3)
    threads = a.threads if a.threads is not None else a.ranks
    if repeats < 1 or a.ranks < 1 or threads < 1:
        sys.exit("--repeats, --ranks and --threads must be >= 1")
    if not os.path.exists(a.hypre):
        sys.exit(f"{a.hypre} not found: build it (cmake --build <build> --target sprocket-hypre-amg; needs Debian's "
                 "libhypre-dev, see cmake/install-packages.sh)")
    if a.ranks > 1 and not a.mpirun:
        sys.exit("--ranks > 1 needs mpirun (Debian: openmpi-bin); --ranks 1 runs without it")

    ours_missing = probe_ours(a.solve)
    if ours_missing:
        print(f"NOTE: {ours_missing}: only the hypre side runs.", flush=True)

    ours_settings = OURS_SETTINGS if a.sweep else OURS_SETTINGS[:1]
    hypre_settings = HYPRE_SETTINGS if a.sweep else HYPRE_SETTINGS[:1]
    configs = [(threads, a.ranks)]
    if not a.no_one_core and (threads, a.ranks) != (1, 1):
        configs.append((1, 1))

    base_env = dict(os.environ)
    for k in ("OMP_PROC_BIND", "OMP_PLACES"):
        base_env.pop(k, None)
    if a.bind == "cores":
        bind_env = {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"}
    else:
        bind_env = {"OMP_PROC_BIND": "false"}

    started = time.gmtime()
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    hypre_version, notes, records, sections = "?", [], [], []
    mpirun_shown = {}
    for threads_c, ranks_c in configs:
        ours_env = dict(base_env, OMP_NUM_THREADS=str(threads_c), **bind_env)
        hypre_env = dict(base_env, OMP_NUM_THREADS="1")
        prefix = mpirun_prefix(a.mpirun, ranks_c, a.bind)
        mpirun_shown[ranks_c] = " ".join([os.path.basename(prefix[0])] + prefix[1:]) if prefix else "(none)"
        title = f"ours on {threads_c} thread{'s' if threads_c > 1 else ''}, hypre on {ranks_c} MPI rank" + \
                ("s" if ranks_c > 1 else "")
        print(f"## {title}", flush=True)
        rows, sweep_rows = [], []
        for spec in problems:
            mine = {name: [] for name, _ in ours_settings}
            theirs = {name: [] for name, _ in hypre_settings}
            mine_error, theirs_error = {}, {}
            if ours_missing:
                mine_error = {name: ours_missing for name, _ in ours_settings}
            for rep in range(repeats):
                # Interleaved: ours setting i, hypre setting i, ours setting i + 1, ...
                for i in range(max(len(ours_settings), len(hypre_settings))):
                    if i < len(ours_settings):
                        name, extra = ours_settings[i]
                        if name not in mine_error:
                            cmd = ours_cmd(a.solve, spec, extra)
                            j, why = run_json(cmd, ours_env)
                            if j is None:
                                mine_error[name] = why
                            else:
                                mine[name].append(j)
                                records.append({"side": "ours", "threads": threads_c, "setting": name,
                                                "repeat": rep, "command": cmd, "result": j})
                    if i < len(hypre_settings):
                        name, extra = hypre_settings[i]
                        if name not in theirs_error:
                            cmd = prefix + [a.hypre] + hypre_args(spec, extra)
                            j, why = run_json(cmd, hypre_env)
                            if j is None:
                                theirs_error[name] = why
                            else:
                                theirs[name].append(j)
                                hypre_version = j.get("hypre_version", hypre_version)
                                records.append({"side": "hypre", "ranks": ranks_c, "setting": name,
                                                "repeat": rep, "command": cmd, "result": j})
            for name, why in mine_error.items():
                if not ours_missing:
                    notes.append(f"{title}, {spec}, ours {name}: sprocket-solve failed: {why}")
            for name, why in theirs_error.items():
                notes.append(f"{title}, {spec}, hypre {name}: sprocket-hypre-amg failed: {why}")
            ours_sum = {name: summarize(mine[name]) for name, _ in ours_settings}
            hypre_sum = {name: summarize(theirs[name]) for name, _ in hypre_settings}
            # Every setting of each side (the sweep).
            for side, sums in (("ours", ours_sum), ("hypre", hypre_sum)):
                b_name, _ = best(sums)
                for name, s in sums.items():
                    if not s:
                        sweep_rows.append(f"| {spec} | {side} | {name} | - | - | - | - | - | - |")
                        continue
                    f = s["first"]
                    if side == "ours":
                        its = f"{f.get('iterations')} block"
                        hier = f"{f.get('levels', '-')} / {f.get('operator_complexity', float('nan')):.2f}"
                    else:
                        its = f"{'+'.join(str(i) for i in f['iterations_per_rhs'])} = {f['iterations_total']}"
                        hier = f"{f['levels']} / {f['operator_complexity']:.2f}"
                    mark = " **(best)**" if name == b_name and len(sums) > 1 else ""
                    sweep_rows.append(f"| {spec} | {side} | {name}{mark} | {its}" +
                                      ("" if s["converged"] else " (not converged)") +
                                      f" | {fmt_s(s['setup'])} | {fmt_s(s['solve'])} | {fmt_s(s['total'])} | "
                                      f"{hier} | {s['runs']} |")
            o_name, o = best(ours_sum)
            h_name, h = best(hypre_sum)
            any_h = next((s for s in hypre_sum.values() if s), None)
            if h is None and any_h is None:
                continue
            hf = (h or any_h)["first"]
            if o is not None:
                of = o["first"]
                o_its = of["iterations"]
                ours_cells = [o_name, f"{o_its} (x 4 vectors)", f"{o_its:.1f}",
                              fmt_s(o["setup"]), fmt_s(o["solve"]), fmt_s(o["total"]),
                              f"{of.get('levels', '-')} / {of.get('operator_complexity', float('nan')):.2f}"]
            else:
                ours_cells = ["-"] * 7
            if h is not None:
                per = h["first"]["iterations_per_rhs"]
                hypre_cells = [h_name, f"{'+'.join(str(i) for i in per)} = {sum(per)}", f"{sum(per) / len(per):.1f}",
                               fmt_s(h["setup"]), fmt_s(h["solve"]), fmt_s(h["total"]),
                               f"{hf['levels']} / {hf['operator_complexity']:.2f} / {hf['grid_complexity']:.2f}"]
            else:
                hypre_cells = ["none converged"] + ["-"] * 6
            ratio = f"{h['total'] / o['total']:.2f}" if o and h and o["total"] else "-"
            rows.append(f"| {spec} | {hf['rows']} / {hf['nnz']} | " + " | ".join(
                [ours_cells[0], hypre_cells[0], ours_cells[1], hypre_cells[1], ours_cells[2], hypre_cells[2],
                 ours_cells[3], hypre_cells[3], ours_cells[4], hypre_cells[4], ours_cells[5], hypre_cells[5], ratio,
                 ours_cells[6], hypre_cells[6]]) + " |")
            print(rows[-1], flush=True)
        sections.append((title, threads_c, ranks_c, rows, sweep_rows))

    load_after = os.getloadavg() if hasattr(os, "getloadavg") else None
    date = time.strftime("%Y-%m-%d", started)
    load = (f"load average {load_before[0]:.2f} at start, {load_after[0]:.2f} at end"
            if load_before and load_after else "load average unknown")
    bind_text = ("both bound to cores (mpirun --bind-to core; ours OMP_PROC_BIND=close OMP_PLACES=cores)"
                 if a.bind == "cores" else "neither bound (mpirun --bind-to none; ours OMP_PROC_BIND=false)")
    head = [
        "# Our smoothed-aggregation AMG against hypre's BoomerAMG",
        "",
        f"- Date: {time.strftime('%Y-%m-%d %H:%M UTC', started)}; machine: {platform.machine()}, "
        f"{os.cpu_count()} cores, {load}; hypre {hypre_version} (Debian: MPI, no OpenMP, so 1 thread per rank); "
        f"median of {repeats}, interleaved (per problem and repeat, the settings of the two sides alternate).",
        f"- Cores: {bind_text}. hypre started by `{mpirun_shown.get(a.ranks, '?')} sprocket-hypre-amg ...` "
        f"(--ranks {a.ranks}), each rank a contiguous block of whole nodes; ours with OMP_NUM_THREADS={threads}."
        + ("" if a.no_one_core or (threads, a.ranks) == (1, 1) else
           " Second table: ours OMP_NUM_THREADS=1 against hypre on 1 rank "
           f"(`{mpirun_shown.get(1, '?')} sprocket-hypre-amg ...`)."),
        "- Command: perf_tests/amg_vs_hypre.py" + (" --sweep" if a.sweep else "") +
        f" --repeats {repeats} --ranks {a.ranks} --threads {threads} --bind {a.bind} (its docstring says what is "
        "timed). Both: 4 right-hand sides B = A X*, zero initial guess, restart 30, relative tolerance 1e-8, "
        "true residuals checked.",
        "- Ours: block GMRES (block 4), `--prec amg` (smoothed aggregation, Chebyshev smoother), elasticity "
        "`--amg-nullspace rigid-body` (6 rigid-body modes). Settings: " +
        ", ".join(f"{n} (`{' '.join(e)}`)" for n, e in ours_settings) + ".",
        "- hypre: ParCSR GMRES per column, one BoomerAMG V-cycle per application, hypre's defaults (l1 hybrid "
        "Gauss-Seidel forward / backward, Gaussian elimination on the coarsest level) except `" +
        " ".join(HYPRE_COMMON) + "` (hypre's advice for 3-D problems) and the setting: " +
        ", ".join(f"{n} (`{' '.join(e)}`)" for n, e in hypre_settings) + ". Elasticity adds `--num-functions 3 " +
        " ".join(HYPRE_ELASTICITY) + "` (systems AMG, nodal coarsening, the 3 rigid-body rotations as GM-2 "
        "interpolation vectors: MFEM's elasticity options for BoomerAMG).",
        f"- Tuning budget: {len(ours_settings)} setting(s) per side"
        + (" (ours' Chebyshev degree 3 / 4 / 5, as in the sweep that chose degree 4; hypre's 3 settings above); "
           "the table compares each side's best (least median setup + solve); every setting is listed below it."
           if a.sweep else "; run with --sweep for 3 per side and the best of each."),
        "- Iterations: ours block iterations (each applies A and the V-cycle to all 4 vectors); hypre's per "
        "column (rhs 0 + 1 + 2 + 3 = sum). A-products per right-hand side: ours = block iterations (one product "
        "with each column per block iteration), hypre = mean iterations per column (start and restart residual "
        "products left out on both sides). Seconds: setup = the AMG hierarchy, solve = all 4 right-hand sides "
        "(hypre: the slowest rank), total = setup + solve; hypre / ours > 1: ours is faster.",
    ]
    if ours_missing:
        head.append(f"- **Ours did not run**: {ours_missing}.")
    body = []
    for title, _, _, rows, sweep_rows in sections:
        body += [
            "",
            f"## {title}",
            "",
            "| problem | rows / nnz | ours: setting | hypre: setting | ours: block iterations | hypre: iterations "
            "per column = sum | ours: A-products per RHS | hypre: A-products per RHS | ours: setup s | hypre: "
            "setup s | ours: solve s | hypre: solve s | ours: total s | hypre: total s | hypre / ours (total) | "
            "ours: levels / op. complexity | hypre: levels / op. / grid complexity |",
            "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ] + rows
        if len(ours_settings) > 1 or len(hypre_settings) > 1:
            body += [
                "",
                f"Every setting ({title}; median of {repeats}; best = least setup + solve among the converged):",
                "",
                "| problem | side | setting | iterations | setup s | solve s | total s | levels / op. complexity | "
                "runs |",
                "|---|---|---|---:|---:|---:|---:|---:|---:|",
            ] + sweep_rows
    text = "\n".join(head + body + ([""] + [f"- {n}" for n in notes] if notes else [])) + "\n"
    for n in notes:
        print("NOTE:", n)
    out = a.out
    if not out and not ours_missing:
        out = os.path.join(here, "results", f"amg-vs-hypre-{date}.md")
    if out:
        with open(out, "w") as f:
            f.write(text)
        raw = (out[:-3] if out.endswith(".md") else out) + ".jsonl"
        with open(raw, "w") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
        print(f"wrote {out} and {raw}")
    else:
        print(text)
        print("(no results file written: our side did not run; pass --out to write one anyway)")


if __name__ == "__main__":
    main()
