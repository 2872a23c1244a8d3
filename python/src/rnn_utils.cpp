// ember._C.nn.rnn_utils: torch.nn.utils.rnn's functions over nn/packed_sequence.h, returning
// ember.nn.utils.rnn.PackedSequence (packed_sequence_caster.h).
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "ember/nn/packed_sequence.h"
#include "ember/ops/convert.h"
#include "packed_sequence_caster.h"

namespace ember::python {
namespace {

// Lengths as a tensor (read on the host) or a sequence of ints.
std::vector<int64_t> lengths_of(const py::handle& lengths) {
  if (py::isinstance<Tensor>(lengths)) return to_int64_vector(lengths.cast<Tensor>(), "lengths");
  return lengths.cast<std::vector<int64_t>>();
}

}  // namespace

void bind_rnn_utils(py::module_& nn) {
  py::module_ r = nn.def_submodule("rnn_utils", "torch.nn.utils.rnn's functions (nn/packed_sequence.h)");
  r.def(
      "invert_permutation",
      [](std::optional<Tensor> permutation) -> std::optional<Tensor> {
        if (!permutation) return std::nullopt;
        return nn::invert_permutation(*permutation);
      },
      py::arg("permutation"), "The inverse of a permutation of [0, n) (None stays None).");
  r.def(
      "pack_padded_sequence",
      [](const Tensor& input, py::handle lengths, bool batch_first, bool enforce_sorted) {
        return nn::pack_padded_sequence(input, lengths_of(lengths), batch_first, enforce_sorted);
      },
      py::arg("input"), py::arg("lengths"), py::arg("batch_first") = false, py::arg("enforce_sorted") = true,
      "Packs a padded batch [T, B, *] ([B, T, *] with batch_first) of sequences of the given lengths.");
  r.def("pad_packed_sequence", &nn::pad_packed_sequence, py::arg("sequence"), py::arg("batch_first") = false,
        py::arg("padding_value") = 0.0, py::arg("total_length") = py::none(),
        "(padded [T, B, *], lengths int64 [B] on the host), in the batch order before packing.");
  r.def("pad_sequence", &nn::pad_sequence, py::arg("sequences"), py::arg("batch_first") = false,
        py::arg("padding_value") = 0.0, py::arg("padding_side") = "right",
        "Stacks tensors [L_i, *] into [max L, B, *] ([B, max L, *] with batch_first), padded.");
  r.def(
      "unpad_sequence",
      [](const Tensor& padded_sequences, py::handle lengths, bool batch_first) {
        return nn::unpad_sequence(padded_sequences, lengths_of(lengths), batch_first);
      },
      py::arg("padded_sequences"), py::arg("lengths"), py::arg("batch_first") = false,
      "The sequences of a padded batch, each cut to its length.");
  r.def("pack_sequence", &nn::pack_sequence, py::arg("sequences"), py::arg("enforce_sorted") = true,
        "Packs tensors [L_i, *] (longest first with enforce_sorted).");
  r.def("unpack_sequence", &nn::unpack_sequence, py::arg("packed_sequences"),
        "The tensors pack_sequence packed, in their original order.");
}

}  // namespace ember::python
