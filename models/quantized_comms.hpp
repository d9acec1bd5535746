// Quantised communication: the embedding all-to-all's pooled embeddings (forward), their
// gradients (backward) and the dense all-reduce sent in a narrower type than the model's
// communication precision, with an encode kernel before each exchange and a decode kernel
// after it.
//
// The all-to-all codecs are TorchRec's QCommsConfig (pytorch/torchrec@a48cef79
// torchrec/distributed/fbgemm_qcomm_codec.py: forward_precision and backward_precision, each
// fp32, fp16, bf16, fp8 or int8), which wrap FBGEMM's QuantizedCommCodec
// (pytorch/FBGEMM@063bd061 fbgemm_gpu/fbgemm_gpu/quantize_comm.py). What one value costs on
// the wire (calc_quantized_size and the conversions it calls):
//   fp32            4 B (no codec)
//   fp16, bf16      2 B (fp32_to_fp16_with_clamp, fp32_to_bf16_with_clamp)
//   fp8             1 B (fp32_to_hfp8_with_clamp: 4 exponent and 3 mantissa bits, no scale)
//   int8            rows of row_dim values (QuantizationContext, ROW_DIM_DEFAULT = 32), each
//                   ((row_dim + 3) / 4 x 4) B of values + 2 x 4 B of fp32 scale and bias
//                   (FloatToFused8BitRowwiseQuantized): 40 B per 32 values, 1.25 B a value
// The encoder reads the tensor in the model's communication precision (the pooled embeddings
// and gradients TorchRec exchanges without a codec) and writes the wire tensor; the decoder
// does the reverse. Each is one memory-bound GPU kernel over the values it converts:
//   codec HBM bytes = values x (source bytes + wire bytes)   (int8: + its scales and biases)
// run on the sender (encode) and the receiver (decode) of every exchange.
//
// The dense all-reduce's codec is PyTorch DDP's communication hook
// (torch/distributed/algorithms/ddp_comm_hooks/default_hooks.py, fp16_compress_hook and
// bf16_compress_hook): each bucket cast to 16 bits, all-reduced in that type, cast back: the
// same two kernels around the all-reduce. No 8-bit hook ships with PyTorch, so the all-reduce
// takes fp16 or bf16 only.
//
// A codec narrower than the model's communication precision is what it is for; one wider
// (fp32 over a bf16 model) is accepted and costs what it says.
#pragma once

#include <optional>

#include "common/units.hpp"
#include "topologies/precision.hpp"

namespace dlrmsim::models {

using topo::Precision;

/// FBGEMM's int8 row length (quantize_comm.py ROW_DIM_DEFAULT).
inline constexpr int kInt8RowDimDefault = 32;

/// One exchange's codec: the wire type (nullopt: none, the model's communication precision).
struct QuantizedComms {
  std::optional<Precision> forward;     // pooled embeddings, owners to trainers
  std::optional<Precision> backward;    // their gradients, trainers to owners
  std::optional<Precision> all_reduce;  // the dense gradients' all-reduce (fp16 or bf16)
  int int8_row_dim = kInt8RowDimDefault;

  bool operator==(const QuantizedComms&) const = default;
};

/// Bytes per value on the wire: `codec`'s (int8 with its row's scale and bias), or the
/// source precision's when there is no codec.
double wire_bytes_per_value(std::optional<Precision> codec, Precision source, int int8_row_dim);

/// HBM bytes of one encode (or decode) kernel over `values` values between `source` and the
/// codec's wire type; zero without a codec.
Bytes codec_hbm_bytes(std::optional<Precision> codec, Precision source, double values, int int8_row_dim);

}  // namespace dlrmsim::models
