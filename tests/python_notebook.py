#!/usr/bin/env python3
"""The Python module as a notebook uses it (python/dlrmsim/__init__.py, app/sweep.hpp).

System: the `dlrmsim` package built in this tree and the `dlrmsim` program of the same build,
run from the source tree.
Expected, each for the reason given:
  - dlrmsim.__version__ equals what `dlrmsim --version` prints after "dlrmsim ": both come
    from the CMake project VERSION (common/version.hpp);
  - a sweep given as a dict with `axes` as {key: [values]} yields the same rows as the sweep
    file with the same base and axes as a list (the dict is read by the same sweep reader);
    the fingerprints differ (a dict sweep is not the file) but every other column is equal;
  - `set=` overrides of a dict sweep are one-value axes: the points' throughput equals
    run(base, set=...) for the same values (the same overrides reach the same scenario);
  - values are typed: the point and throughput are numbers, an empty field is None
    (an ok point has no error text); an axis value with a unit, "3350 GB/s", is the float
    3.35e12 (bytes per second, the base unit; exact in binary floating point);
  - to_dataframe() gives one row per point and the sweep's columns (skipped, saying so,
    when pandas is absent);
  - compare() returns `dlrmsim compare --json -`'s document for the same scenarios and
    overrides (the same library code: app/compare.hpp), verdict and rows equal;
  - plan() chooses the point `dlrmsim plan` prints as cheapest for the same space and target
    ("1M" read by the same parser), with the same counts of pruned and simulated points;
  - place() carries the planner statistics, one owner per device.
Usage: python_notebook.py DLRMSIM SOURCE_DIR   (PYTHONPATH must reach the built package)
"""
import json
import os
import subprocess
import sys
import tempfile

import dlrmsim

cli, src = sys.argv[1], sys.argv[2]
os.chdir(src)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


# The version, from one source.
printed = subprocess.run([cli, "--version"], capture_output=True, text=True, check=True).stdout.strip()
check(printed == "dlrmsim " + dlrmsim.__version__, "--version %r, module %r" % (printed, dlrmsim.__version__))
check(dlrmsim.run("configs/scenarios/default.yaml")["dlrmsim_version"] == dlrmsim.__version__,
      "run()'s dlrmsim_version differs from __version__")
print("version: %s" % dlrmsim.__version__)

# A dict sweep against the same sweep as a file.
batches = [32768, 65536]
with tempfile.TemporaryDirectory() as tmp:
    sweep_file = os.path.join(tmp, "batch.yaml")
    with open(sweep_file, "w") as f:
        f.write("base: %s\naxes:\n  - key: model.global_batch_size\n    values: [%s]\n"
                % (os.path.join(src, "configs/scenarios/default.yaml"), ", ".join(map(str, batches))))
    from_file = list(dlrmsim.sweep(sweep_file))
from_dict = list(dlrmsim.sweep({"base": "configs/scenarios/default.yaml",
                                "axes": {"model.global_batch_size": batches}}))
check(len(from_dict) == len(batches), "dict sweep: %d rows, expected %d" % (len(from_dict), len(batches)))


def strip(row):
    return {k: v for k, v in row.items() if k != "fingerprint"}


check([strip(r) for r in from_dict] == [strip(r) for r in from_file], "the dict sweep's rows differ from the file's")
row = from_dict[0]
check(isinstance(row["point"], int) and isinstance(row["throughput_samples_per_s"], float),
      "point %r and throughput %r are not numbers" % (row["point"], row["throughput_samples_per_s"]))
check(row["status"] == "ok" and row["error"] is None, "an ok point's error is %r, expected None" % row["error"])
print("sweep(dict): %d points equal the file's" % len(from_dict))
hbm = "platform.node_templates.dgx-h100.devices.0.hbm_bandwidth"
with_unit = list(dlrmsim.sweep({"base": "configs/scenarios/default.yaml", "axes": {hbm: ["3350 GB/s"]}},
                               set=["run.warmup_steps=1", "run.steps=1"]))
check(with_unit[0][hbm] == 3.35e12 and isinstance(with_unit[0][hbm], float),
      "'3350 GB/s' became %r, expected 3.35e12 (B/s)" % with_unit[0][hbm])
print("units: '3350 GB/s' is %g B/s" % with_unit[0][hbm])

# set= overrides of a dict sweep.
with_set = list(dlrmsim.sweep({"base": "configs/scenarios/default.yaml", "axes": {"model.global_batch_size": [65536]}},
                              set=["run.steps=5"]))
direct = dlrmsim.run("configs/scenarios/default.yaml", set=["model.global_batch_size=65536", "run.steps=5"])
check(abs(with_set[0]["throughput_samples_per_s"] / direct["throughput_samples_per_s"] - 1) < 1e-5,
      "set=: sweep %r, run %r samples/s" % (with_set[0]["throughput_samples_per_s"], direct["throughput_samples_per_s"]))
check(with_set[0].get("run.steps") == 5, "the override is not a column: %r" % sorted(with_set[0]))
try:
    list(dlrmsim.sweep("configs/sweeps/hbm_bandwidth_x_batch.yaml", set=["run.steps=5"]))
    check(False, "set= with a sweep file did not raise")
except TypeError:
    pass

# compare(), against the command line.
steps = ["run.warmup_steps=1", "run.steps=2"]
done = subprocess.run([cli, "compare", "configs/scenarios/default.yaml", "configs/scenarios/default.yaml", "--json", "-",
                       "--set", steps[0], "--set", steps[1], "--set-b", "model.global_batch_size=32768"],
                      capture_output=True, text=True)
check(done.returncode == 0, "dlrmsim compare exited %d: %s" % (done.returncode, done.stderr))
if done.returncode == 0:
    cmp = dlrmsim.compare("configs/scenarios/default.yaml", "configs/scenarios/default.yaml", set=steps,
                          set_b=["model.global_batch_size=32768"])
    expected = json.loads(done.stdout)
    check(cmp["verdict"] == expected["verdict"] and cmp["rows"] == expected["rows"],
          "compare(): %r, the command line: %r" % (cmp["verdict"], expected["verdict"]))
    print("compare: %s" % cmp["verdict"])

# plan(), against the command line.
with tempfile.TemporaryDirectory() as tmp:
    done = subprocess.run([cli, "plan", "tests/data/plan_small.yaml", "--throughput", "1M", "-o",
                           os.path.join(tmp, "points.csv"), "-j", "2"], capture_output=True, text=True)
chosen = [l for l in done.stdout.splitlines() if l.startswith("cheapest")]
space = [l for l in done.stdout.splitlines() if l.startswith("space")]
result = dlrmsim.plan("tests/data/plan_small.yaml", throughput="1M", jobs=2)
if done.returncode == 0 and chosen:
    check(result["winner"] is not None and chosen[0].startswith("cheapest    " + result["winner"]["label"] + ":"),
          "plan(): winner %r, the command line: %r" % (result["winner"], chosen[0]))
else:
    check(result["winner"] is None, "plan(): winner %r, the command line chose none" % (result["winner"],))
check(bool(space) and space[0].startswith("space       %d points: %d pruned by memory (not simulated), %d simulated"
                                          % (result["points"], result["pruned"], result["simulated"])),
      "plan(): counts %r, the command line: %r" % (result, space))
check(result["target_samples_per_s"] == 1e6, "plan(): target %r, expected 1e6" % result["target_samples_per_s"])
print("plan: %d points, %d pruned, winner %s" % (result["points"], result["pruned"],
                                                 result["winner"]["label"] if result["winner"] else None))

# place() with the planner statistics.
plan_doc = dlrmsim.place("configs/scenarios/default.yaml")
check(len(plan_doc["statistics"]["owners"]) == len(plan_doc["devices"]), "place(): statistics per owner missing")
check(len(plan_doc["statistics"]["tables"]) == len(plan_doc["tables"]), "place(): statistics per table missing")

# pandas, when installed.
try:
    import pandas  # noqa: F401
except ImportError:
    print("to_dataframe: SKIPPED, pandas is not installed (Debian: python3-pandas)")
else:
    frame = dlrmsim.to_dataframe(from_dict)
    check(list(frame.columns) == list(from_dict[0]) and len(frame) == len(from_dict), "to_dataframe: %r" % frame)
    check(frame["throughput_samples_per_s"].dtype.kind == "f", "throughput column is %s" % frame["throughput_samples_per_s"].dtype)
    print("to_dataframe: %d rows x %d columns" % frame.shape)

if failures:
    print("%d failures" % len(failures))
    sys.exit(1)
