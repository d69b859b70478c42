#!/usr/bin/env python3
"""Checkpoint, restart and clean interruption of the plastix application.

One elastoplastic cantilever (mixed hardening, six load steps with unloading)
is run three ways, each in its own empty directory:

  A  uninterrupted, 1 rank (the reference);
  B  'Load stepping/Steps per run = 2': 1 rank stops after step 2 (exit 0),
     'plastix --restart' continues on 2 ranks (steps 3-4, stops again), then
     on 1 rank to the end: a different number of ranks at each restart;
  C  1 rank, checkpoints by wall time ('Output/Checkpoint wall time' tiny,
     'Checkpoint interval' 0), SIGTERM while step 2 or later runs: exit
     status 5, a one-line message naming the checkpoint, no staging folder,
     the checkpoint complete; then restarted on 1 rank to the end.

B and C must give A's CSV (every monitored displacement and reaction, all
steps) to round-off (relative 1e-10 of the column's largest value; the
iteration counts exactly), the same summary totals (Newton iterations), and
C (1 rank throughout) A's final VTU fields to round-off. A completed run
leaves no checkpoint behind.

  D  the same cantilever with 'Mesh/Adaptive refinement' (plastic strain
     increment) after every step, uninterrupted (D0) and stopped after step
     3 (the first plastic one) and restarted (1 rank): the checkpoint holds
     the mesh before step 3's adaptation, which the restart repeats; D must
     give D0's CSV to round-off.
  E  a Mohr-Coulomb wellbore with an in-situ stress (Initial stress), stopped
     after step 2 and restarted on 2 ranks: the history carries sigma_0 and
     the restart rebuilds its constant load; E must give E0's CSV.
  H  finite-strain elastoplasticity (Cook's membrane of
     prm/cooks_membrane_elastoplastic.prm, Hencky J2, F-bar, 4 x 4 x 1 cells),
     uninterrupted (H0) and stopped every 3 load steps, restarted on 2 ranks,
     then on 1 rank to the end: the checkpoint holds the Hencky history; H
     must give H0's CSV (displacements, plastic points) to round-off.
  F  dynamic runs (the vibrating bar of tests/app/bar_vibration.prm: Newmark
     with multigrid, generalised-alpha at finite strain, explicit central
     differences), uninterrupted (F0) and stopped every 'Steps per run' time
     steps, restarted on 2 ranks, then on 1 rank to the end (the checkpoint
     holds u, v, a, the time, the time step and the energies): F must give
     F0's CSV (displacements, energies, iteration counts) to round-off and
     leave no checkpoint; a SIGTERM during the time steps exits with status 5
     naming the checkpoint, from which the run completes.

usage: app_restart.py <plastix binary> <mpiexec>
"""
import base64
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zlib
import struct

# The mixed-hardening beam of tests/data/mixed_hardening_beam.prm on 10 x 2 x 2
# cells refined once, loaded, unloaded and loaded again, with a checkpoint per step.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "mixed_hardening_beam.prm")) as _beam:
    PRM = _beam.read() + """
subsection Mesh
  set Subdivisions       = 10, 2, 2
  set Global refinements = 1
end
subsection Load stepping
  set Load factors = 0.4, 0.7, 0.85, 1, 0.5, 0
end
subsection Newton
  set Residual tolerance     = 1e-11
  set Displacement tolerance = 1e-11
end
subsection Monitor
  set Points     = tip: 100, 10, 10; top: 50, 20, 20; root: 0, 20, 20
  set Reactions  = 0
  set Write plot = false
end
subsection Output
  set Directory    = out
  set Summary file = summary.txt
  set Checkpoint interval = 1
end
"""

# The contracting wellbore of tests/app/wellbore_in_situ.prm, coarser, in
# four load steps: the in-situ stress lives in the Gauss-point history, and
# its internal force is a constant load that a restart must rebuild.
IN_SITU_PRM = """
subsection Problem
  set Type = elastoplastic
end
subsection Mesh
  set Geometry        = wellbore
  set Inner radius    = 0.1
  set Outer radius    = 4
  set Cylinder length = 0.01
  set Subdivisions    = 24, 12, 1
  set Radial growth   = 1.17
end
subsection Materials
  set Young's modulus = 2000
  set Poisson's ratio = 0.2
  set Yield criterion = Mohr-Coulomb
  set Cohesion        = 5
  set Friction angle  = 20
end
subsection Initial stress
  set Stress = -50; -50; -50; 0; 0; 0
end
subsection Boundary conditions
  set Dirichlet = 2: x = 0; 3: y = 0; 4: z = 0; 5: z = 0
  set Pressure  = 0: -35; 1: -0.0281927131
end
subsection Load stepping
  set Load factors = 0.25, 0.5, 0.75, 1
end
subsection Newton
  set Residual tolerance     = 1e-11
  set Displacement tolerance = 1e-11
end
subsection Monitor
  set Points     = wall: 0.1, 0, 0; outer: 4, 0, 0
  set Reactions  = 2
  set Write plot = false
end
subsection Output
  set Directory    = out
  set Checkpoint interval = 1
end
"""

# Cook's membrane in finite-strain elastoplasticity (prm/cooks_membrane_elastoplastic.prm), coarse.
FINITE_STRAIN_PRM = """
subsection Problem
  set Type       = elastoplastic
  set Kinematics = finite strain
end
subsection Mesh
  set Geometry     = Cook's membrane
  set Subdivisions = 4, 4, 1
end
subsection Materials
  set Young's modulus         = 206.9
  set Poisson's ratio         = 0.29
  set Strain energy           = Hencky
  set Yield stress            = 0.45
  set Isotropic hardening     = 0.12924
  set Saturation yield stress = 0.715
  set Saturation rate         = 16.93
end
subsection Boundary conditions
  set Dirichlet = 0: xyz = 0, 0, 0; 4: z = 0; 5: z = 0
  set Traction  = 1: 0, 0.3125, 0
end
subsection Linear solver
  set Type = direct
end
subsection Load stepping
  set Number of steps = 10
end
subsection Monitor
  set Points     = tip: 48, 60, 0
  set Reactions  = 0
  set Write plot = false
end
subsection Output
  set Directory = out
end
"""

# The bar of tests/app/bar_vibration.prm (free vibration from an initial
# velocity), with a traction that varies in time so that the external work
# and the amplitude at the restart time count too.
DYNAMIC_PRM = """
subsection Problem
  set Type       = elastic
  set Kinematics = %(kinematics)s
end
subsection Time integration
  set Integrator       = %(integrator)s
  set Time step        = %(time_step)s
  set End time         = 0.6
  set Output interval  = 3
  set Initial velocity = 0.1 * sin(pi * x / 2); 0; 0
  set Load amplitude   = sin(5 * t)
end
subsection Mesh
  set Geometry            = box
  set Lower corner        = 0, 0, 0
  set Upper corner        = 1, 0.25, 0.25
  set Subdivisions        = 4, 1, 1
  set Global refinements  = 2
end
subsection Materials
  set Young's modulus = 1
  set Poisson's ratio = 0.25
  set Density         = 1
end
subsection Boundary conditions
  set Dirichlet = 0: xyz = 0, 0, 0
  set Traction  = 1: 0, 0.001, 0
end
subsection Linear solver
  set Type           = cg
  set Preconditioner = %(preconditioner)s
end
subsection Monitor
  set Points     = tip: 1, 0.125, 0.125
  set Write plot = false
end
subsection Output
  set Directory    = out
  set Summary file = summary.txt
  set Write VTU    = false
end
"""

DYNAMIC_CASES = (
    ("Newmark", dict(kinematics="small strain", integrator="Newmark", time_step="0.02", preconditioner="multigrid"), 7),
    ("generalised-alpha, finite strain",
     dict(kinematics="finite strain", integrator="generalized alpha", time_step="0.02", preconditioner="jacobi"), 11),
    # The time step from the critical one (Time step = 0), which the restart keeps from the checkpoint.
    ("central differences",
     dict(kinematics="small strain", integrator="central differences",
          time_step="0\n  set Critical step fraction = 0.1", preconditioner="jacobi"), 23),
)

failures = 0
checks = 0


def check(ok, what):
    global failures, checks
    checks += 1
    if not ok:
        failures += 1
    print(("  ok   " if ok else "  FAIL ") + what, flush=True)
    return ok


def make_case(directory, text):
    """A new case directory holding case.prm with text; returns the directory."""
    os.makedirs(directory)
    with open(os.path.join(directory, "case.prm"), "w") as f:
        f.write(text)
    return directory


def run(cmd, cwd, timeout=600):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def read_csv(path):
    with open(path) as f:
        lines = [l.strip() for l in f if l.strip()]
    names = lines[0].split(",")
    rows = [[float(x) for x in l.split(",")] for l in lines[1:]]
    return names, rows


def deterministic(directory):
    """Whether the run's backend sums in a fixed order (host 'Serial'; GPU atomics do not)."""
    summary = open(os.path.join(directory, "summary.txt")).read()
    return ", Serial," in summary


def compare_csv(a, b, label, same_ranks):
    """Values to round-off; counts exactly when every run had the same ranks, else the Newton
    iterations within one (round-off of another partition may move a step across the tolerance)."""
    names_a, rows_a = read_csv(a)
    names_b, rows_b = read_csv(b)
    if not check(names_a == names_b and len(rows_a) == len(rows_b),
                 f"{label}: CSV has the same columns and {len(rows_a)} rows"):
        return
    # Scales per kind: all reaction components together, all displacements together
    # (a component that is zero in theory holds only round-off).
    def kind(name):
        return "R" if name.startswith("R") else "u" if name[-3:] in ("_ux", "_uy", "_uz") else name
    scales = {}
    for j, name in enumerate(names_a):
        scales[kind(name)] = max([scales.get(kind(name), 0.0)] + [abs(r[j]) for r in rows_a])
    worst, where = 0.0, ""
    for j, name in enumerate(names_a):
        scale = scales[kind(name)] or 1.0
        for ra, rb in zip(rows_a, rows_b):
            if name in ("step", "newton_iterations", "linear_iterations", "plastic_points"):
                slack = 0 if same_ranks else {"newton_iterations": 1, "linear_iterations": float("inf")}.get(name, 0)
                if abs(ra[j] - rb[j]) > slack:
                    worst, where = float("inf"), f" ({name}: {ra[j]:g} vs {rb[j]:g} in step {ra[0]:g})"
            elif abs(ra[j] - rb[j]) / scale > worst:
                worst, where = abs(ra[j] - rb[j]) / scale, f" ({name}, step {ra[0]:g})"
    check(worst <= 1e-10,
          f"{label}: CSV values equal to round-off (largest relative difference {worst:.2e}{where})")


def vtu_arrays(path):
    """Decode every DataArray of a VTU (base64 of a zlib-compressed stream with UInt32 header)."""
    text = open(path).read()
    arrays = {}
    for m in re.finditer(r'<DataArray([^>]*)>(.*?)</DataArray>', text, re.S):
        attributes, body = m.group(1), "".join(m.group(2).split())
        name = re.search(r'Name="([^"]*)"', attributes)
        name = name.group(1) if name else "points"
        kind = re.search(r'type="([^"]*)"', attributes).group(1)
        head = base64.b64decode(body[:24] + "=" * (-len(body[:24]) % 4))
        blocks = struct.unpack("<I", head[:4])[0]
        header_chars = 4 * ((4 * (3 + blocks) + 2) // 3)
        header = struct.unpack("<%dI" % (3 + blocks), base64.b64decode(body[:header_chars])[: 4 * (3 + blocks)])
        data = base64.b64decode(body[header_chars:])
        raw, offset = b"", 0
        for k in range(blocks):
            raw += zlib.decompress(data[offset: offset + header[3 + k]])
            offset += header[3 + k]
        fmt = {"Float64": "d", "Float32": "f", "Int32": "i", "UInt32": "I", "Int64": "q", "UInt8": "B"}[kind]
        n = len(raw) // struct.calcsize(fmt)
        arrays[name] = struct.unpack("<%d%s" % (n, fmt), raw[: n * struct.calcsize(fmt)])
    return arrays


def last_pvtu_piece(directory):
    pvtus = sorted(glob.glob(os.path.join(directory, "*.pvtu")))
    record = open(pvtus[-1]).read()
    pieces = re.findall(r'Source="([^"]*)"', record)
    return [os.path.join(directory, p) for p in pieces]


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    for key, value in (("OMPI_ALLOW_RUN_AS_ROOT", "1"), ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
                       ("OMPI_MCA_rmaps_base_oversubscribe", "1")):
        os.environ.setdefault(key, value)
    app = os.path.realpath(sys.argv[1])
    mpiexec = sys.argv[2]
    mpirun = [mpiexec, "-np", "2", "--oversubscribe", app]
    work = tempfile.mkdtemp(prefix="plastix-restart.")
    try:
        dirs = {}
        for name in "ABC":
            extra = ""
            if name == "B":
                extra = "subsection Load stepping\n  set Steps per run = 2\nend\n"
            if name == "C":
                # Checkpoints by wall time (due after every step here), not by step count.
                extra = "subsection Output\n  set Checkpoint interval = 0\n  set Checkpoint wall time = 1e-6\nend\n"
            dirs[name] = make_case(os.path.join(work, name), PRM + extra)

        print("== A: uninterrupted, 1 rank")
        code, out, err = run([app, "case.prm"], dirs["A"])
        check(code == 0, f"A: exit status {code}")
        if code != 0:
            print(err)
            return 1
        check(not os.path.exists(os.path.join(dirs["A"], "out", "checkpoint")),
              "A: a completed run leaves no checkpoint")
        summary_a = open(os.path.join(dirs["A"], "out", "summary.txt")).read()

        print("== B: stop after 2 steps (1 rank), restart on 2 ranks (stop after 2 more), restart on 1 rank")
        checkpoint = os.path.join(dirs["B"], "out", "checkpoint")
        code, out, err = run([app, "case.prm"], dirs["B"])
        check(code == 0 and "plastix --restart" in out, f"B1: exit status {code}, says how to continue")
        check(os.path.isfile(os.path.join(checkpoint, "complete")), "B1: the checkpoint is complete")
        names, rows = read_csv(os.path.join(dirs["B"], "out", "solution.csv"))
        check(len(rows) == 2, f"B1: {len(rows)} CSV rows after the first run")
        code, out, err = run(mpirun + ["--restart", checkpoint], dirs["B"])
        check(code == 0 and "continuing from the checkpoint of load step 2" in out,
              f"B2 (2 ranks): exit status {code}, continued from step 2")
        if code != 0:
            print(err)
        names, rows = read_csv(os.path.join(dirs["B"], "out", "solution.csv"))
        check(len(rows) == 4, f"B2: {len(rows)} CSV rows after the second run")
        code, out, err = run([app, "--restart", checkpoint], os.path.join(work))
        check(code == 0 and "continuing from the checkpoint of load step 4" in out,
              f"B3 (1 rank, another working directory): exit status {code}, continued from step 4")
        if code != 0:
            print(err)
        check(not os.path.exists(checkpoint), "B3: the completed run removed its checkpoint")
        compare_csv(os.path.join(dirs["A"], "out", "solution.csv"), os.path.join(dirs["B"], "out", "solution.csv"),
                    "B vs A", same_ranks=False)
        summary_b = open(os.path.join(dirs["B"], "out", "summary.txt")).read().strip().splitlines()[-1]
        newton = lambda s: re.search(r"(\d+) Newton", s)
        if check(newton(summary_a) is not None and newton(summary_b) is not None, "B: summary lines with Newton totals"):
            a_total, b_total = int(newton(summary_a).group(1)), int(newton(summary_b).group(1))
            check(abs(a_total - b_total) <= 6, f"B vs A: Newton iterations of the run {b_total} ~ {a_total} (within one per step)")

        print("== C: SIGTERM during the run (1 rank), restart (1 rank)")
        checkpoint = os.path.join(dirs["C"], "out", "checkpoint")
        csv = os.path.join(dirs["C"], "out", "solution.csv")
        p = subprocess.Popen([app, "case.prm"], cwd=dirs["C"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        deadline = time.time() + 300
        while time.time() < deadline and p.poll() is None:
            if os.path.exists(csv) and len(open(csv).read().strip().splitlines()) >= 2:
                break
            time.sleep(0.01)
        sent = p.poll() is None
        if sent:
            p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=300)
        check(sent, "C: the run was still going after its first load step (SIGTERM sent)")
        check(p.returncode == 5, f"C: exit status {p.returncode} (5: interrupted)")
        # The case's appended Output subsection sets Checkpoint interval a second time: a warning.
        lines = [l for l in err.splitlines() if l.startswith("plastix: ") and not l.startswith("plastix: warning: ")]
        check(len(lines) == 1 and "SIGTERM" in lines[0] and "plastix --restart" in lines[0],
              "C: one line names the signal and the restart: " + (lines[0][:200] if lines else err[:200]))
        check(not glob.glob(os.path.join(dirs["C"], "out", ".plastix-staging-*")), "C: no staging folder left")
        check(os.path.isfile(os.path.join(checkpoint, "complete")), "C: the checkpoint is complete")
        code, out, err = run([app, "--restart", checkpoint], dirs["C"])
        check(code == 0, f"C: restart exit status {code}")
        if code != 0:
            print(err)
        # Exact counts only where the backend is deterministic (the host); on a GPU the atomic
        # sums vary from run to run, restarted or not, so counts may differ like across ranks.
        compare_csv(os.path.join(dirs["A"], "out", "solution.csv"), csv, "C vs A",
                    same_ranks=deterministic(os.path.join(dirs["A"], "out")))
        pieces_a = last_pvtu_piece(os.path.join(dirs["A"], "out"))
        pieces_c = last_pvtu_piece(os.path.join(dirs["C"], "out"))
        worst, n_arrays = 0.0, 0
        for pa, pc in zip(pieces_a, pieces_c):
            arrays_a, arrays_c = vtu_arrays(pa), vtu_arrays(pc)
            for name, values in arrays_a.items():
                other = arrays_c.get(name)
                if other is None or len(other) != len(values):
                    worst = float("inf")
                    continue
                scale = max(abs(v) for v in values) or 1.0
                worst = max([worst] + [abs(x - y) / scale for x, y in zip(values, other)])
                n_arrays += 1
        check(n_arrays > 0 and worst <= 1e-10,
              f"C vs A: the {n_arrays} arrays of the final VTU equal to round-off (largest {worst:.2e})")

        print("== D: adaptive refinement after every step; uninterrupted vs stopped after step 3 and restarted")
        adaptive = ("subsection Mesh\n  subsection Adaptive refinement\n    set Indicator = plastic strain increment\n"
                    "    set Refine fraction = 0.25\n    set Coarsen fraction = 0.05\n    set Maximum level = 3\n"
                    "  end\nend\n")
        for name, extra in (("D0", ""), ("D", "subsection Load stepping\n  set Steps per run = 3\nend\n")):
            dirs[name] = make_case(os.path.join(work, name), PRM + adaptive + extra)
        code, out, err = run([app, "case.prm"], dirs["D0"])
        adaptations = out.count("cells refined")
        check(code == 0 and adaptations >= 2 and "after load step 3: " in out,
              f"D0 (uninterrupted): exit status {code}, {adaptations} adaptations that changed the mesh, "
              "one after step 3")
        if code != 0:
            print(err)
        checkpoint = os.path.join(dirs["D"], "out", "checkpoint")
        code, out, err = run([app, "case.prm"], dirs["D"])
        check(code == 0 and os.path.isfile(os.path.join(checkpoint, "complete")),
              f"D1: exit status {code}, stopped after step 3 with a checkpoint")
        code, out, err = run([app, "--restart", checkpoint], dirs["D"])
        first = next((l for l in out.splitlines() if "adaptive refinement after load step" in l), "")
        check(code == 0 and "after load step 3:" in first and "cells refined" in first,
              f"D2: exit status {code}, the restart adapts the mesh of step 3 first: {first.strip()[:120]}")
        if code != 0:
            print(err)
        compare_csv(os.path.join(dirs["D0"], "out", "solution.csv"), os.path.join(dirs["D"], "out", "solution.csv"),
                    "D vs D0", same_ranks=deterministic(os.path.join(dirs["D0"], "out")))

        print("== E: Mohr-Coulomb wellbore with the in-situ stress; uninterrupted vs stopped after step 2 and "
              "restarted on 2 ranks")
        for name, extra in (("E0", ""), ("E", "subsection Load stepping\n  set Steps per run = 2\nend\n")):
            dirs[name] = make_case(os.path.join(work, name), IN_SITU_PRM + extra)
        code, out, err = run([app, "case.prm"], dirs["E0"])
        check(code == 0 and "plastic Gauss points" in out, f"E0 (uninterrupted): exit status {code}")
        if code != 0:
            print(err)
        checkpoint = os.path.join(dirs["E"], "out", "checkpoint")
        code, out, err = run([app, "case.prm"], dirs["E"])
        check(code == 0 and os.path.isfile(os.path.join(checkpoint, "complete")),
              f"E1: exit status {code}, stopped after step 2 with a checkpoint")
        code, out, err = run(mpirun + ["--restart", checkpoint], dirs["E"])
        check(code == 0, f"E2: the restart on 2 ranks: exit status {code}")
        if code != 0:
            print(err)
        compare_csv(os.path.join(dirs["E0"], "out", "solution.csv"), os.path.join(dirs["E"], "out", "solution.csv"),
                    "E vs E0", same_ranks=False)

        print("== H: finite-strain elastoplasticity (Hencky J2, F-bar); uninterrupted vs stopped every 3 load "
              "steps, restarted on 2 ranks, then 1")
        for name, extra in (("H0", ""), ("H", "subsection Load stepping\n  set Steps per run = 3\nend\n")):
            dirs[name] = make_case(os.path.join(work, name), FINITE_STRAIN_PRM + extra)
        code, out, err = run([app, "case.prm"], dirs["H0"])
        check(code == 0 and "plastic Gauss points" in out, f"H0 (uninterrupted): exit status {code}")
        if code != 0:
            print(err)
        checkpoint = os.path.join(dirs["H"], "out", "checkpoint")
        code, out, err = run([app, "case.prm"], dirs["H"])
        check(code == 0 and "stopped after 3 load steps" in out and os.path.isfile(os.path.join(checkpoint, "complete")),
              f"H1: exit status {code}, stopped after step 3 with a checkpoint")
        code, out, err = run(mpirun + ["--restart", checkpoint], dirs["H"])
        check(code == 0 and "continuing from the checkpoint of load step 3 " in out,
              f"H2: the restart on 2 ranks continues from step 3: exit status {code}")
        if code != 0:
            print(err)
        restarts = 0
        while code == 0 and os.path.isdir(checkpoint) and restarts < 10:
            code, out, err = run([app, "--restart", checkpoint], dirs["H"])
            restarts += 1
        check(code == 0 and not os.path.exists(checkpoint),
              f"H3: restarted on 1 rank {restarts} more times to the end; exit status {code}, no checkpoint left")
        if code != 0:
            print(err)
        compare_csv(os.path.join(dirs["H0"], "out", "solution.csv"), os.path.join(dirs["H"], "out", "solution.csv"),
                    "H vs H0", same_ranks=False)

        for label, values, steps_per_run in DYNAMIC_CASES:
            print(f"== F: dynamics, {label}; uninterrupted vs stopped every {steps_per_run} time steps and "
                  "restarted on 2 ranks, then 1")
            dynamic = DYNAMIC_PRM % values
            tag = label.split(",")[0].replace(" ", "_")
            for name, extra in (("F0", ""), ("F", f"subsection Load stepping\n  set Steps per run = {steps_per_run}\nend\n"),
                                ("G", "subsection Output\n  set Checkpoint interval = 1\nend\n")):
                dirs[name] = make_case(os.path.join(work, name + "_" + tag), dynamic + extra)
            code, out, err = run([app, "case.prm"], dirs["F0"])
            check(code == 0, f"F0 (uninterrupted): exit status {code}")
            if code != 0:
                print(err)
                continue
            checkpoint = os.path.join(dirs["F"], "out", "checkpoint")
            code, out, err = run([app, "case.prm"], dirs["F"])
            check(code == 0 and f"stopped after {steps_per_run} time steps" in out and
                  os.path.isfile(os.path.join(checkpoint, "complete")) and "warning" not in err,
                  f"F1: exit status {code}, stopped after {steps_per_run} time steps with a checkpoint, no warning")
            code, out, err = run(mpirun + ["--restart", checkpoint], dirs["F"])
            check(code == 0 and f"continuing from the checkpoint of time step {steps_per_run} " in out,
                  f"F2: the restart on 2 ranks continues from time step {steps_per_run}: exit status {code}")
            if code != 0:
                print(err)
            restarts = 0
            while code == 0 and os.path.isdir(checkpoint) and restarts < 10:
                code, out, err = run([app, "--restart", checkpoint], dirs["F"])
                restarts += 1
            check(code == 0 and not os.path.exists(checkpoint),
                  f"F3: restarted on 1 rank {restarts} more times to the end; exit status {code}, no checkpoint left")
            if code != 0:
                print(err)
            compare_csv(os.path.join(dirs["F0"], "out", "solution.csv"),
                        os.path.join(dirs["F"], "out", "solution.csv"), f"F vs F0 ({label})", same_ranks=False)

            # A checkpoint after every step, SIGTERM during the time steps.
            checkpoint = os.path.join(dirs["G"], "out", "checkpoint")
            proc = subprocess.Popen([app, "case.prm"], cwd=dirs["G"], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            deadline = time.time() + 120
            while proc.poll() is None and time.time() < deadline and \
                    not os.path.isfile(os.path.join(checkpoint, "complete")):
                time.sleep(0.002)
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=300)
            if proc.returncode == 0:
                # The run ended before the signal: nothing to continue.
                check(not os.path.exists(checkpoint), "G: finished before SIGTERM, no checkpoint left")
                continue
            lines = [l for l in err.splitlines() if l.strip()]
            check(proc.returncode == 5 and len(lines) == 1 and "plastix --restart" in lines[0],
                  f"G1: SIGTERM: exit status {proc.returncode}, one line naming the checkpoint: "
                  f"{lines[0][:140] if lines else ''}")
            code, out, err = run([app, "--restart", checkpoint], dirs["G"])
            check(code == 0 and not os.path.exists(checkpoint), f"G2: the restart completes: exit status {code}")
            if code != 0:
                print(err)
            compare_csv(os.path.join(dirs["F0"], "out", "solution.csv"),
                        os.path.join(dirs["G"], "out", "solution.csv"), f"G vs F0 ({label})",
                        same_ranks=deterministic(os.path.join(dirs["F0"], "out")))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{checks - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
