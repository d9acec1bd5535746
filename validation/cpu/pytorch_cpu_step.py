#!/usr/bin/python3
"""A whole CPU DLRM training step in plain PyTorch, and the per-operator costs a model of it needs.

The step, as facebookresearch/dlrm's dlrm_s_pytorch.py trains on CPU (one process, no
distribution): one nn.EmbeddingBag(rows, dim, mode="sum", sparse=True) per table looked up in
a Python loop, a bottom MLP (Linear + ReLU per layer) over the dense features, the dot
interaction (bmm of the pooled vectors and the bottom output, the strictly lower triangle,
concatenated with the bottom output), a top MLP (Linear + ReLU, the last layer Linear +
Sigmoid), torch.nn.BCELoss, loss.backward(), then one torch.optim step over every parameter
(SGD, or Adagrad) and zero_grad. Inputs (dense features, ids drawn uniformly, labels) are made
before timing and cycled: loading is not part of the step.

Measured per configuration (shape x optimiser x intra-op threads 1 and 2):
  step_ms         median over `repeats` timings of `steps` consecutive steps (per step), with
                  the spread (min, max) of those timings
  cpu_ms          the process's CPU time per step over the same timings: with one thread, the
                  step's time without the waits other processes on a shared machine impose (its
                  cores time-sliced); with two, both threads' time, spinning included
  operators       operators the step issues, counted by torch.profiler over one step: the
                  forward's top-level aten operators, the autograd nodes the backward runs, the
                  optimiser's top-level aten operators (zero_grad included)
Per-operator costs, one thread and two:
  elementwise     bytes/s of relu forward and its backward (threshold_backward) on a batch x 256
                  fp32 activation (in cache): the elementwise work a layer runs besides its GEMM
  coalesce        time per lookup of torch.sparse_coo_tensor(ids, rows).coalesce() (sort + segment
                  sum of an nn.EmbeddingBag sparse gradient), uniform ids, several sizes
  index_add       time per lookup of dense.add_(sparse) (SGD's update of a table with an
                  uncoalesced sparse gradient)
The machine is shared: the load average before and after each configuration is recorded; the
median is the figure, (min, max) its spread.

The GEMMs run in whatever BLAS the libblas.so.3 alternative names (Debian's torch is built with
BLAS_INFO=generic): the reference (netlib) BLAS of a bare Debian, or OpenBLAS. The YAML records
the library mapped; OpenBLAS's own threads follow OPENBLAS_NUM_THREADS, so run one thread count
per invocation with that variable set to it.

Usage: /usr/bin/python3 validation/cpu/pytorch_cpu_step.py [-o FILE] [--repeats N] [--threads 1,2]
(Debian python3-torch; prints YAML)
"""
import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import time

import torch
import torch.nn as nn

SHAPES = {
    # name: batch, tables, rows, dim, lookups per sample, dense features, bottom, top
    "tiny": dict(batch=32, tables=8, rows=10000, dim=16, pooling=1, dense=13, bottom=[64, 16], top=[64, 1]),
    "small": dict(batch=256, tables=8, rows=100000, dim=32, pooling=1, dense=13, bottom=[128, 64, 32], top=[256, 64, 1]),
    "medium": dict(batch=1024, tables=26, rows=100000, dim=64, pooling=4, dense=13, bottom=[512, 256, 64],
                   top=[512, 256, 1]),
}


def mlp(n_in, sizes, sigmoid_last):
    layers = []
    for i, n in enumerate(sizes):
        layers.append(nn.Linear(n_in, n))
        last = i == len(sizes) - 1
        layers.append(nn.Sigmoid() if (last and sigmoid_last) else nn.ReLU())
        n_in = n
    return nn.Sequential(*layers)


class Dlrm(nn.Module):
    def __init__(self, s):
        super().__init__()
        self.emb = nn.ModuleList(nn.EmbeddingBag(s["rows"], s["dim"], mode="sum", sparse=True)
                                 for _ in range(s["tables"]))
        self.bot = mlp(s["dense"], s["bottom"], False)
        f = s["tables"] + 1
        self.top = mlp(s["dim"] + f * (f - 1) // 2, s["top"], True)
        li, lj = torch.tril_indices(f, f, offset=-1)
        self.li, self.lj = li, lj

    def forward(self, dense, ids, offsets):
        x = self.bot(dense)
        ly = [e(ids[k], offsets) for k, e in enumerate(self.emb)]
        t = torch.cat([x] + ly, dim=1).view(x.shape[0], -1, x.shape[1])
        z = torch.bmm(t, torch.transpose(t, 1, 2))
        zflat = z[:, self.li, self.lj]
        return self.top(torch.cat([x, zflat], dim=1))


def make_inputs(s, count):
    b, p = s["batch"], s["pooling"]
    out = []
    for _ in range(count):
        dense = torch.rand(b, s["dense"])
        ids = [torch.randint(0, s["rows"], (b * p,)) for _ in range(s["tables"])]
        offsets = torch.arange(0, b * p, p)
        labels = torch.randint(0, 2, (b, 1)).float()
        out.append((dense, ids, offsets, labels))
    return out


def make_step(model, opt):
    loss_fn = nn.BCELoss()

    def step(inp):
        dense, ids, offsets, labels = inp
        loss = loss_fn(model(dense, ids, offsets), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


def count_operators(model, opt, inp):
    """Top-level aten operators of forward and optimiser, autograd nodes of the backward."""
    from torch.profiler import ProfilerActivity, profile, record_function
    loss_fn = nn.BCELoss()
    dense, ids, offsets, labels = inp
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        with record_function("phase::forward"):
            loss = loss_fn(model(dense, ids, offsets), labels)
        with record_function("phase::zero_grad"):
            opt.zero_grad()
        with record_function("phase::backward"):
            loss.backward()
        with record_function("phase::optimizer"):
            opt.step()
    counts = {"forward": 0, "backward": 0, "optimizer": 0}
    for e in prof.events():
        if e.name.startswith("autograd::engine::evaluate_function"):
            counts["backward"] += 1
        elif e.name.startswith("aten::") and e.cpu_parent is not None:
            parent = e.cpu_parent.name
            if parent == "phase::forward":
                counts["forward"] += 1
            elif parent in ("phase::optimizer", "phase::zero_grad") or parent.startswith("Optimizer."):
                counts["optimizer"] += 1
    return counts


def timed(fn, calls, repeats, cpu=None):
    """Per-call wall seconds of each of `repeats` timings of `calls` calls; with a list `cpu`,
    the process's CPU seconds per call of each timing are appended to it."""
    out = []
    for _ in range(repeats):
        c0 = time.process_time()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        out.append((time.perf_counter() - t0) / calls)
        if cpu is not None:
            cpu.append((time.process_time() - c0) / calls)
    return out


def summary(xs, scale):
    return f"{{median: {statistics.median(xs) * scale:.4g}, min: {min(xs) * scale:.4g}, max: {max(xs) * scale:.4g}}}"


def measure_step(name, s, opt_name, threads, repeats):
    torch.manual_seed(0)
    torch.set_num_threads(threads)
    model = Dlrm(s)
    if opt_name == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
    else:
        opt = torch.optim.Adagrad(model.parameters(), lr=0.01)
    step = make_step(model, opt)
    inputs = make_inputs(s, 8)
    for k in range(5):  # warm-up: allocator, Adagrad state
        step(inputs[k % len(inputs)])
    t0 = time.perf_counter()
    step(inputs[0])
    one = time.perf_counter() - t0
    steps = max(3, min(200, int(0.25 / max(one, 1e-6))))
    it = [0]

    def one_step():
        step(inputs[it[0] % len(inputs)])
        it[0] += 1

    load_before = os.getloadavg()[0]
    cpu = []
    times = timed(one_step, steps, repeats, cpu)
    load_after = os.getloadavg()[0]
    ops = count_operators(model, opt, inputs[0])
    return times, cpu, steps, ops, (load_before, load_after)


def eager_operators(s, opt_name):
    """Operators of one step as models/cpu_framework.hpp counts them (torch 1.13): per linear
    layer 2 forward + 5 backward + 2 tensors x (zero_ + the optimiser's per-tensor operators);
    the dot interaction 7 + 7; the loss 1 + 2; per table 1 forward + 2 backward + zero_ + the
    optimiser's sparse operators. SGD: 1 per tensor; Adagrad: 6 dense, 15 sparse."""
    dense, sparse = (1, 1) if opt_name == "sgd" else (6, 15)
    layers = len(s["bottom"]) + len(s["top"])
    return layers * (2 + 5 + 2 * (1 + dense)) + 7 + 7 + 1 + 2 + s["tables"] * (1 + 2 + 1 + sparse)


def measure_framework(repeats):
    """Framework cost of a step whose compute is negligible (batch 1, 4-wide layers, 100-row
    tables), one thread, at several operator counts: the step's CPU time against the operators
    counted as the model counts them; a least-squares line t = per_step + operators x per_operator."""
    torch.set_num_threads(1)
    points = []
    for tables in (4, 16):
        for layers in (2, 4):
            for opt_name in ("sgd", "adagrad"):
                s = dict(batch=1, tables=tables, rows=100, dim=4, pooling=1, dense=4, bottom=[4] * layers,
                         top=[4] * (layers - 1) + [1])
                torch.manual_seed(0)
                model = Dlrm(s)
                opt = (torch.optim.SGD if opt_name == "sgd" else torch.optim.Adagrad)(model.parameters(), lr=0.01)
                step = make_step(model, opt)
                inputs = make_inputs(s, 4)
                for k in range(20):
                    step(inputs[k % 4])
                it = [0]

                def one_step():
                    step(inputs[it[0] % 4])
                    it[0] += 1

                cpu = []
                timed(one_step, 100, repeats, cpu)
                points.append((tables, layers, opt_name, eager_operators(s, opt_name), statistics.median(cpu),
                               min(cpu), max(cpu)))
    n = len(points)
    mx = sum(p[3] for p in points) / n
    my = sum(p[4] for p in points) / n
    slope = sum((p[3] - mx) * (p[4] - my) for p in points) / sum((p[3] - mx) ** 2 for p in points)
    intercept = my - slope * mx
    rms = (sum((p[4] - intercept - slope * p[3]) ** 2 / p[4] ** 2 for p in points) / n) ** 0.5
    return points, slope, intercept, rms


def measure_ops(threads, repeats):
    torch.set_num_threads(threads)
    out = {}
    # Elementwise: relu forward and backward on a batch x 256 activation (fp32).
    x = torch.randn(1024, 256)
    g = torch.randn(1024, 256)
    y = torch.relu(x)
    fw = timed(lambda: torch.relu(x), 200, repeats)
    bw = timed(lambda: torch.ops.aten.threshold_backward(g, y, 0), 200, repeats)
    nbytes = x.numel() * 4
    out["relu_forward_bytes_per_s"] = [2 * nbytes / t for t in fw]        # read x, write y
    out["relu_backward_bytes_per_s"] = [3 * nbytes / t for t in bw]       # read g, y; write
    # Coalescing and SGD's index_add of a table's sparse gradient (uniform ids of a 100 k-row table).
    for dim in (16, 64):
        for lookups in (1024, 8192, 32768):
            ids = torch.randint(0, 100000, (1, lookups))
            vals = torch.randn(lookups, dim)
            sp = torch.sparse_coo_tensor(ids, vals, (100000, dim))
            table = torch.zeros(100000, dim)
            calls = max(2, 20000 // lookups)
            c = timed(lambda: sp.coalesce(), calls, repeats)
            a = timed(lambda: table.add_(sp, alpha=-0.01), calls, repeats)
            out[f"coalesce_ns_per_lookup_dim{dim}_n{lookups}"] = [t / lookups * 1e9 for t in c]
            out[f"index_add_ns_per_lookup_dim{dim}_n{lookups}"] = [t / lookups * 1e9 for t in a]
    return out


def blas_library():
    """The BLAS library the process mapped (torch's Debian build calls the libblas.so.3 alternative)."""
    torch.mm(torch.ones(2, 2), torch.ones(2, 2))
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "blas" in line.split()[-1]}
    return ", ".join(sorted(os.path.realpath(l) for l in libs)) or "none found"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--threads", default="1,2", help="intra-op thread counts, comma separated")
    args = ap.parse_args()
    thread_counts = [int(t) for t in args.threads.split(",")]
    cpu = "unknown CPU"
    try:
        cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        cpu = next(l.split(":", 1)[1].strip() for l in cpu.splitlines() if l.startswith("Model name"))
    except Exception:  # noqa: BLE001 - lscpu absent: keep the placeholder
        pass
    start = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    uptime_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    lines = ["# A whole CPU DLRM training step in plain PyTorch, measured by validation/cpu/pytorch_cpu_step.py",
             f"machine: \"{cpu}, {os.cpu_count()} logical CPUs, Python {platform.python_version()}, "
             f"torch {torch.__version__} (Debian python3-torch 1.13.1)\"",
             f"date: \"{start}\"",
             f"command: \"{' '.join(sys.argv)}\"",
             f"blas: \"{blas_library()}\"",
             f"environment: \"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, "
             f"LD_LIBRARY_PATH={os.environ.get('LD_LIBRARY_PATH', 'unset')}\"",
             f"uptime_before: \"{uptime_before}\""]
    lines.append("shapes:")
    for name in args.shapes.split(","):
        s = SHAPES[name]
        lines.append(f"  {name}: {{batch: {s['batch']}, tables: {s['tables']}, rows: {s['rows']}, dim: {s['dim']}, "
                     f"lookups_per_sample: {s['pooling']}, dense_features: {s['dense']}, bottom_mlp: {s['bottom']}, "
                     f"top_mlp: {s['top']}}}")
    lines.append("# per step, milliseconds: median over repeats of the mean of `steps` steps, (min, max) its spread;")
    lines.append("# cpu_ms: the process's CPU time per step (one thread: the step undisturbed by time-slicing)")
    lines.append("# operators: forward top-level aten ops, backward autograd nodes, optimiser aten ops (zero_grad included)")
    lines.append("steps:")
    for name in args.shapes.split(","):
        for opt_name in ("sgd", "adagrad"):
            for threads in thread_counts:
                times, cpu, steps, ops, load = measure_step(name, SHAPES[name], opt_name, threads, args.repeats)
                lines.append(f"  - {{shape: {name}, optimizer: {opt_name}, threads: {threads}, steps: {steps}, "
                             f"step_ms: {summary(times, 1e3)}, cpu_ms: {summary(cpu, 1e3)}, operators: {{forward: {ops['forward']}, "
                             f"backward: {ops['backward']}, optimizer: {ops['optimizer']}}}, "
                             f"load: [{load[0]:.2f}, {load[1]:.2f}]}}")
                print(lines[-1], file=sys.stderr, flush=True)
    points, slope, intercept, rms = measure_framework(args.repeats)
    lines.append("# framework cost of a compute-free step (batch 1, 4-wide layers, 100-row tables), one thread:")
    lines.append("# CPU time per step against the operators models/cpu_framework.hpp counts, and the line through them")
    lines.append("framework:")
    lines.append("  points:")
    for tables, layers, opt_name, ops, med, lo, hi in points:
        lines.append(f"    - {{tables: {tables}, mlp_layers: {2 * layers - 1}, optimizer: {opt_name}, operators: {ops}, "
                     f"step_us: {{median: {med * 1e6:.4g}, min: {lo * 1e6:.4g}, max: {hi * 1e6:.4g}}}}}")
    lines.append(f"  per_operator_us: {slope * 1e6:.4g}")
    lines.append(f"  per_step_us: {intercept * 1e6:.4g}")
    lines.append(f"  rms_relative: {rms:.4g}")
    print(lines[-3:], file=sys.stderr, flush=True)
    lines.append("# per-operator costs: median, min, max over repeats")
    lines.append("operators:")
    for threads in thread_counts:
        lines.append(f"  threads_{threads}:")
        for k, xs in measure_ops(threads, args.repeats).items():
            scale = 1e-9 if "bytes_per_s" in k else 1.0
            key = k.replace("bytes_per_s", "GB_per_s")
            lines.append(f"    {key}: {summary(xs, scale)}")
    uptime_after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    lines.append(f"uptime_after: \"{uptime_after}\"")
    text = "\n".join(lines) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
