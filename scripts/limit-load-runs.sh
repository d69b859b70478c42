#!/bin/bash
# The limit-load table of doc/validation.md ("Limit loads on a plateau: stepped plate"):
# prm/stepped_plate.prm (a thin plate pulled through narrow arms by a prescribed
# end displacement, elastic-perfectly plastic) as a thin plate (as the file
# has it) and in plane strain (u_z = 0 on both faces), with full integration
# and with B-bar, under refinement. One row per run: cells, DoFs, the end
# reaction over the net-section limit load P_L (sigma_y A_net thin, 2/sqrt(3)
# sigma_y A_net in plane strain), the slope of the reaction over the last
# three load steps over the elastic slope (first step), Newton / linear
# iterations and the Newton time. Usage:
#
#   scripts/limit-load-runs.sh [refinement ...]     (default: 0 1 2)
#
# Environment: BUILD (default build), RANKS (default 2), OUT (default
# $BUILD/limit-load-runs.md, rows appended), MPIRUN (default
# "mpirun --oversubscribe -np"). Do not compile while this runs.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
BUILD=$(cd "${BUILD:-build}" && pwd)
RANKS=${RANKS:-2}
OUT=${OUT:-$BUILD/limit-load-runs.md}
MPIRUN=${MPIRUN:-mpirun --oversubscribe -np}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/plastix-limit-load.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

refinements=("$@")
[ ${#refinements[@]} -eq 0 ] && refinements=(0 1 2)

echo "| case | refinement | cells | DoFs | formulation | end reaction / P_L | plateau slope / elastic slope | Newton / linear iterations (cuts) | Newton [s] |" | tee -a "$OUT"
echo "|---|---|---|---|---|---|---|---|---|" | tee -a "$OUT"
for case in thin "plane strain"; do
  for r in "${refinements[@]}"; do
    for formulation in full bbar; do
      rm -rf "$WORK/run" && mkdir -p "$WORK/run"
      prm="$WORK/run/run.prm"
      {
        cat "$REPO/prm/stepped_plate.prm"
        printf 'subsection Mesh\n set Global refinements = %s\nend\n' "$r"
        printf 'subsection Operator\n set Element formulation = %s\nend\n' "$formulation"
        printf 'subsection Output\n set Directory = %s\n set Write VTU = false\nend\n' "$WORK/run/out"
        printf 'subsection Monitor\n set Write plot = false\nend\n'
        # The table of doc/validation.md was made with Jacobi-CG, the file's
        # solver then (it now takes the default preconditioner).
        printf 'subsection Linear solver\n set Preconditioner = jacobi\nend\n'
        if [ "$case" = "plane strain" ]; then
          printf 'subsection Boundary conditions\n set Dirichlet = 0: x = -0.3; 1: x = 0; 3: y = 0; 4: z = 0; 5: z = 0\nend\n'
        fi
      } >"$prm"
      if (cd "$WORK/run" && $MPIRUN "$RANKS" "$BUILD/plastix" "$prm" >log 2>&1); then
        PYTHONPATH="$REPO/scripts" python3 - "$case" "$r" "$formulation" "$WORK/run/log" \
          "$WORK/run/out/stepped_plate.csv" <<'PYTHON' | tee -a "$OUT"
import csv, math, re, sys
from summary_line import summaries
case, r, formulation, log, table = sys.argv[1:6]
s = summaries(log)[-1]
cells = re.search(r"(\d+) cells", [l for l in open(log) if l.startswith("plastix: ")][-1]).group(1)
rows = list(csv.DictReader(open(table)))
u = [float(row["end_ux"]) for row in rows]
R = [float(row["R1_x"]) for row in rows]
limit = (2 / math.sqrt(3) if case == "plane strain" else 1) * 200 * 10 * 0.5
elastic = R[0] / u[0]
plateau = (R[-1] - R[-4]) / (u[-1] - u[-4])
print("| %s | %s | %s | %d | %s | %.4f | %.1e | %d / %d (%d) | %.3g |" % (
    case, r, cells, s["dofs"], "B-bar" if formulation == "bbar" else "full", R[-1] / limit, plateau / elastic,
    s["newton"], s["linear"], s["cuts"], s["solve"]))
PYTHON
      else
        echo "| $case | $r | | | $formulation | failed: $(grep -m1 -io "error.*" "$WORK/run/log" | cut -c1-100) | | | |" | tee -a "$OUT"
      fi
    done
  done
done
