// ember._C.nn.functional (linear and the losses, with PyTorch's keywords; the other functional
// forms are ember's ops, which python/ember/nn/functional.py re-exports) and ember._C.nn.init.
#include "ember/nn/functional.h"

#include <pybind11/stl.h>

#include <string>

#include "bindings.h"
#include "ember/nn/attention_functional.h"
#include "ember/nn/ctc_loss.h"
#include "ember/nn/init.h"
#include "ember/nn/loss.h"
#include "ember/nn/margin_loss.h"

namespace ember::python {
namespace {

using nn::functional::Reduction;

Reduction reduction_of(const std::string& r, const char* op = "loss") {
  return nn::functional::reduction_from_string(r, op);
}

Tensor opt(const std::optional<Tensor>& t) { return t.value_or(Tensor()); }

nn::init::FanMode fan_mode_of(const std::string& mode) {
  if (mode == "fan_in") return nn::init::FanMode::FanIn;
  if (mode == "fan_out") return nn::init::FanMode::FanOut;
  throw ember::ValueError("mode must be 'fan_in' or 'fan_out', got '" + mode + "'");
}

// The losses beyond the core few, and the distances they use (torch.nn.functional's signatures).
void bind_more_losses(py::module_& f) {
  namespace F = nn::functional;
  using namespace pybind11::literals;
  using std::optional;
  using std::string;
  const auto none = py::none();
  f.def("logsigmoid", &F::logsigmoid, "input"_a, "log(sigmoid(input)), without overflow or underflow.");
  f.def("pairwise_distance", &F::pairwise_distance, "x1"_a, "x2"_a, "p"_a = 2.0, "eps"_a = 1e-6, "keepdim"_a = false,
        "||x1 - x2 + eps||_p along the last dim.");
  f.def("pdist", &F::pdist, "input"_a, "p"_a = 2.0, "The p-norm distances between the rows i < j of input [N, M].");
  f.def(
      "binary_cross_entropy",
      [](const Tensor& x, const Tensor& t, optional<Tensor> w, py::object sa, py::object r, const string& red) {
        return F::binary_cross_entropy(x, t, opt(w),
                                       reduction_of(legacy_reduction(sa, r, red), "binary_cross_entropy"));
      },
      "input"_a, "target"_a, "weight"_a = none, "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean",
      "-(target log(input) + (1 - target) log(1 - input)) on probabilities, PyTorch's clamps and gradient.");
  f.def(
      "huber_loss",
      [](const Tensor& x, const Tensor& t, const string& red, double delta) {
        return F::huber_loss(x, t, reduction_of(red, "huber_loss"), delta);
      },
      "input"_a, "target"_a, "reduction"_a = "mean", "delta"_a = 1.0);
  f.def(
      "kl_div",
      [](const Tensor& x, const Tensor& t, py::object sa, py::object r, const string& red, bool log_target) {
        return F::kl_div(x, t, reduction_of(legacy_reduction(sa, r, red), "kl_div"), log_target);
      },
      "input"_a, "target"_a, "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean", "log_target"_a = false,
      "KL(target || exp(input)) pointwise; reduction 'batchmean' divides the sum by the batch size.");
  f.def(
      "poisson_nll_loss",
      [](const Tensor& x, const Tensor& t, bool log_input, bool full, py::object sa, double eps, py::object r,
         const string& red) {
        return F::poisson_nll_loss(x, t, log_input, full, eps,
                                   reduction_of(legacy_reduction(sa, r, red), "poisson_nll_loss"));
      },
      "input"_a, "target"_a, "log_input"_a = true, "full"_a = false, "size_average"_a = none, "eps"_a = 1e-8,
      "reduce"_a = none, "reduction"_a = "mean");
  f.def(
      "gaussian_nll_loss",
      [](const Tensor& x, const Tensor& t, const Tensor& var, bool full, double eps, const string& red) {
        return F::gaussian_nll_loss(x, t, var, full, eps, reduction_of(red, "gaussian_nll_loss"));
      },
      "input"_a, "target"_a, "var"_a, "full"_a = false, "eps"_a = 1e-6, "reduction"_a = "mean");
  f.def(
      "margin_ranking_loss",
      [](const Tensor& a, const Tensor& b, const Tensor& t, double margin, py::object sa, py::object r,
         const string& red) {
        return F::margin_ranking_loss(a, b, t, margin,
                                      reduction_of(legacy_reduction(sa, r, red), "margin_ranking_loss"));
      },
      "input1"_a, "input2"_a, "target"_a, "margin"_a = 0.0, "size_average"_a = none, "reduce"_a = none,
      "reduction"_a = "mean");
  f.def(
      "hinge_embedding_loss",
      [](const Tensor& x, const Tensor& t, double margin, py::object sa, py::object r, const string& red) {
        return F::hinge_embedding_loss(x, t, margin,
                                       reduction_of(legacy_reduction(sa, r, red), "hinge_embedding_loss"));
      },
      "input"_a, "target"_a, "margin"_a = 1.0, "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean");
  f.def(
      "soft_margin_loss",
      [](const Tensor& x, const Tensor& t, py::object sa, py::object r, const string& red) {
        return F::soft_margin_loss(x, t, reduction_of(legacy_reduction(sa, r, red), "soft_margin_loss"));
      },
      "input"_a, "target"_a, "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean");
  f.def(
      "multilabel_soft_margin_loss",
      [](const Tensor& x, const Tensor& t, optional<Tensor> w, py::object sa, py::object r, const string& red) {
        return F::multilabel_soft_margin_loss(
            x, t, opt(w), reduction_of(legacy_reduction(sa, r, red), "multilabel_soft_margin_loss"));
      },
      "input"_a, "target"_a, "weight"_a = none, "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean");
  f.def(
      "cosine_embedding_loss",
      [](const Tensor& a, const Tensor& b, const Tensor& t, double margin, py::object sa, py::object r,
         const string& red) {
        return F::cosine_embedding_loss(a, b, t, margin,
                                        reduction_of(legacy_reduction(sa, r, red), "cosine_embedding_loss"));
      },
      "input1"_a, "input2"_a, "target"_a, "margin"_a = 0.0, "size_average"_a = none, "reduce"_a = none,
      "reduction"_a = "mean");
  f.def(
      "triplet_margin_loss",
      [](const Tensor& a, const Tensor& p, const Tensor& n, double margin, double norm, double eps, bool swap,
         py::object sa, py::object r, const string& red) {
        return F::triplet_margin_loss(a, p, n, margin, norm, eps, swap,
                                      reduction_of(legacy_reduction(sa, r, red), "triplet_margin_loss"));
      },
      "anchor"_a, "positive"_a, "negative"_a, "margin"_a = 1.0, "p"_a = 2.0, "eps"_a = 1e-6, "swap"_a = false,
      "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean");
  f.def(
      "triplet_margin_with_distance_loss",
      [](const Tensor& a, const Tensor& p, const Tensor& n, optional<F::DistanceFunction> d, double margin, bool swap,
         const string& red) {
        return F::triplet_margin_with_distance_loss(a, p, n, d.value_or(nullptr), margin, swap,
                                                    reduction_of(red, "triplet_margin_with_distance_loss"));
      },
      "anchor"_a, "positive"_a, "negative"_a, py::kw_only(), "distance_function"_a = none, "margin"_a = 1.0,
      "swap"_a = false, "reduction"_a = "mean");
  f.def(
      "multi_margin_loss",
      [](const Tensor& x, const Tensor& t, int64_t p, double margin, optional<Tensor> w, py::object sa, py::object r,
         const string& red) {
        return F::multi_margin_loss(x, t, p, margin, opt(w),
                                    reduction_of(legacy_reduction(sa, r, red), "multi_margin_loss"));
      },
      "input"_a, "target"_a, "p"_a = 1, "margin"_a = 1.0, "weight"_a = none, "size_average"_a = none, "reduce"_a = none,
      "reduction"_a = "mean");
  f.def(
      "multilabel_margin_loss",
      [](const Tensor& x, const Tensor& t, py::object sa, py::object r, const string& red) {
        return F::multilabel_margin_loss(x, t, reduction_of(legacy_reduction(sa, r, red), "multilabel_margin_loss"));
      },
      "input"_a, "target"_a, "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean");
  f.def(
      "ctc_loss",
      [](const Tensor& log_probs, const Tensor& targets, py::object input_lengths, py::object target_lengths,
         int64_t blank, const string& red, bool zero_infinity) {
        return F::ctc_loss(log_probs, targets, lengths_of(input_lengths, "ctc_loss: input_lengths"),
                           lengths_of(target_lengths, "ctc_loss: target_lengths"), blank, reduction_of(red, "ctc_loss"),
                           zero_infinity);
      },
      "log_probs"_a, "targets"_a, "input_lengths"_a, "target_lengths"_a, "blank"_a = 0, "reduction"_a = "mean",
      "zero_infinity"_a = false);
}

// F.multi_head_attention_forward with PyTorch's signature (nn/attention_functional.h). Its input
// checks raise AssertionError, as PyTorch's asserts do.
void bind_multi_head_attention_forward(py::module_& f) {
  namespace F = nn::functional;
  using namespace pybind11::literals;
  using T = std::optional<Tensor>;
  f.def(
      "multi_head_attention_forward",
      [](const Tensor& query, const Tensor& key, const Tensor& value, int64_t embed_dim_to_check, int64_t num_heads,
         T in_proj_weight, T in_proj_bias, T bias_k, T bias_v, bool add_zero_attn, double dropout_p,
         const Tensor& out_proj_weight, T out_proj_bias, bool training, T key_padding_mask, bool need_weights,
         T attn_mask, bool use_separate_proj_weight, T q_proj_weight, T k_proj_weight, T v_proj_weight, T static_k,
         T static_v, bool average_attn_weights, bool is_causal) -> std::pair<Tensor, std::optional<Tensor>> {
        F::MultiheadAttentionForwardOptions o{embed_dim_to_check, num_heads,          opt(in_proj_weight),
                                              opt(in_proj_bias),  opt(bias_k),        opt(bias_v),
                                              add_zero_attn,      dropout_p,          out_proj_weight,
                                              opt(out_proj_bias), training,           opt(key_padding_mask),
                                              need_weights,       opt(attn_mask),     use_separate_proj_weight,
                                              opt(q_proj_weight), opt(k_proj_weight), opt(v_proj_weight),
                                              opt(static_k),      opt(static_v),      average_attn_weights,
                                              is_causal};
        try {
          auto [out, weights] = F::multi_head_attention_forward(query, key, value, o);
          return {out, weights.defined() ? std::optional<Tensor>(weights) : std::nullopt};
        } catch (const ember::ValueError& e) {
          PyErr_SetString(PyExc_AssertionError, e.what());
          throw py::error_already_set();
        }
      },
      "query"_a, "key"_a, "value"_a, "embed_dim_to_check"_a, "num_heads"_a, "in_proj_weight"_a, "in_proj_bias"_a,
      "bias_k"_a, "bias_v"_a, "add_zero_attn"_a, "dropout_p"_a, "out_proj_weight"_a, "out_proj_bias"_a,
      "training"_a = true, "key_padding_mask"_a = py::none(), "need_weights"_a = true, "attn_mask"_a = py::none(),
      "use_separate_proj_weight"_a = false, "q_proj_weight"_a = py::none(), "k_proj_weight"_a = py::none(),
      "v_proj_weight"_a = py::none(), "static_k"_a = py::none(), "static_v"_a = py::none(),
      "average_attn_weights"_a = true, "is_causal"_a = false,
      "(attn_output, attn_weights) of multi-head attention, sequence-first (torch.nn.functional's): the weights "
      "averaged over heads unless average_attn_weights=False, None unless need_weights.");
}

void bind_functional_forms(py::module_& f) {
  namespace F = nn::functional;
  bind_multi_head_attention_forward(f);
  f.def("linear", [](const Tensor& x, const Tensor& w, const std::optional<Tensor>& b) {
    return F::linear(x, w, b.value_or(Tensor()));
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::call_guard<py::gil_scoped_release>(),
        "input @ weight^T + bias.");
  f.def(
      "bilinear",
      [](const Tensor& x1, const Tensor& x2, const Tensor& w, const std::optional<Tensor>& b) {
        return F::bilinear(x1, x2, w, b.value_or(Tensor()));
      },
      py::arg("input1"), py::arg("input2"), py::arg("weight"), py::arg("bias") = py::none(),
      py::call_guard<py::gil_scoped_release>(), "x1^T weight[o] x2 + bias[o] for every output o.");
  f.def("gumbel_softmax", &F::gumbel_softmax, py::arg("logits"), py::arg("tau") = 1.0, py::arg("hard") = false,
        py::arg("eps") = 1e-10, py::arg("dim") = -1,
        "softmax((logits + g) / tau) with Gumbel noise g; hard=True: the one-hot of its argmax (straight-through).");
  f.def("cross_entropy", [](const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                            int64_t ignore_index, const std::string& reduction, double label_smoothing) {
    return F::cross_entropy(input, target, ignore_index, reduction_of(reduction), label_smoothing,
                            weight.value_or(Tensor()));
  }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("ignore_index") = -100,
        py::arg("reduction") = "mean", py::arg("label_smoothing") = 0.0,
        "-log_softmax(input)[target] for class indices target (int64), or against class probabilities (a "
        "floating target of input's shape); weight gives each class's weight (then \"mean\" divides by the "
        "weights of the counted targets), label_smoothing mixes in the uniform distribution, as PyTorch.");
  f.def("nll_loss", [](const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                       int64_t ignore_index, const std::string& reduction) {
    return F::nll_loss(input, target, ignore_index, reduction_of(reduction), weight.value_or(Tensor()));
  }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("ignore_index") = -100,
        py::arg("reduction") = "mean",
        "-weight[target] * input[target] for log-probabilities input; weight as in cross_entropy.");
  f.def("mse_loss", [](const Tensor& input, const Tensor& target, const std::string& reduction) {
    return F::mse_loss(input, target, reduction_of(reduction));
  }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean");
  f.def("l1_loss", [](const Tensor& input, const Tensor& target, const std::string& reduction) {
    return F::l1_loss(input, target, reduction_of(reduction));
  }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean");
  f.def("smooth_l1_loss", [](const Tensor& input, const Tensor& target, const std::string& reduction,
                             double beta) {
    return F::smooth_l1_loss(input, target, reduction_of(reduction), beta);
  }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::arg("beta") = 1.0);
  f.def("binary_cross_entropy_with_logits", [](const Tensor& input, const Tensor& target,
                                               const std::optional<Tensor>& weight, const std::string& reduction,
                                               const std::optional<Tensor>& pos_weight) {
    return F::binary_cross_entropy_with_logits(input, target, pos_weight.value_or(Tensor()),
                                               reduction_of(reduction), weight.value_or(Tensor()));
  }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("reduction") = "mean",
        py::arg("pos_weight") = py::none());
  bind_more_losses(f);
}

void bind_init(py::module_& i) {
  namespace I = nn::init;
  i.def("calculate_gain", [](const std::string& nl, std::optional<double> param) {
    return I::calculate_gain(nl, param.value_or(0.01));
  }, py::arg("nonlinearity"), py::arg("param") = py::none());
  i.def("_calculate_fan_in_and_fan_out", [](const Tensor& t) { return I::fan_in_and_fan_out(t, "_calculate_fan_in_and_fan_out"); },
        py::arg("tensor"));
  i.def("uniform_", [](Tensor t, double a, double b, Generator* g) { return I::uniform_(t, a, b, g); },
        py::arg("tensor"), py::arg("a") = 0.0, py::arg("b") = 1.0, py::arg("generator") = py::none());
  i.def("normal_", [](Tensor t, double mean, double std, Generator* g) { return I::normal_(t, mean, std, g); },
        py::arg("tensor"), py::arg("mean") = 0.0, py::arg("std") = 1.0, py::arg("generator") = py::none());
  i.def("constant_", [](Tensor t, double v) { return I::constant_(t, v); }, py::arg("tensor"), py::arg("val"));
  i.def("zeros_", [](Tensor t) { return I::zeros_(t); }, py::arg("tensor"));
  i.def("ones_", [](Tensor t) { return I::ones_(t); }, py::arg("tensor"));
  i.def("xavier_uniform_", [](Tensor t, double gain, Generator* g) { return I::xavier_uniform_(t, gain, g); },
        py::arg("tensor"), py::arg("gain") = 1.0, py::arg("generator") = py::none());
  i.def("xavier_normal_", [](Tensor t, double gain, Generator* g) { return I::xavier_normal_(t, gain, g); },
        py::arg("tensor"), py::arg("gain") = 1.0, py::arg("generator") = py::none());
  i.def("kaiming_uniform_", [](Tensor t, double a, const std::string& mode, const std::string& nl, Generator* g) {
    return I::kaiming_uniform_(t, a, fan_mode_of(mode), nl, g);
  }, py::arg("tensor"), py::arg("a") = 0.0, py::arg("mode") = "fan_in", py::arg("nonlinearity") = "leaky_relu",
        py::arg("generator") = py::none());
  i.def("kaiming_normal_", [](Tensor t, double a, const std::string& mode, const std::string& nl, Generator* g) {
    return I::kaiming_normal_(t, a, fan_mode_of(mode), nl, g);
  }, py::arg("tensor"), py::arg("a") = 0.0, py::arg("mode") = "fan_in", py::arg("nonlinearity") = "leaky_relu",
        py::arg("generator") = py::none());
  i.def("trunc_normal_", [](Tensor t, double mean, double std, double a, double b, Generator* g) {
    return I::trunc_normal_(t, mean, std, a, b, g);
  }, py::arg("tensor"), py::arg("mean") = 0.0, py::arg("std") = 1.0, py::arg("a") = -2.0, py::arg("b") = 2.0,
        py::arg("generator") = py::none());
  i.def(
      "orthogonal_", [](Tensor t, double gain, Generator* g) { return I::orthogonal_(t, gain, g); }, py::arg("tensor"),
      py::arg("gain") = 1.0, py::arg("generator") = py::none());
  i.def(
      "sparse_", [](Tensor t, double sparsity, double std, Generator* g) { return I::sparse_(t, sparsity, std, g); },
      py::arg("tensor"), py::arg("sparsity"), py::arg("std") = 0.01, py::arg("generator") = py::none());
  i.def(
      "dirac_", [](Tensor t, int64_t groups) { return I::dirac_(t, groups); }, py::arg("tensor"),
      py::arg("groups") = 1);
  i.def(
      "eye_", [](Tensor t) { return I::eye_(t); }, py::arg("tensor"));
  // torch's deprecated names without the underscore: each warns FutureWarning and calls its new name.
  for (const char* old : {"uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
                          "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"}) {
    const std::string name(old), replacement = name + "_";
    py::object fn = i.attr(replacement.c_str());
    const std::string message = "`nn.init." + name + "` is now deprecated in favor of `nn.init." + replacement + "`.";
    i.attr(old) = py::cpp_function(
        [fn, message](const py::args& args, const py::kwargs& kwargs) {
          if (PyErr_WarnEx(PyExc_FutureWarning, message.c_str(), 1) != 0) throw py::error_already_set();
          return fn(*args, **kwargs);
        },
        py::name(old), ("Deprecated: " + replacement + ", which it calls.").c_str());
  }
}

}  // namespace

void bind_functional(py::module_& m) {
  py::module_ nn = m.attr("nn").cast<py::module_>();
  py::module_ functional = nn.def_submodule("functional", "linear and the losses (torch.nn.functional's)");
  bind_functional_forms(functional);
  bind_activation_functions(functional);
  bind_embedding_bag_function(functional);
  bind_channel_functions(functional);
  bind_pool_functions(functional);
  bind_fold_functions(functional);
  bind_upsample_functions(functional);
  py::module_ init = nn.def_submodule("init", "parameter initialisation, in place (torch.nn.init)");
  bind_init(init);
}

}  // namespace ember::python
