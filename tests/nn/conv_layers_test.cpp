// The convolution, normalisation, resampling and padding layers and ops against PyTorch's outputs
// and gradients for the same weights and inputs (tests/fixtures/conv.json, written by
// tests/fixtures/make_conv_fixtures.py), and the layers' own behaviour: options, repr, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/fixture.h"
#include "support/layer_check.h"

using namespace ember;
using ember::testing::expect_close;
using ember::testing::expect_error;
using ember::testing::FixtureCase;
using ember::testing::LayerForward;

namespace {

// float32 on both sides: a weight gradient sums a few hundred products, whose rounding differs
// between the libraries by a few 1e-6 where the terms cancel.
constexpr double kRtol = 1e-5, kAtol = 1e-5;

const std::map<std::string, FixtureCase>& cases() {
  static const auto all = ember::testing::load_fixture("conv.json");
  return all;
}

using Layer = std::shared_ptr<nn::Module>;

template <typename M, typename... A>
Layer make(A&&... args) {
  return std::make_shared<M>(std::forward<A>(args)...);
}

nn::Conv1dOptions conv1d(int64_t in, int64_t out, int64_t k) { return {in, out, k}; }
nn::Conv2dOptions conv2d(int64_t in, int64_t out, Size2 k) { return {in, out, k}; }

// The C++ form of each case's layer (what its "module" string builds in Python).
const std::map<std::string, std::function<Layer()>>& layers() {
  static const std::map<std::string, std::function<Layer()>> all = [] {
    std::map<std::string, std::function<Layer()>> m;
    m["conv1d"] = [] { return make<nn::Conv1d>(3, 4, 3); };
    m["conv1d_unbatched"] = [] {
      auto o = conv1d(3, 4, 3);
      o.padding = 1;
      return make<nn::Conv1d>(o);
    };
    m["conv1d_stride_pad_dilation_groups"] = [] {
      return make<nn::Conv1d>(nn::Conv1dOptions{4, 6, 3, /*stride=*/2, /*padding=*/2, /*dilation=*/2, /*groups=*/2});
    };
    m["conv1d_same_even_kernel"] = [] {
      auto o = conv1d(2, 3, 4);
      o.padding_rule = PaddingRule::Same;
      return make<nn::Conv1d>(o);
    };
    m["conv1d_same_dilated"] = [] {
      auto o = conv1d(2, 3, 3);
      o.padding_rule = PaddingRule::Same;
      o.dilation = 3;
      o.bias = false;
      return make<nn::Conv1d>(o);
    };
    m["conv1d_reflect"] = [] {
      auto o = conv1d(2, 3, 3);
      o.padding = 2;
      o.padding_mode = "reflect";
      return make<nn::Conv1d>(o);
    };
    m["conv1d_circular_same"] = [] {
      auto o = conv1d(2, 2, 4);
      o.padding_rule = PaddingRule::Same;
      o.padding_mode = "circular";
      return make<nn::Conv1d>(o);
    };
    m["conv2d_same_odd"] = [] {
      auto o = conv2d(3, 4, 3);
      o.padding_rule = PaddingRule::Same;
      return make<nn::Conv2d>(o);
    };
    m["conv2d_same_even_dilated"] = [] {
      auto o = conv2d(2, 3, {4, 2});
      o.padding_rule = PaddingRule::Same;
      o.dilation = {1, 3};
      return make<nn::Conv2d>(o);
    };
    m["conv2d_valid"] = [] {
      auto o = conv2d(2, 3, 3);
      o.padding_rule = PaddingRule::Valid;
      return make<nn::Conv2d>(o);
    };
    m["conv2d_reflect"] = [] {
      auto o = conv2d(2, 3, 3);
      o.padding = 1;
      o.padding_mode = "reflect";
      return make<nn::Conv2d>(o);
    };
    m["conv2d_replicate"] = [] {
      auto o = conv2d(2, 3, 3);
      o.padding = {2, 1};
      o.padding_mode = "replicate";
      return make<nn::Conv2d>(o);
    };
    m["conv2d_circular"] = [] {
      auto o = conv2d(2, 4, 3);
      o.padding = 1;
      o.padding_mode = "circular";
      o.groups = 2;
      return make<nn::Conv2d>(o);
    };
    m["conv2d_same_even_reflect"] = [] {
      auto o = conv2d(2, 3, 4);
      o.padding_rule = PaddingRule::Same;
      o.padding_mode = "reflect";
      return make<nn::Conv2d>(o);
    };
    m["conv_transpose2d"] = [] { return make<nn::ConvTranspose2d>(3, 4, 3); };
    m["conv_transpose2d_unbatched"] = [] {
      return make<nn::ConvTranspose2d>(nn::ConvTranspose2dOptions{2, 3, 2, /*stride=*/2});
    };
    m["conv_transpose2d_stride_pad_output_padding_groups"] = [] {
      return make<nn::ConvTranspose2d>(nn::ConvTranspose2dOptions{4, 6, 3, 2, 1, /*output_padding=*/1, /*groups=*/2});
    };
    m["conv_transpose2d_rect_dilation_nobias"] = [] {
      return make<nn::ConvTranspose2d>(
          nn::ConvTranspose2dOptions{2, 3, {3, 2}, {2, 3}, {0, 1}, 0, 1, /*bias=*/false, /*dilation=*/{2, 1}});
    };
    m["conv_transpose2d_output_padding_below_dilation"] = [] {
      return make<nn::ConvTranspose2d>(nn::ConvTranspose2dOptions{2, 2, 3, 1, 0, /*output_padding=*/1, 1, true, 2});
    };
    m["conv_transpose2d_output_size"] = [] {
      return make<nn::ConvTranspose2d>(nn::ConvTranspose2dOptions{2, 3, 3, /*stride=*/2, /*padding=*/1});
    };
    m["group_norm"] = [] { return make<nn::GroupNorm>(2, 6); };
    m["group_norm_no_affine_1d"] = [] { return make<nn::GroupNorm>(nn::GroupNormOptions{3, 3, 1e-3, false}); };
    m["group_norm_two_dims"] = [] { return make<nn::GroupNorm>(2, 4); };
    m["group_norm_one_group"] = [] { return make<nn::GroupNorm>(1, 4); };
    m["instance_norm2d"] = [] { return make<nn::InstanceNorm2d>(3); };
    m["instance_norm2d_affine_tracked_train"] = [] {
      return make<nn::InstanceNorm2d>(nn::InstanceNormOptions{3, 1e-5, 0.2, true, true});
    };
    m["instance_norm2d_tracked_eval"] = [] {
      return make<nn::InstanceNorm2d>(nn::InstanceNormOptions{3, 1e-5, 0.1, true, true});
    };
    m["instance_norm1d_unbatched_affine"] = [] {
      return make<nn::InstanceNorm1d>(nn::InstanceNormOptions{4, 1e-5, 0.1, /*affine=*/true});
    };
    m["instance_norm1d_tracked_unbatched"] = [] {
      return make<nn::InstanceNorm1d>(nn::InstanceNormOptions{2, 1e-5, 0.1, false, /*track_running_stats=*/true});
    };
    m["prelu"] = [] { return make<nn::PReLU>(); };
    m["prelu_per_channel"] = [] { return make<nn::PReLU>(4, 0.1); };
    m["prelu_1d_input"] = [] { return make<nn::PReLU>(); };
    m["adaptive_max_pool2d"] = [] { return make<nn::AdaptiveMaxPool2d>(Size2(3, 2)); };
    m["adaptive_max_pool2d_larger_than_input"] = [] { return make<nn::AdaptiveMaxPool2d>(Size2(5, 7)); };
    m["adaptive_max_pool2d_indices"] = [] { return make<nn::AdaptiveMaxPool2d>(Size2(2), true); };
    m["adaptive_max_pool2d_unbatched"] = [] { return make<nn::AdaptiveMaxPool2d>(Size2(1)); };
    return m;
  }();
  return all;
}

std::optional<double> scalar_or_none(const FixtureCase& c, const std::string& name) {
  if (!c.scalars.count(name)) return std::nullopt;
  return c.scalar(name);
}

// The op an upsample case's nn.Upsample runs, called with the case's settings.
Tensor run_upsample(const std::string& name, const FixtureCase& c, const Tensor& x) {
  const Size2 size(static_cast<int64_t>(c.scalar("size_h")), static_cast<int64_t>(c.scalar("size_w")));
  const bool align = c.scalar("align_corners") != 0;
  const auto sh = scalar_or_none(c, "scale_h"), sw = scalar_or_none(c, "scale_w");
  const auto has = [&](const char* part) { return name.find(part) != std::string::npos; };
  if (x.dim() == 3) {
    if (has("linear")) return upsample_linear1d(x, size.w, align, sw);
    if (has("exact")) return upsample_nearest_exact1d(x, size.w, sw);
    return upsample_nearest1d(x, size.w, sw);
  }
  if (has("bicubic")) return upsample_bicubic2d(x, size, align, sh, sw);
  if (has("bilinear")) return upsample_bilinear2d(x, size, align, sh, sw);
  if (has("exact")) return upsample_nearest_exact2d(x, size, sh, sw);
  return upsample_nearest2d(x, size, sh, sw);
}

// The functional cases (their "module" is nn.Identity()): what their "forward" string calls.
const std::map<std::string, std::function<Tensor(const Tensor&)>>& functions() {
  static const std::map<std::string, std::function<Tensor(const Tensor&)>> all = {
      {"upsampling_nearest2d", [](const Tensor& x) { return upsample_nearest2d(x, {6, 9}, 3.0, 3.0); }},
      {"upsampling_bilinear2d", [](const Tensor& x) { return upsample_bilinear2d(x, {4, 5}, true); }},
      {"interpolate_area", [](const Tensor& x) { return adaptive_avg_pool2d(x, {3, 5}); }},
      {"interpolate_area_1d",
       [](const Tensor& x) { return adaptive_avg_pool2d(x.unsqueeze(-2), {1, 4}).squeeze(-2); }},
      {"pad_reflect_2d", [](const Tensor& x) { return pad(x, {1, 2, 3, 1}, "reflect"); }},
      {"pad_reflect_3d", [](const Tensor& x) { return pad(x, {1, 1, 2, 0, 1, 2}, "reflect"); }},
      {"pad_replicate_1d", [](const Tensor& x) { return pad(x, {3, 1}, "replicate"); }},
      {"pad_replicate_2d_unbatched", [](const Tensor& x) { return pad(x, {0, 2, 4, 1}, "replicate"); }},
      {"pad_circular_2d", [](const Tensor& x) { return pad(x, {2, 1, 3, 0}, "circular"); }},
      {"pad_constant_crop", [](const Tensor& x) { return pad(x, {1, -2, -1, 3}, "constant", 0.5); }},
  };
  return all;
}

}  // namespace

TEST(ConvLayersTest, EveryFixtureCaseMatchesPyTorch) {
  ASSERT_GE(cases().size(), 60u);
  for (const auto& [name, c] : cases()) {
    SCOPED_TRACE(name);
    const bool train = c.strings.at("train") == "1";
    if (auto it = layers().find(name); it != layers().end()) {
      Layer layer = it->second();
      LayerForward forward = [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
        if (name == "conv_transpose2d_output_size")
          return {std::static_pointer_cast<nn::ConvTranspose2d>(layer)->forward(in[0], {10, 10})};
        if (name == "adaptive_max_pool2d_indices") {
          auto [values, indices] = std::static_pointer_cast<nn::AdaptiveMaxPool2d>(layer)->forward_with_indices(in[0]);
          return {values, indices};
        }
        return {layer->forward(in[0])};
      };
      ember::testing::check_layer(*layer, c, train, forward, {kRtol, kAtol});
      continue;
    }
    nn::Identity holder;
    std::function<Tensor(const Tensor&)> f;
    if (name.rfind("upsample_", 0) == 0)
      f = [&](const Tensor& x) { return run_upsample(name, c, x); };
    else if (auto it = functions().find(name); it != functions().end())
      f = it->second;
    if (!f) {
      ADD_FAILURE() << "no C++ form for the case '" << name << "'";
      continue;
    }
    ember::testing::check_layer(
        holder, c, train, [&](const std::vector<Tensor>& in) -> std::vector<Tensor> { return {f(in[0])}; },
        {kRtol, kAtol});
  }
}

TEST(ConvLayersTest, ReprsAreTorchs) {
  nn::Conv2dOptions same{3, 4, 3};
  same.padding_rule = PaddingRule::Same;
  EXPECT_EQ(nn::Conv2d(same).extra_repr(), "3, 4, kernel_size=(3, 3), stride=(1, 1), padding=same");
  nn::Conv2dOptions reflect{2, 3, {4, 2}};
  reflect.padding = {1, 2};
  reflect.dilation = {1, 3};
  reflect.padding_mode = "reflect";
  reflect.bias = false;
  EXPECT_EQ(nn::Conv2d(reflect).extra_repr(),
            "2, 3, kernel_size=(4, 2), stride=(1, 1), padding=(1, 2), dilation=(1, 3), bias=False, padding_mode=reflect");
  EXPECT_EQ(nn::Conv1d(nn::Conv1dOptions{4, 6, 3, 2, 2, 2, 2}).extra_repr(),
            "4, 6, kernel_size=(3,), stride=(2,), padding=(2,), dilation=(2,), groups=2");
  EXPECT_EQ(nn::ConvTranspose2d(nn::ConvTranspose2dOptions{4, 6, 3, 2, 1, 1, 2, false, 2}).extra_repr(),
            "4, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), dilation=(2, 2), output_padding=(1, 1), "
            "groups=2, bias=False");
  EXPECT_EQ(nn::GroupNorm(2, 6).extra_repr(), "2, 6, eps=1e-05, affine=True, bias=True");
  EXPECT_EQ(nn::InstanceNorm2d(3).extra_repr(),
            "3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False");
  EXPECT_EQ(nn::PReLU(4).extra_repr(), "num_parameters=4");
  EXPECT_EQ(nn::AdaptiveMaxPool2d(Size2(3, 2)).extra_repr(), "output_size=(3, 2)");
}

TEST(ConvLayersTest, ParametersBuffersAndInitialisationAreTorchs) {
  nn::ConvTranspose2d t(nn::ConvTranspose2dOptions{4, 6, 3, 1, 0, 0, /*groups=*/2});
  EXPECT_EQ(t.weight().sizes(), IntArrayRef({4, 3, 3, 3}));  // [in, out / groups, kH, kW]
  // bias bound 1/sqrt(fan_in), fan_in = weight.size(1) * kH * kW = 27
  EXPECT_LE(t.bias().abs().max().item<float>(), 1.0f / std::sqrt(27.0f));
  nn::Conv1d c(3, 5, 4);
  EXPECT_EQ(c.weight().sizes(), IntArrayRef({5, 3, 4}));
  nn::InstanceNorm2d plain(3);
  EXPECT_TRUE(plain.named_parameters().empty());
  EXPECT_TRUE(plain.named_buffers().empty());
  nn::InstanceNorm2d tracked(nn::InstanceNormOptions{3, 1e-5, 0.1, true, true});
  std::vector<std::string> names;
  for (const auto& [name, t2] : tracked.state_dict()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"weight", "bias", "running_mean", "running_var", "num_batches_tracked"}));
  tracked.forward(randn({2, 3, 4, 4}));
  EXPECT_EQ(tracked.buffer("num_batches_tracked").item<int64_t>(), 0);  // PyTorch counts no batches here
  nn::GroupNorm no_bias(nn::GroupNormOptions{1, 2, 1e-5, true, false});
  EXPECT_TRUE(no_bias.has_parameter("weight"));
  EXPECT_FALSE(no_bias.has_parameter("bias"));
  EXPECT_EQ(nn::PReLU(3, 0.1).parameter("weight").to_vector<float>(), (std::vector<float>{0.1f, 0.1f, 0.1f}));
}

TEST(ConvLayersTest, OptionErrorsNameTheLayer) {
  expect_error([] { nn::Conv2d(nn::Conv2dOptions{3, 4, 3, 1, 0, 1, 2}); },
               {"Conv2d: in_channels (3) and out_channels (4) must be divisible by groups (2)"});
  nn::Conv2dOptions strided{2, 2, 3, 2};
  strided.padding_rule = PaddingRule::Same;
  expect_error([&] { nn::Conv2d{strided}; }, {"Conv2d: padding='same' is not supported for strided convolutions"});
  nn::Conv1dOptions edge{2, 2, 3};
  edge.padding_mode = "edge";
  expect_error([&] { nn::Conv1d{edge}; },
               {"Conv1d: padding_mode must be 'zeros', 'reflect', 'replicate' or 'circular', got 'edge'"});
  expect_error([] { nn::GroupNorm(4, 6); }, {"GroupNorm: num_channels (6) must be divisible by num_groups (4)"});
  expect_error([] { nn::PReLU(0); }, {"PReLU: num_parameters must be positive, got 0"});
  expect_error([] { nn::InstanceNorm2d(3).forward(ones({3, 4})); },
               {"InstanceNorm2d: expected a 3-D (unbatched) or 4-D input, got shape [3, 4]"});
  expect_error([] { nn::InstanceNorm1d(nn::InstanceNormOptions{3, 1e-5, 0.1, true}).forward(ones({2, 4, 5})); },
               {"InstanceNorm1d: expected 3 channels in dim 1, got shape [2, 4, 5]"});
  nn::ConvTranspose2d t(nn::ConvTranspose2dOptions{2, 3, 3, 2});
  expect_error([&] { t.forward(ones({1, 2, 4, 4}), {7, 7}); },
               {"ConvTranspose2d: requested an output size of [7, 7], but valid sizes range from [9, 9] to [10, 10]"});
  EXPECT_EQ(t.forward(ones({1, 2, 4, 4}), {1, 3, 10, 9}).sizes(), IntArrayRef({1, 3, 10, 9}));
}
