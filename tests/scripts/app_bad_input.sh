#!/usr/bin/env bash
# The plastix application on broken input: every case runs in an empty
# temporary directory and must
#   - exit with the documented status (1 bad input, 2 solver did not converge),
#   - name the offending entry on stderr (the exact text the app prints),
#   - leave no output behind: no .vtu/.pvtu, no staging folder
#     .plastix-staging-*, nothing but (at most) an empty output directory.
# Some cases also run under mpirun -np 2. Plus: --help exits 0, a missing
# parameter file and a missing argument exit 1, and the --print-parameters
# output is a valid parameter file (round trip).
#
# usage: app_bad_input.sh <plastix binary> [mpiexec]
set -u
APP=$(realpath "$1")
SCRIPTS=$(dirname "$(realpath "$0")")
MPIEXEC=${2:-mpirun}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
WORK=$(mktemp -d "${TMPDIR:-/tmp}/plastix-bad-input.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
failures=0
n_checks=0

ok() { n_checks=$((n_checks + 1)); echo "  ok   $*"; }
fail() { n_checks=$((n_checks + 1)); failures=$((failures + 1)); echo "  FAIL $*"; }

# A small valid problem (small_elastic.prm, shared with app_fuzz.py); the
# cases append or substitute entries.
base_prm() {
  grep -v '^#' "$SCRIPTS/small_elastic.prm"
}

# run_case <name> <ranks> <expected status> <prm text> <stderr pattern>...
# Runs the app on the prm text in a fresh directory; every pattern must occur
# in stderr (fixed strings). Files named *.input in the case directory are
# inputs and are ignored by the leftover check.
run_case() {
  local name=$1 ranks=$2 expected=$3 prm=$4
  shift 4
  local dir="$WORK/case-$name-np$ranks"
  mkdir -p "$dir"
  [ -n "${CASE_SETUP:-}" ] && (cd "$dir" && eval "$CASE_SETUP")
  printf '%s\n' "$prm" >"$dir/case.prm"
  local status
  if [ "$ranks" = 1 ]; then
    (cd "$dir" && timeout 120 "$APP" case.prm >"$WORK/$name-np$ranks.out" 2>"$WORK/$name-np$ranks.err")
    status=$?
  else
    (cd "$dir" && timeout 120 "$MPIEXEC" -np "$ranks" --oversubscribe "$APP" case.prm \
      >"$WORK/$name-np$ranks.out" 2>"$WORK/$name-np$ranks.err")
    status=$?
  fi
  local label="$name (np $ranks)"
  local message
  message=$(grep -m1 '^plastix: ' "$WORK/$name-np$ranks.err")
  if [ "$status" = "$expected" ]; then
    ok "$label: exit status $status"
  else
    fail "$label: exit status $status, expected $expected"
    sed 's/^/         | /' "$WORK/$name-np$ranks.err" | head -20
  fi
  for pattern in "$@"; do
    if grep -qF -- "$pattern" "$WORK/$name-np$ranks.err"; then
      ok "$label: stderr names \"$pattern\""
    else
      fail "$label: stderr lacks \"$pattern\""
      sed 's/^/         | /' "$WORK/$name-np$ranks.err" | head -20
    fi
  done
  [ -n "$message" ] && echo "         message: ${message:0:200}"
  if [ "$ranks" = 1 ] && [ "$(grep -c '^plastix: ' "$WORK/$name-np$ranks.err")" != 1 ]; then
    fail "$label: expected exactly one 'plastix: ' error line on stderr"
  fi
  # Leftovers: anything but the inputs and empty directories, or a staging folder.
  local leftovers
  leftovers=$(cd "$dir" && find . -mindepth 1 \( -name '.plastix-staging-*' -o -name '*.vtu' -o -name '*.pvtu' \
    -o \( -type f ! -name case.prm ! -name '*.input' \) \) -print)
  if [ -z "$leftovers" ]; then
    ok "$label: no output files left ($(cd "$dir" && find . -mindepth 1 -type d | tr '\n' ' ')empty)"
  else
    fail "$label: files left behind: $(echo "$leftovers" | tr '\n' ' ')"
  fi
}

# with_entry <subsection> <entry> <value>: the base prm with one entry set
# again at its end (deal.II applies the last value of an entry).
with_entry() {
  base_prm
  printf 'subsection %s\n  set %s = %s\nend\n' "$1" "$2" "$3"
}

# Line numbers in deal.II's messages: the base file, then the appended lines.
BASE_LINES=$(base_prm | wc -l)
ENTRY_LINE=$((BASE_LINES + 2))

echo "== parameter file errors (exit 1)"
run_case unknown-entry 1 1 "$(with_entry Mesh 'Number of bananas' 3)" \
  "plastix: error in input: in parameter file 'case.prm': Line <$ENTRY_LINE> of file <case.prm>: No entry with name <Number of bananas> was declared in the current subsection."
run_case unknown-subsection 1 1 "$(base_prm; printf 'subsection Fruit\n  set Colour = yellow\nend\n')" \
  "plastix: error in input: in parameter file 'case.prm': Line <$((BASE_LINES + 1))> of file <case.prm" \
  "Fruit"  # deal.II 9.4: "There is no such subsection to be entered: Fruit"; 9.6 words it differently
run_case wrong-type 1 1 "$(with_entry Mesh 'Global refinements' abc)" \
  "plastix: error in input: in parameter file 'case.prm': Line <$ENTRY_LINE> of file <case.prm>:" \
  "for the entry named" "Global refinements" "abc" "does not match the given pattern" "[Integer range 0...12 (inclusive)]"
run_case bad-selection 1 1 "$(with_entry Operator Strategy 'very fast')" \
  "plastix: error in input: in parameter file 'case.prm': Line <$ENTRY_LINE> of file <case.prm>:" \
  "Strategy" "very fast" "[Selection auto|ebe atomic|ebe colored|dbd|ebe tiled|assembled|dbd structured ]"
run_case bad-refinement-region 1 1 "$(base_prm; printf 'subsection Mesh\n  set Local refinements = 1\n  set Local refinement region = x + * 3\nend\n')" \
  "plastix: error in input: Mesh/Local refinement region: 'x + * 3' is not an expression of x, y, z"
run_case multigrid-hanging-nodes 1 1 "$(base_prm; printf 'subsection Mesh\n  set Local refinements = 1\n  set Local refinement region = 1 - x\nend\nsubsection Linear solver\n  set Preconditioner = multigrid\nend\n')" \
  "plastix: error in input: Linear solver/Preconditioner: multigrid needs a uniformly refined mesh"
run_case multigrid-adaptive 1 1 "$(base_prm; printf 'subsection Problem\n  set Type = elastoplastic\nend\nsubsection Materials\n  set Yield stress = 1e8\nend\nsubsection Mesh\n  subsection Adaptive refinement\n    set Indicator = kelly\n  end\nend\nsubsection Linear solver\n  set Preconditioner = multigrid\nend\n')" \
  "plastix: error in input: Linear solver/Preconditioner: multigrid needs a uniformly refined mesh, but 'Mesh/Adaptive refinement'"
run_case adaptive-elastic 1 1 "$(base_prm; printf 'subsection Mesh\n  subsection Adaptive refinement\n    set Indicator = kelly\n  end\nend\n')" \
  "plastix: error in input: Mesh/Adaptive refinement/Indicator: adapts the mesh between load steps, which only elastoplastic runs have"
run_case adaptive-level 1 1 "$(base_prm; printf 'subsection Mesh\n  set Global refinements = 1\n  subsection Adaptive refinement\n    set Indicator = plastic strain increment\n    set Maximum level = 1\n  end\nend\n')" \
  "plastix: error in input: Mesh/Adaptive refinement/Maximum level: 1 is not above the levels of the initial mesh (1)"
run_case adaptive-fractions 2 1 "$(base_prm; printf 'subsection Mesh\n  subsection Adaptive refinement\n    set Indicator = kelly\n    set Refine fraction = 0.7\n    set Coarsen fraction = 0.5\n  end\nend\n')" \
  "plastix: error in input: Mesh/Adaptive refinement/Coarsen fraction: Refine fraction + Coarsen fraction exceeds 1"
run_case tiled-node-mapping 1 1 "$(base_prm; printf 'subsection Operator\n  set Strategy = ebe tiled\n  set Thread mapping = node\nend\n')" \
  "plastix: error in input: Operator/Thread mapping: ebe tiled runs one thread per cell"
run_case tiled-shuffle-mapping 1 1 "$(base_prm; printf 'subsection Operator\n  set Strategy = ebe tiled\n  set Thread mapping = shuffle\nend\n')" \
  "plastix: error in input: Operator/Thread mapping: ebe tiled runs one thread per cell"
run_case structured-node-mapping 1 1 "$(base_prm; printf 'subsection Operator\n  set Strategy = dbd structured\n  set Thread mapping = node\nend\n')" \
  "plastix: error in input: Operator/Thread mapping: dbd structured runs one thread per lattice point"
run_case structured-distorted 2 1 "$(base_prm; printf 'subsection Operator\n  set Strategy = dbd structured\nend\nsubsection Mesh\n  set Distortion = 0.1\nend\n')" \
  "plastix: error in input: Operator/Strategy: dbd structured needs a mesh of equal axis-parallel boxes on one lattice, but 'Mesh/Distortion' moves the vertices"
run_case gmres-single-multigrid 1 1 "$(base_prm; printf 'subsection Linear solver\n  set Type = gmres\n  set Multigrid level precision = single\nend\n')" \
  "plastix: error in input: Linear solver/Multigrid level precision: single needs Type = cg or belos cg"
run_case nu-0.5 1 1 "$(with_entry Materials "Poisson's ratio" 0.5)" \
  "plastix: error in input: Materials: Poisson's ratio must lie in (-1, 0.5), got nu = 0.5"
run_case negative-E 1 1 "$(with_entry Materials "Young's modulus" -1)" \
  "plastix: error in input: Materials: Young's modulus must be positive, got E = -1"
run_case bad-material-id-list 1 1 "$(with_entry Materials 'Per material id' '2: E=70e9, nu=0.7')" \
  "plastix: error in input: Materials/Per material id (material id 2): Poisson's ratio"
run_case missing-mesh-file 1 1 "$(base_prm; printf 'subsection Mesh\n  set Geometry = file\n  set File = no-such-mesh.msh\nend\n')" \
  "plastix: error in input: Mesh/File: cannot open mesh file 'no-such-mesh.msh'"
run_case dirichlet-without-id 1 1 "$(with_entry 'Boundary conditions' Dirichlet '0 xyz = 0, 0, 0')" \
  "plastix: error in input: Boundary conditions/Dirichlet: '0 xyz = 0, 0, 0' lacks 'id:'"
run_case dirichlet-count 1 1 "$(with_entry 'Boundary conditions' Dirichlet '0: xyz = 0, 0')" \
  "plastix: error in input: Boundary conditions/Dirichlet: boundary id 0: 3 components but 2 values"
run_case dirichlet-component 1 1 "$(with_entry 'Boundary conditions' Dirichlet '0: xw = 0, 0')" \
  "plastix: error in input: Boundary conditions/Dirichlet: component 'w' is not x, y or z"
run_case traction-not-a-number 1 1 "$(with_entry 'Boundary conditions' Traction '1: 0, zero, -1e6')" \
  "plastix: error in input: Boundary conditions/Traction: 'zero' is not a number"

echo "== errors found while running (exit 1, after the output directory exists)"
run_case dirichlet-id-not-on-mesh 1 1 "$(with_entry 'Boundary conditions' Dirichlet '9: xyz = 0, 0, 0')" \
  "plastix: error in input: Boundary conditions/Dirichlet: boundary id 9 does not occur on the mesh (its boundary ids are 0, 1, 2, 3, 4, 5)"
run_case traction-id-not-on-mesh 1 1 "$(with_entry 'Boundary conditions' Traction '8: 0, 0, 1')" \
  "plastix: error in input: Boundary conditions/Traction: boundary id 8 does not occur on the mesh"
# An output directory that cannot be created, even as root: its parent is a file.
CASE_SETUP='echo not a directory > blocker.input' \
  run_case output-below-a-file 1 1 "$(with_entry Output Directory 'blocker.input/output')" \
  "plastix: error in input: Output/Directory: cannot create output directory 'blocker.input/output'"
if [ "$(id -u)" != 0 ]; then
  CASE_SETUP='mkdir locked.input && chmod 555 locked.input' \
    run_case output-not-writable 1 1 "$(with_entry Output Directory 'locked.input/output')" \
    "plastix: error in input: Output/Directory: cannot create output directory 'locked.input/output'"
else
  echo "  skip output directory without write permission: running as root (permissions do not apply)"
fi

echo "== Mohr-Coulomb, Drucker-Prager and the initial stress (exit 1)"
# with_mohr_coulomb <material lines> [<more prm text>]: the base problem made
# elastoplastic with a Mohr-Coulomb material (c = 1 MPa, phi = 30) plus lines.
with_mohr_coulomb() {
  base_prm
  printf 'subsection Problem\n  set Type = elastoplastic\nend\n'
  printf 'subsection Materials\n  set Yield criterion = Mohr-Coulomb\n  set Cohesion = 1e6\n  set Friction angle = 30\n%s\nend\n' "$1"
  [ -n "${2:-}" ] && printf '%s\n' "$2"
  return 0
}
run_case friction-90 1 1 "$(with_mohr_coulomb '  set Friction angle = 90')" \
  "plastix: error in input: Materials: friction angle must lie in (0, 90) degrees, got 90"
run_case negative-cohesion 1 1 "$(with_mohr_coulomb '  set Cohesion = -1')" \
  "plastix: error in input: Materials: cohesion must be positive and finite, got -1"
run_case dilation-above-friction 1 1 "$(with_mohr_coulomb '  set Dilation angle = 31')" \
  "plastix: error in input: Materials: dilation angle must lie in [0, friction angle = 30" "got 31"
run_case dilation-not-a-number 1 1 "$(with_mohr_coulomb '  set Dilation angle = steep')" \
  "plastix: error in input: Materials/Dilation angle: 'steep' is not a number"
run_case drucker-prager-cone 1 1 "$(with_mohr_coulomb '  set Yield criterion = Drucker-Prager
  set Cone matching = middle')" "Cone matching" "middle" "[Selection outer|inner|plane strain ]"
run_case unknown-criterion 1 1 "$(with_mohr_coulomb '  set Per material id = 0: criterion=Tresca')" \
  "plastix: error in input: Materials/Per material id: unknown yield criterion 'Tresca'"
run_case cg-non-symmetric-tangent 1 1 "$(with_mohr_coulomb '  set Dilation angle = 10')" \
  "plastix: error in input: Linear solver/Type: cg needs a symmetric operator" "Newton/Tangent = initial stiffness"
run_case initial-stress-count 1 1 "$(with_mohr_coulomb '' 'subsection Initial stress
  set Stress = -1e6; -1e6
end')" "plastix: error in input: Initial stress/Stress: '-1e6; -1e6' must be six expressions"
run_case initial-stress-expression 1 1 "$(with_mohr_coulomb '' 'subsection Initial stress
  set Stress = -1e6 * ; 0; 0; 0; 0; 0
end')" "plastix: error in input: Initial stress/Stress:" "is not six expressions of x, y, z"
run_case initial-stress-constant 1 1 "$(with_mohr_coulomb '' 'subsection Initial stress
  set Stress = -p0; -p0; -p0; 0; 0; 0
  set Constants = p0 = 1e6, 2p = 3
end')" "plastix: error in input: Initial stress/Constants: '2p' is not a name"
run_case initial-stress-elastic 1 1 "$(with_entry 'Initial stress' Stress '-1e6; -1e6; -1e6; 0; 0; 0')" \
  "plastix: error in input: Initial stress/Stress: an initial stress needs Problem/Type = elastoplastic"
for ranks in 1 2; do
  run_case initial-stress-outside-yield $ranks 1 "$(with_mohr_coulomb '' 'subsection Initial stress
  set Stress = 1e8; 1e8; 1e8; 0; 0; 0
end')" "plastix: error in input: Initial stress/Stress: the initial stress at (" "lies outside its yield surface"
  run_case initial-stress-not-finite $ranks 1 "$(with_mohr_coulomb '' 'subsection Initial stress
  set Stress = -1e6; -1e6; -1e6; 0; 0; x > 1 ? 0/0 : 0
end')" "plastix: error in input: Initial stress/Stress: the initial stress at (" "is not finite"
done
run_case initial-stress-von-mises 1 1 "$(with_mohr_coulomb '  set Yield criterion = von Mises
  set Yield stress = 1e8' 'subsection Initial stress
  set Stress = -1e6; -1e6; -1e6; 0; 0; 0
end')" "plastix: error in input: Initial stress/Stress:" "a von Mises material takes no initial stress"
run_case wellbore-radii 1 1 "$(base_prm; printf 'subsection Mesh\n  set Geometry = wellbore\n  set Inner radius = 2\n  set Outer radius = 1\nend\n')" \
  "plastix: error in input: Mesh/Outer radius: need 0 < Inner radius < Outer radius"
run_case wellbore-growth 1 1 "$(base_prm; printf 'subsection Mesh\n  set Geometry = wellbore\n  set Radial growth = 0\nend\n')" \
  "plastix: error in input: Mesh/Radial growth: must lie in [0.001, 1000]"
fixed_grid() { base_prm; printf 'subsection Mesh\n  set Geometry = fixed grid\n  subsection Fixed grid\n%s\n  end\nend\n' "$1"; }
run_case fixed-grid-no-body 1 1 "$(fixed_grid '')" \
  "plastix: error in input: Mesh/Fixed grid/Body: is empty but the geometry is 'fixed grid'"
run_case fixed-grid-bad-body 1 1 "$(fixed_grid '    set Body = x +* 2')" \
  "plastix: error in input: Mesh/Fixed grid/Body: 'x +* 2' is not an expression of x, y, z"
run_case fixed-grid-empty-body 2 1 "$(fixed_grid '    set Body = 1 + x^2')" \
  "plastix: error in input: Mesh/Fixed grid/Body: no cell of the grid holds a sample point inside the body"
run_case fixed-grid-void-stiffness 1 1 "$(fixed_grid '    set Body = x - 0.5
    set Void stiffness = 0')" \
  "plastix: error in input: Mesh/Fixed grid/Void stiffness: must lie in (0, 1)"
run_case fixed-grid-body-off-the-support 1 1 "$(fixed_grid '    set Body = x - 0.3'; printf 'subsection Boundary conditions\n  set Dirichlet = 1: xyz = 0, 0, 0\n  set Traction = \nend\n')" \
  "plastix: error in input: Boundary conditions/Dirichlet: boundary id 1 does not occur on the mesh"
run_case fixed-grid-missing-image 2 1 "$(fixed_grid '    set Image file = missing.nrrd')" \
  "plastix: error in input: Mesh/Fixed grid/Image file: cannot open 'missing.nrrd' (no such file)"
CASE_SETUP='printf "0123456789" > volume.input' \
  run_case fixed-grid-truncated-image 2 1 "$(fixed_grid '    set Image file = volume.input
    set Image size = 4, 2, 2')" \
  "plastix: error in input: Mesh/Fixed grid/Image file: 'volume.input' holds 10 bytes of voxel data, but 4 x 2 x 2 voxels of 1 bytes need 16 (a truncated file)"
run_case fixed-grid-image-and-body 1 1 "$(fixed_grid '    set Body = x - 0.5
    set Image file = missing.nrrd')" \
  "plastix: error in input: Mesh/Fixed grid/Image file: and Body are both given"
run_case fixed-grid-bad-region 2 1 "$(fixed_grid '    set Body = x - 0.5
    set Material regions = 1: y +* 2')" \
  "plastix: error in input: Mesh/Fixed grid/Material regions: 'y +* 2' is not an expression of x, y, z, v"
run_case fixed-grid-too-large 1 1 "$(fixed_grid '    set Body = x - 0.5'; printf 'subsection Mesh\n  set Subdivisions = 1000, 1000, 1000\nend\n')" \
  "plastix: error in input: Mesh/Subdivisions, Mesh/Global refinements: the mesh would have 1e+09 cells and need about"
run_case fixed-grid-distortion 1 1 "$(fixed_grid '    set Body = x - 0.5'; printf 'subsection Mesh\n  set Distortion = 0.1\nend\n')" \
  "plastix: error in input: Mesh/Distortion: must be 0 for a fixed grid"

echo "== solver does not converge (exit 2)"
run_case max-iterations 1 2 "$(with_entry 'Linear solver' 'Maximum iterations' 2)" \
  "plastix: error: cg + jacobi did not converge" "after 2 iterations" "Linear solver/Maximum iterations"

echo "== the same under mpirun -np 2"
run_case nu-0.5 2 1 "$(with_entry Materials "Poisson's ratio" 0.5)" \
  "plastix: error in input: Materials: Poisson's ratio must lie in (-1, 0.5), got nu = 0.5"
run_case wrong-type 2 1 "$(with_entry Mesh 'Global refinements' abc)" \
  "plastix: error in input: in parameter file 'case.prm': Line <$ENTRY_LINE> of file <case.prm>:" \
  "Global refinements" "abc" "[Integer range 0...12 (inclusive)]"
run_case dirichlet-id-not-on-mesh 2 1 "$(with_entry 'Boundary conditions' Dirichlet '9: xyz = 0, 0, 0')" \
  "plastix: error in input: Boundary conditions/Dirichlet: boundary id 9 does not occur on the mesh"
run_case max-iterations 2 2 "$(with_entry 'Linear solver' 'Maximum iterations' 2)" \
  "plastix: error: cg + jacobi did not converge" "Linear solver/Maximum iterations"
for name in nu-0.5 wrong-type dirichlet-id-not-on-mesh max-iterations; do
  n=$(grep -c '^plastix: ' "$WORK/$name-np2.err")
  if [ "$n" = 1 ]; then ok "$name (np 2): the error is printed once (rank 0)"; else fail "$name (np 2): the error is printed $n times"; fi
done

echo "== command line"
mkdir -p "$WORK/cli" && cd "$WORK/cli" || exit 1
"$APP" --help >help.out 2>help.err
status=$?
if [ $status = 0 ] && grep -q '^usage: plastix' help.out; then ok "--help: exit 0 and usage on stdout"; else fail "--help: exit $status"; fi
"$APP" >noarg.out 2>noarg.err
status=$?
if [ $status = 1 ] && grep -q '^usage: plastix' noarg.err; then ok "no argument: exit 1 and usage on stderr"; else fail "no argument: exit $status"; fi
"$APP" no-such-file.prm >missing.out 2>missing.err
status=$?
if [ $status = 1 ] && grep -qF "plastix: error in input: cannot open parameter file 'no-such-file.prm'" missing.err; then
  ok "missing parameter file: exit 1, names the file"
else
  fail "missing parameter file: exit $status, stderr: $(cat missing.err)"
fi

echo "== --print-parameters round trip"
mkdir -p "$WORK/roundtrip" && cd "$WORK/roundtrip" || exit 1
if "$APP" --print-parameters >printed.prm 2>print.err && [ -s printed.prm ]; then
  ok "--print-parameters: exit 0, $(wc -l <printed.prm) lines"
else
  fail "--print-parameters failed: $(cat print.err)"
fi
# Every subsection the app reads appears in the printed file.
for section in Mesh Materials 'Boundary conditions' Operator 'Linear solver' Output; do
  if grep -q "^subsection $section\$" printed.prm; then ok "printed file has subsection '$section'"; else fail "printed file lacks subsection '$section'"; fi
done
# The defaults, run as they are (a 4x4x4 box), must solve and write output.
timeout 300 "$APP" printed.prm >run.out 2>run.err
status=$?
if [ $status = 0 ] && grep -q '^plastix: ' run.out; then
  ok "printed parameters run: exit 0 ($(grep -o '[0-9]* DoFs' run.out))"
else
  fail "printed parameters run: exit $status: $(cat run.err)"
fi
if ls output/*.pvtu >/dev/null 2>&1 && ls output/*.vtu >/dev/null 2>&1; then
  ok "printed parameters run wrote $(cd output && ls *.pvtu *.vtu | tr '\n' ' ')"
else
  fail "printed parameters run wrote no .pvtu/.vtu: $(ls -A output 2>&1)"
fi
if [ -z "$(find . -name '.plastix-staging-*')" ]; then ok "no staging folder after a successful run"; else fail "staging folder left after a successful run"; fi
# Printing the parameters of the printed file again gives the same file.
sed -i 's/^\(  *set Traction *=\).*/\1 1: 0, 0, -1e6/' printed.prm
timeout 300 "$APP" printed.prm >run2.out 2>run2.err
status=$?
if [ $status = 0 ] && grep -q 'max |u| [1-9]' run2.out; then
  ok "printed parameters with a traction (edited with sed) run: exit 0, $(grep -o 'max |u| [^,]*' run2.out)"
else
  fail "printed parameters with a traction: exit $status: $(cat run2.err) $(cat run2.out)"
fi

echo "$n_checks checks, $failures failed"
[ $failures = 0 ] && echo PASSED || echo FAILED
[ $failures = 0 ]
