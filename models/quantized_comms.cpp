#include "models/quantized_comms.hpp"

#include "topologies/precision.hpp"

namespace dlrmsim::models {

double wire_bytes_per_value(std::optional<Precision> codec, Precision source, int int8_row_dim) {
  if (!codec) return topo::element_size(source).value();
  if (*codec == Precision::int8) {
    const double row = static_cast<double>(int8_row_dim);
    // calc_quantized_size: (row_dim + 3) // 4 * 4 value bytes + 2 * 4 bytes of scale and bias.
    return (static_cast<double>((int8_row_dim + 3) / 4 * 4) + 8.0) / row;
  }
  return topo::element_size(*codec).value();
}

Bytes codec_hbm_bytes(std::optional<Precision> codec, Precision source, double values, int int8_row_dim) {
  if (!codec) return Bytes(0.0);
  return Bytes(values * (topo::element_size(source).value() + wire_bytes_per_value(codec, source, int8_row_dim)));
}

}  // namespace dlrmsim::models
