// pad (ops/pad.h): each mode's values (negative amounts crop), the gradient of each mode by finite
// differences, and PyTorch's limits and errors. NumPy comparisons (np.pad) over random shapes and
// layouts: tests/python/property/test_pad_property.py.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::TensorList;
using ember::testing::expect_error;

namespace {

std::vector<double> row(const Tensor& t) { return t.reshape({-1}).to(kFloat64).to_vector<double>(); }

}  // namespace

TEST(PadTest, ModesMatchPyTorchsValues) {
  Tensor x = arange(4, TensorOptions(kFloat32)).reshape({1, 1, 4});
  EXPECT_EQ(row(pad(x, {2, 3}, "reflect")), (std::vector<double>{2, 1, 0, 1, 2, 3, 2, 1, 0}));
  EXPECT_EQ(row(pad(x, {2, 1}, "replicate")), (std::vector<double>{0, 0, 0, 1, 2, 3, 3}));
  EXPECT_EQ(row(pad(x, {1, 2}, "circular")), (std::vector<double>{3, 0, 1, 2, 3, 0, 1}));
  EXPECT_EQ(row(pad(x, {1, 1}, "constant", 7)), (std::vector<double>{7, 0, 1, 2, 3, 7}));
  EXPECT_EQ(row(pad(x, {-1, 2}, "reflect")), (std::vector<double>{1, 2, 3, 2, 1}));
  EXPECT_EQ(row(pad(x, {-1, 2}, "replicate")), (std::vector<double>{1, 2, 3, 3, 3}));
  EXPECT_EQ(row(pad(x, {-1, 2}, "circular")), (std::vector<double>{1, 2, 3, 1, 2}));  // wraps the cropped extent
  EXPECT_EQ(row(pad(x, {-3, 4}, "circular")), (std::vector<double>{3, 3, 3, 3, 3}));
  EXPECT_EQ(row(pad(x, {-1, -2})), (std::vector<double>{1}));
  Tensor img = arange(6, TensorOptions(kFloat32)).reshape({2, 3});  // unbatched [C, W] for 1-D padding
  EXPECT_EQ(row(pad(img, {1, 1}, "circular")), (std::vector<double>{2, 0, 1, 2, 0, 5, 3, 4, 5, 3}));
  Tensor two = arange(4, TensorOptions(kFloat32)).reshape({1, 2, 2});  // [C, H, W] for 2-D padding
  EXPECT_EQ(row(pad(two, {1, 0, 0, 1}, "replicate")), (std::vector<double>{0, 0, 1, 2, 2, 3, 2, 2, 3}));
  EXPECT_EQ(pad(zeros({0, 3, 4}), {1, 1}, "reflect").sizes(), IntArrayRef({0, 3, 6}));
  EXPECT_EQ(pad(arange(6).reshape({1, 2, 3}), {1, 1}, "reflect").dtype(), kInt64);
  EXPECT_EQ(pad(zeros({2, 3, 4, 5, 6}), {1, 1, 2, 2, 0, 1}, "reflect").sizes(), IntArrayRef({2, 3, 5, 9, 8}));
}

TEST(PadTest, GradientsSumIntoTheirSources) {
  Generator g(1);
  Tensor x = randn({2, 3, 4}, kFloat64, &g).set_requires_grad();
  for (const char* mode : {"reflect", "replicate", "circular", "constant"}) {
    SCOPED_TRACE(mode);
    gradcheck([&](const TensorList& in) { return pad(in[0], {2, 3, 1, -1}, mode); }, {x});
    gradcheck([&](const TensorList& in) { return pad(in[0].transpose(1, 2), {-1, 2}, mode); }, {x});
  }
  Tensor y = zeros({1, 1, 3}).set_requires_grad();
  pad(y, {2, 2}, "replicate").sum().backward();
  EXPECT_EQ(y.grad().to_vector<float>(), (std::vector<float>{3, 1, 3}));
}

TEST(PadTest, ErrorsAreTorchs) {
  Tensor x = zeros({1, 3, 4});
  expect_error<ValueError>([&] { pad(x, {4, 0}, "reflect"); },
                           {"Padding size should be less than the corresponding input dimension, but got: padding (4, 0) "
                            "at dimension 2 of input [1, 3, 4]"});
  expect_error<ValueError>([&] { pad(x, {5, 0}, "circular"); }, {"Padding value causes wrapping around more than once"});
  expect_error<ValueError>([&] { pad(x, {-3, -2}, "circular"); }, {"Negative padding value is resulting in an empty dimension"});
  expect_error<ValueError>([&] { pad(x, {-2, -2}, "reflect"); }, {"is too small. Calculated output size: 0"});
  expect_error<NotImplementedError>([] { pad(zeros({4}), {1, 1}, "reflect"); },
                                    {"Padding size 2 is not supported for 1D input tensor"});
  expect_error<NotImplementedError>([] { pad(zeros({3, 4}), {1, 1, 1, 1}, "replicate"); },
                                    {"Padding size 4 is not supported for 2D input tensor"});
  expect_error<ValueError>([&] { pad(x, {1}); }, {"Padding length must be divisible by 2"});
  expect_error<ValueError>([&] { pad(x, {1, 1, 1, 1, 1, 1, 1, 1}); },
                           {"Padding length should be less than or equal to two times the input dimension but got "
                            "padding length 8 and input of dimension 3"});
  expect_error<ValueError>([&] { pad(x, {1, 1}, "reflect", 1.0); }, {"Padding mode \"reflect\" doesn't take in value argument"});
  expect_error<NotImplementedError>([&] { pad(x, {1, 1}, "foo"); }, {"Unrecognised padding mode foo"});
  expect_error<ValueError>([] { pad(zeros({1, 3, 0}), {1, 1}, "reflect"); },
                           {"other non-zero dimensions for input, but got: [1, 3, 0]"});
}
