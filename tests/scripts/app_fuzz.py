#!/usr/bin/env python3
"""Fuzz test of the plastix application on broken or hostile input.

usage: app_fuzz.py <plastix binary> <prm directory> <mpiexec>
                   [--cases N] [--seed S] [--keep DIR] [--timeout T] [--jobs J]
                   [--only REGEX] [--no-mpi] [--list] [--verbose] [--max-time T]
                   [--memory-limit-mb M] [--strict-leftovers]

The contract of the application that every case checks:
  - exit status 0 success, 1 bad input, 2 solver/Newton did not converge,
    3 device or memory error, 4 internal error, 5 signal. Broken input must
    give 1 (2 where a valid but impossible load is legitimate). Exit 4, a
    crash (a signal, 134, 139, ...) or a hang (the time limit) always fails.
  - on a non-zero exit, stderr has exactly one line starting with
    'plastix: ' other than warnings ('plastix: warning: ...') (1 rank; at
    least one with 2 ranks) that names the offending
    .prm entry, and nothing is left in the working directory but the inputs
    and empty directories: no output file, no '.plastix-staging-*' folder;
    except that a run that stopped with exit 2 (no convergence) or 5 (a
    signal) keeps the complete files of its converged load steps and its
    complete checkpoint (the documented behaviour: 'plastix --restart'
    continues from it), never a staging folder or a partial file.
  - on exit 0, stdout has the one-line summary ('plastix: ...'), and neither
    stdout nor any CSV written contains nan or inf.
  - under '<mpiexec> -np 2' the same holds, and no rank hangs.
  (--strict-leftovers: nothing may stay after any non-zero exit.)

PLASTIX_FUZZ_CASES in the environment, when --cases is not given, sets the
number of cases (scripts/test-debian-chroot.sh runs a smaller selection).

Cases (all generated deterministically from --seed; every case runs in its
own fresh temporary directory with its inputs copied there):
  nonfinite     nan/inf/-inf/1e400 in every numeric entry of an elastic run
  ep-nonfinite  the same for the loads, load stepping, Newton and Monitor
                entries of an elastoplastic run (must fail before any solve)
  prm-file      the parameter file itself: a directory, empty, comments
                only, binary garbage, missing, 'set' without '=', unbalanced
                subsection/end, unknown subsections/entries, very long values,
                non-ASCII text, a file that includes itself
  entry-syntax  malformed lists inside entries (ids, components, keys)
  cli           the command line: no argument, two, unknown options,
                --restart with no/bad checkpoints, --help, --print-parameters
                (and running what it prints)
  monitor       Monitor/Reactions and Materials/Per material id naming ids
                the mesh lacks, an invalid Monitor/Plot x or y column (before the
                first load step), malformed points
  output        Output/Base name with '/', Summary file naming a directory,
                Output/Directory that is a file or cannot be created
  solver        multigrid without refinements
  size          Global refinements = 12, Subdivisions = 100000 x 3, ...: exit 1
                quickly (memory estimate), never std::bad_alloc
  singular      no Dirichlet condition, rigid-body motions left free
  mesh          gmsh (2.2, 4.1, binary) and Abaqus files with tetrahedra,
                mixed cells, prisms, pyramids, second-order hexahedra,
                truncated, empty, inverted, twisted, flat, dangling node
                references, garbage, missing, unknown extensions
  restart       --restart from a real checkpoint (Steps per run = 1) that was
                then damaged: truncated/garbage data, nan or huge state values
  signal        SIGINT/SIGTERM during an elastoplastic run: exit 5
  dynamics      'Time integration': non-finite steps, times, damping and
                densities, initial conditions that are infinite somewhere or
                invert elements, plasticity, checkpoints, an explicit step
                above the critical one, and one valid run
  control       valid runs (box, elastoplastic cube, the two-hexahedron mesh
                as .msh and .inp): exit 0, checks that the harness itself works
  random        random mutations of the stock prm files (made small first)
  mpi           a selection of the above under '<mpiexec> -np 2'

Random mutations never make a valid but legitimately long run: 'huge' values
(1e300, 1e400, long digit strings) are not put into iteration counts, step
counts, cut counts, polynomial degrees, restart lengths, the divergence factor
or the multigrid smoothing range (SKIP_HUGE below), and '0' is not put into
the tolerances (SKIP_ZERO: an exact solve that can never converge would only
run into the iteration limits). The shrinking overrides also bound the
iteration counts of every random run.

Prints one line per failing case, then a table (cases, exit statuses,
categories) and a last line 'N passed, M failed'. Exits 1 if a case failed.
"""

import argparse
import concurrent.futures
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

# --------------------------------------------------------------------------
# Case description


class Case:
    def __init__(self, name, category, prm=None, files=None, argv=None, expect=(1,), patterns=(),
                 ranks=1, timeout=None, needs_summary=True, pre_print_parameters=None, pre_run=(), mutate=(),
                 signal_after=None):
        self.name = name
        self.category = category
        self.prm = prm                      # text (str) or bytes of case.prm, or None
        self.files = dict(files or {})      # relative path -> bytes, or DIR
        self.argv = argv                    # arguments after the binary; default ['case.prm']
        self.expect = set(expect)
        self.patterns = list(patterns)      # each: str, tuple of str (any of), or compiled regex
        self.ranks = ranks
        self.timeout = timeout
        self.needs_summary = needs_summary  # exit 0 must print the summary line
        self.pre_print_parameters = pre_print_parameters  # write --print-parameters output here first
        self.pre_run = list(pre_run)        # argument lists run (1 rank, must exit 0) before the case
        self.mutate = list(mutate)          # (path, operation, argument) applied after pre_run
        self.signal_after = signal_after    # (signal, seconds): sent to the run after that time

    def copy_for_mpi(self):
        c = Case(self.name + "@np2", "mpi", self.prm, self.files, self.argv, self.expect, self.patterns,
                 2, self.timeout, self.needs_summary, self.pre_print_parameters, self.pre_run, self.mutate,
                 self.signal_after)
        c.origin = self.category
        return c


DIR = object()  # marker in Case.files: create a directory

HOSTILE_NONFINITE = ["nan", "inf", "-inf", "1e400"]

# --------------------------------------------------------------------------
# Base parameter files


def block(subsection, **entries):
    """A subsection with entries; keyword names use '_' for ' ' and 'Q' for "'"."""
    lines = ["subsection %s" % subsection]
    for key, value in entries.items():
        lines.append("  set %s = %s" % (key.replace("Q", "'").replace("_", " "), value))
    lines.append("end")
    return "\n".join(lines) + "\n"


def sset(subsection, entry, value):
    return "subsection %s\n  set %s = %s\nend\n" % (subsection, entry, value)


# The small valid elastic problem (tests/app/bad_*.prm start from it); the
# cases append entries to it. The file's two comment lines are left out, so
# that line numbers in messages count from the first entry.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "small_elastic.prm")) as _base:
    ELASTIC_BASE = "".join(line for line in _base if not line.startswith("#"))

PLASTIC_BASE = """\
subsection Problem
  set Type = elastoplastic
end
subsection Mesh
  set Geometry           = box
  set Lower corner       = 0, 0, 0
  set Upper corner       = 1, 1, 1
  set Subdivisions       = 2, 2, 2
  set Global refinements = 0
end
subsection Materials
  set Young's modulus     = 200e9
  set Poisson's ratio     = 0.3
  set Yield stress        = 450e6
  set Isotropic hardening = 66e9
end
subsection Boundary conditions
  set Dirichlet = 4: xyz = 0, 0, 0
  set Traction  = 5: 0, 0, 600e6
end
subsection Load stepping
  set Load factors = 0.5, 1
  set Maximum cuts = 2
end
subsection Newton
  set Maximum iterations     = 20
  set Residual tolerance     = 1e-6
  set Displacement tolerance = 1e-6
end
subsection Linear solver
  set Preconditioner     = jacobi
  set Maximum iterations = 2000
end
subsection Monitor
  set Points      = top: 1, 1, 1
  set Reactions   = 4
  set Plot x column = top_uz
end
subsection Output
  set Directory = output
  set Base name = ep
end
"""

# A small dynamic run (Newmark, a few steps) for the Time integration cases.
DYNAMIC_BASE = PLASTIC_BASE.replace("set Type = elastoplastic", "set Type = elastic") + """\
subsection Time integration
  set Integrator = Newmark
  set Time step  = 0.001
  set End time   = 0.003
end
subsection Materials
  set Density = 7850
end
"""

MESH_PRM = """\
subsection Mesh
  set Geometry           = file
  set File               = %s
  set Global refinements = 0
end
subsection Materials
  set Young's modulus = 200e9
  set Poisson's ratio = 0.3
end
subsection Boundary conditions
  set Dirichlet = 7: xyz = 0, 0, 0
  set Traction  = 9: 0, 0, -1e6
end
subsection Output
  set Directory = output
  set Base name = mesh
end
"""


def mesh_prm(file_name):
    return MESH_PRM % file_name


# --------------------------------------------------------------------------
# Mesh files: two unit hexahedra [0,2]x[0,1]x[0,1] (as tests/data/two_hexes.*)

NODES = {1 + i + 3 * j + 6 * k: (i, j, k) for k in range(2) for j in range(2) for i in range(3)}


def hex_nodes(c):
    """gmsh/Abaqus order of the corner nodes of cube c (0 or 1)."""
    n = lambda i, j, k: 1 + i + 3 * j + 6 * k
    return [n(c, 0, 0), n(c + 1, 0, 0), n(c + 1, 1, 0), n(c, 1, 0),
            n(c, 0, 1), n(c + 1, 0, 1), n(c + 1, 1, 1), n(c, 1, 1)]


def kuhn_tets(h):
    return [(h[0], h[1], h[2], h[6]), (h[0], h[2], h[3], h[6]), (h[0], h[3], h[7], h[6]),
            (h[0], h[7], h[4], h[6]), (h[0], h[4], h[5], h[6]), (h[0], h[5], h[1], h[6])]


def prisms(h):
    return [(h[0], h[1], h[2], h[4], h[5], h[6]), (h[0], h[2], h[3], h[4], h[6], h[7])]


def pyramids(h):
    return [(h[0], h[1], h[2], h[3], h[6]), (h[0], h[1], h[5], h[4], h[6]), (h[0], h[4], h[7], h[3], h[6])]


BOUNDARY_QUADS = [  # (physical tag, nodes) as in tests/data/two_hexes.msh
    (7, (1, 4, 10, 7)), (9, (3, 6, 12, 9)),
    (3, (1, 2, 8, 7)), (3, (2, 3, 9, 8)), (3, (4, 10, 11, 5)), (3, (5, 11, 12, 6)),
    (3, (1, 4, 5, 2)), (3, (2, 5, 6, 3)), (3, (7, 8, 11, 10)), (3, (8, 9, 12, 11))]


def msh22(elements, nodes=None, header="2.2 0 8", node_count=None):
    """elements: list of (type, physical tag, node tuple)."""
    nodes = NODES if nodes is None else nodes
    out = ["$MeshFormat", header, "$EndMeshFormat", "$Nodes",
           str(len(nodes) if node_count is None else node_count)]
    for tag in sorted(nodes):
        out.append("%d %s" % (tag, " ".join(str(x) for x in nodes[tag])))
    out += ["$EndNodes", "$Elements", str(len(elements))]
    for number, (etype, phys, conn) in enumerate(elements, 1):
        out.append("%d %d 2 %s %s %s" % (number, etype, phys, phys, " ".join(str(n) for n in conn)))
    out.append("$EndElements")
    return ("\n".join(out) + "\n").encode()


def two_hex_elements(first=None):
    hexes = [(5, 1, tuple(first or hex_nodes(0))), (5, 2, tuple(hex_nodes(1)))]
    return hexes + [(3, tag, quad) for tag, quad in BOUNDARY_QUADS]


VALID_MSH = msh22(two_hex_elements())


def msh41(volume_type, cells, nodes=None):
    """ASCII gmsh 4.1 with one volume entity holding all cells."""
    nodes = NODES if nodes is None else nodes
    tags = sorted(nodes)
    out = ["$MeshFormat", "4.1 0 8", "$EndMeshFormat",
           "$Entities", "0 0 0 1", "1 0 0 0 2 1 1 1 1 0", "$EndEntities",
           "$Nodes", "1 %d %d %d" % (len(tags), tags[0], tags[-1]), "3 1 0 %d" % len(tags)]
    out += [str(t) for t in tags]
    out += [" ".join(str(x) for x in nodes[t]) for t in tags]
    out += ["$EndNodes", "$Elements", "1 %d 1 %d" % (len(cells), len(cells)),
            "3 1 %d %d" % (volume_type, len(cells))]
    out += ["%d %s" % (i, " ".join(str(n) for n in c)) for i, c in enumerate(cells, 1)]
    out.append("$EndElements")
    return ("\n".join(out) + "\n").encode()


def msh22_binary():
    head = b"$MeshFormat\n2.2 1 8\n" + struct.pack("<i", 1) + b"\n$EndMeshFormat\n"
    nodes = b"$Nodes\n12\n" + b"".join(struct.pack("<iddd", t, *map(float, NODES[t])) for t in sorted(NODES))
    nodes += b"\n$EndNodes\n"
    elements = b"$Elements\n2\n" + struct.pack("<iii", 5, 2, 2)
    for number, c in enumerate((0, 1), 1):
        elements += struct.pack("<11i", number, c + 1, c + 1, *hex_nodes(c))
    elements += b"\n$EndElements\n"
    return head + nodes + elements


def second_order_hex(etype):
    """One unit cube as a 20-node (type 17) or 27-node (type 12) hexahedron."""
    grid = {}
    for k in range(3):
        for j in range(3):
            for i in range(3):
                grid[(i, j, k)] = len(grid) + 1
    corners = [(0, 0, 0), (2, 0, 0), (2, 2, 0), (0, 2, 0), (0, 0, 2), (2, 0, 2), (2, 2, 2), (0, 2, 2)]
    mid = lambda *idx: tuple(sum(corners[i][d] for i in idx) // len(idx) for d in range(3))
    edges = [(0, 1), (0, 3), (0, 4), (1, 2), (1, 5), (2, 3), (2, 6), (3, 7), (4, 5), (4, 7), (5, 6), (6, 7)]
    faces = [(0, 1, 2, 3), (0, 1, 5, 4), (0, 3, 7, 4), (1, 2, 6, 5), (2, 3, 7, 6), (4, 5, 6, 7)]
    pts = corners + [mid(*e) for e in edges]
    if etype == 12:
        pts += [mid(*f) for f in faces] + [(1, 1, 1)]
    nodes = {n: tuple(x / 2 for x in p) for p, n in grid.items()}
    return msh22([(etype, 1, tuple(grid[p] for p in pts))], nodes=nodes)


def inp_file(blocks, nodes=None):
    """Abaqus: blocks = list of (type, elset, list of node tuples)."""
    nodes = NODES if nodes is None else nodes
    out = ["*HEADING", "plastix fuzz mesh", "*NODE"]
    out += ["%d, %s" % (t, ", ".join(str(x) for x in nodes[t])) for t in sorted(nodes)]
    number = 1
    for etype, elset, cells in blocks:
        out.append("*ELEMENT, TYPE=%s, ELSET=%s" % (etype, elset))
        for c in cells:
            out.append("%d, %s" % (number, ", ".join(str(n) for n in c)))
            number += 1
    return out


def inp_two_hexes(first=None):
    out = inp_file([("C3D8", "EB1", [first or hex_nodes(0)]), ("C3D8", "EB2", [hex_nodes(1)])])
    out += ["*SURFACE, NAME=SS7", "1, S6", "*SURFACE, NAME=SS9", "2, S4", "*SURFACE, NAME=SS3"]
    out += ["%d, S%d" % (e, s) for e in (1, 2) for s in (1, 2, 3, 5)]
    return ("\n".join(out) + "\n").encode()


VALID_INP = inp_two_hexes()


def c3d10():
    corners = [(0, 0, 0), (2, 0, 0), (0, 2, 0), (0, 0, 2)]
    edges = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)]
    pts = corners + [tuple((corners[a][d] + corners[b][d]) // 2 for d in range(3)) for a, b in edges]
    nodes = {i + 1: tuple(x / 2 for x in p) for i, p in enumerate(pts)}
    return ("\n".join(inp_file([("C3D10", "EB1", [tuple(range(1, 11))])], nodes=nodes)) + "\n").encode()


def c3d20():
    grid = {}
    for k in range(3):
        for j in range(3):
            for i in range(3):
                grid[(i, j, k)] = len(grid) + 1
    corners = [(0, 0, 0), (2, 0, 0), (2, 2, 0), (0, 2, 0), (0, 0, 2), (2, 0, 2), (2, 2, 2), (0, 2, 2)]
    edges = [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (1, 5), (2, 6), (3, 7)]
    pts = corners + [tuple((corners[a][d] + corners[b][d]) // 2 for d in range(3)) for a, b in edges]
    nodes = {n: tuple(x / 2 for x in p) for p, n in grid.items()}
    conn = tuple(grid[p] for p in pts)
    text = inp_file([("C3D20", "EB1", [conn[:16]])], nodes=nodes)
    text[-1] += ","  # Abaqus continues long element lines on the next line
    text.append(", ".join(str(n) for n in conn[16:]))
    return ("\n".join(text) + "\n").encode()


TETS = re.compile(r"(?i)tetra|C3D4|C3D10")


def mesh_cases(rng):
    """(name, file name, bytes or DIR or None (missing), patterns[, accepted exit statuses])."""
    m = []
    tets12 = [(4, 1, t) for c in (0, 1) for t in kuhn_tets(hex_nodes(c))]
    tri = [(2, 7, (1, 4, 10)), (2, 7, (1, 10, 7)), (2, 9, (3, 6, 12)), (2, 9, (3, 12, 9))]
    named = ["Mesh/File"]
    m.append(("msh22-tets-only", "mesh.msh", msh22(tets12 + tri), named + [TETS, re.compile(r"\b12\b")]))
    m.append(("msh41-tets-only", "mesh.msh", msh41(4, [t[2] for t in tets12]), named + [TETS, re.compile(r"\b12\b")]))
    mixed = [(5, 1, tuple(hex_nodes(0)))] + [(4, 2, t) for t in kuhn_tets(hex_nodes(1))]
    m.append(("msh22-hex-and-tets", "mesh.msh", msh22(mixed + tri), named + [TETS, re.compile(r"\b6\b")]))
    m.append(("msh22-prisms", "mesh.msh", msh22([(6, 1, p) for c in (0, 1) for p in prisms(hex_nodes(c))]), named))
    m.append(("msh22-pyramids", "mesh.msh", msh22([(7, 1, p) for c in (0, 1) for p in pyramids(hex_nodes(c))]), named))
    m.append(("msh22-hex20", "mesh.msh", second_order_hex(17), named))
    m.append(("msh22-hex27", "mesh.msh", second_order_hex(12), named))
    m.append(("msh22-binary", "mesh.msh", msh22_binary(), named))
    m.append(("msh-v1", "mesh.msh", b"$NOD\n1\n1 0 0 0\n$ENDNOD\n$ELM\n0\n$ENDELM\n", named))
    m.append(("msh-v3", "mesh.msh", VALID_MSH.replace(b"2.2 0 8", b"3.0 0 8"), named, (0, 1)))
    cut = VALID_MSH.index(b"$Elements")
    m.append(("msh22-truncated-in-nodes", "mesh.msh", VALID_MSH[:VALID_MSH.index(b"\n7 0 0 1") + 4], named))
    m.append(("msh22-truncated-in-elements", "mesh.msh", VALID_MSH[:cut + 40], named))
    m.append(("msh22-truncated-header", "mesh.msh", VALID_MSH[:12], named))
    m.append(("msh-empty", "mesh.msh", b"", named))
    # deal.II's readers turn inverted (mirrored) hexahedra around: accepted, or rejected by name.
    m.append(("msh22-inverted-hex", "mesh.msh", msh22(two_hex_elements([7, 8, 11, 10, 1, 2, 5, 4])), named, (0, 1)))
    m.append(("msh22-twisted-hex", "mesh.msh", msh22(two_hex_elements([1, 2, 4, 5, 7, 8, 11, 10])), named))
    flat = {t: (x, y, 0) for t, (x, y, z) in NODES.items()}
    m.append(("msh22-flat-hexes", "mesh.msh", msh22(two_hex_elements(), nodes=flat), named))
    m.append(("msh22-missing-node", "mesh.msh", msh22(two_hex_elements([1, 2, 5, 4, 7, 8, 11, 99])), named))
    m.append(("msh22-node-count-too-large", "mesh.msh", msh22(two_hex_elements(), node_count=20), named))
    m.append(("msh22-node-count-huge", "mesh.msh", msh22(two_hex_elements(), node_count=999999999999), named))
    m.append(("msh22-nan-coordinate", "mesh.msh", VALID_MSH.replace(b"\n12 2 1 1\n", b"\n12 2 1 nan\n"), named))
    m.append(("msh22-text-coordinate", "mesh.msh", VALID_MSH.replace(b"\n12 2 1 1\n", b"\n12 2 one 1\n"), named))
    quads_max = [(3, 4294967295 if tag == 3 else tag, q) for tag, q in BOUNDARY_QUADS]
    m.append(("msh22-boundary-tag-uint-max", "mesh.msh",
              msh22([(5, 1, tuple(hex_nodes(0))), (5, 2, tuple(hex_nodes(1)))] + quads_max), named, (0, 1)))
    m.append(("msh22-material-tag-uint-max", "mesh.msh", msh22(two_hex_elements()).replace(
        b"\n1 5 2 1 1 ", b"\n1 5 2 4294967295 4294967295 "), named, (0, 1)))
    m.append(("msh22-unknown-element-type", "mesh.msh",
              msh22([(99, 1, tuple(hex_nodes(0)))] + [(5, 2, tuple(hex_nodes(1)))]), named))
    m.append(("msh22-no-volume-cells", "mesh.msh", msh22([(3, tag, q) for tag, q in BOUNDARY_QUADS]), named))
    m.append(("msh22-header-only", "mesh.msh", b"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n", named))
    m.append(("msh-garbage-binary", "mesh.msh", bytes(rng.randrange(256) for _ in range(4096)), named))
    m.append(("msh-garbage-text", "mesh.msh", b"this is not a mesh\n" * 20, named))
    m.append(("inp-c3d4", "mesh.inp",
              ("\n".join(inp_file([("C3D4", "EB1", kuhn_tets(hex_nodes(0)))])) + "\n").encode(),
              named + [TETS, re.compile(r"\b6\b")]))
    m.append(("inp-c3d10", "mesh.inp", c3d10(), named))
    m.append(("inp-c3d20", "mesh.inp", c3d20(), named))
    m.append(("inp-hex-and-tets", "mesh.inp",
              ("\n".join(inp_file([("C3D8", "EB1", [hex_nodes(0)]), ("C3D4", "EB2", kuhn_tets(hex_nodes(1)))]))
               + "\n").encode(), named))
    m.append(("inp-truncated", "mesh.inp", VALID_INP[:VALID_INP.index(b"2, 2, 3, 6") + 7], named))
    m.append(("inp-missing-node", "mesh.inp", inp_two_hexes([1, 2, 5, 4, 7, 8, 11, 99]), named))
    m.append(("inp-seven-nodes", "mesh.inp", VALID_INP.replace(b"1, 1, 2, 5, 4, 7, 8, 11, 10", b"1, 1, 2, 5, 4, 7, 8, 11"),
              named))
    m.append(("inp-inverted-hex", "mesh.inp", inp_two_hexes([7, 8, 11, 10, 1, 2, 5, 4]), named, (0, 1)))
    m.append(("inp-no-elements", "mesh.inp", VALID_INP[:VALID_INP.index(b"*ELEMENT")], named))
    m.append(("inp-empty", "mesh.inp", b"", named))
    m.append(("inp-garbage", "mesh.inp", b"*** not an abaqus file ***\n\x01\x02\x03" * 30, named))
    m.append(("missing-file", "no-such-mesh.msh", None, named + ["no-such-mesh.msh"]))
    m.append(("unknown-extension-stl", "mesh.stl", VALID_MSH, named))
    m.append(("no-extension", "mesh", VALID_MSH, named))
    m.append(("directory-named-msh", "dir.msh", DIR, named))
    return m


# --------------------------------------------------------------------------
# Fixed cases


def leaf(entry):
    return entry.split("/")[-1]


def nonfinite_cases(category, base, entries, timeout=None):
    """A case of category for each hostile non-finite value in each entry of
    entries, ("Subsection/Entry", template with {t}), set in the run base; each
    must end with a message naming the entry."""
    cases = []
    for entry, template in entries:
        sub, name = entry.split("/")
        key = template.split("=")[0].split(":")[-1].strip() if "Per material" in entry else ""
        for t in HOSTILE_NONFINITE:
            cname = "%s/%s%s=%s" % (category, name.replace(" ", "-").replace("'", ""), "-" + key if key else "", t)
            cases.append(Case(cname, category, base + sset(sub, name, template.format(t=t)), patterns=[name],
                              timeout=timeout))
    return cases


def fixed_cases(rng):
    cases = []
    add = cases.append

    # -- nonfinite: nan/inf/-inf/1e400 in every numeric entry of an elastic run
    elastic_entries = [
        ("Boundary conditions/Traction", "1: 0, 0, {t}"),
        ("Boundary conditions/Pressure", "1: {t}"),
        ("Boundary conditions/Dirichlet", "0: xyz = 0, 0, 0; 1: x = {t}"),
        ("Boundary conditions/Body force", "0, 0, {t}"),
        ("Materials/Young's modulus", "{t}"),
        ("Materials/Poisson's ratio", "{t}"),
        ("Materials/Yield stress", "{t}"),
        ("Materials/Isotropic hardening", "{t}"),
        ("Materials/Kinematic hardening", "{t}"),
        ("Materials/Per material id", "0: E={t}"),
        ("Materials/Per material id", "0: nu={t}"),
        ("Materials/Per material id", "0: yield={t}"),
        ("Materials/Per material id", "0: H={t}"),
        ("Materials/Per material id", "0: Hkin={t}"),
        ("Mesh/Lower corner", "{t}, 0, 0"),
        ("Mesh/Upper corner", "2, 1, {t}"),
        ("Mesh/Distortion", "{t}"),
        ("Linear solver/Relative tolerance", "{t}"),
        ("Linear solver/Absolute tolerance", "{t}"),
        ("Linear solver/Multigrid smoothing range", "{t}"),
        ("Linear solver/AMG aggregation threshold", "{t}"),
    ]
    cases += nonfinite_cases("nonfinite", ELASTIC_BASE, elastic_entries)
    for t in HOSTILE_NONFINITE:  # Scale of a mesh file
        add(Case("nonfinite/Scale=%s" % t, "nonfinite", mesh_prm("mesh.msh") + sset("Mesh", "Scale", t),
                 files={"mesh.msh": VALID_MSH}, patterns=["Scale"]))
        cyl = ELASTIC_BASE + block("Mesh", Geometry="cylinder", Inner_radius="100", Outer_radius="200",
                                   Cylinder_length="20") + sset("Boundary conditions", "Dirichlet",
                                                                "2: x = 0; 3: y = 0; 4: z = 0") \
            + sset("Boundary conditions", "Traction", "") + sset("Boundary conditions", "Pressure", "0: 100")
        add(Case("nonfinite/Outer-radius=%s" % t, "nonfinite", cyl + sset("Mesh", "Outer radius", t),
                 patterns=["radius"]))

    # -- ep-nonfinite: elastoplastic runs must reject non-finite loads before any solve
    ep_entries = [
        ("Boundary conditions/Traction", "5: 0, 0, {t}"),
        ("Boundary conditions/Pressure", "5: {t}"),
        ("Boundary conditions/Dirichlet", "4: xyz = 0, 0, 0; 5: z = {t}"),
        ("Boundary conditions/Body force", "{t}, 0, 0"),
        ("Load stepping/Load factors", "0.5, {t}"),
        ("Load stepping/Minimum increment", "{t}"),
        ("Materials/Yield stress", "{t}"),
        ("Materials/Isotropic hardening", "{t}"),
        ("Materials/Per material id", "0: yield={t}"),
        ("Monitor/Points", "top: 1, 1, {t}"),
        ("Newton/Residual tolerance", "{t}"),
        ("Newton/Displacement tolerance", "{t}"),
        ("Newton/Maximum forcing term", "{t}"),
        ("Newton/Minimum forcing term", "{t}"),
        ("Newton/Divergence factor", "{t}"),
    ]
    cases += nonfinite_cases("ep-nonfinite", PLASTIC_BASE, ep_entries, timeout=30)
    for t in HOSTILE_NONFINITE:
        add(Case("ep-nonfinite/Final-load-factor=%s" % t, "ep-nonfinite",
                 PLASTIC_BASE + block("Load stepping", Load_factors="", Final_load_factor=t, Number_of_steps="2"),
                 patterns=["Final load factor"], timeout=30))

    # -- dynamics: non-finite and impossible time-integration input
    dynamic_entries = [
        ("Time integration/Time step", "{t}"),
        ("Time integration/End time", "{t}"),
        ("Time integration/Spectral radius", "{t}"),
        ("Time integration/Mass damping", "{t}"),
        ("Time integration/Stiffness damping", "{t}"),
        ("Time integration/Critical step fraction", "{t}"),
        ("Time integration/Maximum cuts", "{t}"),
        ("Materials/Density", "{t}"),
        ("Materials/Per material id", "0: rho={t}"),
    ]
    cases += nonfinite_cases("dynamics", DYNAMIC_BASE, dynamic_entries, timeout=30)
    D = "dynamics/"
    add(Case(D + "velocity-infinite-at-a-vertex", "dynamics",
             DYNAMIC_BASE + sset("Time integration", "Initial velocity", "1 / x; 0; 0"),
             patterns=["Initial velocity"], timeout=30))
    add(Case(D + "velocity-not-three", "dynamics",
             DYNAMIC_BASE + sset("Time integration", "Initial velocity", "1; 2"),
             patterns=["Initial velocity"], timeout=30))
    add(Case(D + "displacement-inverts", "dynamics",
             DYNAMIC_BASE + sset("Problem", "Kinematics", "finite strain")
             + sset("Time integration", "Initial displacement", "-2 * x; 0; 0"),
             patterns=["Initial displacement"], timeout=30))
    add(Case(D + "amplitude-garbage", "dynamics",
             DYNAMIC_BASE + sset("Time integration", "Load amplitude", "t +* 2"),
             patterns=["Load amplitude"], timeout=30))
    add(Case(D + "plasticity", "dynamics",
             DYNAMIC_BASE.replace("set Type = elastic", "set Type = elastoplastic"),
             patterns=["Integrator"], timeout=30))
    add(Case(D + "implicit-without-step", "dynamics",
             DYNAMIC_BASE + sset("Time integration", "Time step", "0"), patterns=["Time step"], timeout=30))
    add(Case(D + "explicit-above-critical", "dynamics",
             DYNAMIC_BASE + sset("Time integration", "Integrator", "central differences"),
             patterns=["Time step"], timeout=30))
    add(Case(D + "checkpoints", "dynamics",
             DYNAMIC_BASE + sset("Output", "Checkpoint interval", "1"), expect=(0,), timeout=60))
    add(Case(D + "valid", "dynamics", DYNAMIC_BASE, expect=(0,), timeout=60))

    # -- prm-file: the parameter file itself
    P = "prm-file/"
    add(Case(P + "directory", "prm-file", None, files={"case.prm": DIR}, patterns=["case.prm"]))
    add(Case(P + "missing", "prm-file", None, argv=["no-such-file.prm"], patterns=["no-such-file.prm"]))
    add(Case(P + "empty", "prm-file", "", expect=(0, 1)))
    add(Case(P + "comments-only", "prm-file", "# nothing here\n# set Geometry = box\n\n   # indented\n", expect=(0, 1)))
    add(Case(P + "binary-garbage", "prm-file", bytes(rng.randrange(256) for _ in range(2048))))
    add(Case(P + "binary-garbage-no-nul", "prm-file", bytes(rng.randrange(1, 256) for _ in range(2048))))
    add(Case(P + "set-without-equals", "prm-file", ELASTIC_BASE + "subsection Mesh\n  set Global refinements 1\nend\n",
             patterns=[("Global refinements", "Line <%d>" % (ELASTIC_BASE.count("\n") + 2))]))
    add(Case(P + "set-nothing", "prm-file", ELASTIC_BASE + "subsection Mesh\n  set\nend\n"))
    add(Case(P + "set-empty-name", "prm-file", ELASTIC_BASE + "subsection Mesh\n  set = 3\nend\n"))
    add(Case(P + "missing-end", "prm-file", ELASTIC_BASE + "subsection Mesh\n  set Global refinements = 0\n"))
    add(Case(P + "extra-end", "prm-file", ELASTIC_BASE + "end\n"))
    add(Case(P + "end-first", "prm-file", "end\n" + ELASTIC_BASE))
    add(Case(P + "subsection-without-name", "prm-file", ELASTIC_BASE + "subsection\nend\n"))
    add(Case(P + "unknown-subsection", "prm-file", ELASTIC_BASE + "subsection Fruit\n  set Colour = yellow\nend\n",
             patterns=["Fruit"]))
    add(Case(P + "unknown-entry", "prm-file", ELASTIC_BASE + sset("Mesh", "Number of bananas", "3"),
             patterns=["Number of bananas"]))
    add(Case(P + "entry-at-top-level", "prm-file", ELASTIC_BASE + "set Young's modulus = 1e9\n",
             patterns=["Young's modulus"]))
    add(Case(P + "nested-known-subsection", "prm-file", ELASTIC_BASE + "subsection Mesh\nsubsection Mesh\nend\nend\n"))
    add(Case(P + "problem-type-plastic", "prm-file", ELASTIC_BASE + sset("Problem", "Type", "plastic"), patterns=["Type"]))
    add(Case(P + "long-number-value", "prm-file",
             ELASTIC_BASE + sset("Boundary conditions", "Traction", "1: 0, 0, -" + "9" * 100000),
             patterns=["Traction"]))
    add(Case(P + "long-word-value", "prm-file", ELASTIC_BASE + sset("Operator", "Strategy", "x" * 100000),
             patterns=["Strategy"]))
    add(Case(P + "long-list-value", "prm-file",
             ELASTIC_BASE + sset("Boundary conditions", "Traction", "; ".join("1: 0, 0, -1" for _ in range(20000))),
             expect=(0, 1)))
    add(Case(P + "long-comment-line", "prm-file", "#" + "c" * 2000000 + "\n" + ELASTIC_BASE, expect=(0, 1)))
    add(Case(P + "long-entry-name", "prm-file", ELASTIC_BASE + sset("Mesh", "E" * 100000, "1")))
    add(Case(P + "non-ascii-number", "prm-file", ELASTIC_BASE + sset("Materials", "Young's modulus", "2·10¹¹"),
             patterns=["Young's modulus"]))
    add(Case(P + "fullwidth-digits", "prm-file", ELASTIC_BASE + sset("Boundary conditions", "Traction", "1: 0, 0, －１"),
             patterns=["Traction"]))
    add(Case(P + "non-ascii-subsection", "prm-file", ELASTIC_BASE + "subsection Matériaux\n  set Young's modulus = 1\nend\n"))
    add(Case(P + "non-ascii-entry", "prm-file", ELASTIC_BASE + sset("Materials", "Elastizitätsmodul", "200e9")))
    add(Case(P + "invalid-utf8-value", "prm-file",
             ELASTIC_BASE.encode() + b"subsection Materials\n  set Poisson's ratio = 0.3\xff\xfe\nend\n",
             patterns=["Poisson's ratio"]))
    add(Case(P + "non-ascii-point-name", "prm-file",
             PLASTIC_BASE + block("Monitor", Points="tête: 1, 1, 1", Plot_x_column="tête_uz"), expect=(0, 1, 2)))
    add(Case(P + "utf8-bom", "prm-file", b"\xef\xbb\xbf" + ELASTIC_BASE.encode(), expect=(0, 1)))
    add(Case(P + "crlf-line-ends", "prm-file", ELASTIC_BASE.replace("\n", "\r\n"), expect=(0, 1)))
    add(Case(P + "nul-in-value", "prm-file", ELASTIC_BASE.encode() + b"subsection Mesh\n  set Distortion = 0\x00.1\nend\n"))
    add(Case(P + "include-itself", "prm-file", "include case.prm\n" + ELASTIC_BASE, timeout=30))
    add(Case(P + "include-missing", "prm-file", "include /no/such/file.prm\n" + ELASTIC_BASE))

    # -- entry-syntax: malformed lists inside otherwise valid entries
    Y = "entry-syntax/"
    syntax = [
        ("per-material-duplicate-id", "Materials", "Per material id", "0: E=1e9; 0: E=2e9", (0, 1), "Per material id"),
        ("per-material-empty-value", "Materials", "Per material id", "0: E=", (1,), "Per material id"),
        ("per-material-two-equals", "Materials", "Per material id", "0: nu=0.3=0.2", (1,), "Per material id"),
        ("per-material-unknown-key", "Materials", "Per material id", "0: G=80e9", (1,), "Per material id"),
        ("per-material-id-255", "Materials", "Per material id", "255: E=1e9", (1,), "Per material id"),
        ("per-material-id-huge", "Materials", "Per material id", "4294967296: E=1e9", (1,), "Per material id"),
        ("dirichlet-trailing-semicolons", "Boundary conditions", "Dirichlet", "0: xyz = 0, 0, 0;;;", (0, 1), "Dirichlet"),
        ("dirichlet-component-twice", "Boundary conditions", "Dirichlet", "0: xyzx = 0, 0, 0, 0", (1,), "Dirichlet"),
        ("dirichlet-colon-only", "Boundary conditions", "Dirichlet", ":", (1,), "Dirichlet"),
        ("dirichlet-id-255", "Boundary conditions", "Dirichlet", "0: xyz = 0, 0, 0; 255: x = 0", (1,), "Dirichlet"),
        ("dirichlet-id-fraction", "Boundary conditions", "Dirichlet", "0.5: xyz = 0, 0, 0", (1,), "Dirichlet"),
        ("traction-duplicate-id", "Boundary conditions", "Traction", "1: 0, 0, -1e6; 1: 0, 0, -1e6", (0, 1), "Traction"),
        ("traction-four-components", "Boundary conditions", "Traction", "1: 0, 0, -1e6, 5", (1,), "Traction"),
        ("traction-hex-float", "Boundary conditions", "Traction", "1: 0, 0, -0x1p20", (0, 1), "Traction"),
        ("traction-on-clamped-face", "Boundary conditions", "Traction", "0: 0, 0, -1e6", (1,), "Boundary conditions"),
        ("pressure-two-values", "Boundary conditions", "Pressure", "1: 1e6, 2e6", (1,), "Pressure"),
        ("body-force-two-values", "Boundary conditions", "Body force", "0, -9.81", (1,), "Body force"),
        ("point-load-no-colon", "Boundary conditions", "Point loads", "1, 1, 1", (1,), "Point loads"),
        ("point-load-two-components", "Boundary conditions", "Point loads", "1, 1, 1: 0, -1e3", (1,), "Point loads"),
        ("point-load-not-a-vertex", "Boundary conditions", "Point loads", "1e9, 0, 0: 0, 0, -1e3", (1,),
         "Point loads"),
        ("constant-loads-unknown-kind", "Boundary conditions", "Constant loads", "gravity", (1,), "Constant loads"),
    ]
    for name, sub, entry, value, expect, pattern in syntax:
        add(Case(Y + name, "entry-syntax", ELASTIC_BASE + sset(sub, entry, value), expect=expect, patterns=[pattern]))
    for name, value, expect in [("load-factors-repeated", "1, 1", (1,)), ("load-factors-zero", "0", (1,)),
                                ("load-factors-empty-item", "0.5,,1", (0, 1)),
                                ("load-factors-unloading-below-zero", "0.5, -0.5", (0, 1, 2))]:
        add(Case(Y + name, "entry-syntax", PLASTIC_BASE + sset("Load stepping", "Load factors", value), expect=expect,
                 patterns=["Load factors"], timeout=30))
    add(Case(Y + "points-duplicate-name", "entry-syntax",
             PLASTIC_BASE + sset("Monitor", "Points", "top: 1, 1, 1; top: 0, 0, 1"), expect=(0, 1),
             patterns=["Points"], timeout=30))

    # -- cli
    C = "cli/"
    add(Case(C + "help", "cli", None, argv=["--help"], expect=(0,), needs_summary=False))
    add(Case(C + "print-parameters", "cli", None, argv=["--print-parameters"], expect=(0,), needs_summary=False))
    add(Case(C + "print-parameters-run", "cli", None, argv=["printed.prm"], expect=(0,),
             pre_print_parameters="printed.prm"))
    add(Case(C + "no-argument", "cli", None, argv=[]))
    add(Case(C + "two-files", "cli", ELASTIC_BASE, argv=["case.prm", "case.prm"]))
    add(Case(C + "unknown-option", "cli", None, argv=["--frobnicate"]))
    add(Case(C + "empty-argument", "cli", None, argv=[""]))
    add(Case(C + "long-file-name", "cli", None, argv=["p" * 5000 + ".prm"]))
    add(Case(C + "restart-no-directory", "cli", None, argv=["--restart"]))
    add(Case(C + "restart-missing", "cli", None, argv=["--restart", "no-such-checkpoint"],
             patterns=["no-such-checkpoint"]))
    add(Case(C + "restart-regular-file", "cli", ELASTIC_BASE, argv=["--restart", "case.prm"]))
    add(Case(C + "restart-empty-directory", "cli", None, files={"checkpoint": DIR}, argv=["--restart", "checkpoint"]))
    add(Case(C + "restart-garbage", "cli", None,
             files={"checkpoint": DIR, "checkpoint/parameters.prm": PLASTIC_BASE.encode(),
                    "checkpoint/state": bytes(rng.randrange(256) for _ in range(1000)),
                    "checkpoint/checkpoint": b"garbage\n", "checkpoint/checkpoint.info": b"\x00\x01garbage",
                    "checkpoint/restart.txt": b"step = nan\n"},
             argv=["--restart", "checkpoint"]))

    # -- monitor
    M = "monitor/"
    add(Case(M + "reactions-id-not-on-mesh", "monitor", PLASTIC_BASE + sset("Monitor", "Reactions", "9"),
             patterns=["Monitor/Reactions", re.compile(r"\b9\b")], timeout=30))
    add(Case(M + "per-material-id-not-on-mesh", "monitor", ELASTIC_BASE + sset("Materials", "Per material id", "7: E=70e9"),
             patterns=["Per material id", re.compile(r"\b7\b")]))
    add(Case(M + "per-material-id-not-on-mesh-ep", "monitor",
             PLASTIC_BASE + sset("Materials", "Per material id", "3: yield=100e6"),
             patterns=["Per material id", re.compile(r"\b3\b")], timeout=30))
    add(Case(M + "per-material-id-not-on-mesh-file", "monitor",
             mesh_prm("mesh.msh") + sset("Materials", "Per material id", "1: E=70e9; 5: E=1e9"),
             files={"mesh.msh": VALID_MSH}, patterns=["Per material id", re.compile(r"\b5\b")]))
    add(Case(M + "plot-column-invalid", "monitor", PLASTIC_BASE + sset("Monitor", "Plot x column", "no_such_column"),
             patterns=["Plot x column"], timeout=30))
    add(Case(M + "plot-y-column-invalid", "monitor", PLASTIC_BASE + sset("Monitor", "Plot y column", "R9_z"),
             patterns=["Plot y column"], timeout=30))
    add(Case(M + "force-unit-too-long", "monitor", PLASTIC_BASE + sset("Monitor", "Force unit", "x" * 60),
             patterns=["Force unit"], timeout=30))
    # If Plot x column were checked only after the first load step, this run
    # would end with exit 2 there (Newton cannot converge in one iteration).
    add(Case(M + "plot-column-before-first-step", "monitor",
             PLASTIC_BASE + sset("Monitor", "Plot x column", "no_such_column")
             + block("Newton", Maximum_iterations="1", Residual_tolerance="1e-15", Displacement_tolerance="1e-15")
             + block("Load stepping", Maximum_cuts="0"),
             patterns=["Plot x column"], timeout=30))
    add(Case(M + "plot-column-unmonitored-reaction", "monitor", PLASTIC_BASE + sset("Monitor", "Plot x column", "R9_z"),
             patterns=["Plot x column"], timeout=30))
    add(Case(M + "plot-column-no-monitors", "monitor",
             PLASTIC_BASE + block("Monitor", Points="", Reactions="", Plot_x_column="top_uz"),
             patterns=["Plot x column"], timeout=30))
    add(Case(M + "point-name-two-words", "monitor", PLASTIC_BASE + sset("Monitor", "Points", "the top: 1, 1, 1"),
             patterns=["Points"], timeout=30))
    add(Case(M + "point-two-coordinates", "monitor", PLASTIC_BASE + sset("Monitor", "Points", "top: 1, 1"),
             patterns=["Points"], timeout=30))
    add(Case(M + "reactions-not-a-number", "monitor", PLASTIC_BASE + sset("Monitor", "Reactions", "abc"),
             patterns=["Reactions"], timeout=30))
    add(Case(M + "reactions-negative", "monitor", PLASTIC_BASE + sset("Monitor", "Reactions", "-1"),
             patterns=["Reactions"], timeout=30))
    add(Case(M + "reactions-1e400", "monitor", PLASTIC_BASE + sset("Monitor", "Reactions", "1e400"),
             patterns=["Reactions"], timeout=30))
    add(Case(M + "point-far-outside", "monitor", PLASTIC_BASE + sset("Monitor", "Points", "top: 1e6, 1e6, 1e6"),
             expect=(0, 1, 2), timeout=30))
    add(Case(M + "point-huge-coordinate", "monitor", PLASTIC_BASE + sset("Monitor", "Points", "top: 1e308, -1e308, 1e308"),
             expect=(0, 1, 2), timeout=30))

    # -- output
    O = "output/"
    add(Case(O + "base-name-with-slash", "output", ELASTIC_BASE + sset("Output", "Base name", "a/b"),
             patterns=["Base name"]))
    add(Case(O + "base-name-parent", "output", ELASTIC_BASE + sset("Output", "Base name", "../escape"),
             patterns=["Base name"]))
    add(Case(O + "base-name-5000-chars", "output", ELASTIC_BASE + sset("Output", "Base name", "b" * 5000),
             patterns=["Base name"]))
    add(Case(O + "summary-file-is-directory", "output", ELASTIC_BASE + sset("Output", "Summary file", "sumdir"),
             files={"output": DIR, "output/sumdir": DIR}, patterns=["Summary file"]))
    add(Case(O + "summary-file-is-directory-ep", "output", PLASTIC_BASE + sset("Output", "Summary file", "sumdir"),
             files={"output": DIR, "output/sumdir": DIR}, patterns=["Summary file"], timeout=30))
    add(Case(O + "summary-file-dot", "output", ELASTIC_BASE + sset("Output", "Summary file", "."),
             patterns=["Summary file"]))
    add(Case(O + "directory-is-a-file", "output", ELASTIC_BASE + sset("Output", "Directory", "blocker.input"),
             files={"blocker.input": b"a regular file\n"}, patterns=["Directory"]))
    add(Case(O + "directory-is-a-file-ep", "output", PLASTIC_BASE + sset("Output", "Directory", "blocker.input"),
             files={"blocker.input": b"a regular file\n"}, patterns=["Directory"], timeout=30))
    add(Case(O + "directory-5000-chars", "output", ELASTIC_BASE + sset("Output", "Directory", "d" * 5000),
             patterns=["Directory"]))
    add(Case(O + "directory-in-proc", "output", ELASTIC_BASE + sset("Output", "Directory", "/proc/plastix-fuzz"),
             patterns=["Directory"]))
    add(Case(O + "base-name-empty", "output", ELASTIC_BASE + sset("Output", "Base name", ""), expect=(0, 1)))
    add(Case(O + "summary-file-in-missing-directory", "output",
             ELASTIC_BASE + sset("Output", "Summary file", "no/such/dir/summary.txt"), expect=(0, 1)))

    # -- solver
    add(Case("solver/multigrid-without-refinement", "solver", ELASTIC_BASE + sset("Linear solver", "Preconditioner", "multigrid"),
             patterns=[("Global refinements", "Preconditioner")]))
    add(Case("solver/multigrid-without-refinement-ep", "solver",
             PLASTIC_BASE + sset("Linear solver", "Preconditioner", "multigrid"),
             patterns=[("Global refinements", "Preconditioner")], timeout=30))
    add(Case("solver/multigrid-mesh-file-without-refinement", "solver",
             mesh_prm("mesh.msh") + sset("Linear solver", "Preconditioner", "multigrid"),
             files={"mesh.msh": VALID_MSH}, patterns=[("Global refinements", "Preconditioner")]))

    # -- size: must exit 1 quickly (memory estimate), never bad_alloc
    S = "size/"
    add(Case(S + "global-refinements-12", "size", ELASTIC_BASE + sset("Mesh", "Global refinements", "12"),
             patterns=["Global refinements"], timeout=30))
    add(Case(S + "subdivisions-1e5-cubed", "size", ELASTIC_BASE + sset("Mesh", "Subdivisions", "100000, 100000, 100000"),
             patterns=["Subdivisions"], timeout=30))
    add(Case(S + "subdivisions-and-refinements", "size",
             ELASTIC_BASE + block("Mesh", Subdivisions="100000, 100000, 100000", Global_refinements="12"),
             patterns=[("Subdivisions", "Global refinements")], timeout=30))
    add(Case(S + "subdivisions-int-max", "size",
             ELASTIC_BASE + sset("Mesh", "Subdivisions", "2147483647, 2147483647, 2147483647"),
             patterns=["Subdivisions"], timeout=30))
    add(Case(S + "subdivisions-1e10-cells", "size", ELASTIC_BASE + sset("Mesh", "Subdivisions", "100000, 100000, 1"),
             patterns=["Subdivisions"], timeout=30))
    add(Case(S + "refinements-10-ep", "size", PLASTIC_BASE + sset("Mesh", "Global refinements", "10"),
             patterns=["Global refinements"], timeout=30))
    add(Case(S + "plate-with-holes-refinements-12", "size",
             ELASTIC_BASE + block("Mesh", Geometry="plate with holes", Global_refinements="12"),
             patterns=["Global refinements"], timeout=30))
    add(Case(S + "cylinder-refinements-12", "size",
             ELASTIC_BASE + block("Mesh", Geometry="cylinder", Inner_radius="1", Outer_radius="2",
                                  Cylinder_length="1", Global_refinements="12")
             + sset("Boundary conditions", "Traction", "1: 1, 0, 0"),
             patterns=["Global refinements"], timeout=30))
    add(Case(S + "mesh-file-refinements-12", "size", mesh_prm("mesh.msh") + sset("Mesh", "Global refinements", "12"),
             files={"mesh.msh": VALID_MSH}, patterns=["Global refinements"], timeout=30))

    # -- singular: no Dirichlet condition, rigid-body motions free
    G = "singular/"
    add(Case(G + "no-dirichlet", "singular", ELASTIC_BASE + sset("Boundary conditions", "Dirichlet", ""),
             patterns=["Dirichlet"]))
    add(Case(G + "no-dirichlet-ep", "singular", PLASTIC_BASE + sset("Boundary conditions", "Dirichlet", ""),
             patterns=["Dirichlet"], timeout=30))
    add(Case(G + "only-x-on-one-face", "singular", ELASTIC_BASE + sset("Boundary conditions", "Dirichlet", "0: x = 0"),
             patterns=["Dirichlet"]))
    add(Case(G + "only-x-on-two-faces", "singular",
             ELASTIC_BASE + sset("Boundary conditions", "Dirichlet", "0: x = 0; 1: x = 0"), patterns=["Dirichlet"]))
    add(Case(G + "yz-on-one-face", "singular", ELASTIC_BASE + sset("Boundary conditions", "Dirichlet", "0: yz = 0, 0"),
             patterns=["Dirichlet"]))
    add(Case(G + "only-z-on-bottom-ep", "singular", PLASTIC_BASE + sset("Boundary conditions", "Dirichlet", "4: z = 0"),
             patterns=["Dirichlet"], timeout=30))
    add(Case(G + "no-dirichlet-mesh-file", "singular", mesh_prm("mesh.msh") + sset("Boundary conditions", "Dirichlet", ""),
             files={"mesh.msh": VALID_MSH}, patterns=["Dirichlet"]))

    # -- mesh files
    for name, file_name, content, patterns, *expect in mesh_cases(rng):
        files = {} if content is None else {file_name: content}
        add(Case("mesh/" + name, "mesh", mesh_prm(file_name), files=files, patterns=patterns, timeout=30,
                 expect=expect[0] if expect else (1,)))

    # -- restart: checkpoints written by a real run (Steps per run = 1), then damaged
    R = "restart/"
    first = PLASTIC_BASE + sset("Load stepping", "Steps per run", "1")
    ck = "output/checkpoint/"
    damage = [
        ("valid", [], (0,)),
        ("truncated-mesh", [(ck + "mesh", "truncate", 0.5)], (1,)),
        ("empty-mesh-data", [(ck + "mesh_fixed.data", "write", b"")], (1,)),
        ("truncated-cell-data", [(ck + "mesh_fixed.data", "truncate", 0.3)], (1,)),
        ("garbage-mesh-data", [(ck + "mesh_fixed.data", "write", bytes(rng.randrange(256) for _ in range(1612)))],
         (1,)),
        ("no-complete-marker", [(ck + "complete", "delete", None)], (1,)),
        ("garbage-state", [(ck + "state.txt", "write", b"plastix-checkpoint 2\nstep banana\n")], (1,)),
        ("state-lambda-nan", [(ck + "state.txt", "sub", (rb"\nlambda \S+", b"\nlambda nan"))], (1,)),
        ("state-step-huge", [(ck + "state.txt", "sub", (rb"\nstep \d+", b"\nstep 99999999999"))], (1,)),
        ("state-target-out-of-range", [(ck + "state.txt", "sub", (rb"\ntarget_index \d+", b"\ntarget_index 7"))],
         (0, 1)),
        ("state-rows-huge", [(ck + "state.txt", "sub", (rb"\nrows \d+", b"\nrows 4000000000"))], (1,)),
        ("state-version-4", [(ck + "state.txt", "sub", (rb"plastix-checkpoint 3", b"plastix-checkpoint 4"))], (1,)),
        ("state-increment-nan", [(ck + "state.txt", "sub", (rb"\nincrement \S+", b"\nincrement nan"))], (1,)),
        ("state-version-1-with-increment", [(ck + "state.txt", "sub", (rb"plastix-checkpoint 3", b"plastix-checkpoint 1"))],
         (1,)),
        ("state-time-stepping-nan", [(ck + "state.txt", "sub", (rb"\ntime_stepping 0", b"\ntime_stepping 1 nan"))],
         (1,)),
        ("mesh-info-nproc-1000", [(ck + "mesh.info", "sub", (rb"\n(\d+) 1 (\d+) (\d+) (\d+)", rb"\n\1 1000 \2 \3 \4"))],
         (0, 1)),
        ("parameters-traction-nan", [(ck + "parameters.prm", "sub", (rb"5: 0, 0, 600e6", b"5: 0, 0, nan"))], (1,)),
        ("parameters-garbage", [(ck + "parameters.prm", "write", b"subsection Mesh\n  set Global\n")], (1,)),
        ("parameters-other-mesh", [(ck + "parameters.prm", "sub", (rb"2, 2, 2", b"3, 3, 3"))], (1,)),
    ]
    for name, mutations, expect in damage:
        add(Case(R + name, "restart", first, argv=["--restart", "output/checkpoint"], pre_run=[["case.prm"]],
                 mutate=mutations, expect=expect, timeout=30))
    # The checkpoint of a dynamic run (u, v, a and the time-stepping state), then damaged (the
    # checksums of its 'complete' file catch every change before the contents are read).
    dynamic_first = DYNAMIC_BASE + sset("Load stepping", "Steps per run", "1")
    dynamic_damage = [
        ("valid", [], (0,)),
        ("no-time-stepping", [(ck + "state.txt", "sub", (rb"\ntime_stepping 1 [^\n]*", b"\ntime_stepping 0"))], (1,)),
        ("truncated-vectors", [(ck + "mesh_fixed.data", "truncate", 0.5)], (1,)),
    ]
    for name, mutations, expect in dynamic_damage:
        add(Case(R + "dynamic-" + name, "restart", dynamic_first, argv=["--restart", "output/checkpoint"],
                 pre_run=[["case.prm"]], mutate=mutations, expect=expect, timeout=30))

    # -- signal: SIGINT/SIGTERM during an elastoplastic run: exit 5, one message, nothing partial left
    long_run = PLASTIC_BASE + block("Mesh", Subdivisions="12, 12, 12") \
        + block("Load stepping", Load_factors="", Number_of_steps="60")
    for sig in (signal.SIGINT, signal.SIGTERM):
        add(Case("signal/%s-during-run" % sig.name, "signal", long_run, expect=(5,), signal_after=(sig, 3.0),
                 timeout=40))

    # -- control: valid runs
    add(Case("control/elastic-box", "control", ELASTIC_BASE, expect=(0,)))
    add(Case("control/elastoplastic-cube", "control", PLASTIC_BASE, expect=(0,)))
    add(Case("control/msh22-two-hexes", "control", mesh_prm("mesh.msh"), files={"mesh.msh": VALID_MSH}, expect=(0,)))
    add(Case("control/inp-two-hexes", "control", mesh_prm("mesh.inp"), files={"mesh.inp": VALID_INP}, expect=(0,)))
    add(Case("control/msh41-two-hexes", "control",  # no boundary tags in this file: all faces are id 0
             mesh_prm("mesh.msh") + block("Boundary conditions", Dirichlet="0: xyz = 0, 0, 0", Traction="",
                                          Body_force="0, 0, -1e4"),
             files={"mesh.msh": msh41(5, [hex_nodes(0), hex_nodes(1)])}, expect=(0, 1),
             patterns=["Mesh/File"]))
    return cases


MPI_SELECTION = [
    "nonfinite/Traction=nan", "ep-nonfinite/Load-factors=nan", "singular/no-dirichlet",
    "restart/valid", "monitor/plot-column-invalid", "monitor/plot-column-before-first-step",
    "monitor/reactions-id-not-on-mesh", "monitor/per-material-id-not-on-mesh", "output/base-name-with-slash",
    "output/directory-is-a-file", "output/summary-file-is-directory-ep", "solver/multigrid-without-refinement",
    "size/global-refinements-12", "size/subdivisions-1e5-cubed", "mesh/msh22-tets-only", "restart/truncated-cell-data",
    "prm-file/binary-garbage", "control/elastoplastic-cube",
]

# --------------------------------------------------------------------------
# Random mutations of the stock parameter files

CATALOG = {
    "Problem": ["Type"],
    "Load stepping": ["Final load factor", "Number of steps", "Load factors", "Minimum increment", "Maximum cuts",
                      "Steps per run"],
    "Newton": ["Maximum iterations", "Residual tolerance", "Displacement tolerance", "Maximum forcing term",
               "Minimum forcing term", "Divergence factor"],
    "Monitor": ["Points", "Reactions", "Plot x column", "Plot y column", "Length unit", "Force unit", "Write plot"],
    "Mesh": ["Geometry", "Lower corner", "Upper corner", "Subdivisions", "Global refinements", "Distortion", "File",
             "Scale", "Inner radius", "Outer radius", "Cylinder length"],
    "Materials": ["Young's modulus", "Poisson's ratio", "Yield stress", "Isotropic hardening", "Kinematic hardening",
                  "Per material id"],
    "Boundary conditions": ["Dirichlet", "Traction", "Pressure", "Body force", "Point loads", "Constant loads"],
    "Operator": ["Strategy", "Cell kernel", "Thread mapping"],
    "Linear solver": ["Type", "Preconditioner", "Relative tolerance", "Absolute tolerance", "Maximum iterations",
                      "Chebyshev degree", "GMRES restart", "Reuse preconditioner", "Multigrid smoother degree",
                      "Multigrid smoothing range", "Multigrid coarse solver", "AMG aggregation threshold",
                      "AMG smoother sweeps", "AMG smoother", "AMG rigid body modes"],
    "Output": ["Directory", "Base name", "Write VTU", "Summary file", "Checkpoint interval", "Checkpoint wall time"],
}

# Entries where a huge value is valid but makes a legitimately long run
# (iteration/step/cut counts, degrees, restart length, a divergence factor
# that never triggers, a smoothing range that makes multigrid useless) or a
# legitimately huge mesh: never given 'huge' tokens.
SKIP_HUGE = {"Number of steps", "Maximum iterations", "Maximum cuts", "Chebyshev degree", "GMRES restart",
             "Multigrid smoother degree", "AMG smoother sweeps", "Divergence factor", "Multigrid smoothing range",
             "Global refinements", "Subdivisions"}
# Tolerances where 0 is valid but asks for an exact solve that cannot
# converge: the run would only spin up to the iteration limits.
SKIP_ZERO = {"Relative tolerance", "Absolute tolerance", "Residual tolerance", "Displacement tolerance",
             "Minimum forcing term", "Maximum forcing term", "Minimum increment"}
PHYSICAL = {"Dirichlet", "Traction", "Pressure", "Body force", "Young's modulus", "Poisson's ratio", "Yield stress",
            "Isotropic hardening", "Kinematic hardening", "Load factors", "Lower corner", "Upper corner",
            "Inner radius", "Outer radius", "Cylinder length", "Points"}
HUGE_TOKENS = {"1e300", "1e400", "long", "1e30"}


def hostile_token(rng, entry):
    while True:
        if rng.random() < 0.4:  # extreme but finite: the run may go on and must stay finite
            t = rng.choice(["1e300", "-1e300", "1e-300", "1e30", "-1e30", "1e-30", "2", "-2", "0.5", "0", "-1"])
        else:
            t = rng.choice(["nan", "inf", "-inf", "1e400", "-1", "0", "1e300", "", "abc", "1,2", "long", "binary"])
        if t in HUGE_TOKENS and entry in SKIP_HUGE:
            continue
        if t in ("0", "1e-300", "1e-30") and entry in SKIP_ZERO:
            continue
        break
    if t == "long":
        return rng.choice(["9" * 5000, "z" * 5000, ("1, " * 1700)[:5000]])
    if t == "binary":  # no NUL, no line end
        return "".join(chr(rng.choice([c for c in range(1, 256) if c not in (10, 13)])) for _ in range(rng.randint(8, 64)))
    return t


NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def parse_stock(text):
    """Lines, and for each 'set' line (index, subsection path, entry, value)."""
    lines = text.split("\n")
    sets = []
    stack = []
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith("subsection "):
            stack.append(s[len("subsection "):].strip())
        elif s == "end" and stack:
            stack.pop()
        elif s.startswith("set ") and "=" in s:
            name, value = s[4:].split("=", 1)
            sets.append((i, "/".join(stack), name.strip(), value.strip()))
    return lines, sets


def shrink_overrides(rng, lines, sets):
    """Overrides that make any stock problem small and fast (appended: the last 'set' wins)."""
    values = {(sub, name): value for _, sub, name, value in sets}
    over = {("Mesh", "Global refinements"): "0",
            ("Output", "Write VTU"): "true" if rng.random() < 0.3 else "false",
            ("Load stepping", "Maximum cuts"): "1",
            ("Newton", "Maximum iterations"): "8",
            ("Linear solver", "Maximum iterations"): "1000"}
    sub = values.get(("Mesh", "Subdivisions"))
    if sub:
        n = [int(x) for x in sub.split(",")]
        if n[0] * n[1] * n[2] > 400:
            over[("Mesh", "Subdivisions")] = "3, 3, 3"
    factors = values.get(("Load stepping", "Load factors"))
    if factors:
        f = [x.strip() for x in factors.split(",") if x.strip()]
        over[("Load stepping", "Load factors")] = ", ".join(f[:1] + f[-1:]) if len(f) > 1 else f[0]
    else:
        over[("Load stepping", "Load factors")] = "0.5, 1"
    return over


def render_blocks(assignments):
    by_sub = {}
    for (sub, name), value in assignments:
        by_sub.setdefault(sub, []).append((name, value))
    out = []
    for sub, items in by_sub.items():
        parts = sub.split("/")
        out += ["subsection %s" % p for p in parts]
        out += ["  set %s = %s" % (n, v) for n, v in items]
        out += ["end"] * len(parts)
    return out


def random_case(rng, index, stock):
    name, text = stock[rng.randrange(len(stock))]
    lines, sets = parse_stock(text)
    over = shrink_overrides(rng, lines, sets)
    appended = []  # mutations after the overrides
    descr = []
    for _ in range(rng.choices([1, 2, 3], weights=[5, 3, 2])[0]):
        kind = rng.choices(["value", "number", "physical", "delete", "duplicate", "drop-end", "unknown", "swap"],
                           weights=[3, 4, 5, 1, 1, 1, 1, 1])[0]
        if kind == "physical":
            # an extreme but finite number in a load, material or geometry entry:
            # the run goes on, and must end in 0 with finite results, 1 or 2
            cands = [s for s in parse_stock("\n".join(lines))[1] if s[2] in PHYSICAL and NUMBER.search(s[3])]
            if cands:
                i, sub, entry, value = rng.choice(cands)
                mt = rng.choice(list(NUMBER.finditer(value)))
                token = rng.choice(["1e300", "-1e300", "1e-300", "1e30", "-1e30", "1e-30", "0", "-1", "2",
                                    "0.4999999", "1e15", "-1e15"])
                new = value[:mt.start()] + token + value[mt.end():]
                descr.append("physical %s/%s = %s" % (sub, entry, new[:60]))
                if (sub, entry) in over:
                    appended.append(((sub, entry), new))
                else:
                    indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
                    lines[i] = "%sset %s = %s" % (indent, entry, new)
                continue
            kind = "number"
        if kind in ("value", "number"):
            stock_sets = [s for s in parse_stock("\n".join(lines))[1]]
            if rng.random() < 0.65 and stock_sets:
                i, sub, entry, value = rng.choice(stock_sets)
            else:
                sub = rng.choice(sorted(CATALOG))
                entry = rng.choice(CATALOG[sub])
                i, value = None, ""
            token = hostile_token(rng, entry)
            if kind == "number" and NUMBER.search(value):
                matches = list(NUMBER.finditer(value))
                mt = rng.choice(matches)
                new = value[:mt.start()] + token + value[mt.end():]
            else:
                kind = "value"
                new = token
            descr.append("%s %s/%s" % (kind, sub, entry))
            if i is not None and (sub, entry) not in over:
                indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
                lines[i] = "%sset %s = %s" % (indent, entry, new)
            else:
                appended.append(((sub, entry), new))
        elif kind == "delete" and lines:
            i = rng.randrange(len(lines))
            descr.append("delete line %d" % (i + 1))
            del lines[i]
        elif kind == "duplicate" and lines:
            i = rng.randrange(len(lines))
            descr.append("duplicate line %d" % (i + 1))
            lines.insert(i, lines[i])
        elif kind == "drop-end":
            ends = [i for i, l in enumerate(lines) if l.strip() == "end"]
            if ends:
                i = rng.choice(ends)
                descr.append("drop end at line %d" % (i + 1))
                del lines[i]
        elif kind == "unknown":
            subs = [i for i, l in enumerate(lines) if l.strip().startswith("subsection ")]
            if subs and rng.random() < 0.7:
                i = rng.choice(subs)
                lines.insert(i + 1, "  set Fuzz entry %d = 1" % index)
                descr.append("unknown entry after line %d" % (i + 1))
            else:
                lines.append("subsection Fuzz %d\n  set Colour = 1\nend" % index)
                descr.append("unknown subsection")
        elif kind == "swap" and len(lines) > 1:
            i, j = rng.sample(range(len(lines)), 2)
            lines[i], lines[j] = lines[j], lines[i]
            descr.append("swap lines %d and %d" % (i + 1, j + 1))
    body = "\n".join(lines) + "\n# --- fuzz: shrink\n" + "\n".join(render_blocks(sorted(over.items()))) + "\n"
    if appended:
        body += "# --- fuzz: mutated entries\n" + "\n".join(render_blocks(appended)) + "\n"
    stem = os.path.splitext(name)[0]
    # binary-ish tokens are characters 1..255: written as single bytes
    data = body.encode("latin-1") if all(ord(c) < 256 for c in body) else body.encode()
    case = Case("random/%03d-%s" % (index, stem), "random", data, expect=(0, 1, 2))
    case.description = "%s: %s" % (name, "; ".join(descr) or "no mutation")
    return case


# --------------------------------------------------------------------------
# Running


NONFINITE = re.compile(r"(?i)(?<![a-z0-9_])[-+]?(nan|inf|infinity)(?![a-z0-9_])")
OUTPUT_SUFFIXES = (".vtu", ".pvtu", ".csv", ".png", ".pvd")


class Result:
    def __init__(self, case):
        self.case = case
        self.status = None   # int, or 'timeout', or 'signal N'
        self.reasons = []
        self.wall = 0.0
        self.stderr_line = ""
        self.directory = None
        self.notes = []


def descendants(pid):
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            children.setdefault(ppid, []).append(int(entry))
        except (OSError, ValueError, IndexError):
            pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def kill_tree(proc):
    """Kill what this harness started: the process group of the case and any descendant."""
    pids = descendants(proc.pid)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except OSError:
            pass
        for p in pids:
            try:
                os.kill(p, sig)
            except OSError:
                pass
        try:
            proc.wait(timeout=3)
            break
        except subprocess.TimeoutExpired:
            continue


def snapshot(directory):
    paths = set()
    for root, dirs, files in os.walk(directory):
        for n in dirs + files:
            paths.add(os.path.relpath(os.path.join(root, n), directory))
    return paths


def read_text(path, limit=2_000_000):
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return ""


def matches(pattern, text):
    if isinstance(pattern, str):
        return pattern in text
    if isinstance(pattern, tuple):
        return any(matches(p, text) for p in pattern)
    return pattern.search(text) is not None


def describe(pattern):
    if isinstance(pattern, str):
        return "'%s'" % pattern
    if isinstance(pattern, tuple):
        return " or ".join(describe(p) for p in pattern)
    return "/%s/" % pattern.pattern


class Runner:
    def __init__(self, args, work):
        self.app = os.path.realpath(args.app)
        self.mpiexec = args.mpiexec
        self.work = work
        self.args = args
        self.env = dict(os.environ)
        self.env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                         "OMPI_MCA_rmaps_base_oversubscribe": "1",
                         "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
                         "OMP_NUM_THREADS": "1", "LC_ALL": "C"})
        self.deadline = time.time() + args.max_time if args.max_time > 0 else None
        self.lock = threading.Lock()
        self.counter = 0

    def command(self, case):
        argv = ["case.prm"] if case.argv is None else case.argv
        cmd = [self.app] + argv
        if case.ranks > 1:
            cmd = [self.mpiexec, "-np", str(case.ranks), "--oversubscribe"] + cmd
        if self.args.memory_limit_mb > 0:
            # Address-space limit: a run that tries to allocate a mesh too large
            # for memory fails here instead of pushing the machine into swap/OOM.
            cmd = ["sh", "-c", 'ulimit -v %d && exec "$@"' % (self.args.memory_limit_mb * 1024), "plastix-fuzz"] + cmd
        return cmd

    def setup(self, case, directory):
        for rel in sorted(case.files):
            path = os.path.join(directory, rel)
            if case.files[rel] is DIR:
                os.makedirs(path, exist_ok=True)
            else:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(case.files[rel])
        if case.prm is not None:
            with open(os.path.join(directory, "case.prm"), "wb") as f:
                f.write(case.prm.encode() if isinstance(case.prm, str) else case.prm)
        for argv in case.pre_run:
            r = subprocess.run([self.app] + argv, cwd=directory, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, env=self.env, timeout=60)
            if r.returncode != 0:
                raise RuntimeError("preparing run %s: exit %d: %s" % (argv, r.returncode, r.stderr[-300:]))
        for rel, operation, argument in case.mutate:
            path = os.path.join(directory, rel)
            if operation == "delete":
                os.remove(path)
            elif operation == "write":
                with open(path, "wb") as f:
                    f.write(argument)
            elif operation == "truncate":
                os.truncate(path, int(os.path.getsize(path) * argument))
            elif operation == "sub":
                with open(path, "rb") as f:
                    data = f.read()
                new, n = re.subn(argument[0], argument[1], data)
                if n == 0:
                    raise RuntimeError("mutation %s of %s matched nothing" % (argument[0], rel))
                with open(path, "wb") as f:
                    f.write(new)
        if case.pre_print_parameters:
            with open(os.path.join(directory, case.pre_print_parameters), "wb") as f:
                subprocess.run([self.app, "--print-parameters"], cwd=directory, stdout=f, stderr=subprocess.DEVNULL,
                               stdin=subprocess.DEVNULL, env=self.env, timeout=60)

    def run(self, index, case):
        result = Result(case)
        if self.deadline is not None and time.time() > self.deadline:
            result.status = "not run"
            result.reasons.append("not run: --max-time reached")
            return result
        safe = re.sub(r"[^A-Za-z0-9_.=+-]", "_", case.name)[:80]
        directory = os.path.join(self.work, "cases", "%03d-%s" % (index, safe))
        os.makedirs(directory)
        result.directory = directory
        logs = os.path.join(self.work, "logs", "%03d-%s" % (index, safe))
        os.makedirs(logs)
        try:
            self.setup(case, directory)
        except Exception as error:  # noqa: BLE001 - a harness problem, reported as such
            result.status = "setup"
            result.reasons.append("setup failed: %s" % error)
            return result
        before = snapshot(directory)
        cmd = self.command(case)
        with open(os.path.join(logs, "command"), "w") as f:
            f.write(" ".join(repr(c) if (" " in c or not c) else c for c in cmd)[:2000] + "\n")
        timeout = case.timeout or self.args.timeout
        timeout = min(timeout, self.args.timeout)
        start = time.time()
        with open(os.path.join(logs, "stdout"), "wb") as out, open(os.path.join(logs, "stderr"), "wb") as err:
            proc = subprocess.Popen(cmd, cwd=directory, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    env=self.env, start_new_session=True)
            try:
                if case.signal_after:
                    sig, after = case.signal_after
                    try:
                        proc.wait(timeout=after)
                    except subprocess.TimeoutExpired:
                        os.kill(proc.pid, sig)  # the application itself (sh exec'ed it)
                proc.wait(timeout=timeout)
                status = proc.returncode
            except subprocess.TimeoutExpired:
                kill_tree(proc)
                status = "timeout"
            # ranks of a finished mpirun that linger in the group
            if status != "timeout":
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except OSError:
                    pass
        result.wall = time.time() - start
        stdout = read_text(os.path.join(logs, "stdout"))
        stderr = read_text(os.path.join(logs, "stderr"))
        self.check(case, result, status, stdout, stderr, directory, before, timeout)
        return result

    def check(self, case, result, status, stdout, stderr, directory, before, timeout):
        why = result.reasons
        # Warnings ('plastix: warning: ...', e.g. about the mesh) may precede the error.
        error_lines = [l for l in stderr.splitlines()
                       if l.startswith("plastix: ") and not l.startswith("plastix: warning: ")]
        result.stderr_line = error_lines[0] if error_lines else (stderr.strip().splitlines() or [""])[-1]
        if status == "timeout":
            result.status = "timeout"
            why.append("hang: killed after %g s" % timeout)
        elif status < 0 or status >= 128:
            signum = -status if status < 0 else status - 128
            result.status = "signal %d" % signum
            try:
                sname = signal.Signals(signum).name
            except ValueError:
                sname = "?"
            why.append("crash: exit %s (signal %d %s)" % (status, signum, sname))
        else:
            result.status = status
            if status not in case.expect:
                label = {3: " (device/memory error)", 4: " (internal error)", 5: " (signal)"}.get(status, "")
                why.append("exit %d%s, expected %s" % (status, label, "/".join(map(str, sorted(case.expect)))))
        if isinstance(status, int) and 0 < status < 128:
            if case.ranks == 1 and len(error_lines) != 1:
                why.append("%d 'plastix: ' lines on stderr, expected exactly 1" % len(error_lines))
            elif case.ranks > 1 and not error_lines:
                why.append("no 'plastix: ' line on stderr")
            if status in case.expect and error_lines:
                for p in case.patterns:
                    if not matches(p, error_lines[0]):
                        why.append("message lacks %s" % describe(p))
        # leftovers
        after = snapshot(directory)
        staging = sorted(p for p in after if os.path.basename(p).startswith(".plastix-staging-"))
        if staging:
            why.append("staging folder left: %s" % ", ".join(staging[:3]))
        if status != 0:
            new_files = sorted(p for p in after - before
                               if not os.path.isdir(os.path.join(directory, p)) and p not in staging)
            if status in (2, 5) and self.args.allow_partial_on_stop:
                # With --allow-partial-on-stop: a run that stopped at a load
                # step (2) or was interrupted (5) may keep a complete checkpoint
                # (<Output/Directory>/checkpoint, for 'plastix --restart') and
                # the output files of its converged steps; never a staging folder.
                def in_checkpoint(p):
                    parts = p.split(os.sep)
                    if "checkpoint" not in parts[:-1]:
                        return False
                    top = os.sep.join(parts[:parts.index("checkpoint") + 1])
                    return os.path.isfile(os.path.join(directory, top, "complete"))
                kept = [p for p in new_files if in_checkpoint(p) or p.endswith(OUTPUT_SUFFIXES)]
                if kept:
                    result.notes.append("kept checkpoint/converged output (%d files)" % len(kept))
                new_files = [p for p in new_files if p not in kept]
            if new_files:
                why.append("files left behind: %s%s" % (", ".join(new_files[:5]),
                                                        " (+%d)" % (len(new_files) - 5) if len(new_files) > 5 else ""))
        else:
            bad = [p for p in after if p.endswith(OUTPUT_SUFFIXES)]
            if case.needs_summary and not any(l.startswith("plastix: ") for l in stdout.splitlines()):
                why.append("exit 0 without the summary line on stdout")
            m = NONFINITE.search(stdout)
            if m:
                line = next((l for l in stdout.splitlines() if m.group(0) in l), "")
                why.append("non-finite value '%s' on stdout: %s" % (m.group(0), line[:160]))
            for p in sorted(bad):
                if p.endswith(".csv"):
                    m = NONFINITE.search(read_text(os.path.join(directory, p)))
                    if m:
                        why.append("non-finite value '%s' in %s" % (m.group(0), p))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("app")
    parser.add_argument("prm_dir")
    parser.add_argument("mpiexec")
    cases_from_environment = os.environ.get("PLASTIX_FUZZ_CASES")
    parser.add_argument("--cases", type=int, default=int(cases_from_environment) if cases_from_environment else None,
                        help="total number of cases (default: $PLASTIX_FUZZ_CASES, else the fixed cases + 60 random "
                             "mutations); fewer than the fixed cases runs an even selection of them")
    parser.add_argument("--random", type=int, default=60, help="random mutation cases (when --cases is not given)")
    parser.add_argument("--seed", type=int, default=20240613)
    parser.add_argument("--keep", default=None, help="copy the directories of failing cases here")
    parser.add_argument("--timeout", type=float, default=60, help="time limit per case in seconds")
    parser.add_argument("--jobs", type=int, default=2, help="single-rank cases run this many at a time")
    parser.add_argument("--only", default=None, help="run only cases whose name matches this regular expression")
    parser.add_argument("--no-mpi", action="store_true", help="skip the cases under mpiexec -np 2")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--verbose", action="store_true", help="print a line for every passing case too")
    parser.add_argument("--strict-leftovers", dest="allow_partial_on_stop", action="store_false",
                        help="nothing may be left on any non-zero exit; by default (the documented behaviour) "
                             "a run that stopped with exit 2 or 5 may keep a complete checkpoint folder and "
                             "the output files of its converged steps, never a staging folder or a partial file")
    parser.add_argument("--max-time", type=float, default=1200,
                        help="start no case after this many seconds (the rest count as failed); 0: no limit")
    parser.add_argument("--memory-limit-mb", type=int, default=6144,
                        help="address-space limit of every run (ulimit -v); 0: none (needed for CUDA builds, whose runtime reserves a large address space)")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    fixed = fixed_cases(random.Random(rng.random()))
    stock = []
    for name in sorted(os.listdir(args.prm_dir)):
        if name.endswith(".prm"):
            with open(os.path.join(args.prm_dir, name), encoding="utf-8") as f:
                stock.append((name, f.read()))
    if not stock:
        sys.exit("app_fuzz.py: no .prm files in %s" % args.prm_dir)
    n_random = args.random if args.cases is None else max(0, args.cases - len(fixed))
    random_rng = random.Random(rng.random())
    randoms = [random_case(random_rng, i, stock) for i in range(n_random)]
    if args.cases is not None and args.cases < len(fixed):
        step = len(fixed) / max(args.cases, 1)
        fixed = [fixed[int(i * step)] for i in range(args.cases)]
    single = fixed + randoms
    by_name = {c.name: c for c in single}
    mpi = [] if args.no_mpi else [by_name[n].copy_for_mpi() for n in MPI_SELECTION if n in by_name]
    mpi += [] if args.no_mpi else [c.copy_for_mpi() for c in randoms[:2]]
    cases = single + mpi
    if args.only:
        rx = re.compile(args.only)
        cases = [c for c in cases if rx.search(c.name)]
    if args.list:
        for c in cases:
            print("%-60s %-12s expect %s%s" % (c.name, c.category, "/".join(map(str, sorted(c.expect))),
                                               ("  " + c.description) if hasattr(c, "description") else ""))
        print("%d cases" % len(cases))
        return 0

    if not os.access(args.app, os.X_OK):
        sys.exit("app_fuzz.py: %s is not an executable" % args.app)
    work = tempfile.mkdtemp(prefix="plastix-fuzz.")
    runner = Runner(args, work)
    start = time.time()
    results = [None] * len(cases)
    print("app_fuzz: %d cases (%d single-rank with %d jobs, %d under %s -np 2), seed %d, time limit %g s, work %s"
          % (len(cases), sum(c.ranks == 1 for c in cases), args.jobs, sum(c.ranks > 1 for c in cases),
             args.mpiexec, args.seed, args.timeout, work), flush=True)

    def report(i, r):
        results[i] = r
        if r.reasons:
            extra = (" [%s]" % r.case.description) if hasattr(r.case, "description") else ""
            print("FAIL %s: %s; stderr: %s%s" % (r.case.name, "; ".join(r.reasons), r.stderr_line[:240], extra),
                  flush=True)
            if args.keep and r.directory:
                dest = os.path.join(args.keep, os.path.basename(r.directory))
                shutil.rmtree(dest, ignore_errors=True)
                shutil.copytree(r.directory, dest, symlinks=True)
                logs = os.path.join(work, "logs", os.path.basename(r.directory))
                for n in ("stdout", "stderr", "command"):
                    if os.path.exists(os.path.join(logs, n)):
                        shutil.copy(os.path.join(logs, n), os.path.join(dest, "fuzz." + n))
                with open(os.path.join(dest, "fuzz.reasons"), "w") as f:
                    f.write("%s\n%s\n" % (r.case.name, "\n".join(r.reasons)))
        elif args.verbose:
            print("ok   %-55s exit %-8s %5.1f s  %s%s" % (r.case.name, r.status, r.wall, r.stderr_line[:100],
                                                       "  [%s]" % "; ".join(r.notes) if r.notes else ""), flush=True)
        done = sum(x is not None for x in results)
        if done % 50 == 0:
            print("  ... %d/%d cases, %.0f s" % (done, len(cases), time.time() - start), flush=True)

    singles = [(i, c) for i, c in enumerate(cases) if c.ranks == 1]
    multis = [(i, c) for i, c in enumerate(cases) if c.ranks > 1]
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = {pool.submit(runner.run, i, c): i for i, c in singles}
            for f in concurrent.futures.as_completed(futures):
                report(futures[f], f.result())
        for i, c in multis:  # 2 ranks each: one at a time
            report(i, runner.run(i, c))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    wall = time.time() - start

    # table
    failed = [r for r in results if r.reasons]
    statuses = {}
    for r in results:
        statuses[str(r.status)] = statuses.get(str(r.status), 0) + 1
    print()
    print("%d cases (%d single-rank, %d with 2 ranks) in %.0f s" % (len(results), len(singles), len(multis), wall))
    print("exit status: " + ", ".join("%s: %d" % (k, statuses[k]) for k in sorted(statuses)))
    print("%-14s %6s %7s %7s" % ("category", "cases", "passed", "failed"))
    cats = []
    for r in results:
        if r.case.category not in cats:
            cats.append(r.case.category)
    for cat in cats:
        rs = [r for r in results if r.case.category == cat]
        nf = sum(1 for r in rs if r.reasons)
        print("%-14s %6d %7d %7d" % (cat, len(rs), len(rs) - nf, nf))
    print("%d passed, %d failed" % (len(results) - len(failed), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
