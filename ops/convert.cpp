#include "ember/ops/convert.h"

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/warning.h"

namespace ember {

using autograd::TensorList;

namespace {

// d(clone)/dx = grad
struct CloneBackward : autograd::Node {
  const char* name() const override { return "CloneBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0]}; }
};

// d(to)/dx = grad converted back to the input's dtype and device
struct ToBackward : autograd::Node {
  DType dtype = kFloat32;
  Device device;
  const char* name() const override { return "ToBackward"; }
  TensorList apply(TensorList&& g) override { return {to(to(g[0], device), dtype)}; }
};

Tensor convert(const Tensor& t, DType dtype, Device device) {
  if (is_complex(t.dtype()) && !is_complex(dtype) && dtype != kBool)
    warn(detail::str("to: casting ", t.dtype(), " to ", dtype, " discards the imaginary part"));
  Tensor out = copy_as(t, dtype, device);
  if (autograd::any_requires_grad(t)) {
    if (is_floating(dtype)) {
      auto node = autograd::make_node<ToBackward>(t);
      node->dtype = t.dtype();
      node->device = t.device();
      autograd::set_history(out, node);
    }
  }
  return out;
}

}  // namespace

Tensor impl_clone(const Tensor& t) {
  Tensor out = copy_as(t, t.dtype(), t.device());
  if (autograd::any_requires_grad(t)) autograd::set_history(out, autograd::make_node<CloneBackward>(t));
  return out;
}

Tensor impl_to(const Tensor& t, DType dtype) { return t.dtype() == dtype ? t : convert(t, dtype, t.device()); }
Tensor impl_to(const Tensor& t, Device device) { return t.device() == device ? t : convert(t, t.dtype(), device); }

std::vector<int64_t> to_int64_vector(const Tensor& t, const char* what) {
  EMBER_CHECK_TYPE(!is_floating(t.dtype()), what, " must hold integers, got ", t.dtype());
  Tensor flat = t.detach().reshape({-1}).to(kInt64).to(Device()).contiguous();
  const int64_t* p = flat.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + flat.numel());
}

}  // namespace ember
