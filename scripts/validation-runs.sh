#!/bin/bash
# The benchmark runs of doc/validation.md: the plastix application on the
# stock .prm files, as they are, one row per run (DoFs, load steps, Newton and
# linear iterations, wall time per stage from the application's summary line,
# and the wall time of the whole process), and the load-displacement plot of
# each run copied to $PLOTS. Usage:
#
#   scripts/validation-runs.sh [prm file ...]     (default: the list below)
#
# Environment: BUILD (default build), RANKS (default 2), PLOTS (default: no
# copies), OUT (default $BUILD/validation-runs.md, rows appended), MPIRUN
# (default "mpirun --oversubscribe -np"). Do not compile while this runs.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
BUILD=$(cd "${BUILD:-build}" && pwd)
RANKS=${RANKS:-2}
OUT=${OUT:-$BUILD/validation-runs.md}
PLOTS=${PLOTS:-}
MPIRUN=${MPIRUN:-mpirun --oversubscribe -np}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/plastix-validation.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

files=("$@")
[ ${#files[@]} -eq 0 ] && files=(prm/cube_single_element.prm prm/cube_C1.prm prm/cube_C2.prm prm/default.prm
  prm/cantilever_voxel.prm prm/cylinder.prm prm/sphere.prm prm/plate_with_holes.prm
  prm/cutout_cantilever.prm prm/l_bracket.prm)

echo "| prm | ranks | backend | DoFs | load steps (cuts) | Newton / linear iterations | mesh | setup | solve | output | total [s] | process [s] |" | tee -a "$OUT"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|" | tee -a "$OUT"
for prm in "${files[@]}"; do
  name=$(basename "$prm" .prm)
  rm -rf "$WORK/run" && mkdir -p "$WORK/run"
  start=$(date +%s.%N)
  if (cd "$WORK/run" && $MPIRUN "$RANKS" "$BUILD/plastix" "$REPO/$prm" >log 2>&1); then
    end=$(date +%s.%N)
    PYTHONPATH="$REPO/scripts" python3 - "$name" "$RANKS" "$WORK/run/log" "$start" "$end" <<'PYTHON' | tee -a "$OUT"
import sys
from summary_line import summaries
name, ranks, log, start, end = sys.argv[1:6]
r = summaries(log)[-1]
stage = lambda key: "%.4g" % r["stages"][key] if key in r["stages"] else ""
if r["newton"] is not None:
    steps, its = "%d (%d)" % (r["steps"], r["cuts"]), "%d / %d" % (r["newton"], r["linear"])
else:
    steps, its = "elastic", "- / %d" % r["linear"]
print("| %s | %s | %s | %d | %s | %s | %s | %s | %.4g | %s | %.3g | %.3g |" % (
    name, ranks, r["backend"], r["dofs"], steps, its, stage("mesh"), stage("setup"), r["solve"], stage("output"),
    r["total"], float(end) - float(start)))
PYTHON
    if [ -n "$PLOTS" ]; then
      mkdir -p "$PLOTS"
      find "$WORK/run" -name "*.png" -exec cp {} "$PLOTS/" \;
    fi
  else
    echo "| $name | $RANKS | failed: $(grep -m1 -io "error.*" "$WORK/run/log" | cut -c1-100) | | | | | | | | | |" | tee -a "$OUT"
  fi
done
