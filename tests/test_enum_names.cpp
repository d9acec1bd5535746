// The name tables of the enums (common/enum_names.hpp): each names every enumerator of its
// enum once, in declaration order, each word once, and reads back what it writes.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "common/energy.hpp"
#include "common/enum_names.hpp"
#include "models/goodput.hpp"
#include "models/model_spec.hpp"
#include "placement/cache_model.hpp"
#include "placement/placement.hpp"
#include "topologies/device_profile.hpp"
#include "topologies/devices.hpp"
#include "topologies/fabric.hpp"
#include "topologies/links.hpp"
#include "topologies/precision.hpp"
#include "validation/cpu/cpu_raw_measurements.hpp"
#include "validation/raw_measurements.hpp"

namespace dlrmsim {
namespace {

// Expected of a table of N entries over an enum whose enumerators are 0..N-1 (as declared,
// none given a value): entry i is the enumerator i (so every enumerator is named, once, and
// name() finds each), its word is non-empty unless the table allows one empty word (PriceUnit's
// `amount` has no unit), the words are distinct, and parse(name(e)) is e.
template <class E, std::size_t N>
void check_table(const EnumNames<E, N>& table, const char* what, bool empty_word_allowed = false) {
  CAPTURE(what);
  std::set<std::string> words;
  for (std::size_t i = 0; i < N; ++i) {
    const E e = static_cast<E>(i);
    CHECK(table.entries[i].first == e);
    const std::string_view word = table.name(e);
    CHECK((!word.empty() || empty_word_allowed));
    CHECK(words.insert(std::string(word)).second);
    CHECK(table.parse(word) == e);
  }
  CHECK(!table.parse("no such word").has_value());
  CHECK_THROWS_AS((void)table.name(static_cast<E>(N)), std::logic_error);
}

}  // namespace

TEST_CASE("every enum's name table names each enumerator once, in order, and reads it back") {
  check_table(topo::kPrecisionNames, "Precision");
  check_table(topo::kDeviceKindNames, "DeviceKind");
  check_table(topo::kLinkKindNames, "LinkKind");
  check_table(topo::kNetworkProtocolNames, "NetworkProtocol");
  check_table(topo::kFabricKindNames, "FabricKind");
  check_table(topo::kEmbeddingOptimizerNames, "EmbeddingOptimizer");
  check_table(topo::kCopyKindNames, "CopyKind");
  check_table(kPriceUnitNames, "PriceUnit", true);
  check_table(models::kOptimizerKindNames, "OptimizerKind");
  check_table(models::kFailureComponentNames, "FailureComponent");
  check_table(validation::kMeasurementKindNames, "MeasurementKind");
  check_table(validation::kCpuMeasurementKindNames, "CpuMeasurementKind");
  check_table(placement::kShardingNames, "Sharding");
  check_table(placement::kCollectiveNames, "Collective");
  check_table(placement::kPassNames, "Pass");
  check_table(placement::kCommScopeNames, "CommScope");
  check_table(placement::kPayloadNames, "Payload");
  check_table(placement::kOwnerKindNames, "placement::OwnerKind");
  check_table(placement::kCacheModelNames, "CacheModel");
}

// System: the Precision table. Expected: the words the platform files, models and profiles
// use ("fp64" ... "int8"), "fp32 | ... " as the choices a message offers, and the GEMM subset
// fp32, tf32, bf16, fp16, fp8 (no GEMM coefficients are kept for fp64 or int8).
TEST_CASE("one precision enum: its words, its choices and its GEMM subset") {
  CHECK(topo::kPrecisionNames.choices() == "fp64 | fp32 | tf32 | bf16 | fp16 | fp8 | int8");
  CHECK(topo::kPrecisionNames.choices(", ") == "fp64, fp32, tf32, bf16, fp16, fp8, int8");
  CHECK(topo::gemm_precision_from_name("bf16") == topo::Precision::bf16);
  CHECK(!topo::gemm_precision_from_name("int8").has_value());
  CHECK(!topo::gemm_precision_from_name("fp64").has_value());
  // Element sizes: IEEE 754 binary64/32/16, bfloat16 (16 bits), OCP FP8 (8 bits), int8; tf32
  // is stored as fp32.
  CHECK(topo::element_size(topo::Precision::fp64).value() == 8.0);
  CHECK(topo::element_size(topo::Precision::tf32).value() == 4.0);
  CHECK(topo::element_size(topo::Precision::bf16).value() == 2.0);
  CHECK(topo::element_size(topo::Precision::fp8).value() == 1.0);
  CHECK(models::element_size(models::Precision::int8).value() == 1.0);  // the model's is the same enum
}

}  // namespace dlrmsim
