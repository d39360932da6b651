#!/usr/bin/env python3
"""tools/build_times.py on a made-up .ninja_log: the latest entry of each output counts, objects are
sorted slowest first and named by their source, and a tree without a log is an error."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "build_times.py")

LOG = """# ninja log v5
0\t4000\t0\timpl/CMakeFiles/sprocket.dir/spmv/spmv_analysis.cpp.o\tabc
0\t90000\t0\tunit_tests/CMakeFiles/test_spmm.dir/spmm/test_spmm.cpp.o\tdef
100\t2100\t0\tbin/test_spmm\t123
0\t300000\t0\tperf_tests/CMakeFiles/sprocket-bench.dir/bench_spmm.cpp.o\tghi
5000\t6000\t0\timpl/CMakeFiles/sprocket.dir/spmv/spmv_analysis.cpp.o\tjkl
"""


def run(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)


class BuildTimes(unittest.TestCase):
    def test_slowest_first_latest_entry_wins(self):
        with tempfile.TemporaryDirectory() as tree:
            with open(os.path.join(tree, ".ninja_log"), "w") as f:
                f.write(LOG)
            r = run("--json", tree)
            self.assertEqual(r.returncode, 0, r.stderr)
            report = json.loads(r.stdout)
            self.assertEqual(report["objects"], 3)
            self.assertEqual([x["source"] for x in report["slowest"]],
                             ["bench_spmm.cpp", "spmm/test_spmm.cpp", "spmv/spmv_analysis.cpp"])
            self.assertEqual([x["seconds"] for x in report["slowest"]], [300.0, 90.0, 1.0])
            self.assertEqual(report["slowest"][0]["target"], "sprocket-bench")
            self.assertEqual(report["object_seconds"], 391.0)
            self.assertEqual(report["link_and_other_seconds"], 2.0)
            text = run("--top", "1", tree)
            self.assertEqual(text.returncode, 0, text.stderr)
            self.assertIn("300.0 s  bench_spmm.cpp", text.stdout)
            self.assertNotIn("test_spmm.cpp", text.stdout)

    def test_a_tree_without_a_log_is_an_error(self):
        with tempfile.TemporaryDirectory() as tree:
            r = run(tree)
            self.assertEqual(r.returncode, 1)
            self.assertIn("no .ninja_log", r.stderr)

    def test_not_a_ninja_log(self):
        with tempfile.TemporaryDirectory() as tree:
            with open(os.path.join(tree, ".ninja_log"), "w") as f:
                f.write("hello\n")
            r = run(tree)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("not a Ninja log", r.stderr)


if __name__ == "__main__":
    unittest.main()
