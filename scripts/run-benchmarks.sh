#!/bin/bash
# The plastix-bench / plastix-kernel-bench runs of doc/benchmarks.md (CPU,
# 2-core machine). Usage:
#
#   scripts/run-benchmarks.sh [stage ...]      (default: all stages)
#
# stages: uniform1 uniform2 distorted1 distorted2 large1 large2 kernel (default),
#         repeat80 (EbE only at 80^3, 2 ranks then 1 rank; run when the machine is quiet),
#         mappings (EbE cell vs node thread mapping, 1 rank, 56^3)
# Environment: BUILD (default build-bench), OUT (default $BUILD/benchmark-results.md,
# tables appended), MPIRUN (default "mpirun -np 2 --oversubscribe").
# Do not compile while this runs: the timings are memory-bound and the
# machine has 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-bench}
OUT=${OUT:-$BUILD/benchmark-results.md}
MPIRUN=${MPIRUN:-mpirun -np 2 --oversubscribe}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
BENCH="$BUILD/plastix-bench"
KERNEL="$BUILD/plastix-kernel-bench"
# The DbD variants with quadrature recompute every cell once per vertex (8x
# the work): left out of the large runs, where they alone would take minutes.
FAST_KERNELS=(--strategies "ebe atomic,ebe colored" --kernels all)

stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(uniform1 uniform2 distorted1 distorted2 large1 large2 kernel)

for stage in "${stages[@]}"; do
  echo "=== $stage ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))"
  case $stage in
    uniform1)   $BENCH --sizes 32,56,80 --repeats 20 --label "1 rank, uniform" --output "$OUT" ;;
    uniform2)   $MPIRUN $BENCH --sizes 32,56,80 --repeats 20 --label "2 ranks, uniform" --output "$OUT" ;;
    distorted1) $BENCH --sizes 32,56,80 --repeats 20 --distortion 0.2 --label "1 rank, distorted" --output "$OUT" ;;
    distorted2) $MPIRUN $BENCH --sizes 32,56,80 --repeats 20 --distortion 0.2 --label "2 ranks, distorted" --output "$OUT" ;;
    large1)     $BENCH --sizes 108,128 --repeats 10 --no-assembled "${FAST_KERNELS[@]}" --label "1 rank, uniform, large, no assembled matrices" --output "$OUT" ;;
    large2)     $MPIRUN $BENCH --sizes 108,128 --repeats 10 --no-assembled "${FAST_KERNELS[@]}" --label "2 ranks, uniform, large, no assembled matrices" --output "$OUT" ;;
    kernel)     { echo '### plastix-kernel-bench (backend only, 1 process)'; echo;
                  $KERNEL --sizes 32,64,96 --repeats 20; echo;
                  $KERNEL --sizes 64 --repeats 20 --distortion 0.2; echo; } | tee -a "$OUT" ;;
    repeat80)   $MPIRUN $BENCH --sizes 80 --repeats 20 --strategies "ebe atomic,ebe colored" --label "2 ranks, uniform, repeat (no DbD)" --output "$OUT"
                $BENCH --sizes 80 --repeats 20 --strategies "ebe atomic,ebe colored" --label "1 rank, uniform, repeat (no DbD)" --output "$OUT" ;;
    mappings)   $BENCH --sizes 56 --repeats 20 --strategies "ebe atomic,ebe colored" --mappings cell,node --label "1 rank, uniform, EbE cell vs node mapping" --output "$OUT" ;;
    *) echo "unknown stage $stage" >&2; exit 1 ;;
  esac
done
