#!/usr/bin/env python3
"""An application test given as data: tests/app/<name>.prm is run by the
plastix application and its output compared with tests/app/<name>.expected
(the pattern of deal.II's and Lethe's .prm + output tests; ctest adds one
test per .prm file, app.<name>). Bad input is given the same way, as
bad_<name>.prm: the exit status, the message on stderr, nothing left behind.

The .expected file: '#' comments, then 'key = value' lines, then an optional
'csv:' line followed by a CSV (header + rows) that the run's CSV must match:

  ranks = 1 2                    run on each of these numbers of MPI ranks
  args = --help                  the command-line arguments instead of the
                                 parameter file (empty: none); the .prm then
                                 only describes the case
  setup = printf x > a.raw       a shell command run in the case directory
                                 (which holds the .prm as run.prm) before the
                                 run, with $PLASTIX the application and
                                 $PLASTIX_TEST_DATA the folder tests/data; it may
                                 write run.prm itself; exit status 77 skips
                                 the case (for example as root), another
                                 non-zero status fails it
  exit = 0                       the exit status (default 0)
  files = a.csv a.png            files that must be in the output directory
  output = none                  the run leaves nothing behind (failed runs):
                                 no output directory, and no file or folder in
                                 the case directory that was not there before
  summary = 3 load steps         text the summary line must contain (repeatable)
  stdout = some text             text stdout or stderr must contain (repeatable)
  stdout only = some text        text stdout itself must contain (repeatable)
  stderr = some text             text stderr itself must contain (repeatable)
  absent = some text             text neither stdout nor stderr may contain (repeatable)
  stderr lines = 1               the number of stderr lines that begin with
                                 'plastix: ', warnings not counted (an error
                                 printed once, by rank 0)
  csv tolerance = 1e-9           |run - expected| <= tolerance * max |expected| of the column
  vtu cells = 192                the cells of the VTU pieces (*.vtu) of the last record, summed over ranks
  vtu cell value = f[1] 0.5      every cell of the last record's pieces has component 1 of the cell data
                                 array f equal to 0.5 within the csv tolerance (relative to max(|0.5|, 1)
                                 for values of magnitude up to 1, else to |0.5|); |f[1]| compares the
                                 absolute value (repeatable)
  vtu point value = f[0] 0.5     the same for the point data array f at every point
  csv:
  load_factor,top_uz             the columns to compare (a subset, any order)
  0.5,0.001                      one row per load step

Usage: app_expected.py <plastix binary> <mpiexec> <name.prm> <name.expected>
"""
import csv
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile


# The keys of an .expected file (the docstring above says what each means);
# any other key is a mistake that would otherwise check nothing.
KNOWN_KEYS = {"ranks", "args", "setup", "exit", "files", "output", "summary", "stdout", "stdout only", "stderr",
              "absent", "stderr lines", "csv tolerance", "vtu cells", "vtu cell value", "vtu point value"}


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
        if key not in KNOWN_KEYS:
            sys.exit("%s: unknown key '%s' (known: %s)" % (path, key, ", ".join(sorted(KNOWN_KEYS))))
        keys.setdefault(key, []).append(value)
    rows = list(csv.reader(io.StringIO("\n".join(csv_lines)))) if csv_lines else []
    return keys, rows


def vtu_arrays(path, section):
    """The data arrays of @section (CellData or PointData) of a VTU piece written by plastix:
    name -> (components, values);
    each binary DataArray is base64 of the UInt32 header {blocks, block size, last block
    size, compressed sizes} followed by base64 of the zlib-compressed blocks."""
    import base64
    import struct
    import zlib
    text = open(path).read()
    cell_data = text[text.find("<" + section):text.find("</" + section + ">")]
    arrays = {}
    for match in re.finditer(r'<DataArray type="(\w+)" Name="([^"]*)"(?: NumberOfComponents="(\d+)")?'
                             r' format="binary">\s*([^<\s]*)\s*</DataArray>', cell_data):
        kind, name, components, data = match.group(1), match.group(2), int(match.group(3) or 1), match.group(4)
        if not data:  # a piece without cells
            arrays[name] = (components, ())
            continue
        n_blocks = struct.unpack("<I", base64.b64decode(data[:8])[:4])[0]
        header_length = 4 * ((4 * (3 + n_blocks) + 2) // 3)
        header = struct.unpack("<%dI" % (3 + n_blocks), base64.b64decode(data[:header_length])[:4 * (3 + n_blocks)])
        compressed, raw, at = base64.b64decode(data[header_length:]), b"", 0
        for size in header[3:]:
            raw += zlib.decompress(compressed[at:at + size])
            at += size
        code = {"Float64": "d", "Int32": "i"}[kind]
        arrays[name] = (components, struct.unpack("<%d%s" % (len(raw) // struct.calcsize(code), code), raw))
    return arrays


def prm_value(prm_text, entry, default):
    match = re.search(r"^\s*set\s+" + re.escape(entry) + r"\s*=\s*(.*?)\s*$", prm_text, re.M)
    return match.group(1) if match else default


def all_paths(directory):
    """The files and folders below @p directory, relative to it."""
    for root, folders, files in os.walk(directory):
        for name in folders + files:
            yield os.path.relpath(os.path.join(root, name), directory)


def main():
    app, mpiexec, prm, expected_file = (os.path.abspath(a) if i != 1 else a for i, a in enumerate(sys.argv[1:5]))
    keys, expected_rows = read_expected(expected_file)
    failures = 0

    def check(ok, what):
        nonlocal failures
        print(("  ok    " if ok else "  FAIL  ") + what)
        failures += 0 if ok else 1

    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    test_data = os.path.join(os.path.dirname(os.path.abspath(prm)), os.pardir, "data")
    for ranks in " ".join(keys.get("ranks", ["1"])).split():
        work = tempfile.mkdtemp(prefix="plastix-app-expected-")
        try:
            shutil.copy(prm, os.path.join(work, "run.prm"))
            label = "%s rank(s): " % ranks
            status, said = 0, ""
            for command in keys.get("setup", []):
                setup = subprocess.run(["bash", "-c", command], cwd=work,
                                       env=dict(env, PLASTIX=app, PLASTIX_TEST_DATA=test_data),
                                       capture_output=True, text=True, timeout=600)
                status, said = setup.returncode, (setup.stdout + setup.stderr).strip()
                if status != 0:
                    break
            if status == 77:
                print("  skip  " + label + said)
                continue
            if status != 0:
                check(False, label + "setup exit status %d: %s" % (status, said[-400:]))
                continue
            prm_text = open(os.path.join(work, "run.prm")).read()
            directory = prm_value(prm_text, "Directory", "output")
            base = prm_value(prm_text, "Base name", "solution")
            before = set(all_paths(work))
            arguments = shlex.split(keys["args"][0]) if "args" in keys else ["run.prm"]
            command = [app] + arguments if ranks == "1" else [mpiexec, "-np", ranks, app] + arguments
            run = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=600)
            output = run.stdout + run.stderr
            expected_exit = int(keys.get("exit", ["0"])[0])
            check(run.returncode == expected_exit, label + "exit status %d (expected %d)%s" % (
                run.returncode, expected_exit, "" if run.returncode == expected_exit else ": " + output[-400:]))
            summary = [l for l in run.stdout.splitlines() if l.startswith("plastix: ")]
            for text in keys.get("summary", []):
                check(bool(summary) and text in summary[-1], label + "summary contains '%s'" % text)
            for text in keys.get("stdout", []):
                check(text in output, label + "output contains '%s'" % text)
            for text in keys.get("stdout only", []):
                check(text in run.stdout, label + "stdout contains '%s'" % text)
            for text in keys.get("stderr", []):
                check(text in run.stderr, label + "stderr contains '%s'%s" % (
                    text, "" if text in run.stderr else ": " + run.stderr[-400:]))
            for text in keys.get("absent", []):
                check(text not in output, label + "output does not contain '%s'" % text)
            for text in keys.get("stderr lines", []):
                lines = sum(1 for l in run.stderr.splitlines()
                            if l.startswith("plastix: ") and not l.startswith("plastix: warning: "))
                check(lines == int(text), label + "%d stderr line(s) begin with 'plastix: ' (expected %s)" % (lines, text))
            out = os.path.join(work, directory)
            if "none" in keys.get("output", []):
                check(not os.path.exists(out), label + "no output directory '%s' left" % directory)
                left = sorted(set(all_paths(work)) - before)
                check(not left, label + "nothing new in the case directory%s" % (": " + " ".join(left) if left else ""))
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
            for key, section in (("vtu cell value", "CellData"), ("vtu point value", "PointData")):
                for text in keys.get(key, []):
                    target, value = text.split()
                    absolute = target.startswith("|")
                    name, component = re.match(r"\|?([\w]+)\[(\d+)\]\|?", target).groups()
                    records = sorted(n for n in os.listdir(out) if n.endswith(".pvtu")) if os.path.isdir(out) else []
                    stem = records[-1][:-len(".pvtu")] if records else None
                    found, worst = [], 0.
                    for piece in (n for n in os.listdir(out) if stem and n.startswith(stem + ".") and n.endswith(".vtu")):
                        arrays = vtu_arrays(os.path.join(out, piece), section)
                        if name in arrays:
                            components, values = arrays[name]
                            found += [abs(v) if absolute else v for v in values[int(component)::components]]
                    expected = float(value)
                    scale = abs(expected) if abs(expected) > 1 else 1.
                    worst = max((abs(v - expected) / scale for v in found), default=float("inf"))
                    tolerance = float(keys.get("csv tolerance", ["1e-9"])[0])
                    check(bool(found) and worst <= tolerance, label + "VTU %s %s = %s in %d entries (largest "
                          "difference %.2e, tolerance %.0e)" % (section, target, value, len(found), worst, tolerance))
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
