#include "topologies/precision.hpp"

namespace dlrmsim::topo {

Bytes element_size(Precision p) {
  switch (p) {
    case Precision::fp64: return Bytes(8.0);
    case Precision::fp32:
    case Precision::tf32: return Bytes(4.0);
    case Precision::bf16:
    case Precision::fp16: return Bytes(2.0);
    case Precision::fp8:
    case Precision::int8: return Bytes(1.0);
  }
  return Bytes(4.0);
}

}  // namespace dlrmsim::topo
