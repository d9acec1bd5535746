#!/usr/bin/env python3
"""A tour of dlrmsim from Python, cell by cell as in a notebook.

    PYTHONPATH=build/python python3 examples/python_tour.py      # from the repository root
    (installed: PYTHONPATH=PREFIX/lib/python3/dist-packages, or nothing for the .deb)

The scenario files are looked up next to this script's repository, else in the data search
path (`dlrmsim list --paths`), so the tour runs from any directory. The test suite runs it.
"""
import itertools
import os
import threading
import time

import dlrmsim

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "configs")
DEFAULT = os.path.join(CONFIGS, "scenarios", "default.yaml")

# %% 1. One scenario: the report of `dlrmsim run --json`, as a dict.
report = dlrmsim.run(DEFAULT)
print("%s: %.4g samples/s, step %.4g ms" % (report["scenario"], report["throughput_samples_per_s"],
                                            report["step_time_s"] * 1e3))
for category, b in report["breakdown"].items():
    print("  %-26s busy %8.1f us   critical path %8.1f us" % (category, b.get("busy_s", 0.0) * 1e6,  # idle: no busy
                                                              b["critical_path_s"] * 1e6))

# %% 2. What if the batch were larger? Overrides are the command line's --set.
bigger = dlrmsim.run(DEFAULT, set=["model.global_batch_size=110592"])
print("batch 110592: %.4g samples/s (%+.1f %%)" % (
    bigger["throughput_samples_per_s"],
    100.0 * (bigger["throughput_samples_per_s"] / report["throughput_samples_per_s"] - 1.0)))

# %% 3. A scenario written in Python: references resolve from here, then the data search path.
mine = {
    "name": "mlperf_dlrm_on_dgx_a100",
    "platform": os.path.join(CONFIGS, "platforms", "dgx-a100.yaml"),
    "model": os.path.join(CONFIGS, "models", "dlrm_mlperf_criteo_1tb.yaml"),
    "training": {"mode": "hybrid_parallel_sync"},
    "placement": {"policy": "cost_greedy"},
}
print("dict scenario: %.4g samples/s" % dlrmsim.run(mine)["throughput_samples_per_s"])

# %% 4. Points in parallel: the simulator releases the GIL, so threads overlap.
batches = [27648, 55296, 110592, 221184]
results = {}


def simulate(batch):
    results[batch] = dlrmsim.run(DEFAULT, set=["model.global_batch_size=%d" % batch])["throughput_samples_per_s"]


start = time.perf_counter()
threads = [threading.Thread(target=simulate, args=(b,)) for b in batches]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("4 points on 4 threads in %.2f s:" % (time.perf_counter() - start),
      ", ".join("%d: %.4g" % (b, results[b]) for b in batches))

# %% 5. A sweep file: one dict per point, typed ("2000 GB/s" is 2e12 B/s), ready for
# dlrmsim.to_dataframe(rows). Points are run as they are asked for: here the first 8 of the
# 10,000 of hbm_bandwidth_x_batch.yaml.
sweep_file = os.path.join(CONFIGS, "sweeps", "hbm_bandwidth_x_batch.yaml")
rows = list(itertools.islice(dlrmsim.sweep(sweep_file, jobs=2), 8))
print("sweep: %d points, columns %s ..." % (len(rows), list(rows[0])[:5]))
try:
    # pandas is optional (Debian: python3-pandas): dlrmsim itself does not need it.
    print(dlrmsim.to_dataframe(rows)[["label", "throughput_samples_per_s"]].head())
except ImportError:
    for row in rows[:3]:
        print("  %-60s %.4g samples/s" % (row["label"], row["throughput_samples_per_s"]))

# %% 6. Errors carry the command line's located message and its kind.
try:
    dlrmsim.run(DEFAULT, set=["model.global_batch_size=-1"])
except dlrmsim.BadInput as e:
    print("BadInput (exit status %d of the command line): %s" % (e.exit_status, e))
