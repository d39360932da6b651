#!/usr/bin/env python3
"""One stretch of a kokkos_trace.cpp timeline, event by event, with the host time between events.

  trace_summary.py TRACE.tsv --start KIND:NAME [--end KIND:NAME] [--occurrence N]

The stretch starts at the N-th event (default -1: the last) whose kind and name match --start (a
name prefix, e.g. alloc:CudaSpace:Sprocket::spgemm::row_products) and ends at the next event
matching --end (default: the next --start). Prints each event at its offset from the start with
the gap since the previous event ended (the host's own work there: raw kernel launches, cudaMalloc
before an alloc event, cudaFree after a free event), then the time per kind and the count of
allocations, copies and fences.
"""
import argparse
import collections
import csv
import sys


def matches(event, spec):
    kind, _, name = spec.partition(":")
    return event["kind"] == kind and event["name"].startswith(name)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace")
    p.add_argument("--start", required=True)
    p.add_argument("--end")
    p.add_argument("--occurrence", type=int, default=-1)
    p.add_argument("--quiet", action="store_true", help="totals only")
    a = p.parse_args()
    with open(a.trace) as f:
        events = list(csv.DictReader(f, delimiter="\t"))
    for e in events:
        e["start"] = float(e["start_us"])
        e["duration"] = max(0.0, float(e["duration_us"]))
    starts = [i for i, e in enumerate(events) if matches(e, a.start)]
    if not starts:
        sys.exit(f"no event matches {a.start}")
    first = starts[a.occurrence]
    end_spec = a.end or a.start
    last = next((i for i in range(first + 1, len(events)) if matches(events[i], end_spec)), len(events) - 1)
    t0 = events[first]["start"]
    covered_until = t0
    per_kind = collections.defaultdict(float)
    counts = collections.Counter()
    gaps = 0.0
    for e in events[first : last + 1]:
        gap = max(0.0, e["start"] - covered_until)
        gaps += gap
        if e["kind"] != "region":
            per_kind[e["kind"]] += e["duration"]
            covered_until = max(covered_until, e["start"] + e["duration"])
        counts[e["kind"]] += 1
        if not a.quiet:
            print(f"{e['start'] - t0:10.1f} us  gap {gap:8.1f}  {e['kind']:9s} {e['duration']:8.1f}  {e['name'][:90]}"
                  + (f"  {int(e['bytes'])} B" if int(e["bytes"]) else ""))
    span = events[last]["start"] + events[last]["duration"] - t0
    print(f"\nspan {span:.1f} us from event {first} to {last}; gaps (host work between events) {gaps:.1f} us")
    for kind, t in sorted(per_kind.items(), key=lambda kv: -kv[1]):
        print(f"  {kind:9s} {t:10.1f} us  in {counts[kind]} events")
    for kind in ("alloc", "free", "region"):
        if counts[kind]:
            print(f"  {kind:9s} {counts[kind]} events")


if __name__ == "__main__":
    main()
