#!/usr/bin/env bash
# The plastix executable allocates with jemalloc and transparent huge pages
# (apps/allocator/jemalloc_options.cc; CMake's PLASTIX_WITH_JEMALLOC): the
# options compiled into the program reach jemalloc, and jemalloc says nothing
# on a normal run. Fails if the linker dropped jemalloc (glibc's malloc then
# prints no statistics) or jemalloc rejected an option.
set -uo pipefail
app=$1
fail() { echo "FAIL: $*"; exit 1; }

stats=$(MALLOC_CONF=stats_print:true "$app" --help 2>&1 >/dev/null)
grep -q 'Begin jemalloc statistics' <<< "$stats" || fail "plastix does not allocate with jemalloc"
grep -q 'opt.thp: "always"' <<< "$stats" ||
  fail "jemalloc runs without transparent huge pages: $(grep 'opt.thp' <<< "$stats")"
echo "ok: jemalloc $(sed -n 's/^Version: "\(.*\)"$/\1/p' <<< "$stats"), $(grep -m1 'opt.thp' <<< "$stats" | tr -s ' ')"

noise=$("$app" --help 2>&1 >/dev/null)
[ -z "$noise" ] || fail "plastix --help wrote to stderr: $noise"
# An option the user sets in the environment still wins over the compiled-in ones.
stats=$(MALLOC_CONF=thp:default,stats_print:true "$app" --help 2>&1 >/dev/null)
grep -q 'opt.thp: "default"' <<< "$stats" || fail "MALLOC_CONF does not override the compiled-in options"
echo "ok: MALLOC_CONF=thp:default overrides them"
