#!/usr/bin/env python3
"""The slowest translation units of Sprocket's build trees, from Ninja's own log (.ninja_log).

Every build tree that cmake/sprocket-build.sh configures (build/host, build/cuda, build/sanitize,
build/trilinos) is a Ninja tree; Ninja records, for every output it built, when its command started
and ended. This prints, per tree, the objects of the latest build of each, slowest first, with their
seconds, and the sum of all of them (CPU-side seconds of compiling, not the wall time of a parallel
build).

Usage: /usr/bin/python3 tools/build_times.py [--top N] [--json] [--min-seconds S] [build/host ...]
       (make build-times: every tree under build/ that has a .ninja_log)
Exit status 1 where a tree named on the command line has no .ninja_log.
"""
import argparse
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_ninja_log(path):
    """{output: seconds} of the latest entry of each output (Ninja appends; later lines win)."""
    times = {}
    with open(path) as f:
        header = f.readline()
        if not header.startswith("# ninja log v"):
            raise ValueError(f"{path}: not a Ninja log (first line {header.strip()!r})")
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 4 or line.startswith("#"):
                continue
            start_ms, end_ms, output = int(fields[0]), int(fields[1]), fields[3]
            times[output] = (end_ms - start_ms) / 1000.0
    return times


def source_of(output):
    """(source, target) of a CMake object: <dir>/CMakeFiles/<target>.dir/<path>.o -> (<path>, <target>)."""
    if "CMakeFiles/" not in output:
        return output, ""
    target, _, rest = output.split("CMakeFiles/", 1)[1].partition(".dir/")
    return rest[:-2] if rest.endswith(".o") else rest, target


def report(tree, top, min_seconds):
    log = os.path.join(tree, ".ninja_log")
    times = read_ninja_log(log)
    objects = {o: s for o, s in times.items() if o.endswith(".o")}
    others = {o: s for o, s in times.items() if not o.endswith(".o")}
    rows = sorted(objects.items(), key=lambda kv: -kv[1])
    return {
        "tree": os.path.relpath(tree, ROOT) if tree.startswith(ROOT) else tree,
        "objects": len(objects),
        "object_seconds": round(sum(objects.values()), 1),
        "link_and_other_seconds": round(sum(others.values()), 1),
        "slowest": [dict(zip(("seconds", "source", "target"), (round(s, 1), *source_of(o))))
                    for o, s in rows[:top] if s >= min_seconds],
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trees", nargs="*", help="build trees (default: every build/* with a .ninja_log)")
    p.add_argument("--top", type=int, default=15, help="objects listed per tree (default 15)")
    p.add_argument("--min-seconds", type=float, default=0.0, help="leave out objects faster than this")
    p.add_argument("--json", action="store_true", help="one JSON object per tree")
    args = p.parse_args()
    named = bool(args.trees)
    trees = args.trees or sorted(os.path.dirname(log) for log in glob.glob(os.path.join(ROOT, "build", "*", ".ninja_log")))
    if not trees:
        print("build-times: no build tree with a .ninja_log under build/ (cmake/sprocket-build.sh configures Ninja "
              "trees; a tree configured before that has none: make test or make cuda-compile-check rebuilds it)",
              file=sys.stderr)
        return 1
    status = 0
    for tree in trees:
        if not os.path.isfile(os.path.join(tree, ".ninja_log")):
            print(f"build-times: {tree}: no .ninja_log (not a Ninja build tree, or never built)", file=sys.stderr)
            status = 1 if named else status
            continue
        try:
            r = report(os.path.abspath(tree), args.top, args.min_seconds)
        except ValueError as e:
            print(f"build-times: {e}", file=sys.stderr)
            status = 1
            continue
        if args.json:
            print(json.dumps(r))
            continue
        print(f"{r['tree']}: {r['objects']} objects, {r['object_seconds']:.0f} s of compiling in all "
              f"(+{r['link_and_other_seconds']:.0f} s linking and other steps); slowest:")
        width = max([len(x["source"]) for x in r["slowest"]] + [6])
        for x in r["slowest"]:
            print(f"  {x['seconds']:8.1f} s  {x['source']:<{width}}  ({x['target']})")
        print()
    return status


if __name__ == "__main__":
    sys.exit(main())
