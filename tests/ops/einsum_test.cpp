// einsum (ops/einsum.h): known contractions (matmul, batch, trace, outer, transpose, broadcast
// ellipses, implicit output), gradients by finite differences through its permutes, diagonals and
// bmm, and PyTorch's error messages. NumPy comparisons over random equations:
// tests/python/property/test_einsum_property.py.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::TensorList;
using ember::testing::expect_close;
using ember::testing::expect_error;

namespace {

Tensor draw(IntArrayRef shape, uint64_t seed) {
  Generator g(seed);
  return randn(shape, kFloat64, &g).set_requires_grad();
}

}  // namespace

TEST(EinsumTest, KnownContractions) {
  Tensor a = draw({2, 3}, 1), b = draw({3, 4}, 2), s = draw({3, 3}, 3), batch = draw({5, 2, 3}, 4);
  expect_close(einsum("ij,jk->ik", {a, b}), matmul(a, b), 1e-12, 1e-12, "matmul");
  expect_close(einsum("ij,jk", {a, b}), matmul(a, b), 1e-12, 1e-12, "implicit matmul");
  expect_close(einsum("ba,cb", {a.t(), b.t()}), matmul(a, b), 1e-12, 1e-12, "implicit output: a then c");
  expect_close(einsum("cb,ba", {b.t(), a.t()}), matmul(a, b), 1e-12, 1e-12, "implicit output in alphabetical order");
  expect_close(einsum("ii", {s}), sum(diagonal(s)), 1e-12, 1e-12, "trace");
  expect_close(einsum("ii->i", {s}), diagonal(s), 1e-12, 1e-12, "diagonal");
  expect_close(einsum("ij->ji", {a}), a.t(), 0, 0, "transpose");
  expect_close(einsum("i,j->ij", {a.select(0, 0), b.select(0, 1)}), outer(a.select(0, 0), b.select(0, 1)), 1e-12,
               1e-12, "outer");
  expect_close(einsum("bij,jk->bik", {batch, b}), matmul(batch, b), 1e-12, 1e-12, "batched");
  expect_close(einsum("...ij,jk->...ik", {batch, b}), matmul(batch, b), 1e-12, 1e-12, "ellipsis");
  expect_close(einsum("...ij->ij", {batch}), sum(batch, {0}), 1e-12, 1e-12, "ellipsis summed");
  expect_close(einsum("i...,i...->...", {a, a}), sum(a * a, {0}), 1e-12, 1e-12, "leading dims");
  expect_close(einsum("ij,ij->", {a, a}), sum(a * a), 1e-12, 1e-12, "full contraction");
  expect_close(einsum(" i j -> j i ", {a}), a.t(), 0, 0, "spaces");
  // Size-1 dims broadcast, labelled or under the ellipsis.
  expect_close(einsum("ij,jk->ik", {draw({2, 1}, 5), b}), matmul(draw({2, 1}, 5).expand({2, 3}), b), 1e-12, 1e-12,
               "labelled broadcast");
  expect_close(einsum("...i,...i->...", {batch, draw({1, 1, 3}, 6)}),
               sum(batch * draw({1, 1, 3}, 6), {2}), 1e-12, 1e-12, "ellipsis broadcast");
  expect_close(einsum("->", {scalar_tensor(3.0)}), scalar_tensor(3.0), 0, 0, "0-d");
  Tensor ints = arange(6).reshape({2, 3});
  EXPECT_EQ(einsum("ij,ij->i", {ints, ints}).to_vector<int64_t>(), (std::vector<int64_t>{5, 50}));
  // Regression: a dim summed in one operand alone made it int64 before the bmm with an int32 one.
  Tensor i32 = arange(4).reshape({2, 2}).to(kInt32);
  EXPECT_EQ(einsum("aa,", {i32, scalar_tensor(-1, kInt32)}).to_vector<int32_t>(), (std::vector<int32_t>{-3}));
  EXPECT_EQ(einsum("ij,jk->ik", {zeros({2, 0}), zeros({0, 3})}).to_vector<float>(), std::vector<float>(6, 0.0f));
}

TEST(EinsumTest, GradientsFlowThroughItsParts) {
  Tensor a = draw({2, 3}, 1), b = draw({3, 4}, 2), s = draw({3, 3, 2}, 3), c = draw({4, 2}, 7);
  gradcheck([](const TensorList& in) { return einsum("ij,jk,kl->il", {in[0], in[1], in[2]}); }, {a, b, c});
  gradcheck([](const TensorList& in) { return einsum("iik->k", {in[0]}); }, {s});
  gradcheck([](const TensorList& in) { return einsum("ij,kj->ikj", {in[0], in[1]}); }, {a, draw({4, 3}, 8)});
  gradcheck([](const TensorList& in) { return einsum("...j,j->...", {in[0], in[1]}); }, {s.transpose(0, 2), draw({3}, 9)});
  gradcheck([](const TensorList& in) { return einsum("i,i->", {in[0], in[1]}); }, {draw({1}, 10), draw({4}, 11)});
}

TEST(EinsumTest, ErrorsAreTorchs) {
  Tensor m = zeros({2, 2});
  expect_error<ValueError>([&] { einsum("ij->ij", {m, m}); },
                           {"einsum(): more operands were provided than specified in the equation"});
  expect_error<ValueError>([&] { einsum("ij,jk->ik", {m}); },
                           {"einsum(): fewer operands were provided than specified in the equation"});
  expect_error<ValueError>([&] { einsum("ijk->ij", {m}); },
                           {"einsum(): the number of subscripts in the equation (3) does not match the number of "
                            "dimensions (2) for operand 0 and no ellipsis was given"});
  expect_error<ValueError>([&] { einsum("ij->ii", {m}); }, {"einsum(): output subscript i appears more than once"});
  expect_error<ValueError>([&] { einsum("ij->k", {m}); },
                           {"einsum(): output subscript k does not appear in the equation for any input operand"});
  expect_error<ValueError>([&] { einsum("i1->i", {m}); }, {"einsum(): invalid subscript given at index 1"});
  expect_error<ValueError>([&] { einsum("...i...->i", {m}); },
                           {"einsum(): found '.' for operand 0 for which an ellipsis was already found"});
  expect_error<ValueError>([&] { einsum("ii->i", {zeros({2, 3})}); },
                           {"einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 2"});
  expect_error<ValueError>([&] { einsum("ij,jk->ik", {m, zeros({3, 4})}); },
                           {"einsum(): subscript j has size 3 for operand 1 which does not broadcast with previously "
                            "seen size 2"});
  expect_error<ValueError>([&] { einsum("...i,...i->...", {zeros({2, 3}), zeros({4, 3})}); },
                           {"einsum(): dimension 0 covered by ellipsis in operand 1 has size 4"});
  expect_error<TypeError>([&] { einsum("i,i->", {zeros({2}), zeros({2}, kFloat64)}); },
                          {"einsum(): operands must share a dtype, got float32 (operand 0) and float64 (operand 1)"});
}
