// The loss modules of ember._C.nn (torch.nn's constructors and keywords, the deprecated
// size_average/reduce included) and the loss functions of ember._C.nn.functional. Each option is an
// attribute (loss.margin, loss.reduction), read and written through the options struct's fields().
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "ember/nn/loss_modules.h"
#include "ember/ops/convert.h"
#include "layer_binding.h"

namespace ember::python {
namespace {

using nn::Module;
using nn::functional::Reduction;
namespace F = nn::functional;
using namespace pybind11::literals;

template <typename M>
using LossClass = py::class_<M, Module, std::shared_ptr<M>>;

Reduction reduction_of(const std::string& name, const char* op) { return F::reduction_from_string(name, op); }

}  // namespace

std::string legacy_reduction(const py::object& size_average, const py::object& reduce, const std::string& reduction) {
  if (size_average.is_none() && reduce.is_none()) return reduction;
  const bool average = size_average.is_none() || size_average.cast<bool>();
  const bool reduced = reduce.is_none() || reduce.cast<bool>();
  const std::string r = !reduced ? "none" : average ? "mean" : "sum";
  const std::string text = "size_average and reduce args will be deprecated, please use reduction='" + r + "' instead.";
  if (PyErr_WarnEx(PyExc_UserWarning, text.c_str(), 1) != 0) throw py::error_already_set();
  return r;
}

namespace {

Tensor or_undefined(const std::optional<Tensor>& t) { return t.value_or(Tensor()); }

// The class M with its options as attributes and, for a weighted loss, `weight` (and
// `pos_weight`): the buffer, or None.
template <typename M>
LossClass<M> loss_class(py::module_& nn, const char* name, const char* doc) {
  LossClass<M> cls(nn, name, doc);
  bind_fields<M>(cls);
  ember::nn::for_each_weight<typename M::Options>([&](auto w) {
    const char* weight_name = w.name;
    cls.def_property_readonly(weight_name, [weight_name](const M& m) {
      Tensor t = m.weight(weight_name);
      return t.defined() ? py::cast(t) : py::none();
    });
  });
  return cls;
}

#define EMBER_PAIR_FORWARD(M, a, b) \
  .def("forward", py::overload_cast<const Tensor&, const Tensor&>(&M::forward), py::arg(a), py::arg(b))
#define EMBER_TRIPLE_FORWARD(M, a, b, c)                                                                               \
  .def("forward", py::overload_cast<const Tensor&, const Tensor&, const Tensor&>(&M::forward), py::arg(a), py::arg(b), \
       py::arg(c))

void bind_loss_modules(py::module_& nn) {
  using std::optional;
  using std::string;
  const auto none = py::none();
  loss_class<nn::L1Loss>(nn, "L1Loss", "mean |input - target| (torch.nn.L1Loss).")
      .def(py::init([](py::object sa, py::object r, const string& red) {
             return std::make_shared<nn::L1Loss>(
                 nn::L1LossOptions{reduction_of(legacy_reduction(sa, r, red), "L1Loss")});
           }),
           "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean")
          EMBER_PAIR_FORWARD(nn::L1Loss, "input", "target");
  loss_class<nn::MSELoss>(nn, "MSELoss", "mean (input - target)^2 (torch.nn.MSELoss).")
      .def(py::init([](py::object sa, py::object r, const string& red) {
             return std::make_shared<nn::MSELoss>(
                 nn::MSELossOptions{reduction_of(legacy_reduction(sa, r, red), "MSELoss")});
           }),
           "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean")
          EMBER_PAIR_FORWARD(nn::MSELoss, "input", "target");
  loss_class<nn::CrossEntropyLoss>(nn, "CrossEntropyLoss", "torch.nn.CrossEntropyLoss: log_softmax and nll_loss.")
      .def(py::init([](optional<Tensor> w, py::object sa, int64_t ignore, py::object r, const string& red,
                       double smoothing) {
             return std::make_shared<nn::CrossEntropyLoss>(nn::CrossEntropyLossOptions{
                 or_undefined(w), ignore, reduction_of(legacy_reduction(sa, r, red), "CrossEntropyLoss"), smoothing});
           }),
           "weight"_a = none, "size_average"_a = none, "ignore_index"_a = -100, "reduce"_a = none,
           "reduction"_a = "mean", "label_smoothing"_a = 0.0)
          EMBER_PAIR_FORWARD(nn::CrossEntropyLoss, "input", "target");
  loss_class<nn::NLLLoss>(nn, "NLLLoss", "torch.nn.NLLLoss: -input[target], weighted.")
      .def(py::init([](optional<Tensor> w, py::object sa, int64_t ignore, py::object r, const string& red) {
             return std::make_shared<nn::NLLLoss>(
                 nn::NLLLossOptions{or_undefined(w), ignore, reduction_of(legacy_reduction(sa, r, red), "NLLLoss")});
           }),
           "weight"_a = none, "size_average"_a = none, "ignore_index"_a = -100, "reduce"_a = none,
           "reduction"_a = "mean") EMBER_PAIR_FORWARD(nn::NLLLoss, "input", "target");
  loss_class<nn::BCELoss>(nn, "BCELoss", "torch.nn.BCELoss, on probabilities.")
      .def(py::init([](optional<Tensor> w, py::object sa, py::object r, const string& red) {
             return std::make_shared<nn::BCELoss>(
                 nn::BCELossOptions{or_undefined(w), reduction_of(legacy_reduction(sa, r, red), "BCELoss")});
           }),
           "weight"_a = none, "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean")
          EMBER_PAIR_FORWARD(nn::BCELoss, "input", "target");
  loss_class<nn::BCEWithLogitsLoss>(nn, "BCEWithLogitsLoss", "torch.nn.BCEWithLogitsLoss, on logits.")
      .def(py::init([](optional<Tensor> w, py::object sa, py::object r, const string& red, optional<Tensor> pw) {
             return std::make_shared<nn::BCEWithLogitsLoss>(nn::BCEWithLogitsLossOptions{
                 or_undefined(w), reduction_of(legacy_reduction(sa, r, red), "BCEWithLogitsLoss"), or_undefined(pw)});
           }),
           "weight"_a = none, "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean", "pos_weight"_a = none)
          EMBER_PAIR_FORWARD(nn::BCEWithLogitsLoss, "input", "target");
  loss_class<nn::SmoothL1Loss>(nn, "SmoothL1Loss", "torch.nn.SmoothL1Loss(beta).")
      .def(py::init([](py::object sa, py::object r, const string& red, double beta) {
             return std::make_shared<nn::SmoothL1Loss>(
                 nn::SmoothL1LossOptions{reduction_of(legacy_reduction(sa, r, red), "SmoothL1Loss"), beta});
           }),
           "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean", "beta"_a = 1.0)
          EMBER_PAIR_FORWARD(nn::SmoothL1Loss, "input", "target");
  loss_class<nn::HuberLoss>(nn, "HuberLoss", "torch.nn.HuberLoss(delta).")
      .def(py::init([](const string& red, double delta) {
             return std::make_shared<nn::HuberLoss>(nn::HuberLossOptions{reduction_of(red, "HuberLoss"), delta});
           }),
           "reduction"_a = "mean", "delta"_a = 1.0) EMBER_PAIR_FORWARD(nn::HuberLoss, "input", "target");
  loss_class<nn::KLDivLoss>(nn, "KLDivLoss", "torch.nn.KLDivLoss; input holds log-probabilities.")
      .def(py::init([](py::object sa, py::object r, const string& red, bool log_target) {
             return std::make_shared<nn::KLDivLoss>(
                 nn::KLDivLossOptions{reduction_of(legacy_reduction(sa, r, red), "KLDivLoss"), log_target});
           }),
           "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean", "log_target"_a = false)
          EMBER_PAIR_FORWARD(nn::KLDivLoss, "input", "target");
  loss_class<nn::PoissonNLLLoss>(nn, "PoissonNLLLoss", "torch.nn.PoissonNLLLoss.")
      .def(py::init([](bool log_input, bool full, py::object sa, double eps, py::object r, const string& red) {
             return std::make_shared<nn::PoissonNLLLoss>(nn::PoissonNLLLossOptions{
                 log_input, full, eps, reduction_of(legacy_reduction(sa, r, red), "PoissonNLLLoss")});
           }),
           "log_input"_a = true, "full"_a = false, "size_average"_a = none, "eps"_a = 1e-8, "reduce"_a = none,
           "reduction"_a = "mean") EMBER_PAIR_FORWARD(nn::PoissonNLLLoss, "log_input", "target");
  loss_class<nn::GaussianNLLLoss>(nn, "GaussianNLLLoss",
                                  "torch.nn.GaussianNLLLoss, called as loss(input, target, var).")
      .def(py::init([](bool full, double eps, const string& red) {
             return std::make_shared<nn::GaussianNLLLoss>(
                 nn::GaussianNLLLossOptions{full, eps, reduction_of(red, "GaussianNLLLoss")});
           }),
           py::kw_only(), "full"_a = false, "eps"_a = 1e-6, "reduction"_a = "mean")
          EMBER_TRIPLE_FORWARD(nn::GaussianNLLLoss, "input", "target", "var");
  loss_class<nn::MarginRankingLoss>(nn, "MarginRankingLoss", "torch.nn.MarginRankingLoss(margin).")
      .def(py::init([](double margin, py::object sa, py::object r, const string& red) {
             return std::make_shared<nn::MarginRankingLoss>(
                 nn::MarginRankingLossOptions{margin, reduction_of(legacy_reduction(sa, r, red), "MarginRankingLoss")});
           }),
           "margin"_a = 0.0, "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean")
          EMBER_TRIPLE_FORWARD(nn::MarginRankingLoss, "input1", "input2", "target");
  loss_class<nn::HingeEmbeddingLoss>(nn, "HingeEmbeddingLoss", "torch.nn.HingeEmbeddingLoss(margin).")
      .def(py::init([](double margin, py::object sa, py::object r, const string& red) {
             return std::make_shared<nn::HingeEmbeddingLoss>(nn::HingeEmbeddingLossOptions{
                 margin, reduction_of(legacy_reduction(sa, r, red), "HingeEmbeddingLoss")});
           }),
           "margin"_a = 1.0, "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean")
          EMBER_PAIR_FORWARD(nn::HingeEmbeddingLoss, "input", "target");
  loss_class<nn::SoftMarginLoss>(nn, "SoftMarginLoss", "torch.nn.SoftMarginLoss.")
      .def(py::init([](py::object sa, py::object r, const string& red) {
             return std::make_shared<nn::SoftMarginLoss>(
                 nn::SoftMarginLossOptions{reduction_of(legacy_reduction(sa, r, red), "SoftMarginLoss")});
           }),
           "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean")
          EMBER_PAIR_FORWARD(nn::SoftMarginLoss, "input", "target");
  loss_class<nn::MultiLabelSoftMarginLoss>(nn, "MultiLabelSoftMarginLoss", "torch.nn.MultiLabelSoftMarginLoss.")
      .def(py::init([](optional<Tensor> w, py::object sa, py::object r, const string& red) {
             return std::make_shared<nn::MultiLabelSoftMarginLoss>(nn::MultiLabelSoftMarginLossOptions{
                 or_undefined(w), reduction_of(legacy_reduction(sa, r, red), "MultiLabelSoftMarginLoss")});
           }),
           "weight"_a = none, "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean")
          EMBER_PAIR_FORWARD(nn::MultiLabelSoftMarginLoss, "input", "target");
  loss_class<nn::CosineEmbeddingLoss>(nn, "CosineEmbeddingLoss", "torch.nn.CosineEmbeddingLoss(margin).")
      .def(py::init([](double margin, py::object sa, py::object r, const string& red) {
             return std::make_shared<nn::CosineEmbeddingLoss>(nn::CosineEmbeddingLossOptions{
                 margin, reduction_of(legacy_reduction(sa, r, red), "CosineEmbeddingLoss")});
           }),
           "margin"_a = 0.0, "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean")
          EMBER_TRIPLE_FORWARD(nn::CosineEmbeddingLoss, "input1", "input2", "target");
  loss_class<nn::MultiMarginLoss>(nn, "MultiMarginLoss", "torch.nn.MultiMarginLoss(p, margin, weight).")
      .def(py::init([](int64_t p, double margin, optional<Tensor> w, py::object sa, py::object r, const string& red) {
             return std::make_shared<nn::MultiMarginLoss>(nn::MultiMarginLossOptions{
                 p, margin, or_undefined(w), reduction_of(legacy_reduction(sa, r, red), "MultiMarginLoss")});
           }),
           "p"_a = 1, "margin"_a = 1.0, "weight"_a = none, "size_average"_a = none, "reduce"_a = none,
           "reduction"_a = "mean") EMBER_PAIR_FORWARD(nn::MultiMarginLoss, "input", "target");
  loss_class<nn::MultiLabelMarginLoss>(nn, "MultiLabelMarginLoss", "torch.nn.MultiLabelMarginLoss.")
      .def(py::init([](py::object sa, py::object r, const string& red) {
             return std::make_shared<nn::MultiLabelMarginLoss>(
                 nn::MultiLabelMarginLossOptions{reduction_of(legacy_reduction(sa, r, red), "MultiLabelMarginLoss")});
           }),
           "size_average"_a = none, "reduce"_a = none, "reduction"_a = "mean")
          EMBER_PAIR_FORWARD(nn::MultiLabelMarginLoss, "input", "target");
  loss_class<nn::TripletMarginLoss>(nn, "TripletMarginLoss", "torch.nn.TripletMarginLoss(margin, p, eps, swap).")
      .def(py::init([](double margin, double p, double eps, bool swap, py::object sa, py::object r, const string& red) {
             return std::make_shared<nn::TripletMarginLoss>(nn::TripletMarginLossOptions{
                 margin, p, eps, swap, reduction_of(legacy_reduction(sa, r, red), "TripletMarginLoss")});
           }),
           "margin"_a = 1.0, "p"_a = 2.0, "eps"_a = 1e-6, "swap"_a = false, "size_average"_a = none, "reduce"_a = none,
           "reduction"_a = "mean") EMBER_TRIPLE_FORWARD(nn::TripletMarginLoss, "anchor", "positive", "negative");
  loss_class<nn::TripletMarginWithDistanceLoss>(
      nn, "TripletMarginWithDistanceLoss", "torch.nn.TripletMarginWithDistanceLoss(distance_function, margin, swap).")
      .def(py::init([](optional<F::DistanceFunction> d, double margin, bool swap, const string& red) {
             return std::make_shared<nn::TripletMarginWithDistanceLoss>(nn::TripletMarginWithDistanceLossOptions{
                 d.value_or(nullptr), margin, swap, reduction_of(red, "TripletMarginWithDistanceLoss")});
           }),
           py::kw_only(), "distance_function"_a = none, "margin"_a = 1.0, "swap"_a = false, "reduction"_a = "mean")
          EMBER_TRIPLE_FORWARD(nn::TripletMarginWithDistanceLoss, "anchor", "positive", "negative");
  loss_class<nn::CTCLoss>(nn, "CTCLoss", "torch.nn.CTCLoss(blank, reduction, zero_infinity).")
      .def(py::init([](int64_t blank, const string& red, bool zero_infinity) {
             return std::make_shared<nn::CTCLoss>(
                 nn::CTCLossOptions{blank, reduction_of(red, "CTCLoss"), zero_infinity});
           }),
           "blank"_a = 0, "reduction"_a = "mean", "zero_infinity"_a = false)
      .def(
          "forward",
          [](nn::CTCLoss& m, const Tensor& log_probs, const Tensor& targets, py::object input_lengths,
             py::object target_lengths) {
            return F::ctc_loss(log_probs, targets, lengths_of(input_lengths, "ctc_loss: input_lengths"),
                               lengths_of(target_lengths, "ctc_loss: target_lengths"), m.options().blank,
                               m.options().reduction, m.options().zero_infinity);
          },
          "log_probs"_a, "targets"_a, "input_lengths"_a, "target_lengths"_a);
}

#undef EMBER_PAIR_FORWARD
#undef EMBER_TRIPLE_FORWARD

}  // namespace

std::vector<int64_t> lengths_of(const py::handle& values, const char* what) {
  if (py::isinstance<Tensor>(values)) return to_int64_vector(values.cast<const Tensor&>(), what);
  if (PyIndex_Check(values.ptr())) return {values.cast<int64_t>()};
  return values.cast<std::vector<int64_t>>();
}

void bind_losses(py::module_& nn) { bind_loss_modules(nn); }

}  // namespace ember::python
