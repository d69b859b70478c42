// jemalloc's options for the plastix executables (linked into each of them,
// with jemalloc as the process's malloc, when CMake finds jemalloc; see
// PLASTIX_WITH_JEMALLOC in CMakeLists.txt).
//
// deal.II's mesh refinement and DoF distribution, and the operator's set-up,
// grow arrays of hundreds of MiB to GiB. With 4 KiB pages each fresh page
// costs a page fault, and on virtual machines these dominated the set-up
// (doc/solvers.md, session S). jemalloc with transparent huge pages ("thp:
// always": it asks the kernel for 2 MiB pages through madvise, which kernels
// in THP mode "madvise" grant; in mode "never" the option does nothing) and
// its reuse of freed memory cut the faults several hundredfold. MALLOC_CONF
// in the environment overrides these defaults (e.g. MALLOC_CONF=thp:default).
#include <jemalloc/jemalloc.h>

const char *malloc_conf = "thp:always,metadata_thp:auto";
