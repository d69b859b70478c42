#!/bin/bash
# The GPU runs of doc/benchmarks.md and doc/validation.md, for a CUDA build
# of plastix (cmake -DPLASTIX_ENABLE_CUDA=ON, README): the GPU test
# programs, the kernel benchmarks (uniform and distorted meshes, cuSPARSE,
# J2 kernels at 0/10/30 % plastic points), whole Newton solves (cube C5,
# L-bracket refined three times) and plastix-bench (GPU next to deal.II
# MatrixFree; with CPU_BUILD also the same benchmark on the host cores).
# Usage: scripts/gpu-benchmarks.sh <cuda build dir> [output dir]
# Environment: CPU_BUILD (a host build; empty: skip the host-core run),
# CPU_RANKS (default: nproc), MPIRUN (default mpirun).
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
G=$(cd "$1" && pwd)
L=$(mkdir -p "${2:-gpu-results}" && cd "${2:-gpu-results}" && pwd)
P=$REPO/prm
MPIRUN=${MPIRUN:-mpirun}
CPU_RANKS=${CPU_RANKS:-$(nproc)}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/plastix-gpu.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >"$L/00-gpu.txt"

# run <timeout> <name> <command...>: log, wall time and exit status in $L/<name>.log
run() {
  local t=$1 name=$2
  shift 2
  mkdir -p "$WORK/$name"
  (cd "$WORK/$name" && (time timeout "$t" "$@") >"$L/$name.log" 2>&1; echo "exit $?" >>"$L/$name.log")
  echo "$name: $(grep -E '^real|^exit' "$L/$name.log" | tr '\n' ' ')"
}
no_vtu() { cp "$1" "$2" && printf 'subsection Output\n  set Write VTU = false\nend\n' >>"$2"; }

# Tests on the GPU (the host build's ctest runs the same programs).
run 20 01-backend-dense "$G/tests/test_backend_operator_dense_reference"
run 20 02-backend-vector "$G/tests/test_backend_vector_operations"
run 20 03-backend-j2 "$G/tests/test_backend_j2_return_map"
run 30 04-operator-1 "$G/tests/test_operator_vs_dealii"
run 30 05-operator-2 $MPIRUN -np 2 "$G/tests/test_operator_vs_dealii"
run 40 06-solve-1 "$G/tests/test_solve_vs_assembled"
run 20 07-patch-2 $MPIRUN -np 2 "$G/tests/test_patch_test"
run 90 08-hostref-1 "$G/tests/test_plasticity_vs_host_reference" "$P"
run 60 09-strategies-1 "$G/tests/test_plasticity_strategies"
run 300 10-strategies-2 $MPIRUN -np 2 "$G/tests/test_plasticity_strategies"
run 90 11-closed-forms-1 "$G/tests/test_plasticity_closed_forms" "$P"
run 20 12-unloading-1 "$G/tests/test_plasticity_unloading" "$P"
run 60 13-solvers-1 "$G/tests/test_solver_combinations"
run 40 14-mg-scaling-1 "$G/tests/test_multigrid_scaling"
run 40 15-mg-newton-2 $MPIRUN -np 2 "$G/tests/test_multigrid_newton"
run 30 16-default "$G/plastix" "$P/default.prm"
# Trustworthy runs: exact prescribed displacements, restart/interruption, damaged input.
run 60 17-prescribed-1 "$G/tests/test_prescribed_displacement"
run 120 18-prescribed-2 $MPIRUN -np 2 "$G/tests/test_prescribed_displacement"
run 300 19-restart python3 "$REPO/tests/scripts/app_restart.py" "$G/plastix" "$MPIRUN"
run 600 19-fuzz python3 "$REPO/tests/scripts/app_fuzz.py" "$G/plastix" "$P" "$MPIRUN" --jobs 4 --memory-limit-mb 0

# Kernels (backend only).
run 600 20-kernels-uniform "$G/plastix-kernel-bench" --sizes 32,64,128,192 --repeats 20 --mappings cell,node \
  --csr-max-dofs 7000000 --plastic-fractions 0,0.1,0.3
run 600 21-kernels-distorted "$G/plastix-kernel-bench" --sizes 64,128 --distortion 0.2 --repeats 20 \
  --mappings cell,node --csr-max-dofs 7000000 --plastic-fractions 0,0.1,0.3
run 300 22-kernels-distorted-160 "$G/plastix-kernel-bench" --sizes 160 --distortion 0.2 --repeats 10 \
  --mappings cell --csr-max-dofs 0 --plastic-fractions 0,0.1,0.3

# Whole Newton solves.
no_vtu "$P/cube_C5.prm" "$WORK/c5.prm"
run 600 30-C5-gpu "$G/plastix" "$WORK/c5.prm"
sed 's/Global refinements = 2/Global refinements = 3/' "$P/l_bracket.prm" >"$WORK/l3full.prm"
no_vtu "$WORK/l3full.prm" "$WORK/l3.prm"
run 600 31-L3-gpu "$G/plastix" "$WORK/l3.prm"

# Operator throughput next to deal.II MatrixFree (1 rank: MatrixFree on one core).
run 600 32-bench-gpu "$G/plastix-bench" --sizes 64,128 --repeats 20 --no-assembled --strategies "ebe atomic,dbd" \
  --kernels all --label "GPU, 1 rank"
if [ -n "${CPU_BUILD:-}" ]; then
  run 600 33-bench-cpu $MPIRUN -np "$CPU_RANKS" --bind-to core "$CPU_BUILD/plastix-bench" --sizes 64,128 --repeats 20 \
    --strategies "ebe atomic" --kernels "stored geometry,element matrix" --label "CPU, $CPU_RANKS ranks"
  run 600 34-C3-cpu $MPIRUN -np "$CPU_RANKS" --bind-to core "$CPU_BUILD/plastix" "$P/cube_C3.prm"
fi
