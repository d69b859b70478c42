// Included last by every backend translation unit: fails the build if a
// deal.II header has reached it (doc/design.md, "The Kokkos firewall").
#if defined(DEAL_II_NAMESPACE_OPEN) || defined(DEAL_II_VERSION_MAJOR)
#  error "A deal.II header reached a plastix backend translation unit; keep deal.II out of source/backend."
#endif
