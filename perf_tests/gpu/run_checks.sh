#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: unpack .device/bundle.tar.xz (perf_tests/gpu/pack_bundle.sh),
# run the CUDA configuration's tests, then the GPU benchmarks against cuSPARSE and Kokkos Kernels,
# every variant forced, the SpMV model training and SpMM calibration on this card, and Nsight
# Compute on the kernels sprocket-cuda-profile models (perf_tests/gpu/ncu_compare.py puts its
# counts beside the tool's on the development machine).
# Everything is logged under the results folder as it goes, so a run stopped at a time limit still
# leaves what it finished.
#   perf_tests/gpu/run_checks.sh <results-dir> [stages] [ctest -R regex]
# stages: comma-separated tests, sanitize, bench, variants, peers (SpGEMM with each peer alone,
# under compute-sanitizer), train, ncu, trace (where a full SpGEMM spends its time: the host's
# Kokkos events and every kernel's GPU time), run in the order given
# (default tests,bench,variants,ncu,train,sanitize): when time runs short the budget cuts the last
# ones. SPROCKET_GPU_BUDGET_S (default 420) bounds the whole run: each later step
# is cut to what is left, and skipped under 15 s. SPROCKET_GPU_KERNELS (comma-separated, e.g.
# spgemm,spmv; default all) limits the bench and variants stages to those kernels' runs.
set -uo pipefail
START=$SECONDS
BUDGET="${SPROCKET_GPU_BUDGET_S:-420}"
left() { echo $(( BUDGET - (SECONDS - START) )); }
# within <seconds> cmd...: run with a timeout of min(seconds, time left - 5); 124 when skipped.
within() {
  local want="$1"; shift
  local l; l=$(( $(left) - 5 ))
  (( l < 15 )) && { log "skipped (budget): $*"; return 124; }
  (( want > l )) && want=$l
  timeout "$want" "$@"
}
OUTDIR="${1:?usage: run_checks.sh <results-dir> [stages] [ctest-regex]}"
WHAT=",${2:-tests,bench,variants,ncu,train,sanitize},"
TEST_REGEX="${3:-}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# Logs gather in a scratch folder; the results folder gets summary.txt and results.tar.gz (all logs)
# when the run ends, also when a step fails.
RESULTS=/tmp/sprocket-gpu-results
rm -rf "$RESULTS" && mkdir -p "$RESULTS" "$OUTDIR"
finish() { cp "$RESULTS/summary.txt" "$OUTDIR/" 2>/dev/null; tar -C "$RESULTS" -czf "$OUTDIR/results.tar.gz" .; }
trap finish EXIT
log() { echo "[$(date +%T)] $*" | tee -a "$RESULTS/summary.txt"; }
# wanted <kernel>: whether SPROCKET_GPU_KERNELS asks for that kernel's runs (unset: every kernel).
wanted() { [[ -z "${SPROCKET_GPU_KERNELS:-}" || ",$SPROCKET_GPU_KERNELS," == *",$1,"* ]]; }

BUNDLE=/tmp/sprocket-bundle
if [[ ! -d "$BUNDLE" ]]; then
  mkdir -p "$BUNDLE"
  if command -v xz >/dev/null; then
    xz -dc -T0 "$ROOT/.device/bundle.tar.xz" | tar -C "$BUNDLE" -xf - || { log "unpack failed"; exit 1; }
  else
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1], "r:xz").extractall(sys.argv[2])' \
      "$ROOT/.device/bundle.tar.xz" "$BUNDLE" || { log "unpack failed"; exit 1; }
  fi
fi
# ctest's files and the tests name the paths of the machine that built them (/work/main, its
# ../shared): make those paths lead here.
BUILT_ROOT="$(sed -n 's/^# Source directory: //p' "$BUNDLE/build/cuda/CTestTestfile.cmake")"
if [[ "$ROOT" != "$BUILT_ROOT" ]]; then
  mkdir -p "$(dirname "$BUILT_ROOT")"
  [[ -e "$BUILT_ROOT" ]] || ln -s "$ROOT" "$BUILT_ROOT"
fi
[[ -e "$(dirname "$BUILT_ROOT")/shared" ]] || ln -s "$BUNDLE/shared" "$(dirname "$BUILT_ROOT")/shared"
# A real build tree (CMakeCache.txt: the machine that built it) is used as it is.
mkdir -p "$ROOT/build"
if [[ ! -e "$ROOT/build/cuda/CMakeCache.txt" ]]; then
  rm -rf "$ROOT/build/cuda" && cp -r "$BUNDLE/build/cuda" "$ROOT/build/cuda"
fi
BIN="$ROOT/build/cuda/bin"

# CUDA libraries (cudart, cuSPARSE): the toolkit's, else the Python wheels'.
cuda_libs=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib; do
  [[ -d "$d" ]] && ls "$d"/libcusparse.so.* >/dev/null 2>&1 && cuda_libs="$cuda_libs:$d"
done
if [[ -z "$cuda_libs" ]]; then
  for f in $(find / -xdev \( -name 'libcusparse.so.*' -o -name 'libcudart.so.*' \) 2>/dev/null | head -6); do
    cuda_libs="$cuda_libs:$(dirname "$f")"
  done
fi
export LD_LIBRARY_PATH="$BUNDLE/lib$cuda_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMP_PROC_BIND=spread OMP_PLACES=threads
{
  date -u; uname -a; nvidia-smi; nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,clocks.mem,power.limit,driver_version --format=csv
  nproc; lscpu | sed -n '1,20p'; echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  for exe in "$BIN"/*; do ldd "$exe" | grep 'not found' | sed "s|^|$(basename "$exe"): |"; done
} > "$RESULTS/machine.txt" 2>&1
log "machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1), $(nproc) cores"
grep '=> not found' "$RESULTS/machine.txt" | head -5 | while read -r l; do log "missing: $l"; done

stage_tests() {
  # The install consumer needs the Kokkos prefix and the hypre peer libHYPRE: neither is here.
  # Several test processes share the GPU; OpenMP threads split the cores between them.
  cd "$ROOT/build/cuda"
  args=(-j 6 --timeout 150 --output-on-failure -E 'install|hypre')
  [[ -n "$TEST_REGEX" ]] && args+=(-R "$TEST_REGEX")
  log "ctest ${args[*]}"
  OMP_NUM_THREADS=2 within "${SPROCKET_CTEST_S:-170}" ctest "${args[@]}" > "$RESULTS/ctest.log" 2>&1
  log "ctest rc=$?: $(grep -E 'tests passed|tests failed' "$RESULTS/ctest.log")"
  grep -E '^\s+[0-9]+ - ' "$RESULTS/ctest.log" | tee -a "$RESULTS/summary.txt"
  cd "$ROOT"
}

# Real matrices (../shared/matrices beside the checkout that built the bundle, linked above):
# bcsstk16 (structural, 4884 rows, 290k entries) and crystm01 (FEM mass matrix, 105k entries).
REAL="$(dirname "$BUILT_ROOT")/shared/matrices"
REAL_MATRICES=(--matrix "$REAL/bcsstk16.mtx.gz" --matrix "$REAL/crystm01.mtx.gz")
stage_bench() {
  B="$BIN/sprocket-bench"
  bench() {  # bench <name> <seconds> args...
    local name="$1" secs="$2"; shift 2
    wanted "$name" || return 0
    log "bench $name"
    within "$secs" "$B" --json "$@" > "$RESULTS/bench-$name.jsonl" 2> "$RESULTS/bench-$name.err"
    log "bench $name rc=$? lines=$(wc -l < "$RESULTS/bench-$name.jsonl")"
  }
  export OMP_NUM_THREADS=16
  bench stream 20 --kernel stream --repeat 20
  # indices_off beside auto: the automatic schedule on A's own column indices against the plan's
  # compressed copy (row patterns or 16-bit offsets), which the CUDA target reads since 2026-11-30.
  bench spmv 75 --kernel spmv --variant auto,indices_off --compare kk,cusparse --check --repeat 30 --stream \
    --matrix gen:rmat:scale=20,ef=16 --matrix gen:poisson3d:n=128 --matrix gen:elasticity:n=50,dof=3 "${REAL_MATRICES[@]}"
  bench spmm 50 --kernel spmm --compare kk,cusparse --check --repeat 20 --k 32,128 --layout both \
    --matrix gen:rmat:scale=18,ef=16 --matrix gen:poisson3d:n=80 "${REAL_MATRICES[@]}"
  # auto beside hash: the numeric re-run by position against the accumulators' re-run.
  bench spgemm 60 --kernel spgemm --variant auto,hash --compare kk,cusparse --check --repeat 10 \
    --matrix gen:rmat:scale=16,ef=8 --matrix gen:poisson3d:n=50 --matrix gen:elasticity:n=20,dof=3 "${REAL_MATRICES[@]}"
  bench sddmm 30 --kernel sddmm --compare kokkos_team,cusparse --check --repeat 20 --k 32,128 \
    --matrix gen:rmat:scale=18,ef=16 --matrix gen:poisson3d:n=80
  bench bsr 30 --kernel bsr --compare kk,csr,cusparse --check --repeat 30 \
    --matrix gen:elasticity:n=50,dof=3 --matrix gen:elasticity:n=30,dof=6
  wanted solve || return 0
  log "solver demo"
  for args in "--prec jacobi" "--prec amg" "--solver lobpcg --nev 4 --prec amg"; do
    within 20 "$BIN/sprocket-solve" --matrix gen:poisson3d:n=64 $args --json >> "$RESULTS/solve.jsonl" 2>> "$RESULTS/solve.err"
    log "sprocket-solve $args rc=$?"
  done
}
stage_variants() {
  # Every forced variant next to the automatic choice and cuSPARSE, on every kernel.
  B="$BIN/sprocket-bench"
  export OMP_NUM_THREADS=16
  variants() {  # variants <kernel>[-<run>] <seconds> args...
    local name="$1" k="${1%%-*}" secs="$2"; shift 2
    wanted "$name" || return 0
    log "variants $name"
    within "$secs" "$B" --json --kernel "$k" --variant all --compare cusparse --check "$@" \
      > "$RESULTS/bench-variants-$name.jsonl" 2> "$RESULTS/bench-variants-$name.err"
    log "variants $name rc=$? lines=$(wc -l < "$RESULTS/bench-variants-$name.jsonl")"
  }
  variants spmv 75 --repeat 20 --matrix gen:rmat:scale=20,ef=16 --matrix gen:poisson3d:n=128 \
    --matrix gen:elasticity:n=50,dof=3
  variants spmm 80 --repeat 10 --k 32,128 --layout both --matrix gen:rmat:scale=18,ef=16 --matrix gen:poisson3d:n=80
  # Row-major B on the regular and real matrices, where csr_rows trailed cuSPARSE (H200, 2026-11-28).
  variants spmm-right 60 --repeat 10 --k 32,128 --layout right --matrix gen:poisson3d:n=80 "${REAL_MATRICES[@]}"
  variants sddmm 40 --repeat 10 --k 32 --matrix gen:rmat:scale=18,ef=16 --matrix gen:poisson3d:n=80
  variants bsr 30 --repeat 20 --matrix gen:elasticity:n=50,dof=3 --matrix gen:elasticity:n=30,dof=6
  variants spgemm 50 --repeat 5 --matrix gen:rmat:scale=16,ef=8 --matrix gen:poisson3d:n=50
}

stage_peers() {
  # SpGEMM with each peer alone, so that a fault names its owner (the 2026-11-28 H200 run: an
  # illegal address in the spgemm bench with every peer, found at the kk peer's synchronization):
  # under compute-sanitizer memcheck on a small matrix, then plainly on the bench's R-MAT.
  local B="$BIN/sprocket-bench" CS
  CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
  export OMP_NUM_THREADS=16
  for peer in none kk cusparse; do
    local compare=()
    [[ "$peer" != none ]] && compare=(--compare "$peer")
    if [[ -x "$CS" ]]; then
      within 40 "$CS" --tool memcheck --print-limit 5 "$B" --json --kernel spgemm "${compare[@]}" --check --repeat 1 \
        --matrix gen:rmat:scale=11,ef=8 > "$RESULTS/peers-spgemm-$peer-memcheck.log" 2>&1
      log "spgemm $peer memcheck rc=$?: $(grep -E 'ERROR SUMMARY' "$RESULTS/peers-spgemm-$peer-memcheck.log" | head -1)"
      grep -m3 -E 'Invalid|at 0x|by thread' "$RESULTS/peers-spgemm-$peer-memcheck.log" | cut -c1-200 | tee -a "$RESULTS/summary.txt"
    fi
    within 30 "$B" --json --kernel spgemm "${compare[@]}" --check --repeat 5 --matrix gen:rmat:scale=16,ef=8 \
      > "$RESULTS/peers-spgemm-$peer.jsonl" 2> "$RESULTS/peers-spgemm-$peer.err"
    log "spgemm $peer rc=$? lines=$(wc -l < "$RESULTS/peers-spgemm-$peer.jsonl") $(grep -m1 -o 'illegal[^/]*' "$RESULTS/peers-spgemm-$peer.err")"
  done
}

stage_ncu() {
  # Nsight Compute on one apply of every case sprocket-cuda-profile models: per launch of our
  # kernels, global requests and sectors (loads, stores, atomics), shared-memory wavefronts and
  # bank conflicts, occupancy, registers and time (clocks left as the card runs them, as the
  # benchmarks see them). Each case runs the automatic variant once after
  # one warm-up; ncu_compare.py takes the last apply's launches.
  NCU="$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)"
  if [[ -z "$NCU" || ! -x "$NCU" ]]; then
    log "ncu: not on this machine, skipped"
  else
    metrics=gpu__time_duration.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
    metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
    metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum
    metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
    metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
    metrics+=,dram__bytes_read.sum,lts__t_sectors_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active
    metrics+=,sm__maximum_warps_per_active_cycle_pct,launch__registers_per_thread,launch__grid_size,launch__block_size
    ncu_case() {  # ncu_case <name> <seconds> bench-args...
      local name="$1" secs="$2"; shift 2
      OMP_NUM_THREADS=16 within "$secs" "$NCU" --clock-control none --csv --page raw --metrics "$metrics" \
        --kernel-name "regex:(spmv|bsr|spmm|sddmm|spgemm|aspt)_" "$BIN/sprocket-bench" --repeat 1 --warmup 1 "$@" \
        > "$RESULTS/ncu-$name.csv" 2> "$RESULTS/ncu-$name.err"
      log "ncu $name rc=$? rows=$(grep -c '^"' "$RESULTS/ncu-$name.csv")"
      echo "$name $*" >> "$RESULTS/ncu-cases.txt"
    }
    ncu_case spmv-rmat20 40 --kernel spmv --matrix gen:rmat:scale=20,ef=16
    ncu_case spmv-poisson128 25 --kernel spmv --matrix gen:poisson3d:n=128
    ncu_case spmm-rmat18-k32-right 40 --kernel spmm --k 32 --layout right --matrix gen:rmat:scale=18,ef=16
    ncu_case spmm-rmat18-k32-left 40 --kernel spmm --k 32 --layout left --matrix gen:rmat:scale=18,ef=16
    ncu_case spmm-poisson80-k32-right 25 --kernel spmm --k 32 --layout right --matrix gen:poisson3d:n=80
    ncu_case sddmm-poisson80-k32 25 --kernel sddmm --k 32 --matrix gen:poisson3d:n=80
    ncu_case bsr-elasticity50 25 --kernel bsr --matrix gen:elasticity:n=50,dof=3
    # kk alone as the peer (skipped on compute capability 9): the default peers include GraphBLAS,
    # which the bundle carries as a stand-in that cannot run.
    ncu_case spgemm-poisson50 40 --kernel spgemm --compare kk --matrix gen:poisson3d:n=50
  fi
}

stage_trace() {
  # Where a full SpGEMM product spends its wall time: the host's timeline of Kokkos events
  # (perf_tests/gpu/kokkos_trace.cpp: allocations, read-backs, fences, Kokkos launches) and every
  # kernel's GPU time under Nsight Compute, ours and cuSPARSE's, for one product per matrix. Then
  # SpMV on R-MAT beside cuSPARSE's kernel under the same counters.
  local B="$BIN/sprocket-bench" so="$RESULTS/libkokkos_trace.so"
  export OMP_NUM_THREADS=16
  if ! { c++ -std=c++17 -O2 -shared -fPIC -o "$so" "$ROOT/perf_tests/gpu/kokkos_trace.cpp" 2> "$RESULTS/trace-build.log" ||
         nvcc -std=c++17 -O2 -shared -Xcompiler -fPIC -o "$so" "$ROOT/perf_tests/gpu/kokkos_trace.cpp" >> "$RESULTS/trace-build.log" 2>&1; }; then
    log "trace: the tool did not build: $(tail -1 "$RESULTS/trace-build.log")"
    return 0
  fi
  local cases=(poisson50 gen:poisson3d:n=50 elasticity20 gen:elasticity:n=20,dof=3 bcsstk16 "$REAL/bcsstk16.mtx.gz"
               crystm01 "$REAL/crystm01.mtx.gz")
  for ((i = 0; i < ${#cases[@]}; i += 2)); do
    local name="${cases[i]}" matrix="${cases[i+1]}"
    KOKKOS_PROFILE_LIBRARY="$so" SPROCKET_TRACE_FILE="$RESULTS/trace-spgemm-$name.tsv" within 30 "$B" --json \
      --kernel spgemm --compare cusparse --repeat 3 --warmup 1 --matrix "$matrix" \
      > "$RESULTS/trace-spgemm-$name.jsonl" 2> "$RESULTS/trace-spgemm-$name.err"
    log "trace spgemm $name rc=$?"
    # Occurrence 2: the plan the bench builds to describe its choice is 0, the warm-up product 1.
    python3 "$ROOT/perf_tests/gpu/trace_summary.py" "$RESULTS/trace-spgemm-$name.tsv" --occurrence 2 \
      --start alloc:Cuda:Sprocket::spgemm::row_products --end free:Cuda:Sprocket::spgemm::row_products \
      > "$RESULTS/trace-spgemm-$name.txt" 2>&1
    tail -8 "$RESULTS/trace-spgemm-$name.txt" | tee -a "$RESULTS/summary.txt"
  done
  NCU="$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)"
  [[ -n "$NCU" && -x "$NCU" ]] || { log "ncu: not on this machine"; return 0; }
  local m=gpu__time_duration.sum,launch__grid_size,launch__block_size,dram__bytes_read.sum,dram__bytes_write.sum
  m+=,lts__t_sectors_op_read.sum,lts__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  m+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active
  for ((i = 0; i < 4; i += 2)); do
    within 60 "$NCU" --clock-control none --csv --page raw --metrics "$m" "$B" --kernel spgemm --compare cusparse \
      --repeat 1 --warmup 0 --matrix "${cases[i+1]}" > "$RESULTS/ncu-timeline-spgemm-${cases[i]}.csv" \
      2> "$RESULTS/ncu-timeline-spgemm-${cases[i]}.err"
    log "ncu timeline spgemm ${cases[i]} rc=$? rows=$(grep -c '^"' "$RESULTS/ncu-timeline-spgemm-${cases[i]}.csv")"
  done
  within 60 "$NCU" --clock-control none --csv --page raw --metrics "$m" "$B" --kernel spmv --compare cusparse \
    --repeat 1 --warmup 0 --matrix gen:rmat:scale=20,ef=16 > "$RESULTS/ncu-timeline-spmv-rmat20.csv" \
    2> "$RESULTS/ncu-timeline-spmv-rmat20.err"
  log "ncu timeline spmv rmat20 rc=$? rows=$(grep -c '^"' "$RESULTS/ncu-timeline-spmv-rmat20.csv")"
}

stage_train() {
  # The GPU choice rules on this card: the SpMV decision tree (quick training set) and the SpMM
  # tiling defaults. The generated files come back for a session to review and commit.
  export OMP_NUM_THREADS=16
  log "spmv-train"
  within 120 "$BIN/spmv-train" --target gpu --quick --output "$RESULTS/spmv_model_gpu_generated.cpp" \
    > "$RESULTS/spmv-train.log" 2>&1
  log "spmv-train rc=$?"
  log "spmm-calibrate"
  within 120 "$BIN/spmm-calibrate" --target cuda --output "$RESULTS/spmm_defaults_generated.hpp" \
    > "$RESULTS/spmm-calibrate.log" 2>&1
  log "spmm-calibrate rc=$?"
}

stage_sanitize() {
  # compute-sanitizer over the kernel tests, the three tools side by side (one GPU, several
  # processes). Whole test programs take far longer than a lease under racecheck, so each runs
  # the tests that force every kernel of its family on Kokkos::Cuda with double values and int
  # offsets (the first type, /0, of every typed suite in the CUDA build).
  CS="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
  declare -A filter=(
    [test_spmv]='Spmv/0.EveryKernelOnMixedRowLengths:Spmv/0.EveryKernelOnPowerLaw'
    [test_bsr_spmv]='BsrSpmv/0.ManyBlockRowsAndOneHeavyBlockRow:BsrSpmv/0.EmptyAndOneBlockMatrices'
    [test_spmm]='Spmm/0.PowerLaw:Spmm/0.RandomWithEmptyPanels'
    [test_sddmm]='SddmmTest/0.ForcedPathsMatchReference'
    [test_spgemm]='SpgemmTest/0.ForcedAccumulatorsRunEveryRow:SpgemmTest/0.WideSparseRowsUseHashTables')
  pids=()
  for tool in memcheck racecheck synccheck; do
    for t in "${!filter[@]}"; do
      [[ -x "$BIN/$t" ]] || continue
      ( OMP_NUM_THREADS=1 within "${SPROCKET_SANITIZE_S:-150}" "$CS" --tool "$tool" --error-exitcode 99 "$BIN/$t" \
          --gtest_brief=1 "--gtest_filter=${filter[$t]}" > "$RESULTS/sanitize-$tool-$t.log" 2>&1
        echo "$tool $t rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' "$RESULTS/sanitize-$tool-$t.log" | tr '\n' ' ' | cut -c1-200)" >> "$RESULTS/sanitize.txt" ) &
      pids+=($!)
    done
  done
  wait "${pids[@]}"
  log "compute-sanitizer (rc 0: clean, 99: reports, 124: out of time):"; sort "$RESULTS/sanitize.txt" | tee -a "$RESULTS/summary.txt"
}

# The stages in the order asked for: the budget cuts the last ones first.
for stage in ${WHAT//,/ }; do
  case "$stage" in
    tests | bench | variants | peers | ncu | trace | train | sanitize) "stage_$stage" ;;
    *) log "unknown stage '$stage' (tests, bench, variants, peers, ncu, trace, train, sanitize)" ;;
  esac
done

# Registers, local memory and static shared memory per kernel (sprocket-cuda-profile --resources).
if [[ -f "$BUNDLE/cuda-resources.txt" ]]; then
  cp "$BUNDLE/cuda-resources.txt" "$RESULTS/"
elif command -v cuobjdump >/dev/null; then
  cuobjdump -res-usage "$BIN/sprocket-bench" > "$RESULTS/cuda-resources.txt" 2>&1
fi
log "done"
