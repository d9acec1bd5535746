// Embedding-bag kernels: sum-pooled forward (rows in HBM or in mapped pinned host memory) and
// the backward pass with a fused SGD or row-wise Adagrad update.
//
// Forward, after FBGEMM's table-batched forward: a group of min(32, dim / 4) threads serves one
// bag; each thread owns 4 consecutive elements per 128-element chunk (16-byte loads for fp32
// rows, 8-byte loads for fp16 rows), accumulates in fp32 over the bag's `pooling` rows and
// writes the pooled fp32 row.
// Backward: (row id, lookup position) pairs are radix-sorted by row (CUB), run-length encoded
// into unique rows with counts, the counts exclusive-scanned into segment starts; then one warp
// per unique row sums the output gradients of its lookups (segment reduce) and applies
//   SGD:               w -= lr * g
//   row-wise Adagrad:  m += mean(g^2);  w -= lr / (sqrt(m) + eps) * g
// the two optimisers of FBGEMM's fused backward (EXACT_SGD, EXACT_ROWWISE_ADAGRAD).
#include <cuda_fp16.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <unordered_map>
#include <vector>

#include "validation/kernels/cuda_support.cuh"

namespace dlrmsim::calibration {
namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kMaxChunks = 4;  // 4 chunks x 32 threads x 4 elements = 512 elements per row
constexpr std::uint64_t kGradientSeedSalt = 0x6772616469656E74ull;
constexpr float kLearningRate = 0.01f;
constexpr float kAdagradEpsilon = 1e-8f;

__device__ inline float4 load4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ inline float4 load4(const __half* p) {
  const uint2 raw = *reinterpret_cast<const uint2*>(p);
  const float2 lo = __half22float2(*reinterpret_cast<const __half2*>(&raw.x));
  const float2 hi = __half22float2(*reinterpret_cast<const __half2*>(&raw.y));
  return make_float4(lo.x, lo.y, hi.x, hi.y);
}

template <class T>
__global__ void embedding_bag_forward(const T* __restrict__ weights, const std::uint32_t* __restrict__ ids,
                                      std::int64_t bags, int pooling, int dim, int threads_per_bag,
                                      float* __restrict__ out) {
  const std::int64_t global = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t bag = global / threads_per_bag;
  const int lane = static_cast<int>(global % threads_per_bag);
  if (bag >= bags) return;
  float acc[kMaxChunks * 4] = {};
  const std::uint32_t* bag_ids = ids + bag * pooling;
  for (int p = 0; p < pooling; ++p) {
    const T* row = weights + static_cast<std::size_t>(__ldg(bag_ids + p)) * dim;
#pragma unroll
    for (int c = 0; c < kMaxChunks; ++c) {
      const int d = (c * threads_per_bag + lane) * 4;
      if (d < dim) {
        const float4 v = load4(row + d);
        acc[c * 4 + 0] += v.x;
        acc[c * 4 + 1] += v.y;
        acc[c * 4 + 2] += v.z;
        acc[c * 4 + 3] += v.w;
      }
    }
  }
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    const int d = (c * threads_per_bag + lane) * 4;
    if (d < dim) {
      *reinterpret_cast<float4*>(out + bag * dim + d) =
          make_float4(acc[c * 4 + 0], acc[c * 4 + 1], acc[c * 4 + 2], acc[c * 4 + 3]);
    }
  }
}

template <class T>
__global__ void fill_rows(T* __restrict__ weights, std::int64_t rows, int dim, std::uint64_t seed) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows * dim) return;
  const float v = input_value(seed, static_cast<std::uint64_t>(i / dim), static_cast<std::uint64_t>(i % dim));
  weights[i] = static_cast<T>(v);
}

__global__ void iota(std::uint32_t* __restrict__ out, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<std::uint32_t>(i);
}

__global__ void segment_reduce_update(float* __restrict__ weights, float* __restrict__ momentum,
                                      const float* __restrict__ grad_out, const std::uint32_t* __restrict__ sorted_pos,
                                      const std::uint32_t* __restrict__ unique_rows,
                                      const std::uint32_t* __restrict__ run_starts,
                                      const std::uint32_t* __restrict__ run_counts, const int* __restrict__ num_runs,
                                      int dim, int pooling, float lr, float eps, bool adagrad) {
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= *num_runs) return;
  const std::uint32_t row = unique_rows[warp];
  const std::uint32_t start = run_starts[warp];
  const std::uint32_t count = run_counts[warp];
  float g[kMaxChunks * 4] = {};
  for (std::uint32_t s = 0; s < count; ++s) {
    const std::uint32_t bag = sorted_pos[start + s] / static_cast<std::uint32_t>(pooling);
    const float* grad = grad_out + static_cast<std::size_t>(bag) * dim;
#pragma unroll
    for (int c = 0; c < kMaxChunks; ++c) {
      const int d = (c * 32 + lane) * 4;
      if (d < dim) {
        const float4 v = *reinterpret_cast<const float4*>(grad + d);
        g[c * 4 + 0] += v.x;
        g[c * 4 + 1] += v.y;
        g[c * 4 + 2] += v.z;
        g[c * 4 + 3] += v.w;
      }
    }
  }
  float scale = lr;
  if (adagrad) {
    float squares = 0.0f;
#pragma unroll
    for (int i = 0; i < kMaxChunks * 4; ++i) squares += g[i] * g[i];  // entries beyond dim stay 0
    for (int offset = 16; offset > 0; offset /= 2) squares += __shfl_xor_sync(0xffffffffu, squares, offset);
    const float m = momentum[row] + squares / static_cast<float>(dim);
    if (lane == 0) momentum[row] = m;
    scale = lr / (sqrtf(m) + eps);
  }
  float* w = weights + static_cast<std::size_t>(row) * dim;
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    const int d = (c * 32 + lane) * 4;
    if (d < dim) {
      float4 v = *reinterpret_cast<float4*>(w + d);
      v.x -= scale * g[c * 4 + 0];
      v.y -= scale * g[c * 4 + 1];
      v.z -= scale * g[c * 4 + 2];
      v.w -= scale * g[c * 4 + 3];
      *reinterpret_cast<float4*>(w + d) = v;
    }
  }
}

unsigned blocks_for(std::int64_t threads) {
  return static_cast<unsigned>((threads + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

void validate(const EmbeddingConfig& c) {
  if (c.dim < 4 || c.dim > 512 || c.dim % 4 != 0) throw std::invalid_argument("embedding dim must be a multiple of 4 in [4, 512]");
  if (c.pooling < 1 || c.bags < 1 || c.table_rows < 1) throw std::invalid_argument("pooling, bags and table rows must be positive");
  if (c.table_rows > (std::int64_t{1} << 31) || c.bags * c.pooling > (std::int64_t{1} << 31)) {
    throw std::invalid_argument("table rows and lookups must fit in 31 bits");
  }
}

/// Ids: uniform over the rows, or a bounded power law over ranks (continuous approximation of
/// Zipf with the given exponent) scattered over the rows by a multiplicative permutation so that
/// hot rows are not adjacent.
std::vector<std::uint32_t> make_ids(const EmbeddingConfig& c, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto lookups = static_cast<std::size_t>(c.bags * c.pooling);
  std::vector<std::uint32_t> ids(lookups);
  const auto rows = static_cast<std::uint64_t>(c.table_rows);
  if (c.ids == IdDistribution::uniform) {
    std::uniform_int_distribution<std::uint64_t> pick(0, rows - 1);
    for (auto& id : ids) id = static_cast<std::uint32_t>(pick(rng));
    return ids;
  }
  const double a = 1.0 - c.zipf_exponent;  // exponent != 1 assumed (1.05 by default)
  const double top = std::pow(static_cast<double>(rows) + 1.0, a) - 1.0;
  constexpr std::uint64_t kScatter = 2654435761ull;  // prime; a bijection modulo rows unless rows is a multiple
  const bool scatter = rows % kScatter != 0;
  for (auto& id : ids) {
    const double x = std::pow(top * unit(rng) + 1.0, 1.0 / a);
    const std::uint64_t rank = std::min<std::uint64_t>(static_cast<std::uint64_t>(x) - 1, rows - 1);
    id = static_cast<std::uint32_t>(scatter ? (rank * kScatter) % rows : rank);
  }
  return ids;
}

float row_value(std::uint64_t seed, std::uint64_t row, int d) {
  return input_value(seed, row, static_cast<std::uint64_t>(d));  // exact in fp16 and fp32
}

/// Checks pooled outputs of a sample of bags against sums recomputed on the host.
void check_forward(const EmbeddingConfig& c, std::uint64_t seed, const std::vector<std::uint32_t>& ids,
                   const float* device_out, const char* what) {
  const std::int64_t sample = std::min<std::int64_t>(c.bags, 2048);
  const std::int64_t stride = std::max<std::int64_t>(1, c.bags / sample);
  std::vector<float> got(static_cast<std::size_t>(c.dim));
  for (std::int64_t s = 0; s < sample; ++s) {
    const std::int64_t bag = s * stride;
    DLRMSIM_CUDA(cudaMemcpy(got.data(), device_out + bag * c.dim, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int d = 0; d < c.dim; ++d) {
      double sum = 0.0, magnitude = 0.0;
      for (int p = 0; p < c.pooling; ++p) {
        const float v = row_value(seed, ids[static_cast<std::size_t>(bag * c.pooling + p)], d);
        sum += v;
        magnitude += std::fabs(v);
      }
      if (std::fabs(got[static_cast<std::size_t>(d)] - sum) > 1e-5 * magnitude + 1e-6) {
        char msg[256];
        std::snprintf(msg, sizeof msg, "%s: bag %lld element %d is %.7g, CPU reference %.7g", what,
                      static_cast<long long>(bag), d, static_cast<double>(got[static_cast<std::size_t>(d)]), sum);
        throw CheckFailed(msg);
      }
    }
  }
}

template <class T>
Timing forward_with(const EmbeddingConfig& c, const TimingOptions& options, bool rows_on_host) {
  validate(c);
  const std::uint64_t seed = mix64(options.seed ^ 0x666F7277617264ull ^ static_cast<std::uint64_t>(c.dim) * 131 ^
                                   static_cast<std::uint64_t>(c.pooling) * 7919 ^ static_cast<std::uint64_t>(c.bags));
  const std::size_t elements = static_cast<std::size_t>(c.table_rows) * static_cast<std::size_t>(c.dim);
  Stream stream;
  std::unique_ptr<DeviceBuffer<T>> device_rows;
  std::unique_ptr<PinnedBuffer> host_rows;
  const T* rows = nullptr;
  if (rows_on_host) {
    host_rows = std::make_unique<PinnedBuffer>(elements * sizeof(T), true);
    T* h = static_cast<T*>(host_rows->get());
    for (std::size_t i = 0; i < elements; ++i) {
      h[i] = static_cast<T>(input_value(seed, i / static_cast<std::size_t>(c.dim), i % static_cast<std::size_t>(c.dim)));
    }
    void* mapped = nullptr;
    DLRMSIM_CUDA(cudaHostGetDevicePointer(&mapped, host_rows->get(), 0));
    rows = static_cast<const T*>(mapped);
  } else {
    device_rows = std::make_unique<DeviceBuffer<T>>(elements);
    fill_rows<T><<<blocks_for(static_cast<std::int64_t>(elements)), kThreadsPerBlock, 0, stream.get()>>>(
        device_rows->get(), c.table_rows, c.dim, seed);
    DLRMSIM_CUDA(cudaGetLastError());
    rows = device_rows->get();
  }
  const std::vector<std::uint32_t> ids = make_ids(c, seed);
  DeviceBuffer<std::uint32_t> device_ids(ids.size());
  DLRMSIM_CUDA(cudaMemcpy(device_ids.get(), ids.data(), ids.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  // A copy from pageable memory may return before its DMA lands; the kernels below run on a
  // non-blocking stream, so wait for it.
  DLRMSIM_CUDA(cudaDeviceSynchronize());
  DeviceBuffer<float> out(static_cast<std::size_t>(c.bags) * static_cast<std::size_t>(c.dim));
  const int threads_per_bag = std::min(32, c.dim / 4);
  const auto run = [&](cudaStream_t s) {
    embedding_bag_forward<T><<<blocks_for(c.bags * threads_per_bag), kThreadsPerBlock, 0, s>>>(
        rows, device_ids.get(), c.bags, c.pooling, c.dim, threads_per_bag, out.get());
  };
  run(stream.get());
  DLRMSIM_CUDA(cudaGetLastError());
  DLRMSIM_CUDA(cudaStreamSynchronize(stream.get()));
  check_forward(c, seed, ids, out.get(), rows_on_host ? "zero-copy gather" : "embedding forward");
  return time_on_stream(stream.get(), options, run);
}

}  // namespace

std::size_t row_bytes(const EmbeddingConfig& config) {
  return static_cast<std::size_t>(config.dim) * (config.row_type == RowType::fp32 ? 4 : 2);
}

Timing time_embedding_forward(const EmbeddingConfig& config, const TimingOptions& options) {
  return config.row_type == RowType::fp32 ? forward_with<float>(config, options, false)
                                          : forward_with<__half>(config, options, false);
}

Timing time_uvm_gather(const EmbeddingConfig& config, const TimingOptions& options) {
  return config.row_type == RowType::fp32 ? forward_with<float>(config, options, true)
                                          : forward_with<__half>(config, options, true);
}

Timing time_embedding_backward(const EmbeddingConfig& c, Optimizer optimizer, const TimingOptions& options) {
  validate(c);
  if (c.row_type != RowType::fp32) throw std::invalid_argument("the backward kernel updates fp32 rows only");
  const bool adagrad = optimizer == Optimizer::rowwise_adagrad;
  const std::uint64_t seed = mix64(options.seed ^ 0x6261636B77617264ull ^ static_cast<std::uint64_t>(c.dim) * 131 ^
                                   static_cast<std::uint64_t>(c.pooling) * 7919 ^ static_cast<std::uint64_t>(c.bags) ^
                                   (adagrad ? 1u : 0u));
  const std::uint64_t grad_seed = seed ^ kGradientSeedSalt;
  const auto lookups = static_cast<std::size_t>(c.bags * c.pooling);
  const std::size_t elements = static_cast<std::size_t>(c.table_rows) * static_cast<std::size_t>(c.dim);
  Stream stream;
  DeviceBuffer<float> weights(elements);
  DeviceBuffer<float> momentum(static_cast<std::size_t>(c.table_rows));
  DeviceBuffer<float> grad_out(static_cast<std::size_t>(c.bags) * static_cast<std::size_t>(c.dim));
  fill_rows<float><<<blocks_for(static_cast<std::int64_t>(elements)), kThreadsPerBlock, 0, stream.get()>>>(
      weights.get(), c.table_rows, c.dim, seed);
  fill_rows<float><<<blocks_for(c.bags * c.dim), kThreadsPerBlock, 0, stream.get()>>>(grad_out.get(), c.bags, c.dim,
                                                                                        grad_seed);
  DLRMSIM_CUDA(cudaMemsetAsync(momentum.get(), 0, momentum.size() * sizeof(float), stream.get()));
  DLRMSIM_CUDA(cudaGetLastError());

  const std::vector<std::uint32_t> ids = make_ids(c, seed);
  DeviceBuffer<std::uint32_t> keys(lookups), sorted_keys(lookups), positions(lookups), sorted_positions(lookups);
  DeviceBuffer<std::uint32_t> unique_rows(lookups), run_counts(lookups), run_starts(lookups);
  DeviceBuffer<int> num_runs(1);
  DLRMSIM_CUDA(cudaMemcpy(keys.get(), ids.data(), lookups * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  // A copy from pageable memory may return before its DMA lands; the kernels below run on a
  // non-blocking stream, so wait for it.
  DLRMSIM_CUDA(cudaDeviceSynchronize());
  int end_bit = 1;
  while (end_bit < 32 && (std::int64_t{1} << end_bit) < c.table_rows) ++end_bit;

  const int items = static_cast<int>(lookups);
  std::size_t sort_bytes = 0, encode_bytes = 0, scan_bytes = 0;
  DLRMSIM_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys.get(), sorted_keys.get(), positions.get(),
                                               sorted_positions.get(), items, 0, end_bit, stream.get()));
  DLRMSIM_CUDA(cub::DeviceRunLengthEncode::Encode(nullptr, encode_bytes, sorted_keys.get(), unique_rows.get(),
                                                  run_counts.get(), num_runs.get(), items, stream.get()));
  DLRMSIM_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, run_counts.get(), run_starts.get(), items,
                                             stream.get()));
  DeviceBuffer<unsigned char> temp(std::max({sort_bytes, encode_bytes, scan_bytes}));
  const std::int64_t max_runs = std::min<std::int64_t>(static_cast<std::int64_t>(lookups), c.table_rows);

  const auto run = [&](cudaStream_t s) {
    iota<<<blocks_for(items), kThreadsPerBlock, 0, s>>>(positions.get(), items);
    std::size_t bytes = temp.size();
    DLRMSIM_CUDA(cub::DeviceRadixSort::SortPairs(temp.get(), bytes, keys.get(), sorted_keys.get(), positions.get(),
                                                 sorted_positions.get(), items, 0, end_bit, s));
    bytes = temp.size();
    DLRMSIM_CUDA(cub::DeviceRunLengthEncode::Encode(temp.get(), bytes, sorted_keys.get(), unique_rows.get(),
                                                    run_counts.get(), num_runs.get(), items, s));
    bytes = temp.size();
    DLRMSIM_CUDA(cub::DeviceScan::ExclusiveSum(temp.get(), bytes, run_counts.get(), run_starts.get(), items, s));
    segment_reduce_update<<<blocks_for(max_runs * 32), kThreadsPerBlock, 0, s>>>(
        weights.get(), momentum.get(), grad_out.get(), sorted_positions.get(), unique_rows.get(), run_starts.get(),
        run_counts.get(), num_runs.get(), c.dim, c.pooling, kLearningRate, kAdagradEpsilon, adagrad);
  };
  run(stream.get());
  DLRMSIM_CUDA(cudaGetLastError());
  DLRMSIM_CUDA(cudaStreamSynchronize(stream.get()));

  // Reference for a sample of touched rows: sum the gradients of every lookup of each sampled
  // row, apply the optimiser to the initial row, compare with the updated row.
  struct RowGradient {
    std::vector<double> sum, magnitude;
  };
  std::unordered_map<std::uint32_t, RowGradient> gradient;
  const std::size_t stride = std::max<std::size_t>(1, lookups / 512);
  const auto dim = static_cast<std::size_t>(c.dim);
  for (std::size_t i = 0; i < lookups; i += stride) {
    gradient.emplace(ids[i], RowGradient{std::vector<double>(dim, 0.0), std::vector<double>(dim, 0.0)});
  }
  for (std::size_t i = 0; i < lookups; ++i) {
    const auto it = gradient.find(ids[i]);
    if (it == gradient.end()) continue;
    const std::uint64_t bag = i / static_cast<std::size_t>(c.pooling);
    for (std::size_t d = 0; d < dim; ++d) {
      const double v = input_value(grad_seed, bag, d);
      it->second.sum[d] += v;
      it->second.magnitude[d] += std::fabs(v);
    }
  }
  std::vector<float> got(dim);
  for (const auto& [row, g] : gradient) {
    DLRMSIM_CUDA(cudaMemcpy(got.data(), weights.get() + static_cast<std::size_t>(row) * dim, dim * sizeof(float),
                            cudaMemcpyDeviceToHost));
    double scale = kLearningRate;
    if (adagrad) {
      double squares = 0.0;
      for (double v : g.sum) squares += v * v;
      scale = kLearningRate / (std::sqrt(squares / static_cast<double>(dim)) + kAdagradEpsilon);
    }
    for (std::size_t d = 0; d < dim; ++d) {
      const double initial = input_value(seed, row, d);
      const double expected = initial - scale * g.sum[d];
      // Tolerance: fp32 summation of the gradients (relative 1e-5 of their absolute sum), the
      // fp32 rounding of the Adagrad scale and of the stored weight.
      const double tolerance = scale * (1e-5 * g.magnitude[d] + 1e-5 * std::fabs(g.sum[d])) +
                               1e-6 * (1.0 + std::fabs(expected));
      if (std::fabs(got[d] - expected) > tolerance) {
        char msg[256];
        std::snprintf(msg, sizeof msg, "embedding backward (%s): row %u element %zu is %.8g, CPU reference %.8g",
                      adagrad ? "rowwise_adagrad" : "sgd", row, d, static_cast<double>(got[d]), expected);
        throw CheckFailed(msg);
      }
    }
  }
  return time_on_stream(stream.get(), options, run);
}

}  // namespace dlrmsim::calibration
