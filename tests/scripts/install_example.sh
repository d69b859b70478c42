#!/usr/bin/env bash
# Install plastix from the build tree into a temporary prefix (only the
# library's headers are installed), then build the
# example deal.II programs of examples/ against it with find_package(plastix)
# and run them on 1 and 2 MPI ranks: the CMake package a user links against
# works; elasticity gives the same answer on 1 and 2 ranks; plasticity (its
# own mesh, constraints, loads and load stepping on plastix::NewtonRaphson)
# meets the closed form at every load step (the program checks it).
set -euo pipefail
source_dir=$1; build_dir=$2; mpiexec=$3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
# The installed headers are the library's own: its five parts, and no header
# that includes a file of the application or the benchmarks (not installed).
ls "$work/prefix/include/plastix"
[ "$(ls "$work/prefix/include/plastix" | tr '\n' ' ')" = "backend base core material solvers " ] ||
  { echo "FAIL: installed include/plastix is not backend, base, core, material, solvers"; exit 1; }
if grep -rn '#include "' "$work/prefix/include/plastix"; then
  echo "FAIL: an installed header includes a file that is not installed"; exit 1; fi
# Linked with mold where it is installed, as plastix's own executables are
# (GNU ld takes about a minute a link against Debian unstable's Trilinos).
linker=()
if command -v mold > /dev/null; then linker=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=mold); fi
for example in elasticity plasticity; do
  cmake -S "$source_dir/examples/$example" -B "$work/build-$example" \
    -Dplastix_DIR="$work/prefix/lib/cmake/plastix" "${linker[@]}" > "$work/configure-$example.log"
  cmake --build "$work/build-$example" > "$work/build-$example.log" || { cat "$work/build-$example.log"; exit 1; }
done

one=$("$work/build-elasticity/elasticity" | grep "plastix example")
two=$("$mpiexec" -np 2 "$work/build-elasticity/elasticity" | grep "plastix example")
echo "elasticity, 1 rank:  $one"; echo "elasticity, 2 ranks: $two"
echo "$one" | grep -q "CG iterations" || { echo "FAIL: no result line"; exit 1; }
[ "${one#*CG}" = "${two#*CG}" ] || { echo "FAIL: 1 and 2 ranks differ"; exit 1; }

for ranks in 1 2; do
  if [ $ranks = 1 ]; then out=$("$work/build-plasticity/plasticity"); else
    out=$("$mpiexec" -np 2 "$work/build-plasticity/plasticity"); fi || { echo "$out"; echo "FAIL: plasticity, $ranks rank(s)"; exit 1; }
  echo "$out" | sed "s/^/plasticity, $ranks rank(s): /"
  [ "$(echo "$out" | grep -c ', ok)$')" = 3 ] || { echo "FAIL: plasticity, $ranks rank(s): not 3 load steps at the closed form"; exit 1; }
done
echo PASSED
