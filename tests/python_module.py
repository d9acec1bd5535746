#!/usr/bin/env python3
"""The Python module against the command line (python/module.cpp, python/dlrmsim/__init__.py).

System: the `dlrmsim` package built in this tree and the `dlrmsim` program of the same build.
Expected, each because both go through the same library code and the same JSON writer:
  - for every shipped scenario (configs/scenarios/*.yaml), run()'s report equals `dlrmsim run
    --json -`'s document key for key (engine wall-clock statistics aside), so in particular
    throughput_samples_per_s is identical;
  - a scenario given as a dict runs like the same scenario file;
  - sweep() yields the rows of `dlrmsim sweep`'s CSV file (each field typed as
    dlrmsim._field types it), in order, with 1 and 2 threads;
  - bad input raises BadInput and an infeasible job Infeasible, each with the message the
    command prints after "error: " / "infeasible: ";
  - the GIL is released while simulating: a Python thread keeps counting during run().
Usage: python_module.py DLRMSIM SOURCE_DIR   (PYTHONPATH must reach the built package)
"""
import csv
import glob
import json
import os
import subprocess
import sys
import tempfile
import threading

import dlrmsim

cli, src = sys.argv[1], sys.argv[2]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def cli_run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True, cwd=src)


def without_engine(doc):
    return {k: v for k, v in doc.items() if k != "engine"}


def throughput(doc):
    # A scenario with jobs reports each job's throughput (models/jobs.hpp).
    if "jobs" in doc:
        return [j["throughput_samples_per_s"] for j in doc["jobs"]]
    return doc["throughput_samples_per_s"]


# Every shipped scenario: the same document, the same throughput.
scenarios = sorted(glob.glob(os.path.join(src, "configs", "scenarios", "*.yaml")))
check(len(scenarios) >= 10, "found %d shipped scenarios" % len(scenarios))
for path in scenarios:
    done = cli_run("run", path, "--json", "-")
    check(done.returncode == 0, "%s: dlrmsim run exited %d: %s" % (path, done.returncode, done.stderr))
    expected = json.loads(done.stdout)
    got = dlrmsim.run(path)
    check(throughput(got) == throughput(expected),
          "%s: Python %r, command line %r samples/s" % (os.path.basename(path), throughput(got), throughput(expected)))
    check(without_engine(got) == without_engine(expected), "%s: the reports differ" % os.path.basename(path))
print("run: %d shipped scenarios, Python equals the command line" % len(scenarios))

# The module's version is the program's (dlrmsim --version; common/version.hpp).
version = subprocess.run([cli, "--version"], capture_output=True, text=True).stdout.split()[-1]
check(dlrmsim.__version__ == version, "dlrmsim.__version__ %r, dlrmsim --version %r" % (dlrmsim.__version__, version))

# Overrides, and a dict scenario with the default scenario's content.
default = os.path.join(src, "configs", "scenarios", "default.yaml")
with_set = cli_run("run", default, "--set", "model.global_batch_size=27648", "--json", "-")
check(dlrmsim.run(default, set=["model.global_batch_size=27648"])["throughput_samples_per_s"] ==
      json.loads(with_set.stdout)["throughput_samples_per_s"], "--set and set= differ")
as_dict = {
    "name": "dict_scenario",
    "platform": os.path.join(src, "configs", "platforms", "dgx-a100.yaml"),
    "model": os.path.join(src, "configs", "models", "dlrm_mlperf_criteo_1tb.yaml"),
    "training": {"mode": "hybrid_parallel_sync"},
    "placement": {"policy": "cost_greedy", "tiers": ["gpu_hbm"]},
    "run": {"warmup_steps": 1, "steps": 2},
}
with tempfile.TemporaryDirectory() as tmp:
    as_file = os.path.join(tmp, "scenario.yaml")
    with open(as_file, "w") as f:
        json.dump(as_dict, f)  # JSON is YAML
    from_file = json.loads(cli_run("run", as_file, "--json", "-").stdout)
check(without_engine(dlrmsim.run(as_dict)) == without_engine(from_file), "a dict scenario differs from its file")

dlrmsim_default_doc = dlrmsim.run(default)

# Sweeps: the CSV rows of the command line, with 1 and 2 threads.
sweep_file = os.path.join(src, "tests", "data", "sweep_nine_points.yaml")
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "rows.csv")
    done = cli_run("sweep", sweep_file, "-o", out)
    check(done.returncode == 0, "dlrmsim sweep exited %d: %s" % (done.returncode, done.stderr))
    with open(out, newline="") as f:
        expected_rows = list(csv.DictReader(f))
expected_rows = [{k: dlrmsim._field(k, v) for k, v in row.items()} for row in expected_rows]
for jobs in (1, 2):
    rows = list(dlrmsim.sweep(sweep_file, jobs=jobs))
    check(rows == expected_rows, "sweep with %d thread(s): rows differ from the CSV file" % jobs)
print("sweep: %d rows equal the CSV file's with 1 and 2 threads" % len(expected_rows))

# Platforms: the document of `dlrmsim platform --json -` for every shipped platform file.
platforms = sorted(glob.glob(os.path.join(src, "configs", "platforms", "*.yaml")))
for path in platforms:
    done = cli_run("platform", path, "--json", "-")
    check(done.returncode == 0, "%s: dlrmsim platform exited %d: %s" % (path, done.returncode, done.stderr))
    check(dlrmsim.platform(path) == json.loads(done.stdout), "%s: platform() differs" % os.path.basename(path))
print("platform: %d shipped platforms, Python equals the command line" % len(platforms))

# Errors: the kind and the command line's message.
bad = cli_run("run", default, "--set", "model.global_batch_size=-1")
try:
    dlrmsim.run(default, set=["model.global_batch_size=-1"])
    check(False, "a negative batch did not raise")
except dlrmsim.BadInput as e:
    check(bad.returncode == e.exit_status == 2, "bad input: exit %d, Python %d" % (bad.returncode, e.exit_status))
    check(bad.stderr == "error: %s\n" % e, "bad input message: CLI %r, Python %r" % (bad.stderr, str(e)))
# An alias inside its own anchor's node once recursed without end and killed the interpreter.
try:
    dlrmsim.run(default, set=["run.steps=&a [*a]"])
    check(False, "an alias cycle did not raise")
except dlrmsim.BadInput as e:
    check("alias cycle" in str(e), "an alias cycle's message says so: %s" % e)
# A path with a NUL character: the system would read the name up to the NUL, another file
# (here the default scenario, which once ran). Expected: ValueError naming the argument.
for call, argument in ((lambda p: dlrmsim.run(p), "scenario"), (lambda p: dlrmsim.place(p), "scenario"),
                       (lambda p: dlrmsim.platform(p), "path"), (lambda p: list(dlrmsim.sweep(p)), "sweep"),
                       (lambda p: dlrmsim.validate(p), "directory")):
    try:
        call(default + "\0.bak")
        check(False, "a path with a NUL did not raise (%s)" % argument)
    except ValueError as e:
        check(str(e).startswith(argument + ": ") and "NUL" in str(e), "a NUL path's message: %s" % e)
infeasible_file = os.path.join(src, "tests", "errors", "scenario_infeasible.yaml")
infeasible = cli_run("run", infeasible_file)
try:
    dlrmsim.run(infeasible_file)
    check(False, "an infeasible job did not raise")
except dlrmsim.Infeasible as e:
    check(infeasible.returncode == e.exit_status == 1, "infeasible: exit %d" % infeasible.returncode)
    check(infeasible.stderr == "infeasible: %s\n" % e, "infeasible message: CLI %r, Python %r" % (infeasible.stderr, str(e)))
    check(isinstance(e, dlrmsim.Error) and e.kind == "infeasible", "Infeasible is an Error of kind 'infeasible'")
try:
    dlrmsim.run(os.path.join(src, "no", "such.yaml"))
    check(False, "a missing file did not raise")
except dlrmsim.BadInput as e:
    check("such.yaml" in str(e), "a missing file's message names it: %s" % e)

# The GIL is released: a counting thread runs while run() simulates a 512-node scenario.
count = [0]
stop = threading.Event()


def counter():
    while not stop.is_set():
        count[0] += 1


t = threading.Thread(target=counter)
t.start()
before = count[0]
dlrmsim.run(os.path.join(src, "configs", "scenarios", "dcnv2_superpod_4096gpu.yaml"))
during = count[0] - before
stop.set()
t.join()
check(during > 1000, "a Python thread counted only %d times during run(): the GIL is held" % during)
print("errors and GIL: checked (a thread counted %d times during one run)" % during)

# A decimal-comma locale chosen by the program (de_DE.UTF-8): numbers are still written and
# read as the command line writes them. The sweep once returned '8,18898e+06' strings, a
# fractional range failed at every point ("unknown unit ',1 TB/s'") and validate() returned
# '3,138'. Skipped (said so) where the locale is not installed.
import locale
try:
    locale.setlocale(locale.LC_ALL, "de_DE.UTF-8")
except locale.Error:
    print("locale: de_DE.UTF-8 is not installed (localedef -i de_DE -f UTF-8 de_DE.UTF-8); checks skipped")
else:
    try:
        check(locale.localeconv()["decimal_point"] == ",", "de_DE.UTF-8 has a decimal comma")
        rows = list(dlrmsim.sweep(sweep_file, jobs=2))
        check(rows == expected_rows, "sweep under de_DE.UTF-8: rows differ from the CSV file")
        with tempfile.TemporaryDirectory() as tmp:
            fractional = os.path.join(tmp, "fractional.yaml")
            with open(fractional, "w") as f:
                f.write("base: %s\naxes:\n  - key: platform.node_templates.dgx-h100.devices.0.hbm_bandwidth\n"
                        "    range: {from: 2.5, to: 3.5, step: 0.5, unit: TB/s}\n" % default)
            rows = list(dlrmsim.sweep(fractional))
            check([r["status"] for r in rows] == ["ok"] * 3, "a fractional range under de_DE.UTF-8: %r" %
                  [r["error"] for r in rows])
            check(all(isinstance(r["throughput_samples_per_s"], float) for r in rows),
                  "sweep outputs under de_DE.UTF-8 are numbers")
        got = dlrmsim.run(default)
        check(without_engine(got) == without_engine(dlrmsim_default_doc), "run() under de_DE.UTF-8 differs")
    finally:
        locale.setlocale(locale.LC_ALL, "C")
    print("locale: de_DE.UTF-8 gives the rows and documents of the C locale")

if failures:
    print("%d checks failed" % len(failures))
    sys.exit(1)
print("python module: all checks passed")
