// GEMM through cuBLAS (cublasGemmEx) for the MLP shapes: fp32 (SIMT), tf32 (tensor cores on
// fp32 storage), bf16 and fp16 (tensor cores, fp32 accumulation, output in the input type).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "validation/kernels/cuda_support.cuh"

namespace dlrmsim::calibration {
namespace {

void check_cublas(cublasStatus_t status, const char* what, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw CudaFailure(std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": cuBLAS status " +
                      std::to_string(static_cast<int>(status)));
  }
}
#define DLRMSIM_CUBLAS(call) check_cublas((call), #call, __FILE__, __LINE__)

class CublasHandle {
 public:
  CublasHandle() { DLRMSIM_CUBLAS(cublasCreate(&handle_)); }
  ~CublasHandle() { cublasDestroy(handle_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

template <class T>
__global__ void fill_matrix(T* __restrict__ out, std::int64_t rows, std::int64_t columns, std::uint64_t seed) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows * columns) return;
  // Column-major: element (r, c) at r + c * rows.
  out[i] = static_cast<T>(input_value(seed, static_cast<std::uint64_t>(i % rows), static_cast<std::uint64_t>(i / rows)));
}

/// The value the GPU holds after storing input_value in type T (bf16 rounds; fp16 and fp32 are exact).
template <class T>
float stored(std::uint64_t seed, std::int64_t r, std::int64_t c) {
  const float v = input_value(seed, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(c));
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(__float2bfloat16_rn(v));
  } else {
    return v;
  }
}

template <class T>
float to_float(T v) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else {
    return v;
  }
}

template <class T>
Timing gemm_with(GemmType type, cudaDataType_t data_type, cublasComputeType_t compute, double tolerance, std::int64_t m,
                 std::int64_t n, std::int64_t k, const TimingOptions& options) {
  if (m < 1 || n < 1 || k < 1) throw std::invalid_argument("GEMM extents must be positive");
  const std::uint64_t seed_a = mix64(options.seed ^ 0x41ull ^ static_cast<std::uint64_t>(m * 1000003 + n * 101 + k));
  const std::uint64_t seed_b = mix64(seed_a ^ 0x42ull);
  Stream stream;
  CublasHandle handle;
  DLRMSIM_CUBLAS(cublasSetStream(handle.get(), stream.get()));
  DeviceBuffer<T> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n)), c(static_cast<std::size_t>(m * n));
  constexpr int kThreads = 256;
  fill_matrix<T><<<static_cast<unsigned>((m * k + kThreads - 1) / kThreads), kThreads, 0, stream.get()>>>(a.get(), m, k, seed_a);
  fill_matrix<T><<<static_cast<unsigned>((k * n + kThreads - 1) / kThreads), kThreads, 0, stream.get()>>>(b.get(), k, n, seed_b);
  DLRMSIM_CUDA(cudaGetLastError());
  const float alpha = 1.0f, beta = 0.0f;
  const auto run = [&](cudaStream_t) {
    DLRMSIM_CUBLAS(cublasGemmEx(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(m), static_cast<int>(n),
                                static_cast<int>(k), &alpha, a.get(), data_type, static_cast<int>(m), b.get(), data_type,
                                static_cast<int>(k), &beta, c.get(), data_type, static_cast<int>(m), compute,
                                CUBLAS_GEMM_DEFAULT));
  };
  run(stream.get());
  DLRMSIM_CUDA(cudaStreamSynchronize(stream.get()));

  // Reference: 64 entries at random positions, in double from the stored inputs.
  std::mt19937_64 rng(seed_a);
  std::uniform_int_distribution<std::int64_t> row(0, m - 1), column(0, n - 1);
  for (int s = 0; s < 64; ++s) {
    const std::int64_t i = row(rng), j = column(rng);
    double expected = 0.0, magnitude = 0.0;
    for (std::int64_t p = 0; p < k; ++p) {
      const double term = static_cast<double>(stored<T>(seed_a, i, p)) * static_cast<double>(stored<T>(seed_b, p, j));
      expected += term;
      magnitude += std::fabs(term);
    }
    T got_raw;
    DLRMSIM_CUDA(cudaMemcpy(&got_raw, c.get() + i + j * m, sizeof(T), cudaMemcpyDeviceToHost));
    const double got = to_float(got_raw);
    if (std::fabs(got - expected) > tolerance * magnitude + 1e-6) {
      char msg[256];
      std::snprintf(msg, sizeof msg, "GEMM type %d m=%lld n=%lld k=%lld: C(%lld,%lld) is %.7g, CPU reference %.7g",
                    static_cast<int>(type), static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k),
                    static_cast<long long>(i), static_cast<long long>(j), got, expected);
      throw CheckFailed(msg);
    }
  }
  return time_on_stream(stream.get(), options, run);
}

}  // namespace

Timing time_gemm(GemmType type, std::int64_t m, std::int64_t n, std::int64_t k, const TimingOptions& options) {
  // Tolerances relative to sum |a_ip b_pj|: fp32 accumulation (k up to 16384 terms, error
  // growing like sqrt(k) x 2^-24 for blocked sums, 1e-4 leaves a wide margin); tf32 rounds
  // each operand to 10 mantissa bits (2^-11 relative each); bf16 and fp16 round the output to 8
  // and 11 bits.
  switch (type) {
    case GemmType::fp32: return gemm_with<float>(type, CUDA_R_32F, CUBLAS_COMPUTE_32F, 1e-4, m, n, k, options);
    case GemmType::tf32:
      return gemm_with<float>(type, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 2e-3, m, n, k, options);
    case GemmType::bf16: return gemm_with<__nv_bfloat16>(type, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 8e-3, m, n, k, options);
    case GemmType::fp16: return gemm_with<__half>(type, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2e-3, m, n, k, options);
  }
  throw std::invalid_argument("unknown GEMM type");
}

}  // namespace dlrmsim::calibration
