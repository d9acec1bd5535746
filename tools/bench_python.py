#!/usr/bin/env python3
"""The Python module's sweep speed beside the command line's: the first 1,000 points of
configs/sweeps/hbm_bandwidth_x_batch.yaml (10 HBM bandwidths x 100 batch sizes of the default
scenario) with 2 threads, once through `dlrmsim sweep -j 2` and once through
dlrmsim.sweep(..., jobs=2). Prints JSON: python_sweep_1000_points_s, cli_sweep_1000_points_s
and their ratio (the acceptance bound is 1.10). Not part of the test suite (about a minute).
Usage: PYTHONPATH=build/python python3 tools/bench_python.py [build/dlrmsim]
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import dlrmsim

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
cli = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build", "dlrmsim")
with tempfile.TemporaryDirectory() as tmp:
    sweep = os.path.join(tmp, "sweep_1000.yaml")
    with open(sweep, "w") as f:
        f.write("base: %s\n" % os.path.join(root, "configs", "scenarios", "default.yaml"))
        f.write("axes:\n"
                "  - key: platform.node_templates.dgx-h100.devices.0.hbm_bandwidth\n"
                "    range: {from: 2000, to: 4970, step: 330, unit: GB/s}\n"
                "  - key: model.global_batch_size\n"
                "    range: {from: 8192, to: 819200, step: 8192}\n")
    start = time.perf_counter()
    subprocess.run([cli, "sweep", sweep, "-j", "2", "-q", "-o", os.path.join(tmp, "out.csv")], check=True,
                   stderr=subprocess.DEVNULL)
    cli_s = time.perf_counter() - start
    start = time.perf_counter()
    rows = sum(1 for _ in dlrmsim.sweep(sweep, jobs=2))
    python_s = time.perf_counter() - start
assert rows == 1000, rows
print(json.dumps({"python_sweep_1000_points_s": round(python_s, 3), "cli_sweep_1000_points_s": round(cli_s, 3),
                  "python_over_cli": round(python_s / cli_s, 3), "load_average": os.getloadavg()[0]}))
