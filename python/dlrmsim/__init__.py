"""dlrmsim from Python: simulate recommendation-model training on datacenter clusters.

    import dlrmsim
    report = dlrmsim.run("configs/scenarios/default.yaml", set=["model.global_batch_size=65536"])
    report["throughput_samples_per_s"]          # the number `dlrmsim run` prints
    rows = list(dlrmsim.sweep("configs/sweeps/hbm_bandwidth_x_batch.yaml", jobs=2))
    dlrmsim.to_dataframe(rows)                  # pandas: one row per point, as in the CSV file

run(), place(), compare() and validate() return the JSON documents of `dlrmsim run --json`,
`dlrmsim place --json`, `dlrmsim compare --json` and `dlrmsim validate --json` as dicts, plan()
the choice `dlrmsim plan` prints (the README and app/run_report.hpp
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

__all__ = ["__version__", "run", "place", "compare", "plan", "validate", "sweep", "to_dataframe", "Error", "BadInput",
           "Infeasible", "OutputFailed"]


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


def compare(a, b, set=None, set_a=None, set_b=None):
    """Runs scenarios `a` and `b` (paths or dicts) as `dlrmsim compare` does and returns its
    JSON document: scenario_a, scenario_b, platform_a, platform_b, bound_a, bound_b, verdict and
    rows [{section, name, unit, a, b, delta, ratio}]. `set` overrides both ("key.path=value"),
    `set_a` and `set_b` one of them (as --set-a and --set-b)."""
    a_text, a_is_text = _scenario(a)
    b_text, b_is_text = _scenario(b)
    return json.loads(_dlrmsim.compare_json(a_text, a_is_text, b_text, b_is_text, _overrides(set),
                                            _overrides(set_a), _overrides(set_b)))


def plan(space, throughput=None, samples=None, deadline=None, objective="cost", output=None, jobs=1, resume=False):
    """Searches a space (a sweep file or a dict with its content, axes as in sweep()) for the
    cheapest (objective "cost") or least-energy ("energy") point meeting a throughput target,
    as `dlrmsim plan` does: `throughput` in samples/s (a number, "40M" or "40 M samples/s"), or
    `samples` to train within `deadline` (seconds, or "2 h"). Every point's row goes to
    `output` (a CSV file; by default a temporary file, removed after). Returns {points, pruned,
    simulated, failed, without_objective, target_samples_per_s, training_samples, objective,
    winner, fastest, front}: winner (None when no point meets the target) and fastest are
    points {point, label, throughput_samples_per_s, time_to_train_s, objective_per_run,
    currency}, front the Pareto front of objective per run against time to train."""
    if (throughput is None) == (deadline is None):
        raise ValueError("plan: give the target as either throughput=RATE or samples=N, deadline=TIME")
    n = _dlrmsim.default_training_samples if samples is None else float(samples)
    if throughput is not None:
        target = float(throughput) if isinstance(throughput, (int, float)) else _dlrmsim.sample_rate(str(throughput))
    else:
        if isinstance(deadline, (int, float)):
            seconds = float(deadline)
        else:
            q = _dlrmsim.quantity(str(deadline))
            if q is None or q[1] != "s":
                raise ValueError("plan: deadline %r: expected a time such as '2 h' or seconds" % (deadline,))
            seconds = q[0]
        if not seconds > 0:
            raise ValueError("plan: deadline: expected a positive time")
        target = n / seconds
    text, is_text = _sweep_spec(space, None)
    if output is not None:
        return json.loads(_dlrmsim.plan_result_json(text, is_text, target, n, objective, _path("output", output),
                                                    int(jobs), bool(resume)))
    import tempfile
    with tempfile.TemporaryDirectory(prefix="dlrmsim_plan_") as scratch:
        return json.loads(_dlrmsim.plan_result_json(text, is_text, target, n, objective,
                                                    os.path.join(scratch, "points.csv"), int(jobs), False))


def platform(path):
    """Describes a platform file as `dlrmsim platform --json` does (nodes, devices, links,
    per-node figures, fabric, bisection bandwidth) and returns the document."""
    return json.loads(_dlrmsim.platform_json(_path("path", path)))


def validate(directory="validation/cases"):
    """Runs the validation cases of `directory` (`dlrmsim validate --json`'s document)."""
    return json.loads(_dlrmsim.validate_json(_path("directory", directory)))


def _value(text):
    """A CSV field typed: an int or float when it is a number (outputs and numeric inputs); a
    quantity written with a unit ("2000 GB/s", "1.5 ms") as a float in the base unit of its
    dimension (B, s, FLOP, B/s, FLOP/s, Hz: 2e12, 0.0015), read as the scenario reads it;
    None when empty (a value the point does not have); else the text."""
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        pass
    quantity = _dlrmsim.quantity(text)
    return text if quantity is None else quantity[0]


def _field(column, text):
    """A sweep row's field as sweep() yields it: the text columns (label, status, error,
    fingerprint) as text, None when empty; every other column typed by _value."""
    if column in ("label", "status", "error", "fingerprint"):
        return text or None
    return _value(text)


def _sweep_spec(sweep, set):
    """(text or path, is_text) for the C++ side. A dict is a sweep file's content, except that
    `axes` may also be a dict {key: [values]} or {key: {"range": ...}}; `set` overrides
    ("key.path=value") become one-value axes of a dict sweep (so they show as columns)."""
    overrides = _overrides(set)
    if isinstance(sweep, dict):
        spec = dict(sweep)
        axes = spec.get("axes")
        if isinstance(axes, dict):
            spec["axes"] = [dict(v, key=k) if isinstance(v, dict) else {"key": k, "values": list(v)}
                            for k, v in axes.items()]
        if overrides:
            spec["axes"] = list(spec.get("axes") or [])
            for o in overrides:
                key, eq, value = o.partition("=")
                if not eq:
                    raise ValueError("set: '%s': expected key.path=value" % o)
                spec["axes"].append({"key": key, "values": [value]})
        return json.dumps(spec), True
    if isinstance(sweep, (str, os.PathLike)):
        if overrides:
            raise TypeError("set: overrides apply to a sweep given as a dict; give the file's content as a "
                            "dict or add the keys as axes of the file")
        return _path("sweep", sweep), False
    raise TypeError("sweep: expected a file path or a dict, got %s" % type(sweep).__name__)


def sweep(sweep, jobs=1, set=None):
    """Runs the points of a sweep (a sweep file, or a dict with its content: `base` and `axes`,
    where axes may be a dict {key: [values]}) and yields one dict per point, in point order,
    with the columns of `dlrmsim sweep`'s CSV file (point, label, the varied keys, status,
    error, the outputs, the fingerprint). Values are typed: numbers are ints or floats, a value
    with a unit is a float in its dimension's base unit ("2000 GB/s" is 2e12, in B/s), a value
    a point does not have is None (an ok point's error), text stays text. `set` adds fixed
    overrides to a dict sweep.
    `jobs` threads run points at once.

    >>> rows = list(sweep({"base": "configs/scenarios/default.yaml",
    ...                    "axes": {"model.global_batch_size": [32768, 65536]}}))  # doctest: +SKIP
    """
    text, is_text = _sweep_spec(sweep, set)
    s = _dlrmsim.Sweep(text, is_text)
    columns = s.columns

    def as_dict(fields):
        return {c: _field(c, f) for c, f in zip(columns, fields)}

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


def to_dataframe(rows):
    """The rows of sweep() (or any list of dicts, such as [run(...), ...]) as a pandas
    DataFrame, one column per key. Needs pandas (Debian: python3-pandas); without it an
    ImportError says so."""
    try:
        import pandas
    except ImportError as e:
        raise ImportError("dlrmsim.to_dataframe needs pandas (Debian: python3-pandas)") from e
    return pandas.DataFrame(list(rows))
