#include "ember/ops/autocast.h"

#include <memory>
#include <unordered_map>

#include "ember/autograd/autograd_meta.h"
#include "ember/autograd/grad_mode.h"
#include "ember/ops/convert.h"

namespace ember::autocast {
namespace {

// A region's casts of float32 leaf parameters, so a weight used by several ops (or an RNN's steps)
// is converted once. Keyed by the parameter's TensorImpl; the weak pointer tells a live key from a
// freed one whose address was reused, and the version a parameter written in place since (an
// optimizer step inside the region) from an unchanged one.
struct Cached {
  std::weak_ptr<TensorImpl> source;
  uint64_t version = 0;
  Tensor cast;
};
thread_local std::unordered_map<const TensorImpl*, Cached> cache;

void clear() { cache.clear(); }

bool eligible(const Tensor& t, DeviceType type) {
  return t.defined() && t.device().type == type && is_floating(t.dtype()) && t.dtype() != DType::Float64;
}

// PyTorch's heuristic (Apex's): cache the lower-precision casts of float32 model weights. Only in
// grad mode: a cast made under no_grad has no history, and a later use that needs the gradient
// must not get it.
bool cacheable(const Tensor& t) {
  if (!is_cache_enabled() || !autograd::GradMode::is_enabled()) return false;
  if (t.dtype() != DType::Float32 || !t.requires_grad() || !t.is_leaf()) return false;
  const auto* meta = autograd::meta_of(t);
  return meta == nullptr || !meta->is_view();
}

Tensor cached_cast(const Tensor& t, DType to) {
  auto it = cache.find(t.impl_ptr().get());
  if (it != cache.end() && it->second.source.lock() == t.impl_ptr() && it->second.version == t.version())
    return it->second.cast;
  // NB: core clears the cache through a hook, as core cannot see this layer
  set_clear_cache_hook(&clear);
  Tensor cast = ember::to(t, to);
  cache[t.impl_ptr().get()] = Cached{t.impl_ptr(), t.version(), cast};
  return cast;
}

}  // namespace

bool engaged(const Tensor& t) { return t.defined() && is_enabled(t.device().type); }

bool applies(std::string_view op, const Tensor& first) {
  return engaged(first) && policy(op, first.device().type) != Policy::none;
}

bool applies(std::string_view op, const std::vector<Tensor>& tensors) {
  return !tensors.empty() && applies(op, tensors.front());
}

Cast::Cast(std::string_view op, DeviceType type, const std::vector<const Tensor*>& inputs)
    : type_(type), policy_(policy(op, type)) {
  const DType lower = dtype(type);
  if (policy_ == Policy::lower) to_ = lower;
  if (policy_ == Policy::state) {
    const Tensor* state = inputs.size() > 1 && inputs[1]->defined() ? inputs[1] : inputs.front();
    if (!eligible(*state, type)) {
      policy_ = Policy::none;  // a float64 state: the op's own dtype checks speak
      return;
    }
    to_ = state->dtype() == lower ? lower : DType::Float32;
  }
  if (policy_ != Policy::promote) return;
  // the widest eligible input: float32 over the region's 16-bit dtype (float64 is not eligible,
  // and the op's own promotion then takes it)
  to_ = lower;
  for (const Tensor* t : inputs) {
    if (!eligible(*t, type) || t->dtype() == lower) continue;
    EMBER_CHECK_TYPE(t->dtype() == DType::Float32, op, " under autocast to ", lower, ": an input of dtype ",
                     t->dtype(), " mixes two 16-bit dtypes; convert it to ", lower, " or float32 first");
    to_ = DType::Float32;
  }
}

Tensor Cast::operator()(const Tensor& t) const {
  if (policy_ == Policy::none || policy_ == Policy::keep || !eligible(t, type_) || t.dtype() == to_) return t;
  if (policy_ == Policy::lower && cacheable(t)) return cached_cast(t, to_);
  return ember::to(t, to_);
}

std::vector<Tensor> Cast::operator()(const std::vector<Tensor>& ts) const {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back((*this)(t));
  return out;
}

}  // namespace ember::autocast
