#!/usr/bin/env bash
# Mesh files: the same two-hexahedron mesh ([0,2]x[0,1]x[0,1], material ids 1
# and 2, boundary ids 7 on x = 0, 9 on x = 2 and 3 elsewhere) as a
# hand-written gmsh file (ASCII v2.2, physical tags on the boundary quads)
# and as an Abaqus .inp (element sets EB1/EB2, surfaces SS7/SS9/SS3), solved
# by the app with Geometry = file:
#   - both solve (exit 0) with Dirichlet on id 7 and a traction on id 9, i.e.
#     with the boundary ids of the file, and give the same max |u| as the
#     generated box of the same cells (ids 0 and 1 there), after 2 refinements;
#   - a softer material for material id 2 of the file changes max |u| equally
#     for both files (the material ids of the file are used);
#   - a Dirichlet condition on id 0, which the files do not have, fails with
#     exit 1 and the list of the file's boundary ids (3, 7, 9).
#
# usage: app_mesh_files.sh <plastix binary> <directory with two_hexes.msh/.inp>
set -u
APP=$(realpath "$1")
DATA=$(realpath "$2")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/plastix-mesh-files.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
failures=0
ok() { echo "  ok   $*"; }
fail() { failures=$((failures + 1)); echo "  FAIL $*"; }

# prm <geometry lines> <clamp id> <load id> <per material id>
prm() {
  cat <<EOF
subsection Mesh
$1
  set Global refinements = 2
end
subsection Materials
  set Young's modulus = 200e9
  set Poisson's ratio = 0.3
  set Per material id = $4
end
subsection Boundary conditions
  set Dirichlet = $2: xyz = 0, 0, 0
  set Traction  = $3: 0, 0, -1e6
end
subsection Linear solver
  set Relative tolerance = 1e-12
end
subsection Output
  set Directory = output
end
EOF
}

# run <name> <expected status> <prm text>; sets $summary and $max_u
run() {
  local dir="$WORK/$1"
  mkdir -p "$dir"
  printf '%s\n' "$3" >"$dir/run.prm"
  (cd "$dir" && timeout 120 "$APP" run.prm >run.out 2>run.err)
  local status=$?
  summary=$(grep '^plastix: ' "$dir/run.out")
  max_u=$(echo "$summary" | sed -n 's/.*max |u| \([0-9.eE+-]*\).*/\1/p')
  if [ $status = "$2" ]; then
    ok "$1: exit status $status${max_u:+, max |u| $max_u}"
  else
    fail "$1: exit status $status, expected $2: $(cat "$dir/run.err")"
  fi
}

box='  set Geometry = box
  set Lower corner = 0, 0, 0
  set Upper corner = 2, 1, 1
  set Subdivisions = 2, 1, 1'
msh="  set Geometry = file
  set File = $DATA/two_hexes.msh"
inp="  set Geometry = file
  set File = $DATA/two_hexes.inp"

run box 0 "$(prm "$box" 0 1 '')"
box_u=$max_u
box_dofs=$(echo "$summary" | grep -o '[0-9]* DoFs')
run gmsh 0 "$(prm "$msh" 7 9 '')"
msh_u=$max_u
run abaqus 0 "$(prm "$inp" 7 9 '')"
inp_u=$max_u
for name in gmsh abaqus; do
  if grep -qF "$box_dofs, 128 cells" "$WORK/$name/run.out"; then ok "$name: $box_dofs, 128 cells as the box"; else fail "$name: not $box_dofs, 128 cells: $(cat "$WORK/$name/run.out")"; fi
done
if [ -n "$box_u" ] && [ "$msh_u" = "$box_u" ] && [ "$inp_u" = "$box_u" ]; then
  ok "max |u| equal for the box ($box_u), gmsh ($msh_u) and Abaqus ($inp_u) meshes"
else
  fail "max |u| differs: box '$box_u', gmsh '$msh_u', Abaqus '$inp_u'"
fi

run gmsh-soft-id2 0 "$(prm "$msh" 7 9 '2: E=50e9')"
msh_soft=$max_u
run abaqus-soft-id2 0 "$(prm "$inp" 7 9 '2: E=50e9')"
inp_soft=$max_u
if [ -n "$msh_soft" ] && [ "$msh_soft" = "$inp_soft" ] && awk -v s="$msh_soft" -v b="$box_u" 'BEGIN { exit !(s > 1.2 * b) }'; then
  ok "material id 2 with E = 50e9: max |u| $msh_soft (gmsh) = $inp_soft (Abaqus) > 1.2 x $box_u"
else
  fail "material id 2 with E = 50e9: gmsh '$msh_soft', Abaqus '$inp_soft', stiff '$box_u'"
fi
run gmsh-soft-id1 0 "$(prm "$msh" 7 9 '1: E=50e9')"
if [ -n "$max_u" ] && [ "$max_u" != "$msh_soft" ]; then
  ok "material id 1 softened instead gives another max |u| ($max_u)"
else
  fail "material id 1 softened gives max |u| '$max_u' (id 2: '$msh_soft')"
fi

for name in gmsh abaqus; do
  file=$msh
  [ $name = abaqus ] && file=$inp
  run $name-id-0 1 "$(prm "$file" 0 9 '')"
  if grep -qF "plastix: error in input: Boundary conditions/Dirichlet: boundary id 0 does not occur on the mesh (its boundary ids are 3, 7, 9)" "$WORK/$name-id-0/run.err"; then
    ok "$name: Dirichlet on id 0 names the file's ids 3, 7, 9"
  else
    fail "$name: unexpected message: $(cat "$WORK/$name-id-0/run.err")"
  fi
done

[ $failures = 0 ] && echo PASSED || echo FAILED
[ $failures = 0 ]
