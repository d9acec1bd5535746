// Shared pieces of the calibration kernels: error checking, RAII buffers, event timing and the
// counter-based input generator used identically on the GPU and in the CPU references.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "validation/kernels/calibration_kernels.hpp"

namespace dlrmsim::calibration {

inline void check_cuda(cudaError_t status, const char* what, const char* file, int line) {
  if (status != cudaSuccess) {
    throw CudaFailure(std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " +
                      cudaGetErrorString(status));
  }
}
#define DLRMSIM_CUDA(call) ::dlrmsim::calibration::check_cuda((call), #call, __FILE__, __LINE__)

/// Device memory owned by one scope.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count > 0) DLRMSIM_CUDA(cudaMalloc(&data_, count * sizeof(T)));
  }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

/// Pinned host memory (optionally mapped into the device address space).
class PinnedBuffer {
 public:
  PinnedBuffer(std::size_t bytes, bool mapped) : bytes_(bytes) {
    DLRMSIM_CUDA(cudaHostAlloc(&data_, std::max<std::size_t>(bytes, 1), mapped ? cudaHostAllocMapped : cudaHostAllocDefault));
  }
  ~PinnedBuffer() { cudaFreeHost(data_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* get() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

class Stream {
 public:
  Stream() { DLRMSIM_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

/// Median device time of `run(stream)` over options.repeats runs after options.warmup runs.
template <class Run>
Timing time_on_stream(cudaStream_t stream, const TimingOptions& options, Run&& run) {
  for (int i = 0; i < options.warmup; ++i) run(stream);
  DLRMSIM_CUDA(cudaStreamSynchronize(stream));
  cudaEvent_t start = nullptr, stop = nullptr;
  DLRMSIM_CUDA(cudaEventCreate(&start));
  DLRMSIM_CUDA(cudaEventCreate(&stop));
  std::vector<double> seconds;
  for (int i = 0; i < options.repeats; ++i) {
    DLRMSIM_CUDA(cudaEventRecord(start, stream));
    run(stream);
    DLRMSIM_CUDA(cudaEventRecord(stop, stream));
    DLRMSIM_CUDA(cudaEventSynchronize(stop));
    float ms = 0.0f;
    DLRMSIM_CUDA(cudaEventElapsedTime(&ms, start, stop));
    seconds.push_back(static_cast<double>(ms) * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(seconds.begin(), seconds.end());
  const std::size_t n = seconds.size();
  Timing t;
  t.repeats = static_cast<int>(n);
  t.median_seconds = n == 0 ? 0.0 : (n % 2 == 1 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]));
  return t;
}

/// splitmix64 finaliser: a well-mixed 64-bit hash of a counter.
__host__ __device__ inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// A value in [-1, 1) determined by (seed, row, column); exact in fp32 and fp16 (11 bits), so the
/// host reference sees the same inputs as the GPU whatever the storage type.
__host__ __device__ inline float input_value(std::uint64_t seed, std::uint64_t row, std::uint64_t column) {
  const std::uint64_t h = mix64(seed ^ mix64(row * 0x100000001B3ull + column));
  return static_cast<float>(static_cast<int>(h >> 53) - 1024) / 1024.0f;  // 11-bit grid in [-1, 1)
}

}  // namespace dlrmsim::calibration
