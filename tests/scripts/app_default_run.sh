#!/usr/bin/env bash
# The default run (prm/default.prm, the cantilever) with 1 and 2 MPI ranks,
# each in an empty temporary directory: exit status 0, the .pvtu record and
# one .vtu per rank in the output directory (no staging folder left), the
# printed summary's max |u| equal to 0.01988 m to 3 significant digits, and
# the same number of CG iterations with 1 and 2 ranks; the same solve
# with 1 and 2 host threads (level DoFs in line and in the background); and
# on 2 ranks the same solve with Operator/Ghost exchange = mpi and = shared
# memory, each named in the summary.
#
# usage: app_default_run.sh <plastix binary> <default.prm> [mpiexec]
set -u
APP=$(realpath "$1")
PRM=$(realpath "$2")
MPIEXEC=${3:-mpirun}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/plastix-default-run.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
failures=0
ok() { echo "  ok   $*"; }
fail() { failures=$((failures + 1)); echo "  FAIL $*"; }
# The solve of a summary line: " <n> iterations, residual ..., max |u| ..." (all digits).
solve_of() { sed -n 's/.*\( [0-9][0-9]* iterations, residual .*, max |u| [^,]*\),.*/\1/p'; }

# Reference: max |u| of the default run, 3 significant digits.
expected_max_u=0.01988
declare -A iterations

for ranks in 1 2; do
  dir="$WORK/np$ranks"
  mkdir -p "$dir" && cd "$dir" || exit 1
  cp "$PRM" default.prm
  if [ "$ranks" = 1 ]; then
    timeout 300 "$APP" default.prm >run.out 2>run.err
  else
    timeout 300 "$MPIEXEC" -np "$ranks" --oversubscribe "$APP" default.prm >run.out 2>run.err
  fi
  status=$?
  summary=$(grep '^plastix: ' run.out)
  echo "np $ranks: $summary"
  if [ $status = 0 ]; then ok "np $ranks: exit status 0"; else fail "np $ranks: exit status $status: $(cat run.err)"; fi
  if echo "$summary" | grep -q "^plastix: $ranks rank(s)"; then ok "np $ranks: summary reports $ranks rank(s)"; else fail "np $ranks: summary does not report $ranks rank(s)"; fi

  # Output: the directory and base name of the prm file.
  outdir=$(sed -n 's/^ *set Directory *= *\([^ ]*\).*/\1/p' default.prm)
  base=$(sed -n 's/^ *set Base name *= *\([^ ]*\).*/\1/p' default.prm)
  n_pvtu=$(find "$outdir" -maxdepth 1 -name "$base*.pvtu" 2>/dev/null | wc -l)
  n_vtu=$(find "$outdir" -maxdepth 1 -name "$base*.vtu" 2>/dev/null | wc -l)
  if [ "$n_pvtu" = 1 ]; then ok "np $ranks: $outdir/$(cd "$outdir" && ls "$base"*.pvtu) exists"; else fail "np $ranks: $n_pvtu .pvtu files in '$outdir'"; fi
  if [ "$n_vtu" = "$ranks" ]; then
    ok "np $ranks: $n_vtu .vtu file(s): $(cd "$outdir" && ls "$base"*.vtu | tr '\n' ' ')"
  else
    fail "np $ranks: $n_vtu .vtu files in '$outdir', expected $ranks"
  fi
  # The record names exactly the pieces that exist.
  if [ "$n_pvtu" = 1 ]; then
    pvtu=$(find "$outdir" -maxdepth 1 -name "$base*.pvtu")
    pieces=$(grep -o 'Source="[^"]*"' "$pvtu" | sed 's/Source="\(.*\)"/\1/')
    missing=0
    for p in $pieces; do [ -s "$outdir/$p" ] || missing=$((missing + 1)); done
    if [ -n "$pieces" ] && [ $missing = 0 ]; then ok "np $ranks: the .pvtu pieces exist and are not empty"; else fail "np $ranks: .pvtu pieces missing: $missing"; fi
  fi
  if [ -z "$(find . -name '.plastix-staging-*')" ]; then ok "np $ranks: no staging folder left"; else fail "np $ranks: staging folder left"; fi

  max_u=$(echo "$summary" | sed -n 's/.*max |u| \([0-9.eE+-]*\).*/\1/p')
  if [ -n "$max_u" ] && awk -v a="$max_u" -v b="$expected_max_u" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 0.5e-4) }'; then
    ok "np $ranks: max |u| = $max_u equals $expected_max_u to 3 digits"
  else
    fail "np $ranks: max |u| = '$max_u', expected $expected_max_u to 3 digits"
  fi
  iterations[$ranks]=$(echo "$summary" | sed -n 's/.* \([0-9][0-9]*\) iterations.*/\1/p')
done

if [ -n "${iterations[1]}" ] && [ "${iterations[1]}" = "${iterations[2]}" ]; then
  ok "CG iterations identical with 1 and 2 ranks (${iterations[1]})"
else
  fail "CG iterations differ: 1 rank '${iterations[1]}', 2 ranks '${iterations[2]}'"
fi

# Host threads: with 2 the level DoFs are distributed in the background of
# the constraints, the rigid-body check and the operator stage, with 1 in
# line; the solve is the same either way (the printed residual and max |u| to
# all digits, the iterations).
declare -A solve
for threads in 1 2; do
  dir="$WORK/threads$threads"
  mkdir -p "$dir" && cd "$dir" || exit 1
  cp "$PRM" default.prm
  DEAL_II_NUM_THREADS=$threads timeout 300 "$APP" default.prm >run.out 2>run.err
  status=$?
  if [ $status = 0 ]; then ok "$threads host thread(s): exit status 0"; else fail "$threads host thread(s): exit status $status: $(cat run.err)"; fi
  solve[$threads]=$(grep '^plastix: ' run.out | solve_of)
  background=$(grep -c "in the background of the rigid-body check and the operator stage; the preconditioner's set-up waited" run.out)
  expected=$([ "$threads" = 2 ] && echo 1 || echo 0)
  if [ "$background" = "$expected" ]; then
    ok "$threads host thread(s): level DoFs $([ "$expected" = 1 ] && echo 'in the background' || echo 'in line')"
  else
    fail "$threads host thread(s): $(grep 'dofs: set-up' run.out)"
  fi
done
if [ -n "${solve[1]}" ] && [ "${solve[1]}" = "${solve[2]}" ]; then
  ok "the same solve with 1 and 2 host threads:${solve[1]}"
else
  fail "the solve differs: 1 thread '${solve[1]}', 2 threads '${solve[2]}'"
fi

# Ghost exchange on 2 ranks: by MPI and through shared memory, the same solve.
declare -A route
for exchange in mpi "shared memory"; do
  dir="$WORK/exchange-${exchange// /-}"
  mkdir -p "$dir" && cd "$dir" || exit 1
  { cat "$PRM"; printf 'subsection Operator\n  set Ghost exchange = %s\nend\nsubsection Output\n  set Write VTU = false\nend\n' "$exchange"; } >run.prm
  timeout 300 "$MPIEXEC" -np 2 --oversubscribe "$APP" run.prm >run.out 2>run.err
  status=$?
  summary=$(grep '^plastix: ' run.out)
  if [ $status = 0 ]; then ok "ghost exchange $exchange: exit status 0"; else fail "ghost exchange $exchange: exit status $status: $(cat run.err)"; fi
  if echo "$summary" | grep -q "^plastix: 2 rank(s) (ghost exchange $exchange"; then
    ok "ghost exchange $exchange: named in the summary"
  else
    fail "ghost exchange $exchange: not in the summary: $summary"
  fi
  route[$exchange]=$(echo "$summary" | solve_of)
done
if [ -n "${route[mpi]}" ] && [ "${route[mpi]}" = "${route[shared memory]}" ]; then
  ok "the same solve by either ghost exchange:${route[mpi]}"
else
  fail "the solve differs: mpi '${route[mpi]}', shared memory '${route[shared memory]}'"
fi

[ $failures = 0 ] && echo PASSED || echo FAILED
[ $failures = 0 ]
