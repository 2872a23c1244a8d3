// Every case of the op database (the `test` fields of ops/ops.toml, generated as ember/ops/op_db.h):
// first and second derivatives against central finite differences on inputs drawn from the case's
// domain (away from its kinks and poles), plain, transposed, broadcast and 0-d; float32 agrees with
// float64; and every dtype the case takes gives the dtype its `result` names. A table entry with a
// `test` is under these checks without an edit here (tests/codegen/throwaway_op.sh proves it).
#include "ember/ops/op_db.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ember/autograd/gradcheck.h"
#include "ember/core/dtype.h"
#include "ember/ember.h"

using namespace ember;
using autograd::TensorList;
using op_db::Domain;

namespace {

// Values of `shape` drawn from the domain, moved 0.4 past any point of `avoid` they fall within 0.2 of.
Tensor draw(IntArrayRef shape, Domain d, const std::vector<double>& avoid, Generator& gen) {
  Tensor x = rand(shape, kFloat64, &gen) * (d.hi - d.lo) + d.lo;
  for (double p : avoid) {
    const Tensor near = (x - p).abs() < 0.2;
    x = where(near, where(x >= p, x + 0.4, x - 0.4), x);
  }
  return x;
}

const std::vector<DType>& dtypes_of(op_db::Dtypes d) {
  static const std::vector<DType> all = {kBool, kUInt8, kInt32, kInt64, kBFloat16, kFloat16, kFloat32, kFloat64};
  static const std::vector<DType> numeric = {kUInt8, kInt32, kInt64, kBFloat16, kFloat16, kFloat32, kFloat64};
  static const std::vector<DType> floating = {kBFloat16, kFloat16, kFloat32, kFloat64};
  static const std::vector<DType> integral = {kBool, kUInt8, kInt32, kInt64};
  switch (d) {
    case op_db::Dtypes::All:
      return all;
    case op_db::Dtypes::Numeric:
      return numeric;
    case op_db::Dtypes::Float:
      return floating;
    case op_db::Dtypes::Integral:
      return integral;
  }
  return all;
}

DType expected_dtype(op_db::Result r, DType in) {
  switch (r) {
    case op_db::Result::Same:
    case op_db::Result::Promote:
      return in;
    case op_db::Result::Float:
    case op_db::Result::Divide:
      return is_floating(in) ? in : kFloat32;
    case op_db::Result::Bool:
    case op_db::Result::Compare:
    case op_db::Result::Logical:
      return kBool;
  }
  return in;
}

// The input of a dtype check: domain values, as integers (non-negative for uint8) where the dtype is one.
Tensor input_of(DType t, Domain d, Generator& gen) {
  Tensor x = draw({2, 3}, d, {}, gen);
  if (t == kUInt8) x = x.abs();
  return (is_floating(t) ? x : x.round()).to(t);
}

// Runs check(c) for every case, reporting an exception as a failure that names the case (an exception
// ends a gtest test and loses its SCOPED_TRACE).
template <class Cases, class Check>
void for_each_case(const Cases& cases, Check check) {
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.name));
    try {
      check(c);
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.name << ": " << e.what();
    }
  }
}

}  // namespace

TEST(OpDbTest, HoldsTheElementwiseOps) {
  // NB: a floor, not the count: the table grows
  EXPECT_GE(op_db::unary_cases().size(), 60u);
  EXPECT_GE(op_db::binary_cases().size(), 20u);
}

TEST(OpDbTest, UnaryGradientsMatchFiniteDifferences) {
  Generator gen(11);
  for_each_case(op_db::unary_cases(), [&](const op_db::UnaryCase& c) {
    if (!c.grad) return;
    auto fn = [&](const TensorList& in) { return c.fn(in[0]); };
    for (const DimVector& shape : {DimVector{3, 4}, DimVector{}}) {
      Tensor x = draw(shape, c.domain[0], c.avoid, gen).set_requires_grad();
      autograd::gradcheck(fn, {x});
      if (c.grad == 2) autograd::gradgradcheck(fn, {x});
    }
    Tensor xt = draw({4, 3}, c.domain[0], c.avoid, gen).set_requires_grad();
    autograd::gradcheck([&](const TensorList& in) { return c.fn(in[0].t()); }, {xt});
  });
}

TEST(OpDbTest, BinaryGradientsMatchFiniteDifferences) {
  Generator gen(12);
  for_each_case(op_db::binary_cases(), [&](const op_db::BinaryCase& c) {
    if (!c.grad) return;
    auto fn = [&](const TensorList& in) { return c.fn(in[0], in[1]); };
    // broadcast against each other, then a transposed left operand and a 0-d right one
    Tensor x = draw({3, 1, 4}, c.domain[0], c.avoid, gen).set_requires_grad();
    Tensor y = draw({2, 1}, c.domain[1], c.avoid, gen).set_requires_grad();
    autograd::gradcheck(fn, {x, y});
    if (c.grad == 2) autograd::gradgradcheck(fn, {x, y});
    Tensor xt = draw({4, 3}, c.domain[0], c.avoid, gen).set_requires_grad();
    Tensor s = draw({}, c.domain[1], c.avoid, gen).set_requires_grad();
    autograd::gradcheck([&](const TensorList& in) { return c.fn(in[0].t(), in[1]); }, {xt, s});
  });
}

TEST(OpDbTest, Float32AgreesWithFloat64) {
  Generator gen(13);
  auto expect_agree = [](std::string_view name, const Tensor& single, const Tensor& wide) {
    ASSERT_EQ(single.dtype(), kFloat32) << name;
    const double err = ((single.to(kFloat64) - wide).abs() / (wide.abs() + 1e-3)).max().item<double>();
    EXPECT_LT(err, 1e-4) << name << ": float32 differs from float64 by " << err << " (relative)";
  };
  for (const op_db::UnaryCase& c : op_db::unary_cases()) {
    if (c.dtypes == op_db::Dtypes::Integral || c.result == op_db::Result::Bool) continue;
    const Tensor x = draw({64}, c.domain[0], c.avoid, gen);
    expect_agree(c.name, c.fn(x.to(kFloat32)), c.fn(x));
  }
  for (const op_db::BinaryCase& c : op_db::binary_cases()) {
    if (c.dtypes == op_db::Dtypes::Integral || c.result == op_db::Result::Compare || c.result == op_db::Result::Logical)
      continue;
    const Tensor x = draw({64}, c.domain[0], c.avoid, gen), y = draw({64}, c.domain[1], c.avoid, gen);
    expect_agree(c.name, c.fn(x.to(kFloat32), y.to(kFloat32)), c.fn(x, y));
  }
}

TEST(OpDbTest, EveryDtypeGivesTheResultDtype) {
  Generator gen(14);
  for (const op_db::UnaryCase& c : op_db::unary_cases())
    for (DType t : dtypes_of(c.dtypes)) {
      SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(t)));
      const Tensor out = c.fn(input_of(t, c.domain[0], gen));
      EXPECT_EQ(out.dtype(), expected_dtype(c.result, t));
      EXPECT_EQ(out.shape(), (DimVector{2, 3}));
    }
  for (const op_db::BinaryCase& c : op_db::binary_cases())
    for (DType t : dtypes_of(c.dtypes)) {
      // NB: PyTorch refuses bool in sub and pow, and integers to negative integer powers
      if ((t == kBool && c.name == "sub") || (c.name == "pow" && !is_floating(t))) continue;
      SCOPED_TRACE(std::string(c.name) + " " + std::string(dtype_name(t)));
      const Tensor out = c.fn(input_of(t, c.domain[0], gen), input_of(t, c.domain[1], gen));
      EXPECT_EQ(out.dtype(), expected_dtype(c.result, t));
      EXPECT_EQ(out.shape(), (DimVector{2, 3}));
    }
}
