#!/usr/bin/env python3
"""Every test ctest knows in a build tree runs under a TIMEOUT of its own (a positive number of
seconds), so a hung test fails its run instead of holding CI to its limit.

usage: test_ctest_timeouts.py CTEST BUILD_DIR"""
import json
import subprocess
import sys


def main():
    ctest, build = sys.argv[1], sys.argv[2]
    listing = subprocess.run([ctest, "--show-only=json-v1"], cwd=build, capture_output=True, text=True, check=True)
    tests = json.loads(listing.stdout)["tests"]
    if not tests:
        print("no tests listed in " + build)
        return 1
    missing = []
    for test in tests:
        timeout = next((p["value"] for p in test.get("properties", []) if p["name"] == "TIMEOUT"), None)
        if not isinstance(timeout, (int, float)) or timeout <= 0:
            missing.append(test["name"])
    if missing:
        print("tests without a TIMEOUT (sprocket_default_test_timeouts() not called in their directory?): " +
              ", ".join(missing))
        return 1
    print("%d tests, each with a TIMEOUT" % len(tests))
    return 0


if __name__ == "__main__":
    sys.exit(main())
