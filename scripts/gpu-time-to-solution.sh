#!/bin/bash
# Time to solution on the GPU (doc/solvers.md, "Measurements": the "GPU: ..."
# parts): whole runs of the application (mesh to summary, VTU off) on the
# stock problems with every preconditioner, the multigrid coarse solvers,
# iterations under refinement and ranks on the host sharing one GPU. Prints
# one table row per run, parsed from the run's summary line; logs go to the
# output directory.
# Usage: scripts/gpu-time-to-solution.sh <plastix binary> <part> [output dir]
#   part: C3, C5 or L3 (cube C3, C5, L-bracket refined 3 times: every preconditioner)
#         solvers (all three)
#         scaling (auto on C2, C4 and the L-bracket refined 2 and 4 times)
#         ranks (C5 with 1, 2 and 4 ranks sharing the GPU)
#         vcycle (elastic C4 and C5: time per CG iteration with jacobi and
#                 multigrid, i.e. the cost of a V-cycle in Jacobi-CG iterations)
#         coarse-tolerance (C5, auto, coarse cg tolerance 1e-2, 3e-2, 1e-1)
#         twogpu-jacobi (C5 with Jacobi on 1 and 2 GPUs: does the operator itself scale?)
#         twogpu (L-bracket refined 3 and 4 times and C5 on 1 and 2 GPUs, one rank per GPU)
#         twogpu-exchange (the same on 1 GPU and on 2 GPUs with Ghost exchange = mpi and
#                          = shared memory, alternating; C5 also with Jacobi)
#         precision (C3, C5 and the L-bracket refined 3 times with Preconditioner = auto,
#                    Multigrid level precision double and single, in one invocation)
#         portable (the elastic cube of portable-elasticity-bench --solve, n = 64 and 128,
#                   with Jacobi and with the multigrid: scripts/gpu-portable-side-by-side.sh)
# Environment: MPIRUN (default mpirun), CASE_TIMEOUT (seconds per run, default 550).
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
PLASTIX=$(readlink -f "$1")
PART=$2
L=$(mkdir -p "${3:-gpu-tts}" && cd "${3:-gpu-tts}" && pwd)
MPIRUN=${MPIRUN:-mpirun}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/plastix-tts.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# case <name> <base prm> <refinements or -> <preconditioner> <coarse solver or -> [ranks]
case_run() {
  local name=$1 prm=$2 refinements=$3 preconditioner=$4 coarse=$5 ranks=${6:-1}
  mkdir -p "$WORK/$name"
  {
    cat "$REPO/prm/$prm"
    [ "$refinements" != - ] && printf 'subsection Mesh\n  set Global refinements = %s\nend\n' "$refinements"
    printf 'subsection Linear solver\n  set Preconditioner = %s\n' "$preconditioner"
    [ "$coarse" != - ] && printf '  set Multigrid coarse solver = %s\n' "$coarse"
    printf 'end\nsubsection Output\n  set Write VTU = false\n  set Directory = out\nend\n'
    printf 'subsection Monitor\n  set Write plot = false\nend\n'
    printf '%b' "${EXTRA:-}"
  } >"$WORK/$name/case.prm"
  local launcher=()
  [ "$ranks" -gt 1 ] && launcher=($MPIRUN -np "$ranks")
  (cd "$WORK/$name" && (time timeout "${CASE_TIMEOUT:-550}" "${launcher[@]}" "$PLASTIX" case.prm) >"$L/$name.log" 2>&1
   echo "exit $?" >>"$L/$name.log")
  python3 "$REPO/scripts/summary_line.py" --row "$name" "$L/$name.log"
}

python3 "$REPO/scripts/summary_line.py" --header
if [ "$PART" = solvers ] || [ "$PART" = C3 ] || [ "$PART" = C5 ] || [ "$PART" = L3 ]; then
  for c in "C3 cube_C3.prm" "C5 cube_C5.prm" "L3 l_bracket.prm"; do
    set -- $c
    [ "$PART" != solvers ] && [ "$PART" != "$1" ] && continue
    r=-
    [ "$1" = L3 ] && r=3
    case_run "$1-jacobi" "$2" $r jacobi -
    case_run "$1-chebyshev" "$2" $r chebyshev -
    case_run "$1-mg-cg" "$2" $r multigrid cg
    case_run "$1-mg-chebyshev" "$2" $r multigrid chebyshev
    case_run "$1-mg-amg" "$2" $r multigrid amg
    [ "$1" != C5 ] && case_run "$1-amg" "$2" $r amg -
  done
elif [ "$PART" = scaling ]; then
  case_run "C2-auto" cube_C2.prm - auto -
  case_run "C4-auto" cube_C4.prm - auto -
  case_run "L2-auto" l_bracket.prm 2 auto -
  case_run "L4-auto" l_bracket.prm 4 auto -
elif [ "$PART" = vcycle ]; then
  export EXTRA='subsection Problem\n  set Type = elastic\nend\n'
  for c in "C4 cube_C4.prm" "C5 cube_C5.prm"; do
    set -- $c
    case_run "$1-elastic-jacobi" "$2" - jacobi -
    case_run "$1-elastic-mg-auto" "$2" - multigrid auto
    case_run "$1-elastic-mg-chebyshev" "$2" - multigrid chebyshev
  done
  unset EXTRA
elif [ "$PART" = twogpu ]; then
  for ranks in 1 2; do
    case_run "L4-auto-np$ranks" l_bracket.prm 4 auto - $ranks
    case_run "L3-auto-np$ranks" l_bracket.prm 3 auto - $ranks
    case_run "C5-auto-np$ranks" cube_C5.prm - auto - $ranks
  done
elif [ "$PART" = twogpu-exchange ]; then
  exchange() { export EXTRA="subsection Operator\n  set Ghost exchange = $1\nend\n"; }
  for c in "C5 cube_C5.prm - jacobi" "L3 l_bracket.prm 3 auto" "C5 cube_C5.prm - auto" "L4 l_bracket.prm 4 auto"; do
    set -- $c
    unset EXTRA
    case_run "$1-$4-np1" "$2" "$3" "$4" - 1
    exchange mpi
    case_run "$1-$4-np2-mpi" "$2" "$3" "$4" - 2
    exchange "shared memory"
    case_run "$1-$4-np2-shared" "$2" "$3" "$4" - 2
  done
  unset EXTRA
elif [ "$PART" = coarse-tolerance ]; then
  for tolerance in 1e-2 3e-2 1e-1; do
    export EXTRA="subsection Linear solver\n  set Multigrid coarse tolerance = $tolerance\nend\n"
    case_run "C5-auto-coarse-tol-$tolerance" cube_C5.prm - auto -
  done
  unset EXTRA
elif [ "$PART" = twogpu-jacobi ]; then
  case_run "C5-jacobi-np1" cube_C5.prm - jacobi - 1
  case_run "C5-jacobi-np2" cube_C5.prm - jacobi - 2
elif [ "$PART" = precision ]; then
  for c in "C3 cube_C3.prm -" "C5 cube_C5.prm -" "L3 l_bracket.prm 3"; do
    set -- $c
    for precision in double single; do
      export EXTRA="subsection Linear solver\n  set Multigrid level precision = $precision\nend\n"
      case_run "$1-auto-$precision" "$2" "$3" auto -
    done
  done
  unset EXTRA
elif [ "$PART" = portable ]; then
  # The elastic cube of portable-elasticity-bench --solve (n = 64 and 128 cells per direction:
  # 2^3 cells refined 5 and 6 times) with Jacobi and with the multigrid, relative tolerance 1e-8.
  export EXTRA='subsection Problem\n  set Type = elastic\nend\nsubsection Mesh\n  set Subdivisions = 2, 2, 2\nend\n'
  for k in 5 6; do
    n=$((2 << k))
    case_run "cube$n-elastic-jacobi" cube_C5.prm $k jacobi -
    case_run "cube$n-elastic-mg" cube_C5.prm $k multigrid auto
  done
  unset EXTRA
elif [ "$PART" = ranks ]; then
  case_run "C5-auto" cube_C5.prm - auto -
  case_run "C5-auto-np2" cube_C5.prm - auto - 2
  case_run "C5-auto-np4" cube_C5.prm - auto - 4
fi
