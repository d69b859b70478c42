#!/bin/bash
# The solver/preconditioner runs of doc/solvers.md: the plastix application on
# prm/cube_C1.prm (elastic and elastoplastic) and prm/default.prm (cantilever)
# at increasing mesh size, with each Linear solver Type/Preconditioner. Each
# run appends overrides to a copy of the stock .prm file (ParameterHandler
# takes the last value of an entry) and prints one markdown table row from the
# application's summary line. Usage:
#
#   scripts/solver-benchmarks.sh [stage ...]
#
# stages: cube-elastic, cantilever, cube-plastic, reuse (default: all).
# Environment: BUILD (default build-solvers), RANKS (default "1 2"),
# REPEAT (default 1: runs per case; the row reports the fastest, which
# filters out other load on a shared machine), OUT (default
# $BUILD/solver-benchmarks.md, rows appended), MPIRUN (default
# "mpirun --oversubscribe -np").
# Do not compile while this runs: the machine has 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-solvers}
RANKS=${RANKS:-1 2}
REPEAT=${REPEAT:-1}
OUT=${OUT:-$BUILD/solver-benchmarks.md}
MPIRUN=${MPIRUN:-mpirun --oversubscribe -np}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
APP="$BUILD/plastix"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/plastix-solvers.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# run <label> <base prm> <ranks> <overrides...>: one row
run() {
  local label=$1 base=$2 ranks=$3
  shift 3
  local prm="$WORK/run.prm"
  cp "$base" "$prm"
  printf '%s\n' "$@" >>"$prm"
  printf 'subsection Output\n  set Directory = %s\n  set Write VTU = false\nend\nsubsection Monitor\n  set Write plot = false\nend\n' \
    "$WORK/out" >>"$prm"
  local log="$WORK/log" ok=1
  : >"$log"
  for ((i = 0; i < REPEAT; ++i)); do
    $MPIRUN "$ranks" "$APP" "$prm" >>"$log" 2>&1 || { ok=0; break; }
  done
  if [ $ok = 1 ]; then
    PYTHONPATH=scripts python3 - "$label" "$ranks" "$log" <<'PYTHON' | tee -a "$OUT"
import sys
from summary_line import summaries
label, ranks, log = sys.argv[1], sys.argv[2], sys.argv[3]
rows = summaries(log)
first = rows[0]
iterations = "%d / %d" % (first["newton"], first["linear"]) if first["newton"] is not None else str(first["linear"])
print("| %s | %s | %s | %s | %.3g | %.3g |" % (label, first["dofs"], ranks, iterations,
                                               min(r["solve"] for r in rows), min(r["total"] for r in rows)))
PYTHON
  else
    local reason
    reason=$(grep -m1 -o "error: .*" "$log" | cut -c1-120 || true)
    echo "| $label | | $ranks | failed: ${reason:-see log} | | |" | tee -a "$OUT"
  fi
}

solver_lines() { # <type> <preconditioner> [reuse]
  printf 'subsection Linear solver\n  set Type = %s\n  set Preconditioner = %s\n  set Reuse preconditioner = %s\n  set Maximum iterations = 20000\nend' \
    "$1" "$2" "${3:-never}"
}
mesh_lines() { # <global refinements>
  printf 'subsection Mesh\n  set Global refinements = %s\nend' "$1"
}

ELASTIC_COMBOS=("cg:none" "cg:jacobi" "cg:chebyshev" "cg:multigrid" "cg:amg" "gmres:multigrid"
  "belos cg:jacobi" "belos cg:multigrid" "belos cg:amg" "belos gmres:multigrid" "belos minres:multigrid")

stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(cube-elastic cantilever cube-plastic reuse)
for stage in "${stages[@]}"; do
  echo "=== $stage ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$OUT"
  echo "| run | DoFs | ranks | iterations (Newton / linear) | solve [s] | total [s] |" | tee -a "$OUT"
  echo "|---|---|---|---|---|---|" | tee -a "$OUT"
  case $stage in
    cube-elastic)
      # prm/cube_C1.prm as a linear elastic problem; 3^3 coarse cells refined 2, 3, 4 times (12^3 .. 48^3 cells).
      for refinements in 2 3 4; do
        for ranks in $RANKS; do
          for combo in "${ELASTIC_COMBOS[@]}"; do
            if [ "$refinements" = 4 ] && [ "${combo#*:}" = none ]; then continue; fi
            run "cube r$refinements ${combo%%:*} + ${combo#*:}" prm/cube_C1.prm "$ranks" \
              "$(printf 'subsection Problem\n  set Type = elastic\nend')" "$(mesh_lines $refinements)" \
              "$(solver_lines "${combo%%:*}" "${combo#*:}")"
          done
        done
      done
      ;;
    cantilever)
      # prm/default.prm: 20 x 2 x 2 coarse cells refined 1, 2, 3 times (40 x 4 x 4 .. 160 x 16 x 16 cells).
      for refinements in 1 2 3; do
        for ranks in $RANKS; do
          for combo in "${ELASTIC_COMBOS[@]}"; do
            if [ "$refinements" = 3 ] && [ "${combo#*:}" = none ]; then continue; fi
            run "cantilever r$refinements ${combo%%:*} + ${combo#*:}" prm/default.prm "$ranks" \
              "$(mesh_lines $refinements)" "$(solver_lines "${combo%%:*}" "${combo#*:}")"
          done
        done
      done
      ;;
    cube-plastic)
      # prm/cube_C1.prm as it is (elastoplastic, one load step), refined 2, 3, 4 times.
      for refinements in 2 3 4; do
        for ranks in $RANKS; do
          for combo in "cg:jacobi" "cg:chebyshev" "cg:multigrid" "cg:amg" "belos cg:multigrid"; do
            if [ "$refinements" = 4 ] && [ "${combo#*:}" = jacobi ]; then continue; fi
            run "cube plastic r$refinements ${combo%%:*} + ${combo#*:}" prm/cube_C1.prm "$ranks" \
              "$(mesh_lines $refinements)" "$(solver_lines "${combo%%:*}" "${combo#*:}")"
          done
        done
      done
      ;;
    reuse)
      # Preconditioner reuse in the Newton solves: prm/cube_C1.prm refined 3 times, in 1 and in 4 load steps.
      for steps in 1 4; do
        for ranks in $RANKS; do
          for combo in "cg:chebyshev" "cg:multigrid"; do
            for reuse in never "load step" always; do
              run "cube plastic r3, $steps steps, ${combo%%:*} + ${combo#*:}, reuse $reuse" prm/cube_C1.prm "$ranks" \
                "$(mesh_lines 3)" "$(solver_lines "${combo%%:*}" "${combo#*:}" "$reuse")" \
                "$(printf 'subsection Load stepping\n  set Number of steps = %s\nend' $steps)"
            done
          done
        done
      done
      ;;
    *)
      echo "unknown stage $stage" >&2
      exit 1
      ;;
  esac
done
