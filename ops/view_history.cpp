// The two nodes that make views and in-place writes differentiable (autograd/record.h registers
// and calls them; they are built from index ops, which autograd cannot name):
//   AsStridedBackward: a view's history rebuilt from its base's after an in-place write, and the
//     history of the as_strided op, which is defined here for that reason;
//   CopySlices: the base's history after an in-place write into one of its views.
// Both work in storage positions, so any pair of layouts (slices with steps, transposes, views of
// views) is handled the same way: element i of a layout is storage position positions(layout)[i].
// Where a complex tensor is involved (a slice of one, or view_as_real / .real / .imag of one), both
// layouts and the gradients are taken in real units, a complex element being its (real, imaginary)
// pair: that covers views that change the dtype, and the index ops need no complex kernels.
#include <algorithm>
#include <utility>
#include <vector>

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/binary.h"
#include "ember/ops/index.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

using autograd::Edge;
using autograd::Node;
using autograd::TensorList;

struct Layout {
  DimVector sizes, strides;
  int64_t offset = 0;

  explicit Layout(const Tensor& t) : sizes(t.sizes().vec()), strides(t.strides().vec()), offset(t.storage_offset()) {}
  // t's layout in real units where `pairs` (ops/view.cpp's view_as_real layout for a complex t).
  Layout(const Tensor& t, bool pairs) : Layout(pairs && is_complex(t.dtype()) ? pair_view(t) : t) {}
  static Tensor pair_view(const Tensor& t) {
    autograd::NoGradGuard no_grad;
    return view_as_real(t);
  }
  Layout(DimVector sizes_, DimVector strides_, int64_t offset_)
      : sizes(std::move(sizes_)), strides(std::move(strides_)), offset(offset_) {}
  // One past the last storage position the layout reaches (its offset when it is empty).
  // Whether two elements may share a storage position (an expand's stride 0, as_strided's windows
  // that overlap): checked as PyTorch does, on the dims sorted by stride.
  bool may_overlap() const {
    std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of the dims with size > 1
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] == 0) return false;
      if (sizes[d] > 1) dims.emplace_back(strides[d], sizes[d]);
    }
    std::sort(dims.begin(), dims.end());
    int64_t reach = 0;  // the furthest position the smaller-stride dims reach from one element
    for (const auto& [stride, size] : dims) {
      if (stride <= reach) return true;
      reach += (size - 1) * stride;
    }
    return false;
  }
  int64_t end() const {
    int64_t last = offset;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] == 0) return offset;
      last += (sizes[d] - 1) * strides[d];
    }
    return last + 1;
  }
};

// Storage position of each element of `layout`, flattened in row-major order.
Tensor positions(const Layout& layout, int64_t extent, Device device) {
  Tensor all = arange(extent, TensorOptions(kInt64).device(device));
  return contiguous_data(as_strided_data(all, layout.sizes, layout.strides, layout.offset))
      .reshape({-1});
}

// Base and view over one storage, and the positions both reach.
struct Geometry {
  bool pairs;
  Layout base, view;
  int64_t extent;
  bool base_complex, view_complex;
  Geometry(const Tensor& b, const Tensor& v)
      : pairs(is_complex(b.dtype()) || is_complex(v.dtype())),
        base(b, pairs),
        view(v, pairs),
        extent(std::max(base.end(), view.end())),
        base_complex(is_complex(b.dtype())),
        view_complex(is_complex(v.dtype())) {}
  // A gradient in the geometry's units, and one of them back as the gradient of a complex tensor.
  static Tensor in_units(const Tensor& g) { return is_complex(g.dtype()) ? view_as_real(g) : g; }
  static Tensor from_units(const Tensor& g, bool complex) { return complex ? view_as_complex(contiguous(g)) : g; }
  // The base's gradient laid out in storage positions (zeros where the base does not reach).
  Tensor scatter_base(const Tensor& grad) const {
    const Tensor g = in_units(grad);
    Tensor flat = zeros({extent}, g.options());
    return index_add(flat, 0, positions(base, extent, g.device()), g.reshape({-1}));
  }
  Tensor gather(const Tensor& flat, const Layout& layout) const {
    return index_select(flat, 0, positions(layout, extent, flat.device())).reshape(layout.sizes);
  }
};

// d(view)/d(base): the view's gradient added at its positions, read back in the base's layout.
// Where base elements share a position (an as_strided of an expanded tensor), each gets an equal
// share, as in PyTorch: otherwise the expand's backward would sum the whole gradient once per copy.
struct AsStridedBackward : Node {
  explicit AsStridedBackward(Geometry g) : geometry(std::move(g)) {}
  Geometry geometry;
  const char* name() const override { return "AsStridedBackward"; }
  TensorList apply(TensorList&& g) override {
    const Tensor grad = Geometry::in_units(g[0]);
    Tensor flat = zeros({geometry.extent}, grad.options());
    flat = index_add(flat, 0, positions(geometry.view, geometry.extent, grad.device()), grad.reshape({-1}));
    if (geometry.base.may_overlap()) {
      Tensor copies = zeros({geometry.extent}, grad.options());
      Tensor at = positions(geometry.base, geometry.extent, grad.device());
      copies = index_add(copies, 0, at, ones({at.numel()}, grad.options()));
      // NB: positions the base does not reach count 0 and are never read back.
      flat = flat / copies;
    }
    return {Geometry::from_units(geometry.gather(flat, geometry.base), geometry.base_complex)};
  }
};

// base' = base with the view's positions replaced by f(view, ...): the base's gradient goes to
// its old history outside the view and, inside it, to f (whose own inputs include the old view).
struct CopySlices : Node {
  explicit CopySlices(Geometry g) : geometry(std::move(g)) {}
  Geometry geometry;
  const char* name() const override { return "CopySlices"; }
  TensorList apply(TensorList&& g) override {
    Tensor flat = geometry.scatter_base(g[0]);
    Tensor to_result = Geometry::from_units(geometry.gather(flat, geometry.view), geometry.view_complex);
    Tensor to_base;
    if (needs_input_grad(0)) {
      Tensor written = zeros({geometry.extent}, TensorOptions(kBool).device(flat.device()));
      fill_data(as_strided_data(written, geometry.view.sizes, geometry.view.strides, geometry.view.offset), true);
      to_base =
          Geometry::from_units(geometry.gather(masked_fill(flat, written, 0), geometry.base), geometry.base_complex);
    }
    return {to_base, to_result};
  }
};

std::shared_ptr<Node> as_strided_node(const Tensor& base, const Tensor& view) {
  auto node = std::make_shared<AsStridedBackward>(Geometry(base, view));
  node->add_next_edge(autograd::gradient_edge(base));
  return node;
}

std::shared_ptr<Node> copy_slices_node(const Tensor& base, const Tensor& view, const Edge& result) {
  auto node = std::make_shared<CopySlices>(Geometry(base, view));
  node->add_next_edge(autograd::gradient_edge(base));
  node->add_next_edge(result);
  return node;
}

// NB: registered when libember loads, before any user code can make a view.
const bool registered = [] {
  autograd::register_view_nodes({&as_strided_node, &copy_slices_node});
  return true;
}();

}  // namespace

Tensor impl_as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                       std::optional<int64_t> storage_offset) {
  EMBER_CHECK_VALUE(size.size() == stride.size(), "as_strided: mismatch in length of strides and shape: ", size,
                    " and ", stride);
  for (size_t d = 0; d < size.size(); ++d) {
    EMBER_CHECK_VALUE(size[d] >= 0, "as_strided: negative size ", size[d], " in ", size);
    EMBER_CHECK_VALUE(stride[d] >= 0, "as_strided: negative strides are not supported, got strides ", stride);
  }
  const int64_t offset = storage_offset.value_or(self.storage_offset());
  EMBER_CHECK_VALUE(offset >= 0, "as_strided: negative storage offset ", offset);
  const Layout layout(DimVector(size.begin(), size.end()), DimVector(stride.begin(), stride.end()), offset);
  const auto held = static_cast<int64_t>(self.impl().storage()->nbytes() / itemsize(self.dtype()));
  EMBER_CHECK_VALUE(layout.end() <= held, "as_strided: sizes ", size, ", strides ", stride, " and storage offset ",
                    offset, " reach element ", layout.end() - 1, " of a storage of ", held, " elements");
  Tensor out = as_strided_data(self, size, stride, offset);
  autograd::set_view_history(self, out, autograd::any_requires_grad(self) ? as_strided_node(self, out) : nullptr);
  return out;
}

}  // namespace ember
