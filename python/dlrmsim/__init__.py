"""dlrmsim from Python: simulate recommendation-model training on datacenter clusters.

    import dlrmsim
    report = dlrmsim.run("configs/scenarios/default.yaml", set=["model.global_batch_size=65536"])
    report["throughput_samples_per_s"]          # the number `dlrmsim run` prints
    rows = list(dlrmsim.sweep("configs/sweeps/hbm_bandwidth_x_batch.yaml", jobs=2))
    pandas.DataFrame(rows)                      # one row per point, as in the CSV file

run(), place() and validate() return the JSON documents of `dlrmsim run --json`, `dlrmsim
place --json` and `dlrmsim validate --json` as dicts (the README and app/run_report.hpp
document the keys). A scenario is a file path or a dict with the content of a scenario file;
relative references in a dict (`"platform": "../platforms/dgx-h100.yaml"`) are found from
the working directory, then in the data search path (`dlrmsim list --paths`).

Errors raise dlrmsim.BadInput (the command line's exit status 2), dlrmsim.Infeasible (1) or
dlrmsim.OutputFailed (4), all dlrmsim.Error, with the command line's message ("FILE:LINE:COL:
key: what was expected"); `.kind` and `.exit_status` say which.

The simulator releases the GIL while it runs, so threads run scenarios in parallel; sweep()
uses `jobs` threads.
"""

import collections
import concurrent.futures
import json
import os

from . import _dlrmsim

__version__ = _dlrmsim.__version__

Error = _dlrmsim.Error
BadInput = _dlrmsim.BadInput
Infeasible = _dlrmsim.Infeasible
OutputFailed = _dlrmsim.OutputFailed
Error.kind, Error.exit_status = "error", 3
BadInput.kind, BadInput.exit_status = "bad input", 2
Infeasible.kind, Infeasible.exit_status = "infeasible", 1
OutputFailed.kind, OutputFailed.exit_status = "output failed", 4

__all__ = ["__version__", "run", "place", "validate", "sweep", "Error", "BadInput", "Infeasible", "OutputFailed"]


def _path(argument, path):
    """`path` as a string; a NUL character (which would end the name where the system reads it,
    so that another file is read) is a ValueError naming the argument."""
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if "\0" in text:
        raise ValueError("%s: the path %r contains a NUL character; a file name cannot" % (argument, text))
    return text


def _scenario(scenario):
    """(text or path, is_text) for the C++ side."""
    if isinstance(scenario, dict):
        # JSON is YAML: the dict is read by the same loader as a scenario file.
        return json.dumps(scenario), True
    if isinstance(scenario, (str, os.PathLike)):
        return _path("scenario", scenario), False
    raise TypeError("scenario: expected a file path or a dict, got %s" % type(scenario).__name__)


def _overrides(set):
    if set is None:
        return []
    if isinstance(set, str):
        return [set]
    return [str(s) for s in set]


def run(scenario, set=None):
    """Simulates a scenario (path or dict) with `set` overrides ("key.path=value", as --set)
    and returns the report: the JSON document of `dlrmsim run --json` as a dict."""
    text, is_text = _scenario(scenario)
    return json.loads(_dlrmsim.run_json(text, is_text, _overrides(set)))


def place(scenario, set=None):
    """Plans the embedding placement as `dlrmsim place --json` does and returns the plan."""
    text, is_text = _scenario(scenario)
    return json.loads(_dlrmsim.place_json(text, is_text, _overrides(set)))


def platform(path):
    """Describes a platform file as `dlrmsim platform --json` does (nodes, devices, links,
    per-node figures, fabric, bisection bandwidth) and returns the document."""
    return json.loads(_dlrmsim.platform_json(_path("path", path)))


def validate(directory="validation/cases"):
    """Runs the validation cases of `directory` (`dlrmsim validate --json`'s document)."""
    return json.loads(_dlrmsim.validate_json(_path("directory", directory)))


def _value(text):
    """A CSV field as a number when it is one (outputs and numeric inputs), else the text."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def sweep(path, jobs=1):
    """Runs the points of a sweep file and yields one dict per point, in point order, with the
    columns of `dlrmsim sweep`'s CSV file (point, label, the varied keys, status, error, the
    outputs, the fingerprint); numbers are ints or floats. `jobs` threads run points at once."""
    s = _dlrmsim.Sweep(_path("path", path))
    columns = s.columns

    def as_dict(fields):
        return {c: (f if c in ("label", "status", "error", "fingerprint") else _value(f)) for c, f in zip(columns, fields)}

    if jobs <= 1:
        for i in range(len(s)):
            yield as_dict(s.row(i))
        return
    # A bounded window of submitted points keeps memory flat for very long sweeps while the
    # rows still come out in point order.
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        window = collections.deque()
        next_point = 0
        while next_point < len(s) or window:
            while next_point < len(s) and len(window) < 4 * jobs:
                window.append(pool.submit(s.row, next_point))
                next_point += 1
            yield as_dict(window.popleft().result())
