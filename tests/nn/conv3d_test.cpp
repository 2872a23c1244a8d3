// conv3d, conv_transpose1d and conv_transpose3d (nn/conv_functional.h) and their layers: conv3d
// against a direct loop over every output and tap, the transposed ones as the adjoints of the
// forward convolutions (<conv(x), y> = <x, conv_transpose(y)>), gradients against finite
// differences, the padding modes and names, and the layers' printouts.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/tensors.h"

using namespace ember;
namespace F = ember::nn::functional;
using autograd::gradcheck;
using ember::testing::at;
using ember::testing::expect_close;
using ember::testing::expect_error;
using ember::testing::seeded_randn;

namespace {

// The 3-D cross-correlation by its definition.
Tensor conv3d_loops(const Tensor& x, const Tensor& w, const Tensor& b, Size3 s, Size3 p, Size3 d, int64_t groups) {
  const int64_t n = x.size(0), c = x.size(1), in[3] = {x.size(2), x.size(3), x.size(4)};
  const int64_t o = w.size(0), cg = w.size(1), k[3] = {w.size(2), w.size(3), w.size(4)};
  int64_t out[3];
  for (int i = 0; i < 3; ++i) out[i] = (in[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) / s[i] + 1;
  Tensor y = zeros({n, o, out[0], out[1], out[2]}, kFloat64);
  Tensor xc = x.contiguous(), wc = w.contiguous();
  const double *xp = xc.data_ptr<double>(), *wp = wc.data_ptr<double>();
  double* yp = y.data_ptr<double>();
  for (int64_t b0 = 0; b0 < n; ++b0)
    for (int64_t oc = 0; oc < o; ++oc) {
      const int64_t g = oc / (o / groups);
      for (int64_t z = 0; z < out[0]; ++z)
        for (int64_t r = 0; r < out[1]; ++r)
          for (int64_t q = 0; q < out[2]; ++q) {
            double acc = b.defined() ? at(b, {oc}) : 0.0;
            for (int64_t ic = 0; ic < cg; ++ic)
              for (int64_t i = 0; i < k[0]; ++i)
                for (int64_t j = 0; j < k[1]; ++j)
                  for (int64_t l = 0; l < k[2]; ++l) {
                    const int64_t zz = z * s.d - p.d + i * d.d, rr = r * s.h - p.h + j * d.h,
                                  qq = q * s.w - p.w + l * d.w;
                    if (zz < 0 || rr < 0 || qq < 0 || zz >= in[0] || rr >= in[1] || qq >= in[2]) continue;
                    acc += xp[(((b0 * c + g * cg + ic) * in[0] + zz) * in[1] + rr) * in[2] + qq] *
                           wp[(((oc * cg + ic) * k[0] + i) * k[1] + j) * k[2] + l];
                  }
            yp[(((b0 * o + oc) * out[0] + z) * out[1] + r) * out[2] + q] = acc;
          }
    }
  return y;
}

double inner(const Tensor& a, const Tensor& b) { return sum(a * b).item<double>(); }

}  // namespace

TEST(Conv3dTest, MatchesTheDefinition) {
  struct Case {
    std::vector<int64_t> x, w;
    Size3 s, p, d;
    int64_t groups;
  };
  for (const Case& c :
       {Case{{2, 2, 4, 5, 6}, {3, 2, 3, 3, 3}, 1, 0, 1, 1}, Case{{2, 3, 6, 5, 7}, {5, 3, 3, 2, 3}, 2, 1, 1, 1},
        Case{{1, 2, 7, 8, 6}, {3, 2, 2, 3, 2}, {1, 2, 3}, {2, 0, 1}, {2, 1, 2}, 1},
        Case{{2, 4, 4, 4, 4}, {6, 2, 3, 3, 3}, 1, 1, 1, 2}, Case{{1, 6, 5, 4, 6}, {6, 1, 3, 2, 3}, 1, 0, 1, 6}}) {
    Tensor x = seeded_randn(c.x, 1), w = seeded_randn(c.w, 2), b = seeded_randn({c.w[0]}, 3);
    expect_close(F::conv3d(x, w, b, c.s, c.p, c.d, c.groups), conv3d_loops(x, w, b, c.s, c.p, c.d, c.groups), 1e-10,
                 1e-10);
  }
  // unbatched, and padding by name
  Tensor x = seeded_randn({2, 4, 5, 6}, 4), w = seeded_randn({3, 2, 2, 3, 3}, 5);
  Tensor same = F::conv3d(x, w, Tensor(), 1, PaddingRule::Same);
  EXPECT_EQ(same.sizes(), IntArrayRef({3, 4, 5, 6}));
  // "same" with an even kernel puts the odd unit after, as PyTorch's
  Tensor padded = pad(x.unsqueeze(0), {1, 1, 1, 1, 0, 1});
  expect_close(same, conv3d_loops(padded, w, Tensor(), 1, 0, 1, 1).squeeze(0), 1e-10, 1e-10);
}

TEST(Conv3dTest, TransposedConvolutionsAreTheAdjoints) {
  // <conv3d(x, w), y> = <x, conv_transpose3d(y, w)>, for strides, padding, dilation and groups
  Tensor x = seeded_randn({2, 4, 5, 6, 7}, 6), w = seeded_randn({4, 3, 3, 2, 3}, 7);  // conv3d weight [O=4, C/g=..]
  for (int64_t groups : {1, 2}) {
    Tensor wg = seeded_randn({4, 4 / groups, 3, 2, 3}, 8);
    const Size3 s{2, 1, 3}, p{1, 0, 1}, d{1, 2, 1};
    Tensor y0 = F::conv3d(x, wg, Tensor(), s, p, d, groups);
    Tensor y = seeded_randn(y0.sizes().std_vec(), 9);
    // output_padding makes the transposed output the input's size again
    Size3 op(0);
    std::vector<int64_t> extra;
    for (int i = 0; i < 3; ++i)
      extra.push_back(x.size(2 + i) - ((y.size(2 + i) - 1) * s[i] - 2 * p[i] + d[i] * (wg.size(2 + i) - 1) + 1));
    op = Size3(extra[0], extra[1], extra[2]);
    Tensor xt = F::conv_transpose3d(y, wg, Tensor(), s, p, op, groups, d);
    ASSERT_EQ(xt.sizes(), x.sizes());
    EXPECT_NEAR(inner(y0, y), inner(x, xt), 1e-9 * std::abs(inner(y0, y)));
  }
  // conv_transpose1d against conv1d
  Tensor a = seeded_randn({2, 4, 11}, 10), k = seeded_randn({6, 2, 3}, 11);
  Tensor fa = conv1d(a, k, Tensor(), 2, 1, 2, 2);
  Tensor v = seeded_randn(fa.sizes().std_vec(), 12);
  Tensor at = F::conv_transpose1d(v, k, Tensor(), 2, 1, 0, 2, 2);
  ASSERT_EQ(at.sizes(), a.sizes());
  EXPECT_NEAR(inner(fa, v), inner(a, at), 1e-9 * std::abs(inner(fa, v)));
  // the bias adds per output channel
  Tensor bias = seeded_randn({3}, 13);
  Tensor wt = seeded_randn({4, 3, 2, 2, 2}, 14), yy = seeded_randn({1, 4, 3, 3, 3}, 15);
  expect_close(F::conv_transpose3d(yy, wt, bias) - F::conv_transpose3d(yy, wt),
               bias.reshape({1, 3, 1, 1, 1}).expand({1, 3, 4, 4, 4}), 1e-12, 1e-12);
}

TEST(Conv3dTest, GradientsMatchFiniteDifferences) {
  Tensor x = seeded_randn({1, 2, 4, 3, 4}, 20).set_requires_grad(),
         w = seeded_randn({2, 1, 2, 2, 2}, 21).set_requires_grad(), b = seeded_randn({2}, 22).set_requires_grad();
  gradcheck(
      [](const autograd::TensorList& in) {
        return F::conv3d(in[0], in[1], in[2], {2, 1, 1}, 1, 1, 2);
      },
      {x, w, b});
  Tensor y = seeded_randn({1, 2, 3, 2, 3}, 23).set_requires_grad(),
         wt = seeded_randn({2, 2, 2, 2, 2}, 24).set_requires_grad();
  gradcheck(
      [](const autograd::TensorList& in) {
        return F::conv_transpose3d(in[0], in[1], in[2], 2, {1, 0, 0}, {1, 0, 1});
      },
      {y, wt, seeded_randn({2}, 25).set_requires_grad()});
  Tensor r = seeded_randn({2, 2, 5}, 26).set_requires_grad(), k = seeded_randn({2, 3, 3}, 27).set_requires_grad();
  gradcheck([](const autograd::TensorList& in) { return F::conv_transpose1d(in[0], in[1], Tensor(), 2, 1, 1); },
            {r, k});
}

TEST(Conv3dTest, LayersPadPrintAndCheck) {
  manual_seed(30);
  nn::Conv3d conv({.in_channels = 2, .out_channels = 3, .kernel_size = 3, .padding = 1, .padding_mode = "reflect"});
  EXPECT_EQ(conv.weight().sizes(), IntArrayRef({3, 2, 3, 3, 3}));
  Tensor x = randn({1, 2, 4, 5, 6});
  expect_close(conv.forward(x), F::conv3d(pad(x, {1, 1, 1, 1, 1, 1}, "reflect"), conv.weight(), conv.bias()), 1e-6,
               1e-6);
  EXPECT_EQ(conv.extra_repr(),
            "2, 3, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1), "
            "padding_mode=reflect");
  nn::ConvTranspose3d up({.in_channels = 3, .out_channels = 2, .kernel_size = 2, .stride = 2});
  Tensor u = up.forward(randn({1, 3, 2, 3, 4}));
  EXPECT_EQ(u.sizes(), IntArrayRef({1, 2, 4, 6, 8}));
  EXPECT_EQ(up.forward(randn({1, 3, 2, 3, 4}), {5, 7, 9}).sizes(), IntArrayRef({1, 2, 5, 7, 9}));
  expect_error<ValueError>(
      [&] {
        up.forward(randn({1, 3, 2, 3, 4}), {6, 7, 9});
      },
      {"ConvTranspose3d", "requested an output size of [6, 7, 9]", "[4, 6, 8] to [5, 7, 9]"});
  EXPECT_EQ(up.extra_repr(), "3, 2, kernel_size=(2, 2, 2), stride=(2, 2, 2)");
  nn::ConvTranspose1d t1({.in_channels = 2, .out_channels = 4, .kernel_size = 3, .stride = 2, .groups = 2});
  EXPECT_EQ(t1.weight().sizes(), IntArrayRef({2, 2, 3}));
  EXPECT_EQ(t1.forward(randn({2, 2, 5}), {12}).sizes(), IntArrayRef({2, 4, 12}));
  EXPECT_EQ(t1.extra_repr(), "2, 4, kernel_size=(3,), stride=(2,), groups=2");
  expect_error<Error>(
      [] {
        F::conv3d(ones({1, 3, 4, 4, 4}), ones({2, 2, 1, 1, 1}));
      },
      {"expected input[1, 3, 4, 4, 4] to have 2 channels"});
  expect_error<Error>(
      [] {
        F::conv3d(ones({1, 2, 2, 2, 2}), ones({2, 2, 3, 3, 3}));
      },
      {"Kernel size can't be greater than actual input size"});
  expect_error<Error>(
      [] {
        F::conv_transpose3d(ones({1, 2, 2, 2, 2}), ones({2, 1, 2, 2, 2}), Tensor(), 1, 0, 1);
      },
      {"output padding must be smaller than either stride or dilation"});
}
