#include "ember/io/snapshot.h"

#include <unordered_map>

#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"

namespace ember::io {
namespace {

struct Copier {
  explicit Copier(std::vector<Tensor>& b) : buffers(b) {}
  std::vector<Tensor>& buffers;
  size_t next = 0;
  std::unordered_map<const TensorImpl*, Tensor> copies;  // a tie maps to one copy

  Tensor copy(const Tensor& t) {
    if (!t.defined()) return t;
    auto [it, fresh] = copies.emplace(&t.impl(), Tensor());
    if (!fresh) return it->second;
    if (next == buffers.size()) buffers.emplace_back();
    Tensor& buffer = buffers[next++];
    if (!buffer.defined() || buffer.dtype() != t.dtype() || buffer.numel() != t.numel())
      buffer = empty({t.numel()}, TensorOptions(t.dtype()));
    // NB: a new handle on the buffer's storage carries this copy's flags and attributes, so the
    // buffer itself never requires grad (it is written in place at every take()).
    Tensor out = buffer.view(t.sizes());
    out.copy_(t);
    out = out.detach();
    if (t.requires_grad()) out.set_requires_grad(true);
    if (const Attributes* attributes = t.impl().attributes_if_any()) out.attributes() = *attributes;
    it->second = out;
    return out;
  }

  Value copy(const Value& v) {
    if (v.is_tensor()) return Value(copy(v.as_tensor()), v.tensor_kind(), v.persistent());
    if (!v.is_list() && !v.is_tuple() && !v.is_dict()) return v;
    Value out = v;  // the structure, keys and scalars; tensor leaves replaced below
    for (size_t i = 0; i < v.items().size(); ++i) out.items()[i] = copy(v.items()[i]);
    return out;
  }
};

}  // namespace

Value Snapshot::take(const Value& value) {
  NoGradGuard no_grad;
  Copier copier(buffers_);
  Value out = copier.copy(value);
  buffers_.resize(copier.next);  // a smaller tree frees what it no longer needs
  return out;
}

size_t Snapshot::bytes() const {
  size_t total = 0;
  for (const Tensor& b : buffers_) total += b.nbytes();
  return total;
}

}  // namespace ember::io
