// Bitwise determinism of the CPU kernels with respect to where their data lives: the same values
// at different addresses must give the same bits (results depend on values, shapes and the thread
// count only). Eigen's vectorised reductions peel leading elements up to packet alignment and its
// assignments peel the destination the same way, so an address-dependent kernel shows up here as
// a result that changes with the input's offset from a 64-byte boundary or with the heap state
// the output is allocated in.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>
#include <string>

#include "ember/ember.h"

using namespace ember;

namespace {

using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// A dense copy of `t` that starts `shift` elements past a 64-byte boundary, in memory that only
// this tensor uses.
Tensor at_shift(const Tensor& t, int64_t shift) {
  Tensor c = t.contiguous();
  const size_t item = c.itemsize();
  const size_t bytes = ((c.nbytes() + static_cast<size_t>(shift + 1) * item + 64) + 63) & ~size_t{63};
  std::shared_ptr<void> owner(std::aligned_alloc(64, bytes), std::free);
  char* p = static_cast<char*>(owner.get()) + static_cast<size_t>(shift) * item;
  std::memset(owner.get(), 0xAB, bytes);  // NB: garbage around the data: a read outside shows up
  std::memcpy(p, c.data_ptr(), c.nbytes());
  return from_blob(p, c.sizes(), c.dtype(), owner);
}

bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes() || a.dtype() != b.dtype()) return false;
  Tensor ac = a.contiguous(), bc = b.contiguous();
  return std::memcmp(ac.data_ptr(), bc.data_ptr(), ac.nbytes()) == 0;
}

// Runs f on `inputs` placed at shifts 0..15 (input k at (shift + 5k) mod 16, so operands are also
// misaligned relative to each other) while 0..15 small tensors are alive (so small outputs land at
// different heap addresses), and expects every result bitwise equal to the first run's. Inputs
// flagged in `grad` are leaves that require grad; f may call backward and return their grads.
void expect_address_independent(const std::string& name, const std::vector<Tensor>& inputs, const Fn& f,
                                const std::vector<bool>& grad = {}) {
  std::vector<Tensor> reference;
  for (int64_t shift = 0; shift < 16; ++shift) {
    std::vector<Tensor> ballast;
    for (int64_t k = 0; k < shift; ++k) ballast.push_back(empty({1 + k % 3}));
    std::vector<Tensor> placed;
    for (size_t k = 0; k < inputs.size(); ++k) {
      Tensor t = at_shift(inputs[k], (shift + 5 * static_cast<int64_t>(k)) % 16);
      if (k < grad.size() && grad[k]) t.set_requires_grad();
      placed.push_back(t);
    }
    std::vector<Tensor> out = f(placed);
    if (shift == 0) {
      reference = out;
      continue;
    }
    ASSERT_EQ(out.size(), reference.size()) << name;
    for (size_t i = 0; i < out.size(); ++i) {
      if (same_bits(out[i], reference[i])) continue;
      Tensor d = (out[i].to(kFloat64) - reference[i].to(kFloat64)).abs().max();
      ADD_FAILURE() << name << " (" << inputs[0].dtype() << "): result " << i << " at shift " << shift
                    << " differs from shift 0 by up to " << d.item<double>();
      return;
    }
  }
}

Tensor values(IntArrayRef shape, DType dtype, uint64_t seed) {
  Generator gen(seed);
  return randn(shape, TensorOptions(kFloat64), &gen).to(dtype);
}

class Determinism : public ::testing::TestWithParam<DType> {
 protected:
  DType dt() const { return GetParam(); }
  Tensor v(IntArrayRef shape, uint64_t seed = 1) const { return values(shape, dt(), seed); }
};

INSTANTIATE_TEST_SUITE_P(Floating, Determinism, ::testing::Values(kFloat32, kFloat64),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST_P(Determinism, SumAndMeanOverAllAndOverDims) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{37}, {100}, {1000}, {5001}, {7, 37}, {3, 5, 37}}) {
    std::ostringstream s;
    s << "sum/mean of " << IntArrayRef(shape);
    expect_address_independent(s.str(), {v(shape)}, [](const auto& in) {
      return std::vector<Tensor>{in[0].sum(), in[0].mean()};
    });
  }
  expect_address_independent("sum over dim 1 of [5, 1000]", {v({5, 1000})}, [](const auto& in) {
    return std::vector<Tensor>{in[0].sum({1}), in[0].mean({1})};
  });
  expect_address_independent("sum over dim 1 of [9, 37]", {v({9, 37})}, [](const auto& in) {
    return std::vector<Tensor>{in[0].sum({1}), in[0].mean({-1}, true)};
  });
  expect_address_independent("sum over dim 0 of [37, 45]", {v({37, 45})}, [](const auto& in) {
    return std::vector<Tensor>{in[0].sum({0}), in[0].mean({0})};
  });
  expect_address_independent("sum over dims (0, 2) of [3, 5, 37]", {v({3, 5, 37})}, [](const auto& in) {
    return std::vector<Tensor>{in[0].sum({0, 2}), in[0].sum({1})};
  });
  expect_address_independent("sum over dim 0 of [2, 40000] (split over threads)", {v({2, 40000})},
                             [](const auto& in) { return std::vector<Tensor>{in[0].sum({0}), in[0].sum({1})}; });
  expect_address_independent("sum of [70001] (split over threads)", {v({70001})},
                             [](const auto& in) { return std::vector<Tensor>{in[0].sum()}; });
}

TEST_P(Determinism, VarStdNormLogsumexp) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{37}, {1000}, {6, 37}, {3, 333}}) {
    std::ostringstream s;
    s << "var/std/norm/logsumexp of " << IntArrayRef(shape);
    expect_address_independent(s.str(), {v(shape)}, [](const auto& in) {
      const Tensor& x = in[0];
      return std::vector<Tensor>{x.var(),         x.std(),       x.var({-1}, 0),      x.std({-1}),
                                 x.norm(),        x.norm(1),     x.norm(3, {-1}),     x.norm(2, {-1}),
                                 x.logsumexp({-1}), x.logsumexp({0})};
    });
  }
}

TEST_P(Determinism, SoftmaxAndLogSoftmaxForwardAndBackward) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{5, 37}, {3, 1000}, {37, 6}, {2, 19, 7}}) {
    for (int64_t dim : {int64_t{0}, int64_t{-1}}) {
      std::ostringstream s;
      s << "softmax over dim " << dim << " of " << IntArrayRef(shape);
      expect_address_independent(
          s.str(), {v(shape), v(shape, 2)},
          [dim](const auto& in) {
            Tensor y = softmax(in[0], dim), ly = log_softmax(in[0], dim);
            (y * in[1]).sum().backward();
            Tensor g1 = in[0].grad().clone();
            in[0].grad().zero_();
            (ly * in[1]).sum().backward();
            return std::vector<Tensor>{y, ly, g1, in[0].grad()};
          },
          {true, false});
    }
  }
}

TEST_P(Determinism, LayerNormForwardAndBackward) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{6, 37}, {4, 1000}, {3, 2, 100}, {40, 1000}}) {
    const int64_t D = shape.back();
    std::ostringstream s;
    s << "layer_norm of " << IntArrayRef(shape);
    expect_address_independent(
        s.str(), {v(shape), v({D}, 2), v({D}, 3), v(shape, 4)},
        [D](const auto& in) {
          Tensor y = layer_norm(in[0], {D}, in[1], in[2]);
          Tensor y0 = layer_norm(in[0], {D});
          (y * in[3]).sum().backward();
          return std::vector<Tensor>{y, y0, in[0].grad(), in[1].grad(), in[2].grad()};
        },
        {true, true, true, false});
  }
}

TEST_P(Determinism, BatchNormTrainAndEvalForwardAndBackward) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{37, 19}, {8, 3, 37}, {2, 5, 7, 9}, {64, 300}}) {
    const int64_t C = shape[1];
    std::ostringstream s;
    s << "batch_norm of " << IntArrayRef(shape);
    expect_address_independent(
        s.str(), {v(shape), v({C}, 2), v({C}, 3), v(shape, 4), v({C}, 5), v({C}, 6).abs()},
        [](const auto& in) {
          Tensor rm = in[4].clone(), rv = in[5].clone();
          Tensor y = batch_norm(in[0], rm, rv, in[1], in[2], /*training=*/true);
          (y * in[3]).sum().backward();
          Tensor ye = batch_norm(in[0], in[4], in[5], in[1], in[2], /*training=*/false);
          return std::vector<Tensor>{y, rm, rv, in[0].grad(), in[1].grad(), in[2].grad(), ye};
        },
        {true, true, true, false, false, false});
  }
}

TEST_P(Determinism, MatmulOfSmallOddSizes) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{1, 37}, {37, 1}}, {{1, 100}, {100, 3}}, {{3, 5}, {5, 7}},     {{13, 29}, {29, 11}},
      {{7, 1}, {1, 9}},   {{2, 33}, {33, 64}},  {{65, 70}, {70, 33}}, {{4, 3, 17}, {4, 17, 5}},
      {{37}, {37}},       {{5, 37}, {37}}};
  for (const auto& [as, bs] : cases) {
    std::ostringstream s;
    s << "matmul " << IntArrayRef(as) << " @ " << IntArrayRef(bs);
    expect_address_independent(
        s.str(), {v(as), v(bs, 2)},
        [](const auto& in) {
          Tensor y = in[0].matmul(in[1]);
          y.sum().backward();
          return std::vector<Tensor>{y, in[0].grad(), in[1].grad()};
        },
        {true, true});
  }
}

TEST_P(Determinism, Conv2dForwardAndBackward) {
  expect_address_independent(
      "conv2d [2, 3, 9, 11] * [5, 3, 3, 3]", {v({2, 3, 9, 11}), v({5, 3, 3, 3}, 2), v({5}, 3)},
      [](const auto& in) {
        Tensor y = conv2d(in[0], in[1], in[2], 1, 1);
        y.pow(2).sum().backward();
        return std::vector<Tensor>{y, in[0].grad(), in[1].grad(), in[2].grad()};
      },
      {true, true, true});
  expect_address_independent(
      "conv2d 1x1 [1, 7, 5, 5] * [3, 7, 1, 1]", {v({1, 7, 5, 5}), v({3, 7, 1, 1}, 2)},
      [](const auto& in) {
        Tensor y = conv2d(in[0], in[1]);
        y.sum().backward();
        return std::vector<Tensor>{y, in[0].grad(), in[1].grad()};
      },
      {true, true});
}

TEST_P(Determinism, ElementwiseTranscendentals) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{37}, {7, 9}, {1000}}) {
    std::ostringstream s;
    s << "exp/log/tanh/sigmoid of " << IntArrayRef(shape);
    expect_address_independent(s.str(), {v(shape)}, [](const auto& in) {
      const Tensor& x = in[0];
      return std::vector<Tensor>{x.exp(), x.abs().log(), x.tanh(), x.sigmoid(), x.pow(3.5)};
    });
  }
}

TEST_P(Determinism, Losses) {
  namespace F = nn::functional;
  expect_address_independent(
      "losses of [37, 11]", {v({37, 11}), v({37, 11}, 2), randint(0, 11, {37})},
      [](const auto& in) {
        return std::vector<Tensor>{F::cross_entropy(in[0], in[2]),
                                   F::mse_loss(in[0], in[1]),
                                   F::l1_loss(in[0], in[1]),
                                   F::smooth_l1_loss(in[0], in[1]),
                                   F::binary_cross_entropy_with_logits(in[0], in[1].sigmoid())};
      });
}

TEST_P(Determinism, EvalModelOfLinearBatchNormLayerNorm) {
  // The report: a small model in eval mode gave different bits for the same input.
  manual_seed(7);
  auto model = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(13, 37), std::make_shared<nn::BatchNorm1d>(37),
      std::make_shared<nn::LayerNorm>(37), std::make_shared<nn::Linear>(37, 5)});
  model->to(dt());
  {
    NoGradGuard no_grad;
    model->train();
    for (int i = 0; i < 3; ++i) model->forward(v({16, 13}, 10 + static_cast<uint64_t>(i)));
  }
  model->eval();
  expect_address_independent("eval model", {v({6, 13}, 20)}, [&](const auto& in) {
    NoGradGuard no_grad;
    return std::vector<Tensor>{model->forward(in[0])};
  });
}

}  // namespace
