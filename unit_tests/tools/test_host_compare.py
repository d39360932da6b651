#!/usr/bin/env python3
"""perf_tests/host_compare.py --quick on the built sprocket-bench: both regimes and, asked for, the
busy-neighbour tables beside the quiet ones; a geomean per peer; every line of the .jsonl with the
run, regime and neighbour it came from; a peer the bench was not built with (mkl, until it is)
dropped with a note; a failed --check reported as a failure and never in a ratio.

Usage: test_host_compare.py <sprocket-bench>"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DRIVER = os.path.join(ROOT, "perf_tests", "host_compare.py")
BENCH = None


def run(out_dir, *args, env=None):
    environment = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
    environment.pop("SPROCKET_BENCH_CORRUPT", None)
    environment.update(env or {})
    return subprocess.run([sys.executable, DRIVER, "--bench", BENCH, "--quick", "--out-dir", out_dir,
                           "--date", "2000-01-01", "--process-timeout", "120", *args], capture_output=True, text=True, env=environment,
                          timeout=300)


def outputs(out_dir):
    stem = os.path.join(out_dir, "host-compare-2000-01-01-quick")
    with open(stem + ".md") as f:
        md = f.read()
    with open(stem + ".jsonl") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return md, rows


def spinning_neighbours():
    """Processes running the driver's busy loop (none should outlive the bench process it sat beside)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"while :; do :; done" in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def bench_offers(kernel, peer):
    help_text = subprocess.run([BENCH, "--help"], capture_output=True, text=True).stdout
    block = help_text[help_text.find(f"\n  {kernel}: "):]
    line = block[block.find("peers: "):].split("\n", 1)[0]
    return f" {peer}" in line and f"{peer} (not in this build)" not in line


class HostCompare(unittest.TestCase):
    def test_both_regimes_quiet_and_busy(self):
        with tempfile.TemporaryDirectory() as out_dir:
            r = run(out_dir, "--kernels", "spmv,bsr", "--peers", "mkl,kk", "--neighbour", "busy")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(spinning_neighbours(), [], "a busy neighbour outlived the driver")
            md, rows = outputs(out_dir)
            for kernel in ("spmv", "bsr"):
                for section in ("in cache, quiet", "memory-bound, quiet", "in cache, busy neighbour",
                                "memory-bound, busy neighbour"):
                    self.assertIn(f"## {kernel}, {section}", md)
            # Quiet before busy within each kernel (the two side by side).
            self.assertLess(md.find("## spmv, in cache, quiet"), md.find("## spmv, in cache, busy neighbour"))
            self.assertEqual(md.count("- **kk**: geomean "), 8, md)
            self.assertNotIn("- **kk**: geomean -", md)
            self.assertIn("worst case ", md)
            with_mkl = bench_offers("spmv", "mkl")
            first = "mkl / ours | ours GB/s | mkl GB/s | ours of triad | mkl of triad | " if with_mkl else ""
            self.assertIn(f"| case | A MB | {first}kk / ours | ours GB/s | kk GB/s | ours of triad | kk of triad |", md)
            if with_mkl:
                self.assertEqual(md.count("- **mkl**: geomean "), 8, md)
                self.assertIn("- mkl: peer_version Intel(R) Math Kernel Library", md)
            for header in ("Machine: ", "Caches: ", "last-level cache used for sizing", "STREAM triad (quiet",
                           "STREAM triad (busy", "- kk: peer_version ", "peer_code_path "):
                self.assertIn(header, md)
            if not with_mkl:
                self.assertIn("- mkl: not in this build of sprocket-bench (its --help), dropped from spmv, bsr", md)
            # Every line says where it came from; every matrix line carries the roof; one run.
            self.assertTrue(rows)
            for row in rows:
                self.assertEqual(row["run"], 1)
                self.assertIn(row["regime"], ("cache", "memory"))
                self.assertIn(row["neighbour"], ("quiet", "busy"))
                if row["kernel"] != "stream":
                    for key in ("bytes", "gbps", "stream_fraction"):
                        self.assertIn(key, row, row)
                    self.assertEqual(row["order"], "rotated", row)
                    self.assertTrue(row["check"], row)
            for regime in ("cache", "memory"):
                for neighbour in ("quiet", "busy"):
                    self.assertTrue(any(r["kernel"] == "spmv" and r["impl"] == "kk" and r["regime"] == regime
                                        and r["neighbour"] == neighbour for r in rows), (regime, neighbour))
                    self.assertTrue(any(r["kernel"] == "stream" and r["variant"] == "triad" and r["regime"] == regime
                                        and r["neighbour"] == neighbour for r in rows), (regime, neighbour))

    def test_quiet_only_and_a_failed_check_is_no_ratio(self):
        with tempfile.TemporaryDirectory() as out_dir:
            r = run(out_dir, "--kernels", "spmv", "--peers", "kk", "--regimes", "cache",
                    env={"SPROCKET_BENCH_CORRUPT": "kk"})
            self.assertEqual(r.returncode, 1, r.stderr)
            md, rows = outputs(out_dir)
            self.assertIn("## spmv, in cache, quiet", md)
            self.assertNotIn("busy neighbour", md)
            self.assertNotIn("memory-bound, quiet", md)
            self.assertIn("check FAILED: kk default on ", md)
            self.assertIn("| FAIL |", md)
            self.assertIn("- **kk**: geomean - (no ratio", md)
            self.assertIn("SPROCKET_BENCH_CORRUPT=kk", md)
            self.assertTrue(any(row["impl"] == "kk" and row["check"] is False for row in rows))
            self.assertFalse(any("ratio_vs_kk" in row for row in rows))


if __name__ == "__main__":
    BENCH = os.path.abspath(sys.argv.pop(1))
    unittest.main()
