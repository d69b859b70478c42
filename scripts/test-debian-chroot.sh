#!/usr/bin/env bash
# Build plastix against another Debian release's deal.II and run its test
# suite in a chroot made with debootstrap: Debian 13 (trixie, deal.II 9.6.2,
# Trilinos 13.2) or Debian unstable (sid, deal.II 9.7.1, Trilinos 16.1).
# The suite runs but for the studies labelled 'long' (-DPLASTIX_LONG_TESTS=OFF:
# the operator's strategy, convergence and limit-load series, which use
# deal.II for meshes and DoFs only and run on Debian 12) and with 100 of the
# fuzz test's cases (PLASTIX_FUZZ_CASES), so that CI runs Debian 12 and one
# chroot within its 90 minutes. Run as root on a Debian machine whose package
# mirror serves the release (the CI machine's does).
#
#   bash scripts/test-debian-chroot.sh trixie|sid [chroot directory]
#   (default chroot directory /var/tmp/plastix-<release>)
#
# The chroot is made once and reused; the source tree is copied into it
# (git ls-files: tracked and unignored files only) and built in
# <chroot>/plastix/build.
set -euo pipefail
# debootstrap, mount and chroot need root.
if [ "$(id -u)" != "0" ]; then exec sudo -E bash "$0" "$@"; fi
cd "$(dirname "$0")/.."
RELEASE=${1:-}
case "$RELEASE" in
  trixie | sid) ;;
  *) echo "usage: bash scripts/test-debian-chroot.sh trixie|sid [chroot directory]" >&2; exit 1 ;;
esac
ROOT=${2:-/var/tmp/plastix-$RELEASE}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
export DEBIAN_FRONTEND=noninteractive

if ! command -v debootstrap > /dev/null; then
  apt-get update -q && apt-get install -y -q --no-install-recommends debootstrap
fi
if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
  echo "== debootstrap $RELEASE into $ROOT"
  debootstrap --variant=minbase "$RELEASE" "$ROOT" "$MIRROR" > /tmp/plastix-debootstrap.log 2>&1 ||
    { tail -20 /tmp/plastix-debootstrap.log; exit 1; }
fi
# /sys too: without it hwloc finds no CPU topology and Debian 13's Open MPI 5
# (PRRTE) fails to start now and then under mpiexec (exit 213, "prte_init()
# failed"), about one run in five.
mountpoint -q "$ROOT/proc" || mount -t proc proc "$ROOT/proc"
mountpoint -q "$ROOT/sys" || mount -t sysfs sysfs "$ROOT/sys"
mountpoint -q "$ROOT/dev" || mount --bind /dev "$ROOT/dev"
trap 'umount "$ROOT/dev" "$ROOT/sys" "$ROOT/proc" 2> /dev/null || true' EXIT

# The same package list as scripts/install-dependencies.sh (which checks for
# Debian 12's names; the later releases have the same ones). A mirror's copy
# of unstable may carry a Release file past its Valid-Until date: apt would
# refuse it, so the date is not checked.
echo "== packages"
chroot "$ROOT" bash -c 'export DEBIAN_FRONTEND=noninteractive; apt-get -o Acquire::Check-Valid-Until=false update -q > /dev/null &&
  apt-get install -y -q --no-install-recommends libdeal.ii-dev libtrilinos-belos-dev cmake g++ make mold \
    openmpi-bin python3 zlib1g-dev gnuplot-nox libjemalloc-dev pkg-config > /tmp/apt.log 2>&1 || { tail -20 /tmp/apt.log; exit 1; }'
chroot "$ROOT" dpkg-query -W -f='${Package} ${Version}\n' libdeal.ii-dev libtrilinos-kokkos-dev

echo "== copy the source"
# A fresh copy and a fresh build every time: a copy that kept the files' times
# (cp -p) could be older than objects of a kept build tree, which make would
# then not rebuild.
rm -rf "$ROOT/plastix/src" "$ROOT/plastix/build" && mkdir -p "$ROOT/plastix/src"
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$ROOT/plastix/src"

echo "== build and test"
chroot "$ROOT" bash -c 'cd /plastix/src &&
  cmake -S . -B /plastix/build -DCMAKE_BUILD_TYPE=Release -DPLASTIX_LONG_TESTS=OFF > /plastix/cmake.log 2>&1 || { tail -30 /plastix/cmake.log; exit 1; }
  cmake --build /plastix/build -j"$(nproc)" 2>&1 | grep -E "error|Error" -A3 | head -60; test ${PIPESTATUS[0]} -eq 0 &&
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PLASTIX_FUZZ_CASES=100 ctest --test-dir /plastix/build -j"$(nproc)" --output-on-failure'
