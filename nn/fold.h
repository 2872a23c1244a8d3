#pragma once
// unfold (im2col) and fold (col2im, its adjoint) as torch.nn.functional's, and their layers. unfold
// is an index_select over the flattened, padded planes and fold an index_add, so their gradients
// are each other.
#include "ember/core/size2.h"
#include "ember/nn/layer_with.h"

namespace ember::nn {
namespace functional {

/// [N, C, H, W] (or [C, H, W]) -> [N, C kH kW, L]: every kH x kW window (dilated, strided, over the
/// zero-padded input) as a column, ordered (c, ki, kj), the L windows row by row.
Tensor unfold(const Tensor& input, Size2 kernel_size, Size2 dilation = 1, Size2 padding = 0, Size2 stride = 1);
/// [N, C kH kW, L] (or [C kH kW, L]) columns summed back into [N, C, output_size]: overlapping
/// window elements add up.
Tensor fold(const Tensor& input, Size2 output_size, Size2 kernel_size, Size2 dilation = 1, Size2 padding = 0,
            Size2 stride = 1);

}  // namespace functional

struct UnfoldOptions {
  Size2 kernel_size;
  Size2 dilation = 1;
  Size2 padding = 0;
  Size2 stride = 1;
  static constexpr auto fields() {
    return std::make_tuple(field("kernel_size", &UnfoldOptions::kernel_size),
                           field("dilation", &UnfoldOptions::dilation), field("padding", &UnfoldOptions::padding),
                           field("stride", &UnfoldOptions::stride));
  }
};
struct FoldOptions {
  Size2 output_size;
  Size2 kernel_size;
  Size2 dilation = 1;
  Size2 padding = 0;
  Size2 stride = 1;
  static constexpr auto fields() {
    return std::make_tuple(field("output_size", &FoldOptions::output_size),
                           field("kernel_size", &FoldOptions::kernel_size), field("dilation", &FoldOptions::dilation),
                           field("padding", &FoldOptions::padding), field("stride", &FoldOptions::stride));
  }
};

class Unfold : public LayerWith<UnfoldOptions> {
 public:
  explicit Unfold(UnfoldOptions options) : LayerWith("Unfold", options) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
};
class Fold : public LayerWith<FoldOptions> {
 public:
  explicit Fold(FoldOptions options) : LayerWith("Fold", options) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
};

}  // namespace ember::nn
