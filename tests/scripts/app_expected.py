#!/usr/bin/env python3
"""An application test given as data: tests/app/<name>.prm is run by the
plastix application and its output compared with tests/app/<name>.expected
(the pattern of deal.II's and Lethe's .prm + output tests; ctest adds one
test per .prm file, app.<name>).

The .expected file: '#' comments, then 'key = value' lines, then an optional
'csv:' line followed by a CSV (header + rows) that the run's CSV must match:

  ranks = 1 2                    run on each of these numbers of MPI ranks
  exit = 0                       the exit status (default 0)
  files = a.csv a.png            files that must be in the output directory
  output = none                  the run leaves no output directory behind (failed runs)
  summary = 3 load steps         text the summary line must contain (repeatable)
  stdout = some text             text the output must contain (repeatable)
  csv tolerance = 1e-9           |run - expected| <= tolerance * max |expected| of the column
  vtu cells = 192                the cells of the VTU pieces (*.vtu) of the last record, summed over ranks
  csv:
  load_factor,top_uz             the columns to compare (a subset, any order)
  0.5,0.001                      one row per load step

Usage: app_expected.py <plastix binary> <mpiexec> <name.prm> <name.expected>
"""
import csv
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile


def read_expected(path):
    keys, csv_lines, in_csv = {}, [], False
    for line in open(path):
        if in_csv:
            if line.strip():
                csv_lines.append(line.strip())
            continue
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line == "csv:":
            in_csv = True
            continue
        key, value = (part.strip() for part in line.split("=", 1))
        keys.setdefault(key, []).append(value)
    rows = list(csv.reader(io.StringIO("\n".join(csv_lines)))) if csv_lines else []
    return keys, rows


def prm_value(prm_text, entry, default):
    match = re.search(r"^\s*set\s+" + re.escape(entry) + r"\s*=\s*(.*?)\s*$", prm_text, re.M)
    return match.group(1) if match else default


def main():
    app, mpiexec, prm, expected_file = (os.path.abspath(a) if i != 1 else a for i, a in enumerate(sys.argv[1:5]))
    keys, expected_rows = read_expected(expected_file)
    prm_text = open(prm).read()
    directory = prm_value(prm_text, "Directory", "output")
    base = prm_value(prm_text, "Base name", "solution")
    failures = 0

    def check(ok, what):
        nonlocal failures
        print(("  ok    " if ok else "  FAIL  ") + what)
        failures += 0 if ok else 1

    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    for ranks in " ".join(keys.get("ranks", ["1"])).split():
        work = tempfile.mkdtemp(prefix="plastix-app-expected-")
        try:
            shutil.copy(prm, os.path.join(work, "run.prm"))
            command = [app, "run.prm"] if ranks == "1" else [mpiexec, "-np", ranks, app, "run.prm"]
            run = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=600)
            output = run.stdout + run.stderr
            label = "%s rank(s): " % ranks
            expected_exit = int(keys.get("exit", ["0"])[0])
            check(run.returncode == expected_exit, label + "exit status %d (expected %d)%s" % (
                run.returncode, expected_exit, "" if run.returncode == expected_exit else ": " + output[-400:]))
            summary = [l for l in run.stdout.splitlines() if l.startswith("plastix: ")]
            for text in keys.get("summary", []):
                check(bool(summary) and text in summary[-1], label + "summary contains '%s'" % text)
            for text in keys.get("stdout", []):
                check(text in output, label + "output contains '%s'" % text)
            out = os.path.join(work, directory)
            if "none" in keys.get("output", []):
                check(not os.path.exists(out), label + "no output directory '%s' left" % directory)
            for name in " ".join(keys.get("files", [])).split():
                check(os.path.isfile(os.path.join(out, name)), label + "%s/%s written" % (directory, name))
            if os.path.isdir(out):
                check(not any(n.startswith(".plastix-staging") for n in os.listdir(out)),
                      label + "no staging folder left")
            for text in keys.get("vtu cells", []):
                records = sorted(n for n in os.listdir(out) if n.endswith(".pvtu")) if os.path.isdir(out) else []
                cells = 0
                if records:
                    stem = records[-1][:-len(".pvtu")]
                    for piece in (n for n in os.listdir(out) if n.startswith(stem + ".") and n.endswith(".vtu")):
                        match = re.search(r'NumberOfCells="(\d+)"', open(os.path.join(out, piece), errors="replace").read())
                        cells += int(match.group(1)) if match else 0
                check(bool(records) and cells == int(text), label + "VTU cells %d (expected %s)" % (cells, text))
            if expected_rows:
                tolerance = float(keys.get("csv tolerance", ["1e-9"])[0])
                produced = os.path.join(out, base + ".csv")
                if not os.path.isfile(produced):
                    check(False, label + "%s.csv written" % base)
                    continue
                rows = list(csv.reader(open(produced)))
                header, data = rows[0], rows[1:]
                names, values = expected_rows[0], expected_rows[1:]
                check(len(data) == len(values), label + "%d CSV rows (expected %d)" % (len(data), len(values)))
                for c, name in enumerate(names):
                    if name not in header:
                        check(False, label + "CSV column %s" % name)
                        continue
                    j = header.index(name)
                    column = [float(v[c]) for v in values]
                    scale = max(max(abs(x) for x in column), 1e-300)
                    worst = max((abs(float(r[j]) - x) / scale for r, x in zip(data, column)), default=0.)
                    check(worst <= tolerance, label + "CSV column %s: largest difference %.2e of max |value| "
                          "(tolerance %.0e)" % (name, worst, tolerance))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print("all checks passed" if failures == 0 else "%d check(s) failed" % failures)
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
