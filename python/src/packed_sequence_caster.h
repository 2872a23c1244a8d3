#pragma once
// nn::PackedSequence to and from Python's ember.nn.utils.rnn.PackedSequence (a named tuple, as
// torch's): any object with data, batch_sizes, sorted_indices and unsorted_indices loads.
#include <pybind11/pybind11.h>

#include "ember/nn/packed_sequence.h"

namespace pybind11::detail {

template <>
struct type_caster<ember::nn::PackedSequence> {
  PYBIND11_TYPE_CASTER(ember::nn::PackedSequence, const_name("ember.nn.utils.rnn.PackedSequence"));

  bool load(handle src, bool) {
    for (const char* field : {"data", "batch_sizes", "sorted_indices", "unsorted_indices"})
      if (!hasattr(src, field)) return false;
    auto optional = [](const object& o) { return o.is_none() ? ember::Tensor() : o.cast<ember::Tensor>(); };
    value.data = src.attr("data").cast<ember::Tensor>();
    value.batch_sizes = src.attr("batch_sizes").cast<ember::Tensor>();
    value.sorted_indices = optional(src.attr("sorted_indices"));
    value.unsorted_indices = optional(src.attr("unsorted_indices"));
    return true;
  }

  static handle cast(const ember::nn::PackedSequence& p, return_value_policy, handle) {
    auto optional = [](const ember::Tensor& t) -> object { return t.defined() ? pybind11::cast(t) : none(); };
    object cls = module_::import("ember.nn.utils.rnn").attr("PackedSequence");
    return cls(p.data, p.batch_sizes, optional(p.sorted_indices), optional(p.unsorted_indices)).release();
  }
};

}  // namespace pybind11::detail
