#pragma once
// Autocast's per-op policy and its casts. An op on one of PyTorch's lists (ops/autocast_policy.cpp,
// per device type) starts with
//
//   if (autocast::applies("matmul", a))
//     return autocast::run("matmul", {a, b}, [&](const autocast::Cast& cast) { return matmul(cast(a), cast(b)); });
//
// run() casts the eligible inputs (floating, not float64, on the region's device type) by the policy
// and calls the op again with autocast suspended, so the op's own inner ops keep the dtypes it chose:
//   lower    to the region's 16-bit dtype; a float32 leaf parameter is cast once per region (cached)
//   fp32     to float32 (losses, linear algebra, and on CUDA exp, softmax, sum, norms, ...)
//   promote  to the widest of them (float32 wins over 16 bits)
//   keep     no cast, and none inside: composites (dot, mv, pad) whose PyTorch kernel is off the lists
//   state    a recurrent op (CPU GRU, LSTM and GRU cells): all in the state's dtype promoted with the
//            16-bit one, the dtype PyTorch's result has; the state is the second tensor of the inputs
// The casts are recorded by autograd, so a float32 parameter's gradient comes back in float32.
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/core/autocast.h"
#include "ember/core/tensor.h"

namespace ember::autocast {

enum class Policy : uint8_t { none, lower, fp32, promote, keep, state };

/// `op`'s policy on `type` (Ember's op names: "linear", "conv2d", "cross_entropy", ...); `none` for
/// an op on neither list.
Policy policy(std::string_view op, DeviceType type);
/// Every op name on a list (for tests and the Python binding).
std::vector<std::string> policy_names();

/// Whether autocast is on for `t`'s device type (t undefined: false). The op's first tensor decides.
bool engaged(const Tensor& t);
/// engaged(first) and `op` is on a list of first's device type: an op's first line asks this.
bool applies(std::string_view op, const Tensor& first);
bool applies(std::string_view op, const std::vector<Tensor>& tensors);

using Inputs = std::initializer_list<std::reference_wrapper<const Tensor>>;

/// The casts one call of `op` makes: constructed from all its tensor inputs (the promote policy
/// looks at each), applied to each argument in turn.
class Cast {
 public:
  Cast(std::string_view op, DeviceType type, const std::vector<const Tensor*>& inputs);
  Tensor operator()(const Tensor& t) const;
  std::vector<Tensor> operator()(const std::vector<Tensor>& ts) const;
  DeviceType device_type() const { return type_; }

 private:
  DeviceType type_;
  Policy policy_ = Policy::none;
  DType to_ = DType::Float32;
};

/// body(cast) with autocast suspended for the op's device type (see the top of this file); the
/// first input decides the device type.
template <class Body>
auto run_over(std::string_view op, const std::vector<const Tensor*>& inputs, Body&& body) {
  Cast cast(op, inputs.front()->device().type, inputs);
  Suspend off(cast.device_type());
  return body(cast);
}

template <class Body>
auto run(std::string_view op, Inputs inputs, Body&& body) {
  std::vector<const Tensor*> all;
  for (const Tensor& t : inputs) all.push_back(&t);
  return run_over(op, all, std::forward<Body>(body));
}

/// The form for ops whose tensors come in a list (cat, stack, einsum).
template <class Body>
auto run(std::string_view op, const std::vector<Tensor>& inputs, Body&& body) {
  std::vector<const Tensor*> all;
  for (const Tensor& t : inputs) all.push_back(&t);
  return run_over(op, all, std::forward<Body>(body));
}

}  // namespace ember::autocast
