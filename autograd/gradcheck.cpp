#include "ember/autograd/gradcheck.h"

#include <cmath>

#include "ember/autograd/engine.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"

namespace ember::autograd {
namespace {

// Address of logical element `index` (row-major) of t, which may be a strided view.
double* element(const Tensor& t, int64_t index) {
  int64_t offset = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    int64_t size = t.size(d);
    offset += (index % size) * t.stride(d);
    index /= size;
  }
  return static_cast<double*>(t.data_ptr()) + offset;
}

std::vector<double> values(const Tensor& t) { return t.detach().to_vector<double>(); }

}  // namespace

void gradcheck(const TensorFunction& fn, const TensorList& inputs, GradcheckOptions options) {
  TensorList wrt;
  std::vector<size_t> wrt_index;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined() || !inputs[i].requires_grad()) continue;
    EMBER_CHECK_TYPE(inputs[i].dtype() == kFloat64, "gradcheck: input ", i, " is ",
                     inputs[i].dtype(), "; use float64 inputs");
    wrt.push_back(inputs[i]);
    wrt_index.push_back(i);
  }
  EMBER_CHECK_VALUE(!wrt.empty(), "gradcheck: no input requires grad");
  Tensor out = fn(inputs);
  EMBER_CHECK_TYPE(out.dtype() == kFloat64, "gradcheck: output is ", out.dtype(), "; expected float64");
  const int64_t n_out = out.numel();

  // Analytic Jacobian, one row per output element. An output that does not require grad is constant
  // in the inputs as far as autograd knows (the first gradient of neg, in gradgradcheck): its
  // Jacobian is zero, which the finite differences must then confirm.
  std::vector<std::vector<std::vector<double>>> analytic(wrt.size());
  for (int64_t k = 0; k < n_out; ++k) {
    Tensor onehot = zeros(out.sizes(), kFloat64);
    static_cast<double*>(onehot.data_ptr())[k] = 1.0;
    TensorList grads = out.requires_grad()
                           ? grad({out}, wrt, {onehot}, /*retain_graph=*/true, false, /*allow_unused=*/true)
                           : TensorList(wrt.size());
    for (size_t i = 0; i < wrt.size(); ++i) {
      analytic[i].push_back(grads[i].defined() ? values(grads[i])
                                               : std::vector<double>(static_cast<size_t>(wrt[i].numel()), 0.0));
      EMBER_CHECK(!grads[i].defined() || grads[i].sizes() == wrt[i].sizes(), "gradcheck: gradient of input ",
                  wrt_index[i], " has shape ", grads[i].sizes(), ", input has ", wrt[i].sizes());
    }
  }

  // Numeric Jacobian, one column per input element, compared as it is built.
  NoGradGuard no_grad;
  for (size_t i = 0; i < wrt.size(); ++i) {
    for (int64_t j = 0; j < wrt[i].numel(); ++j) {
      double* x = element(wrt[i], j);
      double orig = *x;
      *x = orig + options.eps;
      std::vector<double> plus = values(fn(inputs));
      *x = orig - options.eps;
      std::vector<double> minus = values(fn(inputs));
      *x = orig;
      for (int64_t k = 0; k < n_out; ++k) {
        double numeric = (plus[static_cast<size_t>(k)] - minus[static_cast<size_t>(k)]) / (2 * options.eps);
        double a = analytic[i][static_cast<size_t>(k)][static_cast<size_t>(j)];
        bool ok = std::fabs(a - numeric) <= options.atol + options.rtol * std::fabs(numeric);
        EMBER_CHECK(ok || (std::isnan(a) && std::isnan(numeric)), "gradcheck: mismatch for input ",
                    wrt_index[i], " element ", j, ", output element ", k, ": analytic ", a,
                    ", numeric ", numeric);
      }
    }
  }
}

void gradgradcheck(const TensorFunction& fn, const TensorList& inputs, GradcheckOptions options) {
  Generator gen(1234);
  Tensor out = fn(inputs);
  Tensor weight = randn(out.sizes(), kFloat64, &gen);
  std::vector<Tensor> projections;
  for (const Tensor& t : inputs)
    projections.push_back(t.defined() && t.requires_grad() ? randn(t.sizes(), kFloat64, &gen) : Tensor());
  auto first_grads = [&](const TensorList& xs) {
    // NB: gradcheck evaluates this under NoGradGuard for its finite differences; the first
    // gradients still need their graph.
    AutoGradMode grad_on(true);
    TensorList wrt;
    std::vector<size_t> idx;
    for (size_t i = 0; i < xs.size(); ++i)
      if (xs[i].defined() && xs[i].requires_grad()) {
        wrt.push_back(xs[i]);
        idx.push_back(i);
      }
    Tensor y = fn(xs);
    TensorList g = grad({y}, wrt, {weight}, true, /*create_graph=*/true, /*allow_unused=*/true);
    Tensor total = zeros({}, kFloat64);
    for (size_t i = 0; i < g.size(); ++i)
      if (g[i].defined()) total = total.add(g[i].mul(projections[idx[i]]).sum());
    return total;
  };
  gradcheck(first_grads, inputs, options);
}

}  // namespace ember::autograd
