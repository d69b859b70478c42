#!/usr/bin/env bash
# The Kokkos/deal.II firewall (doc/design.md, "The Kokkos firewall"), checked
# transitively on the compiler's view of every translation unit:
#   - backend translation units (source/backend/**/*.cc)
#     must not depend on any deal.II header (a path containing '/deal.II/');
#   - deal.II-side translation units (the library: source/{core,material,
#     solvers}; the application apps/plastix; the deal.II benchmark and its
#     reference operators in benchmarks/; the C++ tests of tests/adapter,
#     solvers, plasticity, app and their headers in tests/common) must not depend on a
#     Kokkos header
#     (Kokkos_*.hpp, KokkosExp_*.hpp, KokkosCore_config.h, ...) except through
#     deal.II's own headers: the Debian deal.II includes Trilinos' Sacado from
#     deal.II/base/numbers.h, which brings much of Trilinos' Kokkos 3.x into
#     every deal.II program. Those chains are listed as tolerated; a Kokkos
#     header reached without a deal.II header on its include chain fails;
#   - users of the public backend headers only (tests/backend/*.cc,
#     benchmarks/plastix_kernel_bench.cc, benchmarks/box_mesh.cc) depend on
#     neither: include/plastix/backend is Kokkos-free.
# The layout: the library (include/plastix, source/{core,material,solvers})
# includes no header of the application (apps/plastix) or of the benchmarks,
# and the application none of the benchmarks.
#
# How: the compile commands come from <build dir>/compile_commands.json if
# present, otherwise from a CMake configure (only) in a temporary directory
# with CMAKE_EXPORT_COMPILE_COMMANDS=ON. Each command is rerun as a
# preprocessor run (-E -H -o /dev/null instead of -c/-o); -H prints every
# header with its include depth: the dependency list that -M gives plus the
# chain through which each header arrived.
# A header that deal.II already included is not listed again where plastix
# code includes it a second time (include guards), so for deal.II-side units
# the project's own include graph is followed as well: every project file the
# unit reaches is checked for direct Kokkos or backend-internal includes, and
# every third-party header it includes is preprocessed alone with the unit's
# flags to see whether it brings Kokkos.
# Canary files (a forbidden header two includes deep; also behind deal.II, and
# through a third-party header) prove that each check detects what it should.
# Finally a plain grep of the #include lines of all sources and headers.
#
# usage: firewall.sh <source dir> [build dir]
set -u
SRC=$(realpath "$1")
BUILD=${2:-}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/plastix-firewall.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

configure() {
  echo "configuring $SRC in a temporary directory for compile_commands.json"
  if ! "${CMAKE:-cmake}" -S "$SRC" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    >"$WORK/configure.log" 2>&1; then
    cat "$WORK/configure.log"
    echo "FAIL: cmake configure failed"
    exit 1
  fi
  DB="$WORK/build/compile_commands.json"
  STALE_OK=0
}
if [ -n "$BUILD" ] && [ -f "$BUILD/compile_commands.json" ]; then
  DB="$BUILD/compile_commands.json"
  STALE_OK=1
  echo "compile commands: $DB"
else
  configure
fi

check() {
python3 - "$SRC" "$DB" "$WORK" "$STALE_OK" <<'PYTHON'
import concurrent.futures, json, os, re, shlex, subprocess, sys, threading

src, db_path, work, stale_ok = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
failures = 0
def report(ok, text):
    global failures
    print(("  ok   " if ok else "  FAIL ") + text)
    if not ok:
        failures += 1

DEALII = re.compile(r"(^|/)deal\.II/")
# Trilinos Belos (source/solvers/belos_solver.cc): its headers bring Teuchos and
# with it Trilinos' own Kokkos 3.x, the same Kokkos that deal.II's Sacado
# brings; tolerated like deal.II's own chains. Teuchos included directly is
# still flagged (canary dealii-through-Teuchos).
BELOS = re.compile(r"(^|/)Belos[A-Za-z_]*\.hpp$")
# The folders of the deal.II-side C++ tests and their shared headers.
DEALII_TEST_DIRS = ("tests/adapter", "tests/solvers", "tests/plasticity", "tests/app", "tests/common")
KOKKOS = re.compile(r"(^|/)(Kokkos[A-Za-z]*_[^/]*\.hpp|KokkosCore_config\.h)$")
HEADER_LINE = re.compile(r"^(\.+) (.+)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)

def rel(path):
    return os.path.relpath(path, src) if path.startswith(src + os.sep) else os.path.basename(path)

BACKEND_USERS = ("benchmarks/plastix_kernel_bench.cc", "benchmarks/box_mesh.cc")
CUDA_ONLY = ("benchmarks/cusparse_spmv.cc",)

def classify(path):
    r = rel(path)
    if r.startswith("source/backend/"):
        return "backend"
    if r.startswith(("tests/backend/",)) or r in BACKEND_USERS:
        return "backend-user"
    if r.startswith(("source/core/", "source/material/", "source/solvers/", "apps/plastix/", "benchmarks/")
                    + tuple(d + "/" for d in DEALII_TEST_DIRS)) and r not in CUDA_ONLY:
        return "dealii"
    return None

rules = {"backend": "no deal.II header", "dealii": "no Kokkos header except via deal.II",
         "backend-user": "neither deal.II nor Kokkos"}

# ---------------------------------------------------------------- commands
def arguments(entry):
    return list(entry["arguments"]) if "arguments" in entry else shlex.split(entry["command"])

def entry_file(entry):
    return os.path.normpath(os.path.join(entry["directory"], entry["file"]))

def preprocess_command(entry, source=None, extra=()):
    """The compile command as a preprocessor run with -H, optionally on another source file."""
    original = entry_file(entry)
    out, skip = [], False
    args = arguments(entry)
    for i, a in enumerate(args):
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        # A precompiled header (CMake's cmake_pch.hxx, PLASTIX_PRECOMPILE_HEADERS)
        # only speeds the build up: each unit is checked as written, without
        # the headers it would put in front of it.
        if a == "-include" and i + 1 < len(args) and args[i + 1].endswith("cmake_pch.hxx"):
            skip = True
            continue
        if (a.startswith("-include") and a.endswith("cmake_pch.hxx")) or a == "-Winvalid-pch":
            continue
        if a in ("-c", "-MD", "-MMD") or a.startswith("-o"):
            continue
        if source is not None and os.path.normpath(os.path.join(entry["directory"], a)) == original:
            a = source
        out.append(a)
    return out[:1] + list(extra) + out[1:] + ["-E", "-H", "-o", os.devnull]

def scan(command, directory):
    """Every header of a preprocessor run with its include chain (outermost first)."""
    p = subprocess.run(command, cwd=directory, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("\n".join(l for l in p.stderr.splitlines() if not HEADER_LINE.match(l))[-1500:])
    result, stack = [], []
    for line in p.stderr.splitlines():
        m = HEADER_LINE.match(line)
        if not m:
            continue
        depth, path = len(m.group(1)), os.path.normpath(os.path.join(directory, m.group(2)))
        del stack[depth - 1:]
        result.append((path, tuple(stack)))
        stack.append(path)
    return result

def violations(kind, deps):
    """(violating, tolerated) headers as (path, chain) pairs."""
    if kind == "backend":
        return [d for d in deps if DEALII.search(d[0])], []
    if kind == "dealii":
        kokkos = [d for d in deps if KOKKOS.search(d[0])]
        via_dealii = [d for d in kokkos if any(DEALII.search(a) or BELOS.search(a) for a in d[1])]
        return [d for d in kokkos if d not in via_dealii], via_dealii
    return [d for d in deps if DEALII.search(d[0]) or KOKKOS.search(d[0])], []

def chain_text(header, chain):
    return " -> ".join(x[DEALII.search(x).start():].lstrip("/") if DEALII.search(x) else rel(x) for x in chain + (header,))

# ----------------------------------------------- the project's include graph
project_roots = (src + os.sep, work + os.sep)
backend_internal = {n for _, _, names in os.walk(os.path.join(src, "source", "backend")) for n in names if n.endswith(".h")}

def direct_includes(path):
    try:
        with open(path, errors="replace") as f:
            return INCLUDE.findall(f.read())
    except OSError:
        return []

def resolve(delimiter, name, including_file):
    candidates = ([os.path.dirname(including_file)] if delimiter == '"' else []) + \
        [os.path.join(src, d) for d in ("include", "apps/plastix", "benchmarks")]
    for d in candidates:
        p = os.path.normpath(os.path.join(d, name))
        if p.startswith(project_roots) and os.path.isfile(p):
            return p
    return None

external_cache, external_lock = {}, threading.Lock()
def external_brings_kokkos(name, entry):
    """Kokkos headers (not via deal.II) that '#include <name>' alone brings, with the flags of entry."""
    key = (name, tuple(preprocess_command(entry)[:-5]))
    with external_lock:
        if key in external_cache:
            return external_cache[key]
    probe = os.path.join(work, "probe_%d_%d.cc" % (threading.get_ident(), len(external_cache)))
    with open(probe, "w") as f:
        f.write("#include <%s>\n" % name)
    try:
        bad, _ = violations("dealii", scan(preprocess_command(entry, probe), entry["directory"]))
    except RuntimeError:
        bad = []  # a header this unit cannot even preprocess alone is not included for real
    with external_lock:
        external_cache[key] = bad
    return bad

def project_graph_violations(unit, entry):
    """Kokkos reaching a deal.II-side unit through project files, seen on the project's include graph."""
    found, seen, queue = [], {unit: ()}, [unit]
    while queue:
        f = queue.pop(0)
        chain = seen[f] + (f,)
        for delimiter, name in direct_includes(f):
            target = resolve(delimiter, name, f)
            if target is not None:
                if target not in seen:
                    seen[target] = chain
                    queue.append(target)
                continue
            if DEALII.search(name):
                continue
            if KOKKOS.search(name) or os.path.basename(name) in backend_internal:
                found.append("%s includes <%s>" % (" -> ".join(rel(x) for x in chain), name))
                continue
            bad = external_brings_kokkos(name, entry)
            if bad:
                found.append("%s includes <%s>, which brings %s" % (" -> ".join(rel(x) for x in chain), name,
                                                                   chain_text(*bad[0])))
    return found

# ------------------------------------------------------ translation units
with open(db_path) as f:
    db = json.load(f)
units = {}
for entry in db:
    path = entry_file(entry)
    kind = classify(path)
    if kind is not None and path not in units:
        units[path] = (kind, entry)

# Sources CMake did not build (tests and a benchmark that need a newer deal.II; ':'-separated, relative
# to the source directory).
UNBUILT = set(filter(None, os.environ.get("PLASTIX_UNBUILT_SOURCES", "").split(":")))

expected = []
for d in ("source/backend", "source/backend/baselines", "source/core", "source/material", "source/solvers",
          "apps/plastix", "benchmarks", "tests/backend") + DEALII_TEST_DIRS:
    full = os.path.join(src, d)
    if os.path.isdir(full):
        expected += [os.path.join(full, n) for n in sorted(os.listdir(full))
                     if n.endswith(".cc") and os.path.join(d, n) not in CUDA_ONLY
                     and os.path.join(d, n) not in UNBUILT]
missing = [rel(p) for p in expected if p not in units]
gone = [rel(p) for p in units if not os.path.isfile(p)]
if (missing or gone) and stale_ok:
    # The build directory was configured before files were added or removed.
    print("  note %s: %s (configured before the tree changed); configuring afresh"
          % (db_path, ", ".join(["missing " + m for m in missing] + ["gone " + g for g in gone])))
    sys.exit(3)
report(not missing, "compile commands cover all %d source files%s" % (len(expected), ": missing " + ", ".join(missing) if missing else ""))
counts = {k: sum(1 for v in units.values() if v[0] == k) for k in rules}
if counts["backend"] == 0 or counts["dealii"] == 0:
    report(False, "no backend or no deal.II-side translation units found: %s" % counts)

# ---------------------------------------------------------------- canaries
def some_entry(kind):
    for path, (k, entry) in sorted(units.items()):
        if k == kind:
            return entry

# The backend canary reaches a stand-in header under a 'deal.II/' folder: a
# real deal.II header needs the MPI include path, which backend units lack
# (a real violation there makes the scan itself fail, which is reported too).
fake_root = os.path.join(work, "fake-include")
os.makedirs(os.path.join(fake_root, "deal.II", "base"))
with open(os.path.join(fake_root, "deal.II", "base", "canary.h"), "w") as f:
    f.write("#define PLASTIX_FIREWALL_CANARY 1\n")
canaries = []
for name, kind, first, header in (
        ("backend", "backend", "", "deal.II/base/canary.h"),
        ("dealii", "dealii", "", "Kokkos_Core.hpp"),
        ("dealii-behind-deal.II", "dealii", "#include <deal.II/base/config.h>\n", "Kokkos_Core.hpp"),
        ("dealii-through-Teuchos", "dealii", "#include <deal.II/base/config.h>\n", "Teuchos_ScalarTraits.hpp")):
    entry = some_entry(kind)
    if entry is None:
        continue
    inner, outer, unit = (os.path.join(work, "canary_%s_%s" % (name, s)) for s in ("inner.h", "outer.h", "unit.cc"))
    with open(inner, "w") as f:
        f.write("#include <%s>\n" % header)
    with open(outer, "w") as f:
        f.write('#include "%s"\n' % os.path.basename(inner))
    with open(unit, "w") as f:
        f.write('%s#include "%s"\nint canary();\n' % (first, os.path.basename(outer)))
    canaries.append((unit, kind, entry, ["-I" + fake_root] if kind == "backend" else []))

# ------------------------------------------------------------------ checks
def check(job):
    path, kind, entry, extra, canary = job
    try:
        deps = scan(preprocess_command(entry, path if canary else None, extra), entry["directory"])
    except Exception as error:
        return job, None, [], str(error)
    graph = project_graph_violations(path, entry) if kind == "dealii" else []
    return job, deps, graph, None

jobs = [(p, k, e, [], False) for p, (k, e) in sorted(units.items())] + [(p, k, e, x, True) for p, k, e, x in canaries]
with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
    results = list(pool.map(check, jobs))

tolerated_chains = {}
for (path, kind, entry, extra, canary), deps, graph, error in results:
    name = ("canary " + os.path.basename(path)) if canary else rel(path)
    if error is not None:
        report(False, "%s: dependency scan failed: %s" % (name, error))
        continue
    bad, tolerated = violations(kind, deps)
    texts = [chain_text(*b) for b in bad] + graph
    headers = len({d[0] for d in deps})
    if canary:
        report(len(texts) > 0, "%s (%s rule): flagged%s" % (name, kind, (": " + texts[0]) if texts else " NOT"))
        continue
    report(not texts, "%s [%s: %s], %d headers%s" % (name, kind, rules[kind], headers,
           ("; violating: " + "; ".join(texts[:3])) if texts else ""))
    # Summarise the tolerated chains by where they enter: the last deal.II
    # header of the chain down to the first Kokkos header.
    for header, chain in tolerated:
        full = chain + (header,)
        first_kokkos = next(i for i, x in enumerate(full) if KOKKOS.search(x))
        last_dealii = max(i for i, x in enumerate(full[:first_kokkos]) if DEALII.search(x) or BELOS.search(x))
        key = chain_text(full[first_kokkos], full[last_dealii:first_kokkos])
        users, kokkos = tolerated_chains.setdefault(key, (set(), set()))
        users.add(path)
        kokkos.add(header)
for chain, (users, kokkos) in sorted(tolerated_chains.items()):
    print("  note tolerated, deal.II's (or Belos') own dependency (%d units, %d Kokkos headers): %s" % (len(users), len(kokkos), chain))

# ------------------------------------------------- the #include lines
def files(d, extensions):
    for base, _, names in os.walk(os.path.join(src, d)):
        for n in sorted(names):
            if n.endswith(extensions):
                yield os.path.join(base, n)
library_dirs = ("include/plastix", "source/core", "source/material", "source/solvers")
direct = []
for path in list(files("source/backend", (".cc", ".h"))) + list(files("include/plastix/backend", (".h",))):
    direct += [(path, i) for _, i in direct_includes(path)
               if DEALII.search(i) or i.startswith(("plastix/core/", "plastix/material/", "plastix/solvers/"))]
deal_ii_side = [p for d in library_dirs[1:] + ("apps/plastix", "benchmarks") + DEALII_TEST_DIRS
                for p in files(d, (".cc", ".h"))]
for path in list(files("include/plastix", (".h",))) + list(files("tests/backend", (".cc",))) + deal_ii_side:
    direct += [(path, i) for _, i in direct_includes(path) if KOKKOS.search(i) or os.path.basename(i) in backend_internal]
report(not direct, "#include lines: no deal.II (or plastix/{core,material,solvers}) include in the backend, no Kokkos or backend-internal include elsewhere%s"
       % "".join("\n         %s: %s" % (rel(p), i) for p, i in direct))

# The layout: what the library and the application may include of the project.
def project_includes(path):
    for delimiter, name in direct_includes(path):
        target = resolve(delimiter, name, path)
        if target is not None:
            yield name, rel(target)
layering = []
for d in library_dirs:
    for path in files(d, (".cc", ".h")):
        layering += [(path, n, t) for n, t in project_includes(path) if t.startswith(("apps/", "benchmarks/"))]
for path in files("apps/plastix", (".cc", ".h")):
    layering += [(path, n, t) for n, t in project_includes(path) if t.startswith("benchmarks/")]
report(not layering, "layout: the library includes no application or benchmark header, the application no benchmark header%s"
       % "".join("\n         %s: %s (%s)" % (rel(p), n, t) for p, n, t in layering))

print("%d translation units checked (%s), %d canaries, %d third-party headers probed alone"
      % (len(units), ", ".join("%d %s" % (v, k) for k, v in counts.items()), len(canaries), len(external_cache)))
print("PASSED" if failures == 0 else "FAILED")
sys.exit(1 if failures else 0)
PYTHON
}

check
status=$?
if [ $status = 3 ]; then
  configure
  check
  status=$?
fi
exit $status
