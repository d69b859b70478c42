"""Parse the application's one-line run summary (plastix::RunSummary::line()),
for the benchmark scripts in this folder."""
import re


def parse(line):
    """The fields of a line starting with 'plastix: ' as a dict: backend, dofs,
    stages (stage name -> seconds), total, solve (the solve or Newton stage),
    and for elastoplastic runs steps, cuts, newton, linear; for elastic ones
    linear only (newton is None)."""
    stages = {name: float(seconds) for name, seconds in
              re.findall(r"(\w+) ([0-9.e+-]+)", line.split("time [s]:")[1].split(", total")[0])}
    result = {
        "backend": line.split(", ")[1],
        "dofs": int(re.search(r"(\d+) DoFs", line).group(1)),
        "stages": stages,
        "total": float(line.split(", total ")[1]),
    }
    m = re.search(r"(\d+) load steps \((\d+) cuts\), (\d+) Newton iterations, (\d+) linear iterations", line)
    if m:
        result.update(steps=int(m.group(1)), cuts=int(m.group(2)), newton=int(m.group(3)), linear=int(m.group(4)),
                      solve=stages.get("newton", 0.))
    else:
        result.update(newton=None, linear=int(re.search(r" (\d+) iterations", line).group(1)),
                      solve=stages.get("solve", 0.))
    return result


def summaries(log):
    """Every summary line of a log file, parsed."""
    return [parse(l) for l in open(log) if l.startswith("plastix: ")]


def _table_row(name, log):
    """One markdown row of the time-to-solution table for the run logged in @p log."""
    text = open(log).read()
    status = re.findall(r"^exit (\d+)", text, re.M)
    wall = re.findall(r"^real\s+(\S+)", text, re.M)
    lines = [l for l in text.splitlines() if l.startswith("plastix: ") and "time [s]:" in l]
    if not lines:
        error = [l for l in text.splitlines() if l.startswith("plastix: ")]
        print(f"| {name} | | | | | | | | | | exit {status[-1] if status else '?'}: "
              f"{(error[-1][:80] if error else 'no summary')} |")
        return
    line = lines[-1]
    r = parse(line)
    # The solver field is the sixth field of the line; it may hold ", " inside
    # parentheses ("cg + multigrid (coarse cg, single) (auto)").
    solver = re.split(r", (?![^()]*\))", line)[5]
    s = r["stages"]
    per_newton = r["linear"] / r["newton"] if r.get("newton") else float("nan")
    per_iteration = 1e3 * r["solve"] / max(r["linear"], 1)
    print(f"| {name} | {r['dofs'] / 1e6:.2f}M | {solver} | {r.get('newton') or '-'} | {r['linear']} | "
          f"{per_newton:.1f} | {per_iteration:.1f} | {r['solve']:.2f} | {s.get('mesh', 0):.2f} | "
          f"{s.get('dofs', 0) + s.get('operator', 0) + s.get('preconditioner', 0):.2f} | {r['total']:.2f} |")


if __name__ == "__main__":
    import sys
    if sys.argv[1] == "--header":
        print("| run | DoFs | solver | Newton | CG | CG per Newton | ms per CG | Newton [s] | mesh [s] "
              "| set-up [s] | total [s] |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
    elif sys.argv[1] == "--row":
        _table_row(sys.argv[2], sys.argv[3])
