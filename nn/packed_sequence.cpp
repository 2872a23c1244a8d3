#include "ember/nn/packed_sequence.h"

#include <algorithm>
#include <numeric>

#include "ember/core/factory.h"
#include "ember/ops/convert.h"
#include "ember/ops/ops.h"

namespace ember::nn {
namespace {

Tensor int64_tensor(const std::vector<int64_t>& values, Device device = Device()) {
  Tensor t = tensor(values, {static_cast<int64_t>(values.size())}, TensorOptions(kInt64));
  return device == Device() ? t : t.to(device);
}

// The rows of a [T * batch, *] padded tensor that packing keeps, in packed order.
std::vector<int64_t> packed_rows(const std::vector<int64_t>& batch_sizes, int64_t batch) {
  std::vector<int64_t> rows;
  for (size_t t = 0; t < batch_sizes.size(); ++t)
    for (int64_t b = 0; b < batch_sizes[t]; ++b) rows.push_back(static_cast<int64_t>(t) * batch + b);
  return rows;
}

// [n] followed by the trailing dims of `t` from `from` on.
std::vector<int64_t> with_trailing(std::vector<int64_t> lead, const Tensor& t, int64_t from) {
  for (int64_t d = from; d < t.dim(); ++d) lead.push_back(t.size(d));
  return lead;
}

}  // namespace

Tensor invert_permutation(const Tensor& permutation) {
  if (!permutation.defined()) return permutation;
  std::vector<int64_t> order = to_int64_vector(permutation, "permutation");
  std::vector<int64_t> inverse(order.size(), -1);
  for (size_t position = 0; position < order.size(); ++position) {
    const int64_t index = order[position];
    EMBER_CHECK_VALUE(index >= 0 && index < static_cast<int64_t>(order.size()) && inverse[index] == -1,
                      "invert_permutation: ", IntArrayRef(order), " is not a permutation of [0, ", order.size(), ")");
    inverse[index] = static_cast<int64_t>(position);
  }
  return int64_tensor(inverse, permutation.device());
}

PackedSequence pack_padded_sequence(Tensor input, std::vector<int64_t> lengths, bool batch_first, bool enforce_sorted) {
  EMBER_CHECK_VALUE(input.dim() >= 2, "pack_padded_sequence: expected a padded batch of at least 2 dims, got shape ",
                    input.sizes());
  const int64_t batch_dim = batch_first ? 0 : 1;
  const auto batch = static_cast<int64_t>(lengths.size());
  EMBER_CHECK_VALUE(batch == input.size(batch_dim), "pack_padded_sequence: ", batch, " lengths for a batch of ",
                    input.size(batch_dim), " sequences (input of shape ", input.sizes(), ")");
  for (int64_t n : lengths)
    EMBER_CHECK(n > 0,
                "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0");
  Tensor sorted_indices;
  if (enforce_sorted) {
    EMBER_CHECK(std::is_sorted(lengths.begin(), lengths.end(), std::greater<>()),
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability.");
  } else {
    std::vector<int64_t> order(lengths.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return lengths[a] > lengths[b]; });
    sorted_indices = int64_tensor(order, input.device());
    input = index_select(input, batch_dim, sorted_indices);
    std::vector<int64_t> sorted;
    for (int64_t b : order) sorted.push_back(lengths[b]);
    lengths = std::move(sorted);
  }
  if (batch_first) input = input.transpose(0, 1);
  const int64_t steps = input.size(0);
  EMBER_CHECK(lengths.empty() || lengths[0] <= steps, "pack_padded_sequence: a length of ", lengths[0],
              " is longer than the ", steps, " steps of the input");
  std::vector<int64_t> batch_sizes;
  for (int64_t t = 0; t < (lengths.empty() ? 0 : lengths[0]); ++t)
    batch_sizes.push_back(std::count_if(lengths.begin(), lengths.end(), [t](int64_t n) { return n > t; }));
  Tensor flat = input.reshape(with_trailing({steps * batch}, input, 2));
  Tensor data = index_select(flat, 0, int64_tensor(packed_rows(batch_sizes, batch), input.device()));
  return {data, int64_tensor(batch_sizes), sorted_indices, invert_permutation(sorted_indices)};
}

std::pair<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first, double padding_value,
                                              std::optional<int64_t> total_length) {
  const Tensor& data = sequence.data;
  std::vector<int64_t> batch_sizes = to_int64_vector(sequence.batch_sizes, "batch_sizes");
  const int64_t batch = batch_sizes.empty() ? 0 : batch_sizes[0];
  auto steps = static_cast<int64_t>(batch_sizes.size());
  if (total_length) {
    EMBER_CHECK_VALUE(*total_length >= steps, "Expected total_length to be at least ", steps,
                      ", but got total_length=", *total_length);
    steps = *total_length;
  }
  std::vector<int64_t> lengths;
  for (int64_t b = 0; b < batch; ++b)
    lengths.push_back(std::count_if(batch_sizes.begin(), batch_sizes.end(), [b](int64_t n) { return n > b; }));
  // Every padded position reads its packed row, or the extra row of padding_value after them.
  Tensor pad_row = full(with_trailing({1}, data, 1), padding_value, TensorOptions(data.dtype()).device(data.device()));
  Tensor source = cat({data, pad_row}, 0);
  std::vector<int64_t> index(static_cast<size_t>(steps * batch), data.size(0));
  std::vector<int64_t> rows = packed_rows(batch_sizes, batch);
  for (size_t row = 0; row < rows.size(); ++row) index[rows[row]] = static_cast<int64_t>(row);
  Tensor padded =
      index_select(source, 0, int64_tensor(index, data.device())).reshape(with_trailing({steps, batch}, data, 1));
  if (sequence.unsorted_indices.defined()) {
    padded = index_select(padded, 1, sequence.unsorted_indices);
    std::vector<int64_t> order = to_int64_vector(sequence.unsorted_indices, "unsorted_indices"), reordered;
    for (int64_t b : order) reordered.push_back(lengths.at(b));
    lengths = std::move(reordered);
  }
  if (batch_first) padded = padded.transpose(0, 1);
  return {padded, int64_tensor(lengths)};  // the lengths on the host, as PyTorch's
}

Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first, double padding_value,
                    const std::string& padding_side) {
  EMBER_CHECK_VALUE(padding_side == "right" || padding_side == "left",
                    "pad_sequence: padding_side must be 'left' or 'right', got '", padding_side, "'");
  EMBER_CHECK(!sequences.empty(), "pad_sequence: received an empty list of sequences");
  int64_t longest = 0;
  for (const Tensor& s : sequences) {
    EMBER_CHECK_VALUE(s.dim() >= 1, "pad_sequence: every sequence needs a length dim, got a 0-d tensor");
    longest = std::max(longest, s.size(0));
  }
  std::vector<Tensor> rows;
  for (const Tensor& s : sequences) {
    const int64_t missing = longest - s.size(0);
    if (missing == 0) {
      rows.push_back(s);
      continue;
    }
    Tensor pad = full(with_trailing({missing}, s, 1), padding_value, TensorOptions(s.dtype()).device(s.device()));
    rows.push_back(padding_side == "right" ? cat({s, pad}, 0) : cat({pad, s}, 0));
  }
  return stack(rows, batch_first ? 0 : 1);
}

std::vector<Tensor> unpad_sequence(const Tensor& padded_sequences, const std::vector<int64_t>& lengths,
                                   bool batch_first) {
  Tensor padded = batch_first ? padded_sequences : padded_sequences.transpose(0, 1);
  EMBER_CHECK_VALUE(static_cast<int64_t>(lengths.size()) <= padded.size(0), "unpad_sequence: ", lengths.size(),
                    " lengths for a batch of ", padded.size(0), " sequences");
  std::vector<Tensor> out;
  for (size_t b = 0; b < lengths.size(); ++b)
    out.push_back(padded.select(0, static_cast<int64_t>(b)).narrow(0, 0, lengths[b]));
  return out;
}

PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (const Tensor& s : sequences) lengths.push_back(s.dim() >= 1 ? s.size(0) : 0);
  return pack_padded_sequence(pad_sequence(sequences), lengths, false, enforce_sorted);
}

std::vector<Tensor> unpack_sequence(const PackedSequence& packed_sequences) {
  auto [padded, lengths] = pad_packed_sequence(packed_sequences, true);
  return unpad_sequence(padded, to_int64_vector(lengths, "lengths"), true);
}

}  // namespace ember::nn
