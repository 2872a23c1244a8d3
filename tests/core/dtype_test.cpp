#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;

TEST(DTypeTest, NamesRoundTrip) {
  for (int i = 0; i < kNumDTypes; ++i) {
    auto t = static_cast<DType>(i);
    EXPECT_EQ(dtype_from_name(dtype_name(t)), t);
  }
  EXPECT_EQ(dtype_from_name("BF16"), kBFloat16);
  EXPECT_EQ(dtype_from_name("nope"), std::nullopt);
}

TEST(DTypeTest, PromotionFollowsPyTorch) {
  EXPECT_EQ(promote_types(kInt64, kFloat32), kFloat32);
  EXPECT_EQ(promote_types(kFloat32, kFloat64), kFloat64);
  EXPECT_EQ(promote_types(kInt32, kInt64), kInt64);
  EXPECT_EQ(promote_types(kBool, kUInt8), kUInt8);
  EXPECT_EQ(promote_types(kFloat16, kBFloat16), kFloat32);
  EXPECT_EQ(promote_types(kUInt8, kFloat16), kFloat16);
}

TEST(DTypeTest, HalfAndBFloat16ConvertThroughTo) {
  Tensor f = tensor<float>({1.5f, -2.25f, 65504.f, 1e-3f});
  Tensor h = f.to(kFloat16);
  EXPECT_EQ(h.dtype(), kFloat16);
  EXPECT_EQ(h.itemsize(), 2u);
  std::vector<float> back = h.to(kFloat32).to_vector<float>();
  EXPECT_EQ(back[0], 1.5f);
  EXPECT_EQ(back[1], -2.25f);
  EXPECT_EQ(back[2], 65504.f);
  EXPECT_NEAR(back[3], 1e-3f, 1e-6f);
  Tensor bf = f.to(kBFloat16);
  std::vector<float> bback = bf.to(kFloat32).to_vector<float>();
  EXPECT_EQ(bback[0], 1.5f);
  EXPECT_NEAR(bback[3], 1e-3f, 1e-5f);
  // bfloat16 keeps float32's range
  EXPECT_EQ(tensor<float>({1e30f}).to(kBFloat16).to(kFloat32).item<float>() > 9e29f, true);
}

// float16 and bfloat16 compute as PyTorch's CPU kernels do: in float32, rounded once per op.
TEST(DTypeTest, HalfAndBFloat16ComputeInFloat32AndRoundOnce) {
  for (DType d : {kFloat16, kBFloat16}) {
    Tensor x = tensor<float>({1.0f, 3.0f, -0.1f}).to(d);
    Tensor y = x * x + x;
    EXPECT_EQ(y.dtype(), d);
    // each element: round(round(x * x) + x), the float32 ops rounded to d once each
    Tensor xf = x.to(kFloat32);
    Tensor want = ((xf * xf).to(d).to(kFloat32) + xf).to(d);
    EXPECT_EQ(y.to(kFloat32).to_vector<float>(), want.to(kFloat32).to_vector<float>()) << d;
    EXPECT_EQ(sum(x).dtype(), d);
    EXPECT_EQ(matmul(x.view({1, 3}), x.view({3, 1})).dtype(), d);
  }
  // float16 overflows past 65504 (to inf) and its sums accumulate in float32 before the one rounding
  Tensor h = tensor<float>({65504.0f, 65504.0f, -65504.0f}).to(kFloat16);
  EXPECT_TRUE(std::isinf((h * 2).to(kFloat32).to_vector<float>()[0]));
  EXPECT_EQ(sum(h).to(kFloat32).item<float>(), 65504.0f);
}

TEST(DTypeTest, ConversionsBetweenIntegersFloatsAndBool) {
  Tensor f = tensor<float>({-1.7f, 0.0f, 2.9f});
  EXPECT_EQ(f.to(kInt64).to_vector<int64_t>(), (std::vector<int64_t>{-1, 0, 2}));
  EXPECT_EQ(f.to(kBool).to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(tensor<int64_t>({3, 0}).to(kFloat64).to_vector<double>(), (std::vector<double>{3, 0}));
}

// int8 and int16 are storage types: they load, save, convert and move (views, cat,
// indexing), and arithmetic and comparisons ask for a conversion first.
TEST(DTypeTest, Int8AndInt16ConvertAndMove) {
  EXPECT_EQ(itemsize(kInt8), 1u);
  EXPECT_EQ(itemsize(kInt16), 2u);
  EXPECT_EQ(dtype_from_name("I8"), kInt8);
  EXPECT_EQ(dtype_from_name("int16"), kInt16);
  EXPECT_EQ(promote_types(kUInt8, kInt8), kInt16);  // neither holds the other's range
  EXPECT_EQ(promote_types(kInt8, kUInt8), kInt16);
  EXPECT_EQ(promote_types(kInt8, kInt16), kInt16);
  EXPECT_EQ(promote_types(kInt16, kFloat16), kFloat16);

  Tensor i8 = tensor<int8_t>({-128, 127, -1, 0});
  EXPECT_EQ(i8.dtype(), kInt8);
  EXPECT_EQ(i8.to(kInt64).to_vector<int64_t>(), (std::vector<int64_t>{-128, 127, -1, 0}));
  EXPECT_EQ(i8.to(kFloat32).to_vector<float>(), (std::vector<float>{-128, 127, -1, 0}));
  EXPECT_EQ(tensor<int64_t>({300, -32769}).to(kInt16).to_vector<int16_t>(), (std::vector<int16_t>{300, 32767}))
      << "int64 -> int16 wraps modulo 2^16, as PyTorch's conversion does";
  Tensor i16 = tensor<int16_t>({1, -2, 3, -4, 5, -6}).reshape({2, 3});
  EXPECT_EQ(i16.t().contiguous().to_vector<int16_t>(), (std::vector<int16_t>{1, -4, -2, 5, 3, -6}));
  EXPECT_EQ(cat({i16, i16}, 0).sizes(), (DimVector{4, 3}));
  EXPECT_EQ(index_select(i16, 1, tensor<int64_t>({2, 0})).to_vector<int16_t>(),
            (std::vector<int16_t>{3, 1, -6, -4}));
  EXPECT_EQ(gt(i8.to(kInt32), 0).to_vector<bool>(), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(full({2}, 7, kInt8).to_vector<int8_t>(), (std::vector<int8_t>{7, 7}));
  EXPECT_EQ(i8.select(0, 1).item<int64_t>(), 127);
  ember::testing::expect_error<TypeError>([&] { (void)(i8 + i8); },
                                          {"int8 is a storage type here; convert with to(int32)"});
  Tensor total = sum(i16);  // a sum of integers accumulates in int64, as in PyTorch
  EXPECT_EQ(total.dtype(), kInt64);
  EXPECT_EQ(total.item<int64_t>(), -3);
  ember::testing::expect_error<TypeError>([&] { (void)(i16 * 2); }, {"int16 is a storage type here"});
  ember::testing::expect_error<TypeError>([&] { (void)gt(i8, 0); }, {"gt: dtype int8 is a storage type here"});
}

// complex64 and complex128 are storage types too: they hold, move, convert and checkpoint values,
// and arithmetic goes through view_as_real, a float view of the same bytes.
namespace {

using c64 = std::complex<float>;
using c128 = std::complex<double>;

// n complex128 values k + (100 + k)i, as a tensor of `shape`.
Tensor numbered_c128(IntArrayRef shape) {
  Tensor parts = arange(0, 2 * numel_of(shape), 1, kFloat64).reshape({-1, 2});
  Tensor re = parts.select(1, 0).div(2), im = parts.select(1, 0).div(2).add(100);
  return view_as_complex(stack({re, im}, -1).contiguous()).reshape(shape);
}

std::vector<c128> values(const Tensor& t) { return t.to(kComplex128).to_vector<c128>(); }

}  // namespace

TEST(DTypeTest, ComplexNamesSizesAndPromotion) {
  EXPECT_EQ(itemsize(kComplex64), 8u);
  EXPECT_EQ(itemsize(kComplex128), 16u);
  EXPECT_EQ(dtype_from_name("C64"), kComplex64);  // safetensors' name; it has none for complex128
  EXPECT_EQ(dtype_from_name("complex128"), kComplex128);
  EXPECT_TRUE(is_complex(kComplex64) && !is_floating(kComplex64) && !is_integral(kComplex128));
  EXPECT_EQ(real_dtype(kComplex64), kFloat32);
  EXPECT_EQ(real_dtype(kComplex128), kFloat64);
  EXPECT_EQ(complex_dtype(kFloat64), kComplex128);
  EXPECT_EQ(complex_dtype(kInt64), std::nullopt);
  EXPECT_EQ(promote_types(kComplex64, kFloat64), kComplex128);  // as PyTorch
  EXPECT_EQ(promote_types(kInt64, kComplex64), kComplex64);
  EXPECT_EQ(promote_types(kComplex128, kComplex64), kComplex128);
  EXPECT_EQ(promote_types(kFloat16, kComplex64), kComplex64);
}

TEST(DTypeTest, ComplexConvertsToAndFromRealAsPyTorch) {
  Tensor re = tensor<double>({1.5, -2.0, 0.0});
  Tensor z = re.to(kComplex64);
  EXPECT_EQ(z.dtype(), kComplex64);
  EXPECT_EQ(z.to_vector<c64>(), (std::vector<c64>{{1.5f, 0}, {-2.0f, 0}, {0, 0}}));
  Tensor w = view_as_complex(tensor<double>({1, 2, 0, -3, 0, 0}).reshape({3, 2}));
  std::string warned;
  WarningHandler previous = set_warning_handler([&](const std::string& m) { warned = m; });
  EXPECT_EQ(w.to(kFloat32).to_vector<float>(), (std::vector<float>{1, 0, 0}));  // the real part
  set_warning_handler(previous);
  EXPECT_EQ(warned, "to: casting complex128 to float32 discards the imaginary part");
  EXPECT_EQ(w.to(kBool).to_vector<bool>(), (std::vector<bool>{true, true, false}));  // either part
  EXPECT_EQ(w.to(kComplex64).to(kComplex128).to_vector<c128>(), (std::vector<c128>{{1, 2}, {0, -3}, {0, 0}}));
  EXPECT_EQ(w.select(0, 1).item<c128>(), c128(0, -3));
}

TEST(DTypeTest, Complex128MovesSixteenBytesPerElementInEveryLayout) {
  // Past every inline capacity and with 16-byte elements: cat of 20, stack, transposes, steps.
  Tensor m = numbered_c128({4, 5});
  std::vector<c128> all = values(m);
  EXPECT_EQ(all[7], c128(7, 107));
  std::vector<c128> t = values(m.t().contiguous());
  EXPECT_EQ(t[1], c128(5, 105));
  EXPECT_EQ(values(m.slice(1, 1, 5, 2)), (std::vector<c128>{{1, 101}, {3, 103}, {6, 106}, {8, 108},
                                                            {11, 111}, {13, 113}, {16, 116}, {18, 118}}));
  std::vector<Tensor> parts;
  for (int i = 0; i < 20; ++i) parts.push_back(m.select(0, i % 4).t());
  Tensor joined = cat(parts, 0);
  ASSERT_EQ(joined.sizes(), (DimVector{100}));
  EXPECT_EQ(values(joined.slice(0, 95, 100)), values(m.select(0, 3)));
  EXPECT_EQ(values(stack(parts, 1).select(1, 6)), values(m.select(0, 2)));
  EXPECT_EQ(values(index_select(m, 1, tensor<int64_t>({4, 0}))),
            (std::vector<c128>{{4, 104}, {0, 100}, {9, 109}, {5, 105}, {14, 114}, {10, 110}, {19, 119}, {15, 115}}));
  EXPECT_EQ(values(gather(m, 1, tensor<int64_t>({3, 3, 1, 0}).reshape({4, 1}))),
            (std::vector<c128>{{3, 103}, {8, 108}, {11, 111}, {15, 115}}));
  Tensor cond = tensor<bool>({true, false, true, false, true});
  EXPECT_EQ(values(where(cond, m.select(0, 0), m.select(0, 1))),
            (std::vector<c128>{{0, 100}, {6, 106}, {2, 102}, {8, 108}, {4, 104}}));
  EXPECT_EQ(values(masked_fill(m.select(0, 0), cond, 0)),
            (std::vector<c128>{{0, 0}, {1, 101}, {0, 0}, {3, 103}, {0, 0}}));
  EXPECT_EQ(values(flip(m.select(0, 1), {0})).front(), c128(9, 109));
  EXPECT_EQ(values(m.expand({2, 4, 5}).contiguous()).back(), c128(19, 119));
  EXPECT_EQ(values(zeros({3}, kComplex128)), (std::vector<c128>(3)));
  Tensor empty_rows = numbered_c128({0, 5});
  EXPECT_EQ(cat({empty_rows, m}, 0).sizes(), (DimVector{4, 5}));
}

TEST(DTypeTest, ViewAsRealAndViewAsComplexShareTheBytes) {
  Tensor m = numbered_c128({3, 4});
  Tensor r = view_as_real(m.t());
  EXPECT_EQ(r.dtype(), kFloat64);
  EXPECT_EQ(r.sizes(), (DimVector{4, 3, 2}));
  EXPECT_EQ(r.strides(), (DimVector{2, 8, 1}));
  EXPECT_TRUE(r.storage() == m.storage());
  EXPECT_EQ(r.select(0, 1).select(0, 2).to_vector<double>(), (std::vector<double>{9, 109}));
  r.select(2, 1).fill_(-1.0);  // written through the real view: every imaginary part
  EXPECT_EQ(m.select(0, 2).select(0, 3).item<c128>(), c128(11, -1));
  EXPECT_EQ(real(m).select(0, 1).to_vector<double>(), (std::vector<double>{4, 5, 6, 7}));
  EXPECT_EQ(imag(m).sum().item<double>(), -12.0);
  EXPECT_TRUE(real(r).is_same(r));  // a real tensor is its own real part
  Tensor sliced = view_as_real(m.select(0, 1).slice(0, 1, 4, 2));  // an odd offset in complex units
  EXPECT_EQ(sliced.storage_offset(), 10);
  EXPECT_EQ(view_as_complex(sliced).to_vector<c128>(), (std::vector<c128>{{5, -1}, {7, -1}}));
  Tensor f = tensor<float>({1, 2, 3, 4, 5, 6}).reshape({3, 2});
  EXPECT_EQ(view_as_complex(f).dtype(), kComplex64);
  EXPECT_EQ(view_as_complex(f.slice(0, 1, 3)).to_vector<c64>(), (std::vector<c64>{{3, 4}, {5, 6}}));
  // Arithmetic is done on the real view; the complex tensor is a storage type.
  EXPECT_EQ(view_as_complex(view_as_real(m).mul(2)).select(0, 1).select(0, 0).item<c128>(), c128(8, -2));

  using ember::testing::expect_error;
  // Ops without complex kernels name the real view (ops/complex.h lists those that have them).
  expect_error<TypeError>([&] { (void)lt(m, m); },
                          {"complex128 is a storage type here; compute on view_as_real(t), a float64 view"});
  expect_error<TypeError>([&] { (void)m.cumsum(0); }, {"complex128 is a storage type here"});
  expect_error<TypeError>([&] { (void)view_as_real(f); }, {"view_as_real: expected a complex tensor, got float32"});
  expect_error<TypeError>([&] { (void)view_as_complex(m); },
                          {"view_as_complex: expected a float32 or float64 tensor, got complex128"});
  expect_error<ValueError>([&] { (void)view_as_complex(f.t()); }, {"the last dim must have size 2", "[2, 3]"});
  expect_error<ValueError>([&] { (void)view_as_complex(tensor<float>({1, 2, 3, 4}).reshape({2, 2}).t().contiguous().t()); },
                           {"the last dim must have stride 1"});
  expect_error<ValueError>(
      [&] {
        (void)view_as_complex(tensor<float>({1, 2, 3, 4, 5, 6}).slice(0, 1, 5).reshape({2, 2}));
      },
      {"the storage offset must be even, got 1"});
  expect_error<TypeError>([&] { (void)imag(f); }, {"imag: only complex tensors have imaginary parts, got float32"});
  // Complex tensors take part in autograd (ops/complex.h): a view of a real leaf passes gradients back.
  EXPECT_TRUE(view_as_complex(ones({3, 2}).set_requires_grad()).requires_grad());
}

TEST(DTypeTest, ComplexPrintsAsPyTorch) {
  Tensor z = view_as_complex(tensor<float>({1, 2, 0.5f, -1, 0, 0}).reshape({3, 2}));
  EXPECT_EQ(z.str(), "tensor([1.0000+2.j, 0.5000-1.j, 0.0000+0.j])");  // complex64 is the default complex dtype
  EXPECT_EQ(z.to(kComplex128).select(0, 1).str(), "tensor(0.5000-1.j, dtype=ember.complex128)");
}

// set_default_dtype: what factories without a dtype, Python-number operands and layers' parameters
// take; floating dtypes only; restored at the end (the setting is process-wide).
TEST(DtypeTest, TheDefaultDtypeReachesFactoriesNumbersAndLayers) {
  ASSERT_EQ(default_dtype(), kFloat32);
  set_default_dtype(kFloat64);
  const Tensor zeros_made = zeros({2});
  const Tensor promoted = tensor(std::vector<int64_t>{1, 2}) + 0.5;
  nn::Linear linear(3, 2);
  const DType weight = linear.parameter("weight").dtype();
  set_default_dtype(kFloat32);
  EXPECT_EQ(zeros_made.dtype(), kFloat64);
  EXPECT_EQ(promoted.dtype(), kFloat64);
  EXPECT_EQ(weight, kFloat64);
  EXPECT_EQ(zeros({2}).dtype(), kFloat32);
  ember::testing::expect_error<TypeError>([] { set_default_dtype(kInt64); },
                                          {"set_default_dtype", "floating-point", "int64"});
  EXPECT_EQ(default_dtype(), kFloat32);
}
