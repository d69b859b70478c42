#!/usr/bin/env bash
# Install plastix from the build tree into a temporary prefix, then build the
# example deal.II program of examples/elasticity against it with
# find_package(plastix) and run it on 1 and 2 MPI ranks: the CMake package
# a user links against works, and both runs give the same answer.
set -euo pipefail
source_dir=$1; build_dir=$2; mpiexec=$3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source_dir/examples/elasticity" -B "$work/build" -Dplastix_DIR="$work/prefix/lib/cmake/plastix" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
one=$("$work/build/elasticity" | grep "plastix example")
two=$("$mpiexec" -np 2 "$work/build/elasticity" | grep "plastix example")
echo "1 rank:  $one"; echo "2 ranks: $two"
echo "$one" | grep -q "CG iterations" || { echo "FAIL: no result line"; exit 1; }
[ "${one#*CG}" = "${two#*CG}" ] || { echo "FAIL: 1 and 2 ranks differ"; exit 1; }
echo PASSED
