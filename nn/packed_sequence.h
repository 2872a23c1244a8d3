#pragma once
// Batches of sequences of different lengths (torch.nn.utils.rnn):
//
//   auto packed = nn::pack_padded_sequence(padded, lengths, false, /*enforce_sorted=*/false);
//   auto r = lstm->run(packed);                     // each sequence runs for its own length
//   auto [out, out_lengths] = nn::pad_packed_sequence(r.output);
//
// A PackedSequence holds the steps of every sequence, longest first, time step by time step:
// data [sum(lengths), *], batch_sizes (int64 [T] on the host: how many sequences still run at
// each step), and the permutation that sorted the batch by length with its inverse (undefined when
// the batch came sorted). Packing and unpacking are index_select gathers, so gradients flow.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::nn {

struct PackedSequence {
  Tensor data;
  Tensor batch_sizes;
  Tensor sorted_indices;    // undefined: the batch was sorted already
  Tensor unsorted_indices;  // its inverse
};

/// The inverse of a permutation of [0, n) (undefined stays undefined).
Tensor invert_permutation(const Tensor& permutation);
/// Packs a padded batch [T, B, *] ([B, T, *] with batch_first) whose sequence b has lengths[b] > 0
/// steps. With enforce_sorted the lengths must decrease; otherwise the batch is sorted here (stable)
/// and the permutation kept.
PackedSequence pack_padded_sequence(Tensor input, std::vector<int64_t> lengths, bool batch_first = false,
                                    bool enforce_sorted = true);
/// Unpacks to (padded [T, B, *] ([B, T, *] with batch_first), lengths int64 [B] on the host), in
/// the batch order before packing; total_length (at least T) pads T further.
std::pair<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first = false,
                                              double padding_value = 0.0,
                                              std::optional<int64_t> total_length = std::nullopt);
/// Stacks tensors [L_i, *] into [max L, B, *] ([B, max L, *] with batch_first), each padded with
/// padding_value on its "right" (or "left").
Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first = false, double padding_value = 0.0,
                    const std::string& padding_side = "right");
/// The sequences of a padded batch, each cut to its length.
std::vector<Tensor> unpad_sequence(const Tensor& padded_sequences, const std::vector<int64_t>& lengths,
                                   bool batch_first = false);
/// Packs tensors [L_i, *] (longest first with enforce_sorted).
PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted = true);
/// The tensors pack_sequence packed, in their original order.
std::vector<Tensor> unpack_sequence(const PackedSequence& packed_sequences);

}  // namespace ember::nn
