// nn.EmbeddingBag and F.embedding_bag (torch's keywords; max_norm, scale_grad_by_freq and sparse
// are accepted as PyTorch's defaults only), and Embedding.from_pretrained / EmbeddingBag.from_pretrained.
#include "ember/nn/embedding_bag.h"

#include <pybind11/stl.h>

#include "layer_binding.h"

namespace ember::python {
namespace {

using namespace pybind11::literals;

void refuse_unsupported(const py::object& max_norm, bool scale_grad_by_freq, bool sparse, const char* who) {
  // NB: no max_norm renormalisation, frequency-scaled or sparse gradients: refusing them beats
  // training with a rule the script did not ask for.
  EMBER_CHECK_AS(NotImplementedError, max_norm.is_none(), who, ": max_norm is not supported");
  EMBER_CHECK_AS(NotImplementedError, !scale_grad_by_freq, who, ": scale_grad_by_freq is not supported");
  EMBER_CHECK_AS(NotImplementedError, !sparse, who, ": sparse gradients are not supported");
}

Tensor opt(const std::optional<Tensor>& t) { return t.value_or(Tensor()); }

// from_pretrained's checks: a 2-D table, and none of the options Ember lacks (named with its value).
void check_pretrained(const Tensor& embeddings, const char* who, const py::object& max_norm, bool scale_grad_by_freq,
                      bool sparse) {
  EMBER_CHECK_VALUE(embeddings.dim() == 2, who,
                    ".from_pretrained: Embeddings parameter is expected to be 2-dimensional, got shape ",
                    embeddings.sizes());
  EMBER_CHECK_AS(NotImplementedError, max_norm.is_none(), who,
                 ".from_pretrained: max_norm=", std::string(py::repr(max_norm)), " is not supported by Ember");
  EMBER_CHECK_AS(NotImplementedError, !scale_grad_by_freq, who,
                 ".from_pretrained: scale_grad_by_freq=True is not supported by Ember");
  EMBER_CHECK_AS(NotImplementedError, !sparse, who, ".from_pretrained: sparse=True is not supported by Ember");
}

// A classmethod of a bound class: `cls` (the class or a subclass) comes first.
template <typename F, typename... Extra>
void def_classmethod(const py::object& cls, const char* name, F&& f, const Extra&... extra) {
  cls.attr(name) = py::module_::import("builtins").attr("classmethod")(py::cpp_function(std::forward<F>(f), extra...));
}

}  // namespace

void bind_embedding_bag(py::module_& nn) {
  Layer<nn::EmbeddingBag>(nn, "EmbeddingBag", "Sums, means or maxima of bags of embeddings (torch.nn.EmbeddingBag).")
      .def(py::init([](int64_t num, int64_t dim, py::object max_norm, double, bool scale_grad_by_freq,
                       const std::string& mode, bool sparse, std::optional<Tensor> weight, bool include_last_offset,
                       std::optional<int64_t> padding_idx, py::object device, py::object dtype) {
             refuse_unsupported(max_norm, scale_grad_by_freq, sparse, "EmbeddingBag");
             auto bag = std::make_shared<nn::EmbeddingBag>(
                 nn::EmbeddingBagOptions{num, dim, mode, include_last_offset, padding_idx});
             if (!weight) return placed(bag, device, dtype);
             bag->replace_parameter("weight", *weight);
             return bag;
           }),
           "num_embeddings"_a, "embedding_dim"_a, "max_norm"_a = py::none(), "norm_type"_a = 2.0,
           "scale_grad_by_freq"_a = false, "mode"_a = "mean", "sparse"_a = false, "_weight"_a = py::none(),
           "include_last_offset"_a = false, "padding_idx"_a = py::none(), "device"_a = py::none(),
           "dtype"_a = py::none())
      .def(
          "forward",
          [](nn::EmbeddingBag& m, const Tensor& input, std::optional<Tensor> offsets,
             std::optional<Tensor> per_sample_weights) {
            return m.forward(input, opt(offsets), opt(per_sample_weights));
          },
          "input"_a, "offsets"_a = py::none(), "per_sample_weights"_a = py::none())
      .def_property_readonly("num_embeddings", [](const nn::EmbeddingBag& m) { return m.options().num_embeddings; })
      .def_property_readonly("embedding_dim", [](const nn::EmbeddingBag& m) { return m.options().embedding_dim; })
      .def_property_readonly("mode", [](const nn::EmbeddingBag& m) { return m.options().mode; })
      .def_property_readonly("include_last_offset",
                             [](const nn::EmbeddingBag& m) { return m.options().include_last_offset; })
      .def_property_readonly("padding_idx", [](const nn::EmbeddingBag& m) { return m.options().padding_idx; })
      .def("reset_parameters", &nn::EmbeddingBag::reset_parameters);

  // A table built around given vectors (word2vec, GloVe, another model's): its weight is `embeddings`
  // itself (shared, as PyTorch's), trainable unless freeze. Embedding's padding_idx only keeps that
  // row's gradient at zero: the row is not cleared, as in PyTorch.
  def_classmethod(
      nn.attr("Embedding"), "from_pretrained",
      [](const py::object& cls, const Tensor& embeddings, bool freeze, const py::object& padding_idx,
         const py::object& max_norm, double, bool scale_grad_by_freq, bool sparse) {
        check_pretrained(embeddings, "Embedding", max_norm, scale_grad_by_freq, sparse);
        py::object layer = cls(embeddings.size(0), embeddings.size(1), "padding_idx"_a = padding_idx);
        py::object parameter = py::module_::import("ember.nn.parameter").attr("Parameter");
        layer.attr("weight") = parameter(embeddings, "requires_grad"_a = !freeze);
        return layer;
      },
      "cls"_a, "embeddings"_a, "freeze"_a = true, "padding_idx"_a = py::none(), "max_norm"_a = py::none(),
      "norm_type"_a = 2.0, "scale_grad_by_freq"_a = false, "sparse"_a = false,
      "An Embedding whose weight is embeddings [num_embeddings, embedding_dim], trainable unless freeze.");
  def_classmethod(
      nn.attr("EmbeddingBag"), "from_pretrained",
      [](const py::object& cls, const Tensor& embeddings, bool freeze, const py::object& max_norm, double,
         bool scale_grad_by_freq, const std::string& mode, bool sparse, bool include_last_offset,
         const py::object& padding_idx) {
        check_pretrained(embeddings, "EmbeddingBag", max_norm, scale_grad_by_freq, sparse);
        py::object bag = cls(embeddings.size(0), embeddings.size(1), "mode"_a = mode, "_weight"_a = embeddings,
                             "include_last_offset"_a = include_last_offset, "padding_idx"_a = padding_idx);
        bag.attr("weight").attr("requires_grad_")(!freeze);
        return bag;
      },
      "cls"_a, "embeddings"_a, "freeze"_a = true, "max_norm"_a = py::none(), "norm_type"_a = 2.0,
      "scale_grad_by_freq"_a = false, "mode"_a = "mean", "sparse"_a = false, "include_last_offset"_a = false,
      "padding_idx"_a = py::none(),
      "An EmbeddingBag over embeddings [num_embeddings, embedding_dim] (shared), trainable unless freeze.");
}

void bind_embedding_bag_function(py::module_& f) {
  f.def(
      "embedding_bag",
      [](const Tensor& input, const Tensor& weight, std::optional<Tensor> offsets, py::object max_norm, double,
         bool scale_grad_by_freq, const std::string& mode, bool sparse, std::optional<Tensor> per_sample_weights,
         bool include_last_offset, std::optional<int64_t> padding_idx) {
        refuse_unsupported(max_norm, scale_grad_by_freq, sparse, "embedding_bag");
        return nn::functional::embedding_bag(input, weight, opt(offsets), mode, opt(per_sample_weights),
                                             include_last_offset, padding_idx);
      },
      "input"_a, "weight"_a, "offsets"_a = py::none(), "max_norm"_a = py::none(), "norm_type"_a = 2.0,
      "scale_grad_by_freq"_a = false, "mode"_a = "mean", "sparse"_a = false, "per_sample_weights"_a = py::none(),
      "include_last_offset"_a = false, "padding_idx"_a = py::none(),
      "The sum, mean or max of weight's rows at each bag's indices (torch.nn.functional.embedding_bag).");
}

}  // namespace ember::python
