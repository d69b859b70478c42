#!/usr/bin/env bash
# Debian 12 packages plastix needs: deal.II 9.4 (with p4est, Trilinos, MPI),
# Trilinos Belos, CMake and a C++17 compiler; python3 for the application
# tests (restart, fuzz), zlib for the VTU writer and jemalloc (with pkg-config)
# as the executables' allocator; mold links the executables in a second
# rather than GNU ld's several. Run as root (or with sudo).
set -euo pipefail
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
packages="libdeal.ii-dev libtrilinos-belos-dev cmake g++ make openmpi-bin python3 zlib1g-dev gnuplot-nox libjemalloc-dev pkg-config mold"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends $missing
fi
