#!/usr/bin/env bash
# The load-curve plot of the application (prm/cube_single_element.prm, three
# load steps), each run in an empty temporary directory:
#  - as given (Plot x column = top_uz, the y column by default load_factor),
#    1 and 2 ranks: exit 0; <base>.csv, <base>.gnuplot and <base>.png in the
#    output directory, no staging folder left; the script plots columns 8:2
#    of the CSV (top_uz against load_factor) with the labels and units; the
#    PNG starts with the PNG signature;
#  - a displacement-controlled style plot: Reactions = 4, Plot y column =
#    R4_z, Force unit = kN: the script plots 8:11 and labels the reaction in kN;
#  - a gnuplot that fails: exit 0, the CSV and the script but no PNG, and
#    the run says why and how to draw it.
#
# usage: app_plot.sh <plastix binary> <prm directory> [mpiexec]
set -u
APP=$(realpath "$1")
PRM=$(realpath "$2")/cube_single_element.prm
MPIEXEC=$(command -v "${3:-mpirun}")
TIMEOUT=$(command -v timeout)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/plastix-plot.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
failures=0
ok() { echo "  ok   $*"; }
fail() { failures=$((failures + 1)); echo "  FAIL $*"; }
check() { # check <description> <command...>
  local what=$1
  shift
  if "$@"; then ok "$what"; else fail "$what"; fi
}
png_signature() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

# run <name> <ranks> <extra prm text> [env...]: the run's directory is $WORK/<name>
run() {
  local name=$1 ranks=$2 extra=$3
  shift 3
  mkdir -p "$WORK/$name" && cd "$WORK/$name" || exit 1
  { cat "$PRM"; printf '%s\n' "$extra"; } > run.prm
  if [ "$ranks" = 1 ]; then
    env "$@" "$TIMEOUT" 300 "$APP" run.prm > run.out 2> run.err
  else
    env "$@" "$TIMEOUT" 300 "$MPIEXEC" -np "$ranks" "$APP" run.prm > run.out 2> run.err
  fi
  status=$?
  if [ $status = 0 ]; then ok "$name: exit status 0"; else fail "$name: exit status $status: $(head -3 run.err)"; fi
}

for ranks in 1 2; do
  run "np$ranks" "$ranks" ""
  out=output-cube
  check "np$ranks: cube.csv, cube.gnuplot and cube.png in $out" test -s $out/cube.csv -a -s $out/cube.gnuplot -a -s $out/cube.png
  check "np$ranks: no staging folder left" test -z "$(find $out -name '.plastix-staging*')"
  check "np$ranks: the script plots top_uz (column 8) against load_factor (column 2)" \
    grep -q "^plot 'cube.csv' skip 1 using 8:2 " $out/cube.gnuplot
  check "np$ranks: labels with units" grep -q "^set xlabel 'top_uz: displacement z of point top \[m\]'" $out/cube.gnuplot
  check "np$ranks: cube.png is a PNG" png_signature $out/cube.png
  check "np$ranks: the CSV has the header and 3 load steps" test "$(wc -l < $out/cube.csv)" = 4
done

run reaction 1 "subsection Monitor
  set Reactions = 4
  set Plot y column = R4_z
  set Force unit = kN
end"
out=output-cube
check "reaction: the script plots top_uz (8) against R4_z (11)" grep -q "^plot 'cube.csv' skip 1 using 8:11 " $out/cube.gnuplot
check "reaction: y label in kN" grep -q "^set ylabel 'R4_z: reaction force z on boundary 4 \[kN\]'" $out/cube.gnuplot
check "reaction: cube.png is a PNG" png_signature $out/cube.png

# A gnuplot that fails (first on the PATH); gnuplot missing altogether is
# checked by test plot_gnuplot (an MPI program needs its PATH).
mkdir -p "$WORK/bin" && printf '#!/bin/sh\necho "gnuplot: broken" >&2\nexit 3\n' > "$WORK/bin/gnuplot" && chmod +x "$WORK/bin/gnuplot"
run broken-gnuplot 1 "" PATH="$WORK/bin:$PATH"
check "broken gnuplot: the CSV and the script, no PNG" test -s $out/cube.csv -a -s $out/cube.gnuplot -a ! -e $out/cube.png
check "broken gnuplot: the run says why and how to draw the plot" \
  grep -q "cube.png not drawn (gnuplot exited with status 3: gnuplot: broken); 'gnuplot cube.gnuplot'" run.out

if [ $failures = 0 ]; then echo "all checks passed"; else echo "$failures check(s) failed"; fi
[ $failures = 0 ]
