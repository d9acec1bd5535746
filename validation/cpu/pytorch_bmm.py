#!/usr/bin/python3
"""What at::bmm costs on a CPU when the torch build has no MKL: one GEMM call per batch item.

PyTorch's CPU bmm (pytorch/pytorch at v1.13.1, aten/src/ATen/native/LinearAlgebra.cpp,
bmm_out_or_baddbmm_) takes one of three paths by the per-item size and the build:
  contraction x rows x cols < 400   a naive triple loop, parallel over the batch;
  else, at::hasMKL()                MKL's batched GEMM (one call);
  else                              "split along batch dimension": for each item, select() the
                                    three matrices and call mm_cpu_out (addmm_impl_cpu_, then
                                    the BLAS sgemm the build links).
Debian's python3-torch is built without MKL (BLAS_INFO=generic), so the dot interaction of a
DLRM (bmm of a batch of (F+1) x d matrices by their transposes: (F+1) x (F+1) x d per item,
above 400 for every shape of interest) runs the third path: one BLAS call per sample.

Measured, one intra-op thread, the process's CPU time (the machine is shared): the forward
bmm(T, T^T) of a batch of B items of n x d, per item, at several (n, d) and B; and the two
backward products (grad Z @ T and T^T @ grad Z, autograd's BmmBackward0), per item. Printed as
YAML: per shape the median (min, max) time per item and call, and a least-squares line
    t(item) = per_call + 2 n n d / rate
through the medians: the fixed cost of one item (three select()s, mm_cpu_out's checks, the
BLAS call) and the rate of its FLOPs, also as a fraction of one large GEMM's rate on the same
thread (relative_rate: what carries to another CPU, as the CPU profile's GEMM fractions do).

Usage: OPENBLAS_NUM_THREADS=1 /usr/bin/python3 validation/cpu/pytorch_bmm.py [--repeats N]
"""
import argparse
import datetime
import os
import statistics
import subprocess
import sys

import torch

from pytorch_cpu_step import blas_library, timed  # the step script beside this one

SHAPES = [(9, 16), (9, 32), (9, 64), (27, 16), (27, 32), (27, 64), (27, 128), (48, 64)]
BATCHES = [64, 512]


def cpu_per_call(fn, calls, repeats):
    """The process's CPU seconds per call of each of `repeats` timings of `calls` calls."""
    cpu = []
    timed(fn, calls, repeats, cpu)
    return cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    print(f"# at::bmm per item on a CPU, measured by validation/cpu/pytorch_bmm.py")
    cpu = "unknown CPU"
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        fields = dict(l.split(":", 1) for l in out.splitlines() if ":" in l)
        cpu = (f"{fields['Model name'].strip()} (family {fields['CPU family'].strip()}, model {fields['Model'].strip()}), "
               f"{os.cpu_count()} logical CPUs")
    except Exception:  # noqa: BLE001 - lscpu absent: keep the placeholder
        pass
    print(f"machine: \"{cpu}\"")
    print(f"date: \"{datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}\"")
    print(f"command: \"{' '.join(sys.argv)}\"")
    print(f"torch: \"{torch.__version__}, MKL: {torch.backends.mkl.is_available()}\"")
    print(f"blas: \"{blas_library()}\"")
    print(f"environment: \"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', 'unset')}\"")
    print(f"uptime_before: \"{subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}\"")
    print("# per item and call, microseconds of process CPU time: median (min, max) over repeats")
    print("items:")
    fits = []
    for n, d in SHAPES:
        for b in BATCHES:
            t = torch.randn(b, n, d)
            tt = t.transpose(1, 2)
            g = torch.randn(b, n, n)
            calls = max(3, 20000 // b)
            fw = cpu_per_call(lambda: torch.bmm(t, tt), calls, args.repeats)
            # BmmBackward0 of Z = bmm(T, T^T): grad_self = grad.bmm(mat2^T), grad_mat2 = self^T.bmm(grad)
            b1 = cpu_per_call(lambda: torch.bmm(g, t), calls, args.repeats)
            b2 = cpu_per_call(lambda: torch.bmm(tt, g), calls, args.repeats)
            med = [statistics.median(x) / b * 1e6 for x in (fw, b1, b2)]
            lo = [min(x) / b * 1e6 for x in (fw, b1, b2)]
            hi = [max(x) / b * 1e6 for x in (fw, b1, b2)]
            print(f"  - {{n: {n}, d: {d}, batch: {b}, forward_us: {{median: {med[0]:.4g}, min: {lo[0]:.4g}, max: {hi[0]:.4g}}}, "
                  f"backward_grad_us: {{median: {med[1]:.4g}, min: {lo[1]:.4g}, max: {hi[1]:.4g}}}, "
                  f"backward_mat2_us: {{median: {med[2]:.4g}, min: {lo[2]:.4g}, max: {hi[2]:.4g}}}}}", flush=True)
            for m in med:
                fits.append((2.0 * n * n * d, m * 1e-6))
    k = len(fits)
    mx = sum(f for f, _ in fits) / k
    my = sum(t for _, t in fits) / k
    slope = sum((f - mx) * (t - my) for f, t in fits) / sum((f - mx) ** 2 for f, _ in fits)
    intercept = my - slope * mx
    rms = (sum((t - intercept - slope * f) ** 2 / t ** 2 for f, t in fits) / k) ** 0.5
    # One large GEMM on the same core, the same BLAS: what the item rate is a fraction of.
    a = torch.randn(2048, 2048)
    big = cpu_per_call(lambda: torch.mm(a, a), 2, max(3, args.repeats // 2))
    large = 2.0 * 2048 ** 3 / statistics.median(big)
    print("# the line t = per_call + flops / rate through every median (forward and both backward products);")
    print("# large_gemm: torch.mm of 2048^3 on the same thread; relative_rate: rate / large_gemm")
    print(f"fit: {{per_call_us: {intercept * 1e6:.4g}, rate_gflops: {1e-9 / slope:.4g}, rms_relative: {rms:.4g}, points: {k}}}")
    print(f"large_gemm_gflops: {large * 1e-9:.4g}")
    print(f"relative_rate: {1.0 / slope / large:.4g}")
    print(f"uptime_after: \"{subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}\"")


if __name__ == "__main__":
    main()
