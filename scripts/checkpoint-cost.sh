#!/usr/bin/env bash
# Cost of a checkpoint (doc/validation.md, section "Checkpoints"): an
# elastoplastic cube (the C1-C5 set-up of prm/cube_C1.prm: clamped bottom,
# 800 MPa on top) at growing sizes, two load steps with 'Steps per run = 1',
# so that the checkpoint of step 1 stays on disk. Prints a Markdown table:
# DoFs, cells, ranks, the checkpoint stage time of the summary line, the
# checkpoint's size on disk, and both per million DoFs; and the time of
# 'plastix --restart' up to its first Newton iteration is not separated (the
# restart's mesh and setup stages are printed instead).
#
# usage: scripts/checkpoint-cost.sh <plastix binary> [ranks] [refinements...]
set -euo pipefail
APP=$(realpath "$1")
RANKS=${2:-1}
shift $(( $# >= 2 ? 2 : 1 ))
LEVELS=${*:-2 3 4}
PRM_DIR=$(cd "$(dirname "$0")/../prm" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/plastix-checkpoint-cost.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
launch() { if [ "$RANKS" = 1 ]; then "$APP" "$@"; else mpirun -np "$RANKS" --oversubscribe "$APP" "$@"; fi; }
stage() { sed -n "s/.* $1 \([0-9.e+-]*\).*/\1/p" <<<"$2" | tail -1; }

echo "| DoFs | cells | ranks | checkpoint [s] | size [MB] | s per MDoF | MB per MDoF | restart mesh + setup [s] |"
echo "|---|---|---|---|---|---|---|---|"
for r in $LEVELS; do
  dir="$WORK/r$r"
  mkdir -p "$dir"
  cat "$PRM_DIR/cube_C1.prm" >"$dir/case.prm"
  cat >>"$dir/case.prm" <<EOF
subsection Mesh
  set Global refinements = $r
end
subsection Load stepping
  set Load factors  = 0.5, 1
  set Steps per run = 1
end
subsection Output
  set Directory = out
  set Write VTU = false
end
subsection Monitor
  set Write plot = false
end
EOF
  line=$(cd "$dir" && launch case.prm | grep '^plastix: ')
  dofs=$(sed -n 's/.*, \([0-9]*\) DoFs.*/\1/p' <<<"$line")
  cells=$(sed -n 's/.*, \([0-9]*\) cells.*/\1/p' <<<"$line")
  seconds=$(stage checkpoint "$line")
  bytes=$(du -sb "$dir/out/checkpoint" | cut -f1)
  restart=$(cd "$dir" && launch --restart out/checkpoint | grep '^plastix: ')
  mesh=$(stage mesh "$restart")
  setup=0
  for part in dofs operator preconditioner restart; do
    value=$(stage "$part" "$restart")
    setup=$(python3 -c "print($setup + ${value:-0})")
  done
  python3 - "$dofs" "$cells" "$RANKS" "$seconds" "$bytes" "$mesh" "$setup" <<'EOF'
import sys
dofs, cells, ranks, seconds, size, mesh, setup = sys.argv[1:]
dofs, seconds, size = int(dofs), float(seconds), int(size) / 1e6
print(f"| {dofs} | {cells} | {ranks} | {seconds:.3f} | {size:.1f} | {seconds / dofs * 1e6:.2f} | "
      f"{size / dofs * 1e6:.0f} | {float(mesh) + float(setup):.2f} |")
EOF
done
