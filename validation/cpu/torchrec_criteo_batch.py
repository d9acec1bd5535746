#!/usr/bin/env python3
"""Host time per sample of building one input batch the way TorchRec's DLRM example does.

The example (facebookresearch/dlrm@dee060b torchrec_dlrm/data/dlrm_dataloader.py) reads the
Criteo 1 TB arrays with torchrec's InMemoryBinaryCriteoIterDataPipe in the trainer's main thread
(DataLoader num_workers=0, pin_memory=True). Per batch, torchrec v0.4.0
(pytorch/torchrec@eb0042c7 torchrec/datasets/criteo.py, __iter__ and _np_arrays_to_batch) slices
the dense (13 x fp32), sparse (26 x int32) and label arrays, transposes the sparse ids into one
values tensor (a copy), wraps the arrays as tensors and builds the KeyedJaggedTensor from
precomputed lengths and offsets; the DataLoader then pins every tensor (a copy into page-locked
memory). This script repeats exactly those numpy/torch operations (the KeyedJaggedTensor
constructor only stores its arguments; pinning, which needs CUDA, is timed as the same copy into
an ordinary buffer) and prints the time per batch and per sample at a few batch sizes.

Run: /usr/bin/python3 validation/cpu/torchrec_criteo_batch.py [--rows N] [--repeats R]
"""
import argparse
import os
import platform
import statistics
import subprocess
import time

import numpy as np
import torch

CAT = 26
INT = 13


def batch_from_arrays(dense, sparse, labels, lengths, offsets):
    """torchrec v0.4.0 InMemoryBinaryCriteoIterDataPipe._np_arrays_to_batch (no shuffle)."""
    batch_size = len(dense)
    num_ids = CAT * batch_size
    values = torch.from_numpy(sparse.transpose(1, 0).reshape(-1))
    return (torch.from_numpy(dense), values, lengths[:num_ids], offsets[: num_ids + 1],
            torch.from_numpy(labels.reshape(-1)))


def pin_copy(tensors, buffers):
    """The DataLoader's pin_memory: a copy of each tensor into a page-locked buffer."""
    for t, b in zip(tensors, buffers):
        b[: t.numel()].copy_(t.reshape(-1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=4_000_000, help="rows of the in-memory arrays")
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--batches", type=int, default=200, help="batches per timed repeat")
    args = ap.parse_args()
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    dense_arr = rng.random((args.rows, INT), dtype=np.float32)
    sparse_arr = rng.integers(0, 1 << 30, size=(args.rows, CAT), dtype=np.int32)
    labels_arr = rng.integers(0, 2, size=(args.rows, 1), dtype=np.int32)
    print(f"machine: {platform.processor() or platform.machine()}; "
          + subprocess.run(["sh", "-c", "lscpu | grep 'Model name' | sed 's/  */ /g'"],
                           capture_output=True, text=True).stdout.strip())
    print(f"torch {torch.__version__}, numpy {np.__version__}, 1 thread; load {os.getloadavg()}")
    for batch_size in (256, 2048, 16384):
        lengths = torch.ones(CAT * (batch_size + 1), dtype=torch.int32)
        offsets = torch.arange(0, CAT * (batch_size + 1) + 1, dtype=torch.int32)
        buffers = [torch.empty(batch_size * n, dtype=dt) for n, dt in
                   ((INT, torch.float32), (CAT, torch.int32), (CAT, torch.int32), (CAT + 1, torch.int32),
                    (1, torch.int32))]
        per_batch = []
        for _ in range(args.repeats):
            row = 0
            start = time.perf_counter()
            for _ in range(args.batches):
                if row + batch_size > args.rows:
                    row = 0
                s = slice(row, row + batch_size)
                batch = batch_from_arrays(dense_arr[s, :], sparse_arr[s, :], labels_arr[s, :], lengths, offsets)
                pin_copy(batch, buffers)
                row += batch_size
            per_batch.append((time.perf_counter() - start) / args.batches)
        med = statistics.median(per_batch)
        print(f"batch {batch_size:6d}: {med * 1e6:9.1f} us a batch (min {min(per_batch) * 1e6:.1f}, "
              f"max {max(per_batch) * 1e6:.1f}), {med / batch_size * 1e9:7.1f} ns a sample")


if __name__ == "__main__":
    main()
