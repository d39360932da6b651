#!/usr/bin/python3
"""Reference eigenvalues for test_lobpcg: SciPy's eigsh (ARPACK) on Matrix Market files.

Usage: lobpcg_reference.py COUNT MATRIX.mtx[.gz] [MATRIX ...]
Prints, for every matrix, two lines of 17-digit values:
    <path> smallest v_1 ... v_COUNT      (ascending; shift-invert about 0, A must be nonsingular)
    <path> largest  v_1 ... v_COUNT      (descending)
Exits non-zero (with the reason on stderr) when numpy/scipy are missing or a file is unreadable,
so the calling test fails instead of skipping.
"""
import gzip
import sys

try:
    import numpy as np
    import scipy.io
    import scipy.sparse.linalg as sla
except ImportError as error:  # the test must fail, not skip
    sys.stderr.write("lobpcg_reference.py: %s (install python3-scipy)\n" % error)
    sys.exit(2)


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return scipy.io.mmread(f).tocsc().astype(np.float64)


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    count = int(sys.argv[1])
    for path in sys.argv[2:]:
        A = read(path)
        # Fixed start vector: the reference is the same on every run.
        v0 = np.linspace(1.0, 2.0, A.shape[0])
        # Shift-invert about 0 converges in a few steps for the smallest of an SPD matrix and
        # solves with a sparse LU, accurate to the last digits for these matrices.
        smallest = np.sort(sla.eigsh(A, k=count, sigma=0, which="LM", v0=v0, return_eigenvectors=False))
        largest = np.sort(sla.eigsh(A, k=count, which="LA", v0=v0, ncv=max(4 * count, 40),
                                    return_eigenvectors=False))[::-1]
        print(path, "smallest", " ".join("%.17g" % v for v in smallest))
        print(path, "largest", " ".join("%.17g" % v for v in largest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
