#!/usr/bin/env python3
"""Host cost of one PyTorch eager operator: the software stacks' `host.dispatch` figure.

Times, on CPU tensors of one element (so the kernel itself is a few nanoseconds and the
time is the framework's: Python, the argument parser, the dispatcher, autograd recording):
  forward     y = x * w + b style ops (aten::mul, aten::add, aten::relu, aten::linear) in a
              Python loop, on tensors that require grad (the training forward)
  backward    the autograd engine's cost per recorded op (backward of a chain of N ops / N)
  no_grad     the same forward ops under torch.no_grad() (an optimiser's foreach-free loop)
Each figure is the minimum over repeats of the mean over a batch of calls (the minimum is the
figure least disturbed by other work on the machine). A CUDA op adds the driver's
cudaLaunchKernel on top, which the device profiles carry as `launch.overhead`.

Usage: pytorch_dispatch.py [-o FILE]   (prints YAML; needs torch: Debian python3-torch)
"""
import argparse
import datetime
import os
import platform
import sys
import timeit

import torch


def per_call(fn, calls, repeats):
    return min(timeit.repeat(fn, number=1, repeat=repeats)) / calls


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default="-")
    args = ap.parse_args()
    torch.set_num_threads(1)
    n = 200
    x = torch.ones(1, requires_grad=True)
    w = torch.ones(1, 1, requires_grad=True)
    bias = torch.ones(1, requires_grad=True)
    ops = {
        "mul": lambda t: t * 1.0001,
        "add": lambda t: t + 0.5,
        "relu": torch.relu,
        "linear": lambda t: torch.nn.functional.linear(t, w, bias),
    }
    load_before = os.getloadavg()
    results = {}
    for name, op in ops.items():
        def forward():
            t = x
            for _ in range(n):
                t = op(t)
            return t

        def backward():
            forward().backward()

        def no_grad():
            with torch.no_grad():
                forward()

        for _ in range(3):  # warm-up
            backward()
        fwd = per_call(forward, n, 100)
        fwd_bwd = per_call(backward, n, 100)
        ng = per_call(no_grad, n, 100)
        results[name] = (fwd, fwd_bwd - fwd, ng)
    load_after = os.getloadavg()
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    out = []
    out.append("# PyTorch eager per-operator host cost, measured by validation/cpu/pytorch_dispatch.py")
    out.append(f"machine: \"{cpu}, {os.cpu_count()} logical CPUs, Python {platform.python_version()}, "
               f"torch {torch.__version__} (Debian python3-torch), 1 intra-op thread\"")
    out.append(f"date: \"{when}\"")
    out.append(f"load_average: \"before {load_before[0]:.2f}, after {load_after[0]:.2f}\"")
    out.append(f"command: \"{' '.join(sys.argv)}\"")
    out.append("# per op, microseconds: forward (grad recorded), autograd backward, forward under no_grad")
    out.append("operators:")
    for name, (f, b, g) in results.items():
        out.append(f"  {name}: {{forward_us: {f * 1e6:.3f}, backward_us: {b * 1e6:.3f}, no_grad_us: {g * 1e6:.3f}}}")
    text = "\n".join(out) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
