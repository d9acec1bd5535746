// Numeric formats: the one enum of the element types a platform gives peak rates for, a
// model computes and communicates in, and a device profile has GEMM coefficients for.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "common/enum_names.hpp"
#include "common/units.hpp"

namespace dlrmsim::topo {

/// tf32: fp32 storage, tensor-core math with a 10-bit mantissa. int8 rates are operations
/// per second.
enum class Precision : std::uint8_t { fp64, fp32, tf32, bf16, fp16, fp8, int8 };
inline constexpr std::size_t kPrecisionCount = 7;
inline constexpr std::array<Precision, kPrecisionCount> kAllPrecisions{
    Precision::fp64, Precision::fp32, Precision::tf32, Precision::bf16,
    Precision::fp16, Precision::fp8,  Precision::int8};
inline constexpr auto kPrecisionNames = enum_names<Precision>({{Precision::fp64, "fp64"},
                                                               {Precision::fp32, "fp32"},
                                                               {Precision::tf32, "tf32"},
                                                               {Precision::bf16, "bf16"},
                                                               {Precision::fp16, "fp16"},
                                                               {Precision::fp8, "fp8"},
                                                               {Precision::int8, "int8"}});

/// "fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8".
inline std::string_view to_string(Precision p) { return kPrecisionNames.name(p); }
/// The inverse of to_string; std::nullopt for an unknown name.
inline std::optional<Precision> precision_from_string(std::string_view name) { return kPrecisionNames.parse(name); }

/// Bytes per stored element: 8 (fp64), 4 (fp32; tf32 is stored as fp32), 2 (bf16, fp16),
/// 1 (fp8, int8).
Bytes element_size(Precision p);

}  // namespace dlrmsim::topo
