#!/bin/sh
# Ours against the host peers (default mkl,kk) in both regimes, optionally beside a busy core:
# perf_tests/host_compare.py does the work (perf_tests/README.md, "A benchmark that favours no one").
# Every option is passed on, e.g. perf_tests/host_compare.sh --kernels spmv --neighbour busy.
# Two OpenMP threads unless the caller says otherwise.
here=$(dirname "$0")
OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} exec /usr/bin/python3 "$here/host_compare.py" "$@"
