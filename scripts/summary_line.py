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
