#!/bin/bash
# deal.II's Portable::MatrixFree against plastix on one GPU (doc/benchmarks.md,
# "deal.II's Portable::MatrixFree"): the Q1 elastic operator's applications per
# second on uniform and distorted meshes, and the elastic cube solved with CG
# and Jacobi and with each code's multigrid.
#
#   scripts/gpu-portable-side-by-side.sh build <Kokkos source> <deal.II source> <work dir>
#     Kokkos with CUDA (Hopper, shared libraries, nvcc_wrapper) and a minimal
#     deal.II on it (no MPI, Trilinos, PETSc or p4est; unity build, Release),
#     then portable-elasticity-bench (benchmarks/portable/CMakeLists.txt);
#     everything under <work dir>. About 110 compile jobs: run it on the GPU
#     machine's cores (JOBS, default all).
#   scripts/gpu-portable-side-by-side.sh run <work dir> <plastix build dir> <output dir>
#     portable-elasticity-bench (from the build step), plastix-bench and the
#     application (scripts/gpu-time-to-solution.sh portable) of a CUDA build of
#     plastix, one after the other on the same GPU; logs in <output dir>.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
JOBS=${JOBS:-$(nproc)}
SIZES=${SIZES:-64,128}

case "${1:-}" in
  build)
    KOKKOS_SRC=$(readlink -f "$2")
    DEAL_II_SRC=$(readlink -f "$3")
    WORK=$(mkdir -p "$4" && cd "$4" && pwd)
    set -e
    # nvcc_wrapper's default architecture (sm_70) is gone from CUDA 13: a copy that defaults to Hopper.
    mkdir -p "$WORK/bin"
    sed 's/^default_arch="sm_[0-9]*"/default_arch="sm_90"/' "$KOKKOS_SRC/bin/nvcc_wrapper" >"$WORK/bin/nvcc_wrapper"
    chmod +x "$WORK/bin/nvcc_wrapper"
    cmake -S "$KOKKOS_SRC" -B "$WORK/kokkos-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_COMPILER="$WORK/bin/nvcc_wrapper" -DCMAKE_CXX_STANDARD=17 -DBUILD_SHARED_LIBS=ON \
      -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_CONSTEXPR=ON \
      -DKokkos_ARCH_HOPPER90=ON -DCMAKE_INSTALL_PREFIX="$WORK/kokkos" >"$WORK/kokkos-configure.log"
    cmake --build "$WORK/kokkos-build" -j "$JOBS" --target install >"$WORK/kokkos-build.log"
    cmake -S "$DEAL_II_SRC" -B "$WORK/deal.II-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_COMPILER="$WORK/bin/nvcc_wrapper" -DDEAL_II_ALLOW_AUTODETECTION=OFF \
      -DDEAL_II_WITH_KOKKOS=ON -DKOKKOS_DIR="$WORK/kokkos" -DDEAL_II_FORCE_BUNDLED_BOOST=ON \
      -DDEAL_II_WITH_MPI=OFF -DDEAL_II_UNITY_BUILD=ON -DDEAL_II_WITH_COMPLEX_VALUES=OFF \
      -DDEAL_II_COMPONENT_EXAMPLES=OFF -DCMAKE_INSTALL_PREFIX="$WORK/deal.II" >"$WORK/deal.II-configure.log"
    cmake --build "$WORK/deal.II-build" -j "$JOBS" --target install >"$WORK/deal.II-build.log"
    cmake -S "$REPO/benchmarks/portable" -B "$WORK/bench-build" -G Ninja -DDEAL_II_DIR="$WORK/deal.II" \
      >"$WORK/bench-configure.log"
    cmake --build "$WORK/bench-build" -j "$JOBS" >"$WORK/bench-build.log"
    echo "built $WORK/bench-build/portable-elasticity-bench"
    ;;
  run)
    WORK=$(readlink -f "$2")
    PLASTIX_BUILD=$(readlink -f "$3")
    L=$(mkdir -p "$4" && cd "$4" && pwd)
    export LD_LIBRARY_PATH="$WORK/deal.II/lib:$WORK/kokkos/lib:${LD_LIBRARY_PATH:-}"
    for d in 0 0.2; do
      echo "## distortion $d"
      "$WORK/bench-build/portable-elasticity-bench" --sizes "$SIZES" --distortion $d --solve \
        2>&1 | tee "$L/portable-distortion-$d.log"
      "$PLASTIX_BUILD/plastix-bench" --sizes "$SIZES" --distortion $d --no-assembled --repeats 10 --batch 3 \
        --strategies "ebe atomic,ebe colored,dbd" --kernels "stored geometry,geometry on the fly" \
        --output "$L/plastix-bench-distortion-$d.md" >"$L/plastix-bench-distortion-$d.log" 2>&1
      cat "$L/plastix-bench-distortion-$d.md"
    done
    "$REPO/scripts/gpu-time-to-solution.sh" "$PLASTIX_BUILD/plastix" portable "$L/tts"
    ;;
  *)
    sed -n '2,16p' "$0"
    exit 1
    ;;
esac
