// Copies (cudaMemcpyAsync host<->device pinned and pageable, device-to-device), the launch
// overhead of an empty kernel, and the device description.
#include <chrono>
#include <cstdio>
#include <cctype>
#include <cstring>
#include <sstream>
#include <algorithm>
#include <fstream>
#include <functional>
#include <memory>
#include <vector>

#include "validation/kernels/cuda_support.cuh"

namespace dlrmsim::calibration {
namespace {

__global__ void empty_kernel() {}

void fill_pattern(unsigned char* p, std::size_t bytes, std::uint64_t seed) {
  for (std::size_t i = 0; i < bytes; i += 8) {
    const std::uint64_t v = mix64(seed + i);
    std::memcpy(p + i, &v, std::min<std::size_t>(8, bytes - i));
  }
}

std::string driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (in && std::getline(in, line)) {
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Thu ..." or "NVRM version:
    // NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..." -> the first
    // word after "Kernel Module" that is a dotted version number.
    const auto at = line.find("Kernel Module");
    if (at != std::string::npos) {
      std::istringstream words(line.substr(at + 13));
      for (std::string w; words >> w;) {
        if (std::isdigit(static_cast<unsigned char>(w.front())) && w.find('.') != std::string::npos) return w;
      }
    }
  }
  int version = 0;
  DLRMSIM_CUDA(cudaDriverGetVersion(&version));
  return "CUDA driver API " + std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

}  // namespace

DeviceInfo open_device(int ordinal) {
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    throw NoDevice(std::string("no CUDA device: ") + cudaGetErrorString(e) +
                   "; measure the host CPU with --cpu, or run where a GPU and its driver are");
  }
  if (ordinal < 0 || ordinal >= count) {
    throw NoDevice("no CUDA device " + std::to_string(ordinal) + ": this machine has " + std::to_string(count) +
                   (count == 1 ? " device" : " devices") + "; expected --device from 0 to " + std::to_string(count - 1) +
                   (count == 0 ? " (there is none: measure the host CPU with --cpu)" : ""));
  }
  DLRMSIM_CUDA(cudaSetDevice(ordinal));
  cudaDeviceProp prop{};
  DLRMSIM_CUDA(cudaGetDeviceProperties(&prop, ordinal));
  DeviceInfo info;
  info.name = prop.name;
  info.sm_count = prop.multiProcessorCount;
  info.memory_bytes = prop.totalGlobalMem;
  info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  info.driver = driver_version();
  int runtime = 0;
  DLRMSIM_CUDA(cudaRuntimeGetVersion(&runtime));
  info.runtime = std::to_string(runtime / 1000) + "." + std::to_string((runtime % 1000) / 10);
  return info;
}

Timing time_copy(CopyKind kind, std::size_t bytes, const TimingOptions& options) {
  if (bytes == 0) throw std::invalid_argument("copy size must be positive");
  const bool pinned = kind == CopyKind::h2d_pinned || kind == CopyKind::d2h_pinned;
  const bool to_device = kind == CopyKind::h2d_pinned || kind == CopyKind::h2d_pageable;
  Stream stream;
  DeviceBuffer<unsigned char> device_a(bytes), device_b(kind == CopyKind::d2d ? bytes : 0);
  std::unique_ptr<PinnedBuffer> pinned_host;
  std::vector<unsigned char> pageable_host;
  unsigned char* host = nullptr;
  if (kind != CopyKind::d2d) {
    if (pinned) {
      pinned_host = std::make_unique<PinnedBuffer>(bytes, false);
      host = static_cast<unsigned char*>(pinned_host->get());
    } else {
      pageable_host.resize(bytes);
      host = pageable_host.data();
    }
  }
  std::vector<unsigned char> expected(bytes), got(bytes);
  fill_pattern(expected.data(), bytes, options.seed ^ bytes ^ (static_cast<std::uint64_t>(kind) << 56));

  std::function<void(cudaStream_t)> run;
  switch (kind) {
    case CopyKind::h2d_pinned:
    case CopyKind::h2d_pageable:
      std::memcpy(host, expected.data(), bytes);
      run = [&](cudaStream_t s) { DLRMSIM_CUDA(cudaMemcpyAsync(device_a.get(), host, bytes, cudaMemcpyHostToDevice, s)); };
      break;
    case CopyKind::d2h_pinned:
    case CopyKind::d2h_pageable:
      DLRMSIM_CUDA(cudaMemcpy(device_a.get(), expected.data(), bytes, cudaMemcpyHostToDevice));
      // A copy from pageable memory may return before its DMA has landed: wait for it, or the
      // copy timed below (on a stream of its own) can read the source before it is written.
      DLRMSIM_CUDA(cudaDeviceSynchronize());
      std::memset(host, 0, bytes);
      run = [&](cudaStream_t s) { DLRMSIM_CUDA(cudaMemcpyAsync(host, device_a.get(), bytes, cudaMemcpyDeviceToHost, s)); };
      break;
    case CopyKind::d2d:
      DLRMSIM_CUDA(cudaMemcpy(device_a.get(), expected.data(), bytes, cudaMemcpyHostToDevice));
      DLRMSIM_CUDA(cudaDeviceSynchronize());  // as above: the source must have landed
      run = [&](cudaStream_t s) {
        DLRMSIM_CUDA(cudaMemcpyAsync(device_b.get(), device_a.get(), bytes, cudaMemcpyDeviceToDevice, s));
      };
      break;
  }
  run(stream.get());
  DLRMSIM_CUDA(cudaStreamSynchronize(stream.get()));
  // Check: the destination holds the source's bytes.
  if (to_device) {
    DLRMSIM_CUDA(cudaMemcpy(got.data(), device_a.get(), bytes, cudaMemcpyDeviceToHost));
  } else if (kind == CopyKind::d2d) {
    DLRMSIM_CUDA(cudaMemcpy(got.data(), device_b.get(), bytes, cudaMemcpyDeviceToHost));
  } else {
    std::memcpy(got.data(), host, bytes);
  }
  if (std::memcmp(got.data(), expected.data(), bytes) != 0) {
    throw CheckFailed("copy of " + std::to_string(bytes) + " bytes (kind " + std::to_string(static_cast<int>(kind)) +
                      ") delivered different bytes");
  }
  return time_on_stream(stream.get(), options, run);
}

Timing time_launch_overhead(int launches_per_repeat, const TimingOptions& options) {
  if (launches_per_repeat < 1) throw std::invalid_argument("launches per repeat must be positive");
  Stream stream;
  // Check: an empty kernel launches and completes without error.
  empty_kernel<<<1, 32, 0, stream.get()>>>();
  DLRMSIM_CUDA(cudaGetLastError());
  DLRMSIM_CUDA(cudaStreamSynchronize(stream.get()));
  const auto burst = [&] {
    for (int i = 0; i < launches_per_repeat; ++i) empty_kernel<<<1, 32, 0, stream.get()>>>();
    DLRMSIM_CUDA(cudaStreamSynchronize(stream.get()));
  };
  for (int i = 0; i < options.warmup; ++i) burst();
  std::vector<double> per_launch;
  for (int r = 0; r < options.repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    burst();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    per_launch.push_back(elapsed.count() / launches_per_repeat);
  }
  DLRMSIM_CUDA(cudaGetLastError());
  std::sort(per_launch.begin(), per_launch.end());
  const std::size_t n = per_launch.size();
  Timing t;
  t.repeats = static_cast<int>(n);
  t.median_seconds = n % 2 == 1 ? per_launch[n / 2] : 0.5 * (per_launch[n / 2 - 1] + per_launch[n / 2]);
  return t;
}

Timing time_kernel_floor(int kernels_per_repeat, const TimingOptions& options) {
  if (kernels_per_repeat < 1) throw std::invalid_argument("kernels per repeat must be positive");
  Stream stream;
  // Capture the kernels once; the graph's launch costs the host one call, so the GPU runs the
  // kernels back to back and the events measure their device time alone.
  cudaGraph_t graph = nullptr;
  DLRMSIM_CUDA(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < kernels_per_repeat; ++i) empty_kernel<<<1, 32, 0, stream.get()>>>();
  DLRMSIM_CUDA(cudaStreamEndCapture(stream.get(), &graph));
  cudaGraphExec_t exec = nullptr;
  DLRMSIM_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  Timing t = time_on_stream(stream.get(), options, [&](cudaStream_t s) { DLRMSIM_CUDA(cudaGraphLaunch(exec, s)); });
  DLRMSIM_CUDA(cudaGetLastError());
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  t.median_seconds /= kernels_per_repeat;
  return t;
}

}  // namespace dlrmsim::calibration
