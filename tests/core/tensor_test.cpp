#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "ember/core/copy.h"
#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::testing::expect_error;

TEST(TensorTest, ZerosHasShapeDtypeAndContiguousStrides) {
  Tensor t = zeros({2, 3});
  EXPECT_EQ(t.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(t.strides(), IntArrayRef({3, 1}));
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_TRUE(t.is_contiguous());
}

// A tensor without elements is contiguous whatever its strides, as in PyTorch: NumPy gives an empty
// array zero strides, which from_numpy keeps, and view() and the kernels' fast paths ask.
TEST(TensorTest, EmptyTensorsAreContiguousWhateverTheirStrides) {
  float unused = 0;
  for (std::vector<int64_t> shape : {std::vector<int64_t>{0, 3, 4, 5}, {3, 0}, {2, 3, 0}}) {
    Tensor t = from_blob(&unused, shape, kFloat32, nullptr, std::vector<int64_t>(shape.size(), 0));
    EXPECT_TRUE(t.is_contiguous()) << ::testing::PrintToString(shape);
    EXPECT_EQ(t.view({-1}).numel(), 0);
  }
  EXPECT_FALSE(from_blob(&unused, {2, 3}, kFloat32, nullptr, {1, 2}).is_contiguous());
}

TEST(TensorTest, AddBroadcastsAndBackpropagates) {
  Tensor a = tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}).set_requires_grad();
  Tensor b = tensor<float>({10, 20, 30}).set_requires_grad();
  Tensor c = (a + b) * a;
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{11, 44, 99, 56, 125, 216}));
  c.sum().backward();
  // dc/da = 2a + b ; dc/db = sum over rows of a
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{12, 24, 36, 18, 30, 42}));
  EXPECT_EQ(b.grad().to_vector<float>(), (std::vector<float>{5, 7, 9}));
}

TEST(TensorTest, CopiesAliasAndCloneCopies) {
  Tensor a = zeros({3});
  Tensor b = a;  // same tensor
  b.fill_(2.0);
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{2, 2, 2}));
  Tensor c = a.clone();
  c.fill_(5.0);
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{2, 2, 2}));
  EXPECT_TRUE(a.is_same(b));
  EXPECT_FALSE(a.is_same(c));
}

TEST(TensorTest, InPlaceOpsBumpTheSharedVersion) {
  Tensor a = zeros({2, 2});
  Tensor v = a.transpose(0, 1);
  uint64_t before = a.version();
  v.add_(1.0);
  EXPECT_EQ(a.version(), before + 1);
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{1, 1, 1, 1}));
}

TEST(TensorTest, SizeWrapsNegativeDimsAndRejectsOutOfRange) {
  Tensor t = zeros({2, 3, 4});
  EXPECT_EQ(t.size(-1), 4);
  EXPECT_EQ(t.stride(0), 12);
  try {
    t.size(3);
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "size: dimension 3 out of range (expected to be in [-3, 2])");
  }
}

TEST(TensorTest, ItemNeedsOneElement) {
  EXPECT_EQ(full({1, 1}, 7).item<int64_t>(), 7);
  expect_error<ValueError>([] { zeros({2}).item(); }, {"item: a tensor with 2 elements cannot be converted"});
}

TEST(TensorTest, DataPtrChecksTheDtype) {
  Tensor t = zeros({2}, kFloat64);
  EXPECT_NE(t.data_ptr<double>(), nullptr);
  try {
    t.data_ptr<float>();
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_STREQ(e.what(), "data_ptr: tensor has dtype float64, requested float32");
  }
}

TEST(TensorTest, ToVectorReadsNonContiguousInLogicalOrder) {
  Tensor t = tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}).transpose(0, 1);
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(TensorTest, PrintsLikePyTorch) {
  EXPECT_EQ(tensor<float>({1, 2.5f}).str(), "tensor([1.0000, 2.5000])");
  EXPECT_EQ(tensor<int64_t>({1, 2, 3, 4}, {2, 2}).str(), "tensor([[1, 2],\n        [3, 4]])");
  EXPECT_EQ(ones({1}, kFloat64).set_requires_grad().str(),
            "tensor([1.], dtype=ember.float64, requires_grad=True)");
  EXPECT_EQ(describe(zeros({2, 3})), "float32 [2, 3]");
  const Tensor doubled = ones({2}).set_requires_grad() * 2;
  EXPECT_EQ(doubled.str(), std::string("tensor([2., 2.], grad_fn=<") + doubled.grad_fn()->name() + ">)");
  // NaN prints as nan whatever its sign bit (0/0 gives -nan in C++'s own printing)
  EXPECT_EQ(tensor<double>({-std::nan(""), std::nan(""), INFINITY, -INFINITY}).str(),
            "tensor([nan, nan, inf, -inf], dtype=ember.float64)");
}

// More than 1000 elements: the first and last 3 of each dimension, as PyTorch prints them (one width
// for every element shown); views are read through their strides.
TEST(TensorTest, PrintsLargeTensorsSummarised) {
  EXPECT_EQ(arange(1001).str(), "tensor([   0,    1,    2,  ...,  998,  999, 1000])");
  EXPECT_EQ(arange(1000).str().find("..."), std::string::npos);  // 1000 elements: all printed
  EXPECT_EQ(arange(2000, TensorOptions(kFloat32)).reshape({200, 10}).t().narrow(0, 0, 2).narrow(1, 0, 4).str(),
            "tensor([[ 0., 10., 20., 30.],\n        [ 1., 11., 21., 31.]])");
  EXPECT_EQ(
      arange(1400).reshape({2, 700}).str(),
      "tensor([[   0,    1,    2,  ...,  697,  698,  699],\n        [ 700,  701,  702,  ..., 1397, 1398, 1399]])");
  EXPECT_EQ(arange(1400).reshape({700, 2}).str(),
            "tensor([[   0,    1],\n        [   2,    3],\n        [   4,    5],\n        ...,\n        [1394, 1395],\n"
            "        [1396, 1397],\n        [1398, 1399]])");
}

TEST(TensorTest, PrintOptionsChangeThePrintout) {
  const std::nullopt_t none = std::nullopt;
  set_print_options(2, none, none, none, none, none);
  EXPECT_EQ(tensor<double>({1.23456}).str(), "tensor([1.23], dtype=ember.float64)");
  set_print_options(none, none, none, none, "default", true);  // the default profile, scientific notation
  EXPECT_EQ(print_options().precision, 4);
  EXPECT_EQ(tensor<float>({1.5f}).str(), "tensor([1.5000e+00])");
  set_print_options(none, 5, 1, none, "default", none);
  EXPECT_EQ(arange(6).str(), "tensor([0,  ..., 5])");
  set_print_options(none, none, none, none, "default", none);
  EXPECT_EQ(arange(6).str(), "tensor([0, 1, 2, 3, 4, 5])");
}

TEST(TensorTest, DevicesParseAndCudaNeedsTheBackend) {
  EXPECT_EQ(Device("cuda:1"), Device::cuda(1));
  EXPECT_EQ(Device("cpu"), Device());
  expect_error<ValueError>([] { Device("tpu"); }, {"Device: unknown device 'tpu'"});
  expect_error<ValueError>([] { Device("cuda:x"); }, {"Device: bad device index in 'cuda:x'"});
}

TEST(TensorTest, CudaTensorWithoutBackendSaysHowToGetOne_NoCudaBuild) {
  // NB: asks the copy stub the library registers its kernels in; a stub made here would never
  // have a CUDA kernel, so the skip could not fire in a CUDA build (tests/cuda/backend_test.cpp
  // checks that build's errors).
  if (ember::copy_stub.has(DeviceType::CUDA)) GTEST_SKIP() << "built with a CUDA backend";
  expect_error([] { zeros({2}, Device::cuda()); },
               {"no CUDA device: cannot allocate memory on cuda:0: this build of Ember has no CUDA backend",
                "-DEMBER_CUDA=ON"});
}

// Regression: conversion to bool went through float32, where 1e-300 is 0.
TEST(TensorTest, TinyFloat64ValuesConvertToTrue) {
  Tensor b = tensor({1.9e-49, 1e-300, 0.0, -0.0, std::nan("")}).to(kBool);
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, true, false, false, true}));
}

// Copies whose runs have unit strides (a broadcast row written out, a slice of padded rows) take the
// block path; each element must still land where the element-by-element definition puts it.
TEST(TensorTest, CopiesOfBroadcastAndSlicedRunsKeepEveryElementInPlace) {
  Tensor row = arange(37, TensorOptions(kFloat32));
  Tensor wide = row.expand({5, 37}).contiguous();
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 37; ++j) ASSERT_EQ(wide.select(0, i).select(0, j).item<float>(), static_cast<float>(j));
  Tensor padded = arange(6 * 40, TensorOptions(kFloat64)).view({6, 40});
  Tensor slice = padded.slice(1, 3, 36).slice(0, 1, 6);  // runs of 33 at a row stride of 40
  for (DType to : {kFloat64, kFloat32, kInt64, kBFloat16}) {
    SCOPED_TRACE(::testing::PrintToString(to));
    Tensor out = empty({5, 33}, TensorOptions(to));
    copy_data(out, slice);
    const std::vector<double> got = out.to_vector<double>();
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 33; ++j) {
        const double v = static_cast<double>((i + 1) * 40 + j + 3);
        const double want =
            to == kBFloat16 ? static_cast<double>(static_cast<float>(BFloat16(static_cast<float>(v)))) : v;
        ASSERT_EQ(got[static_cast<size_t>(i * 33 + j)], want) << i << ", " << j;
      }
  }
}

// Full tiles move as vector registers (core/cpu/transpose.h): bits, not values, so NaN payloads
// (a signalling one included) and the sign of zero arrive as they were.
TEST(TensorTest, TransposingCopiesMoveBitsNotValues) {
  const int64_t R = 32, C = 48;
  std::vector<uint32_t> bits(static_cast<size_t>(R * C));
  for (size_t i = 0; i < bits.size(); ++i)
    bits[i] = i % 3 == 0 ? 0x7f800001u + static_cast<uint32_t>(i)
                         : (i % 3 == 1 ? 0x80000000u : 0xffc00000u | static_cast<uint32_t>(i));
  Tensor src = empty({R, C}, TensorOptions(kFloat32));
  std::memcpy(src.data_ptr(), bits.data(), bits.size() * sizeof(uint32_t));
  Tensor dst = src.t().contiguous();
  const auto* got = static_cast<const uint32_t*>(dst.data_ptr());
  for (int64_t i = 0; i < C; ++i)
    for (int64_t j = 0; j < R; ++j) ASSERT_EQ(got[i * R + j], bits[static_cast<size_t>(j * C + i)]) << i << ", " << j;
}

// Transposing copies go in tiles; each element is checked against its index arithmetic (not
// against another copy), for tile-straddling sizes, 2-, 4- and 8-byte items and batch dims.
TEST(TensorTest, TransposingCopiesPutEveryElementWhereItsIndicesSay) {
  for (DType dtype : {kFloat32, kFloat64, kInt32, kInt64, kBFloat16, kInt16}) {
    SCOPED_TRACE(::testing::PrintToString(dtype));
    const int64_t A = 3, B = 37, C = 21;  // values a*B*C + b*C + c, exact in every dtype below 2^8 per dim
    Tensor base = arange(A * B * C, TensorOptions(kInt64)).to(dtype == kBFloat16 ? kFloat32 : dtype).view({A, B, C});
    if (dtype == kBFloat16) base = (base.remainder(256)).to(kBFloat16);
    auto value = [&](int64_t a, int64_t b, int64_t c) {
      const int64_t v = a * B * C + b * C + c;
      return static_cast<double>(dtype == kBFloat16 ? v % 256 : v);
    };
    // [C, B] per batch entry: dst's rows run along src's columns
    Tensor t = empty({A, C, B}, TensorOptions(dtype));
    copy_data(t, base.transpose(1, 2));
    // [C, A, B]: the batch dim moved inside
    Tensor p = empty({C, A, B}, TensorOptions(dtype));
    copy_data(p, base.permute({2, 0, 1}));
    const std::vector<double> tv = t.to(kFloat64).to_vector<double>(), pv = p.to(kFloat64).to_vector<double>();
    for (int64_t a = 0; a < A; ++a)
      for (int64_t b = 0; b < B; ++b)
        for (int64_t c = 0; c < C; ++c) {
          ASSERT_EQ(tv[static_cast<size_t>((a * C + c) * B + b)], value(a, b, c)) << a << " " << b << " " << c;
          ASSERT_EQ(pv[static_cast<size_t>((c * A + a) * B + b)], value(a, b, c)) << a << " " << b << " " << c;
        }
  }
  // A source broadcast along dst's rows (stride 0) with unit stride along another dim.
  Tensor col = arange(40, TensorOptions(kFloat32)).view({40, 1}).expand({40, 33});
  Tensor out = empty({40, 33}, TensorOptions(kFloat32));
  copy_data(out, col);
  const std::vector<float> ov = out.to_vector<float>();
  for (int64_t i = 0; i < 40; ++i)
    for (int64_t j = 0; j < 33; ++j) ASSERT_EQ(ov[static_cast<size_t>(i * 33 + j)], static_cast<float>(i));
}
