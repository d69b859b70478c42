// jemalloc's options for the plastix executables (linked into each of them,
// with jemalloc as the process's malloc, when CMake finds jemalloc; see
// PLASTIX_WITH_JEMALLOC in CMakeLists.txt).
//
// deal.II's mesh refinement and DoF distribution, and the operator's set-up,
// grow arrays of hundreds of MiB to GiB. With 4 KiB pages each fresh page
// costs a page fault; on the development machine (a virtual machine) these
// took half the set-up (doc/solvers.md, "Set-up"). "thp:always" makes
// jemalloc ask the kernel for 2 MiB pages through madvise, which kernels in
// transparent-huge-page mode "madvise" or "always" grant (in mode "never" it
// does nothing): C5's serial mesh took 15k page faults instead of glibc's
// 234k. The huge pages are what helps: jemalloc without them was as slow as
// glibc.
// MALLOC_CONF in the environment overrides these options (for example
// MALLOC_CONF=thp:default).
#include <jemalloc/jemalloc.h>

const char *malloc_conf = "thp:always,metadata_thp:auto";

// Nothing else in a program calls jemalloc by name: this reference makes the
// linker keep the library where it drops unreferenced ones (--as-needed).
__attribute__((used)) static auto *const keep_jemalloc = &mallctl;
