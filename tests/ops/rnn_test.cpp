// The recurrent ops (ops/rnn.h): the fused layer op against finite differences (first and second
// derivatives), against the cells' textbook formulas written in plain ops (values and gradients),
// its fused backward against its differentiable one, and the errors of the functions.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/ops/rnn.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_close;
using ember::testing::expect_error;

namespace {

constexpr RnnCell kCells[] = {RnnCell::Tanh, RnnCell::Relu, RnnCell::Lstm, RnnCell::Gru};

const char* name_of(RnnCell cell) {
  switch (cell) {
    case RnnCell::Tanh: return "tanh";
    case RnnCell::Relu: return "relu";
    case RnnCell::Lstm: return "lstm";
    case RnnCell::Gru: return "gru";
  }
  return "";
}

// The inputs of one layer in float64, all requiring grad (c0 undefined unless LSTM).
struct LayerInputs {
  Tensor gates_x, h0, c0, w_hh, b_ih, b_hh;
  TensorList list() const {
    TensorList out{gates_x, h0, w_hh, b_ih, b_hh};
    if (c0.defined()) out.push_back(c0);
    return out;
  }
};

LayerInputs layer_inputs(RnnCell cell, int64_t T, int64_t B, int64_t H, bool batch_first, Generator& gen) {
  const int64_t G = rnn_gates(cell) * H;
  auto draw = [&](IntArrayRef shape, double scale) { return (randn(shape, kFloat64, &gen) * scale).set_requires_grad(); };
  LayerInputs in;
  in.gates_x = draw(batch_first ? IntArrayRef{B, T, G} : IntArrayRef{T, B, G}, 1.0);
  in.h0 = draw({B, H}, 0.5);
  if (cell == RnnCell::Lstm) in.c0 = draw({B, H}, 0.5);
  in.w_hh = draw({G, H}, 0.6);
  in.b_ih = draw({G}, 0.3);
  in.b_hh = draw({G}, 0.3);
  return in;
}

// rnn_layer on list() order, its outputs flattened into one tensor.
Tensor run_layer(RnnCell cell, const TensorList& in, bool reverse, bool batch_first) {
  Tensor c0 = in.size() > 5 ? in[5] : Tensor();
  detail::RnnLayerResult r = detail::rnn_layer(cell, in[0], in[1], c0, in[2], in[3], in[4], reverse, batch_first, "test");
  TensorList parts{r.output.reshape({-1}), r.h_n.reshape({-1})};
  if (r.c_n.defined()) parts.push_back(r.c_n.reshape({-1}));
  return cat(parts, 0);
}

// One step of each cell as PyTorch documents it (nn.RNN, nn.LSTM, nn.GRU), in plain ops.
std::pair<Tensor, Tensor> reference_step(RnnCell cell, const Tensor& x, const Tensor& h, const Tensor& c,
                                         const Tensor& w_ih, const Tensor& w_hh, const Tensor& b_ih,
                                         const Tensor& b_hh) {
  Tensor gi = matmul(x, w_ih.t()), gh = matmul(h, w_hh.t());
  if (b_ih.defined()) {
    gi = gi + b_ih;
    gh = gh + b_hh;
  }
  switch (cell) {
    case RnnCell::Tanh: return {tanh(gi + gh), Tensor()};
    case RnnCell::Relu: return {relu(gi + gh), Tensor()};
    case RnnCell::Lstm: {
      TensorList a = chunk(gi + gh, 4, 1);
      Tensor i = sigmoid(a[0]), f = sigmoid(a[1]), g = tanh(a[2]), o = sigmoid(a[3]);
      Tensor c2 = f * c + i * g;
      return {o * tanh(c2), c2};
    }
    case RnnCell::Gru: {
      TensorList xi = chunk(gi, 3, 1), hh = chunk(gh, 3, 1);
      Tensor r = sigmoid(xi[0] + hh[0]), z = sigmoid(xi[1] + hh[1]);
      Tensor n = tanh(xi[2] + r * hh[2]);
      return {(1.0 - z) * n + z * h, Tensor()};
    }
  }
  return {};
}

// A stack of layers (both directions when bidirectional) from reference_step: the oracle of the
// sequence functions. params as theirs (w_ih, w_hh, b_ih, b_hh per layer and direction).
std::vector<Tensor> reference_stack(RnnCell cell, const Tensor& x, const Tensor& hx, const Tensor& cx,
                                    const TensorList& params, int64_t layers, bool bidirectional) {
  const int64_t T = x.size(0), D = bidirectional ? 2 : 1;
  Tensor input = x;
  TensorList h_n, c_n;
  for (int64_t l = 0; l < layers; ++l) {
    TensorList outs;
    for (int64_t d = 0; d < D; ++d) {
      const auto k = static_cast<size_t>((l * D + d) * 4);
      Tensor h = select(hx, 0, l * D + d), c = cx.defined() ? select(cx, 0, l * D + d) : Tensor();
      TensorList steps(static_cast<size_t>(T));
      for (int64_t s = 0; s < T; ++s) {
        const int64_t t = d == 1 ? T - 1 - s : s;
        std::tie(h, c) = reference_step(cell, select(input, 0, t), h, c, params[k], params[k + 1], params[k + 2], params[k + 3]);
        steps[static_cast<size_t>(t)] = h;
      }
      outs.push_back(stack(steps, 0));
      h_n.push_back(h);
      if (c.defined()) c_n.push_back(c);
    }
    input = D == 2 ? cat(outs, 2) : outs[0];
  }
  return {input, stack(h_n, 0), c_n.empty() ? Tensor() : stack(c_n, 0)};
}

std::vector<Tensor> run_stack(RnnCell cell, const Tensor& x, const Tensor& hx, const Tensor& cx,
                              const TensorList& params, int64_t layers, bool bidirectional) {
  switch (cell) {
    case RnnCell::Tanh: {
      auto [o, h] = rnn_tanh(x, hx, params, true, layers, 0.0, true, bidirectional, false);
      return {o, h, Tensor()};
    }
    case RnnCell::Relu: {
      auto [o, h] = rnn_relu(x, hx, params, true, layers, 0.0, true, bidirectional, false);
      return {o, h, Tensor()};
    }
    case RnnCell::Lstm: {
      auto [o, h, c] = lstm(x, {hx, cx}, params, true, layers, 0.0, true, bidirectional, false);
      return {o, h, c};
    }
    case RnnCell::Gru: {
      auto [o, h] = gru(x, hx, params, true, layers, 0.0, true, bidirectional, false);
      return {o, h, Tensor()};
    }
  }
  return {};
}

}  // namespace

TEST(RnnLayerTest, GradientsMatchFiniteDifferences) {
  Generator gen(1);
  for (RnnCell cell : kCells)
    for (bool reverse : {false, true})
      for (bool batch_first : {false, true}) {
        SCOPED_TRACE(detail::str(name_of(cell), " reverse=", reverse, " batch_first=", batch_first));
        LayerInputs in = layer_inputs(cell, /*T=*/3, /*B=*/2, /*H=*/3, batch_first, gen);
        gradcheck([&](const TensorList& t) { return run_layer(cell, t, reverse, batch_first); }, in.list());
      }
}

TEST(RnnLayerTest, GradientsOfStridedStatesMatchFiniteDifferences) {
  // h0 and c0 as transposed views (columns 2 apart), as a [layers, H, B] state's select gives.
  Generator gen(8);
  for (RnnCell cell : kCells) {
    SCOPED_TRACE(name_of(cell));
    LayerInputs in = layer_inputs(cell, /*T=*/3, /*B=*/2, /*H=*/3, false, gen);
    TensorList leaves = in.list();
    leaves[1] = in.h0.detach().t().contiguous().set_requires_grad();
    if (in.c0.defined()) leaves[5] = in.c0.detach().t().contiguous().set_requires_grad();
    for (bool reverse : {false, true})
      gradcheck(
          [&](const TensorList& t) {
            TensorList views = t;
            views[1] = t[1].t();
            if (views.size() > 5) views[5] = t[5].t();
            return run_layer(cell, views, reverse, false);
          },
          leaves);
  }
}

TEST(RnnLayerTest, SecondDerivativesMatchFiniteDifferences) {
  Generator gen(2);
  for (RnnCell cell : kCells) {
    SCOPED_TRACE(name_of(cell));
    LayerInputs in = layer_inputs(cell, /*T=*/2, /*B=*/2, /*H=*/2, /*batch_first=*/false, gen);
    gradgradcheck([&](const TensorList& t) { return run_layer(cell, t, /*reverse=*/true, false); }, in.list());
  }
}

TEST(RnnLayerTest, FusedBackwardMatchesTheDifferentiableOne) {
  Generator gen(3);
  for (RnnCell cell : kCells)
    for (bool batch_first : {false, true}) {
      SCOPED_TRACE(detail::str(name_of(cell), " batch_first=", batch_first));
      LayerInputs in = layer_inputs(cell, /*T=*/5, /*B=*/3, /*H=*/4, batch_first, gen);
      TensorList wrt = in.list();
      auto fn = [&] { return run_layer(cell, wrt, /*reverse=*/false, batch_first); };
      Tensor g = randn(fn().sizes(), kFloat64, &gen);
      TensorList fused = autograd::grad({fn()}, wrt, {g});
      TensorList composite = autograd::grad({fn()}, wrt, {g}, true, /*create_graph=*/true);
      for (size_t i = 0; i < wrt.size(); ++i) expect_close(fused[i], composite[i].detach(), 1e-12, 1e-12);
    }
}

TEST(RnnLayerTest, ValuesAndGradientsMatchTheTextbookFormulas) {
  Generator gen(4);
  for (RnnCell cell : kCells)
    for (bool bidirectional : {false, true}) {
      SCOPED_TRACE(detail::str(name_of(cell), " bidirectional=", bidirectional));
      const int64_t T = 4, B = 3, I = 5, H = 4, L = 2, D = bidirectional ? 2 : 1, G = rnn_gates(cell) * H;
      auto draw = [&](IntArrayRef shape) { return (randn(shape, kFloat64, &gen) * 0.5).set_requires_grad(); };
      Tensor x = draw({T, B, I}), hx = draw({L * D, B, H}), cx = cell == RnnCell::Lstm ? draw({L * D, B, H}) : Tensor();
      TensorList params;
      for (int64_t l = 0; l < L; ++l)
        for (int64_t d = 0; d < D; ++d)
          for (const DimVector& shape : std::vector<DimVector>{{G, l == 0 ? I : H * D}, {G, H}, {G}, {G}})
            params.push_back(draw(shape));
      std::vector<Tensor> got = run_stack(cell, x, hx, cx, params, L, bidirectional);
      std::vector<Tensor> want = reference_stack(cell, x, hx, cx, params, L, bidirectional);
      TensorList wrt{x, hx};
      if (cx.defined()) wrt.push_back(cx);
      wrt.insert(wrt.end(), params.begin(), params.end());
      Tensor loss_got = zeros({}, kFloat64), loss_want = zeros({}, kFloat64);
      for (size_t k = 0; k < 3; ++k) {
        if (!want[k].defined()) continue;
        expect_close(got[k], want[k], 1e-12, 1e-12, detail::str("result ", k));
        Tensor w = randn(want[k].sizes(), kFloat64, &gen);
        loss_got = loss_got + (got[k] * w).sum();
        loss_want = loss_want + (want[k] * w).sum();
      }
      TensorList g_got = autograd::grad({loss_got}, wrt), g_want = autograd::grad({loss_want}, wrt);
      for (size_t i = 0; i < wrt.size(); ++i) expect_close(g_got[i], g_want[i], 1e-11, 1e-12, detail::str("input ", i));
    }
}

TEST(RnnLayerTest, CellsAreOneStepOfTheFormulas) {
  Generator gen(5);
  for (RnnCell cell : kCells)
    for (bool bias : {true, false}) {
      SCOPED_TRACE(detail::str(name_of(cell), " bias=", bias));
      const int64_t B = 3, I = 4, H = 5, G = rnn_gates(cell) * H;
      auto draw = [&](IntArrayRef shape) { return (randn(shape, kFloat64, &gen) * 0.5).set_requires_grad(); };
      Tensor x = draw({B, I}), h = draw({B, H}), c = draw({B, H}), w_ih = draw({G, I}), w_hh = draw({G, H});
      Tensor b_ih = bias ? draw({G}) : Tensor(), b_hh = bias ? draw({G}) : Tensor();
      auto step = [&](const TensorList& in) -> Tensor {
        Tensor bi = bias ? in[4] : Tensor(), bh = bias ? in[5] : Tensor();
        switch (cell) {
          case RnnCell::Tanh: return rnn_tanh_cell(in[0], in[1], in[2], in[3], bi, bh);
          case RnnCell::Relu: return rnn_relu_cell(in[0], in[1], in[2], in[3], bi, bh);
          case RnnCell::Gru: return gru_cell(in[0], in[1], in[2], in[3], bi, bh);
          case RnnCell::Lstm: {
            auto [h2, c2] = lstm_cell(in[0], {in[1], in[6]}, in[2], in[3], bi, bh);
            return cat({h2, c2}, 1);
          }
        }
        return {};
      };
      TensorList in{x, h, w_ih, w_hh, b_ih, b_hh, c};
      auto [h2, c2] = reference_step(cell, x, h, c, w_ih, w_hh, b_ih, b_hh);
      expect_close(step(in), c2.defined() ? cat({h2, c2}, 1) : h2, 1e-12, 1e-12);
      TensorList checked{x, h, w_ih, w_hh};
      if (bias) checked.insert(checked.end(), {b_ih, b_hh});
      if (cell == RnnCell::Lstm) checked.push_back(c);
      gradcheck(
          [&](const TensorList& t) {
            TensorList all{t[0], t[1], t[2], t[3], bias ? t[4] : Tensor(), bias ? t[5] : Tensor(),
                           cell == RnnCell::Lstm ? t.back() : Tensor()};
            return step(all);
          },
          checked);
    }
}

TEST(RnnLayerTest, StridedInputsGiveTheContiguousResults) {
  Generator gen(6);
  for (RnnCell cell : {RnnCell::Lstm, RnnCell::Gru}) {
    LayerInputs in = layer_inputs(cell, 4, 3, 3, false, gen);
    // The same values laid out [G, B, T] and viewed [T, B, G]; h0 transposed too.
    Tensor gx_strided = in.gates_x.detach().permute({2, 1, 0}).contiguous().permute({2, 1, 0});
    Tensor h0_strided = in.h0.detach().t().contiguous().t();
    detail::RnnLayerResult a = detail::rnn_layer(cell, in.gates_x.detach(), in.h0.detach(), in.c0.defined() ? in.c0.detach() : Tensor(),
                                                 in.w_hh.detach(), in.b_ih.detach(), in.b_hh.detach(), false, false, "test");
    detail::RnnLayerResult b = detail::rnn_layer(cell, gx_strided, h0_strided, in.c0.defined() ? in.c0.detach() : Tensor(),
                                                 in.w_hh.detach(), in.b_ih.detach(), in.b_hh.detach(), false, false, "test");
    expect_close(b.output, a.output, 1e-14, 1e-14);
    expect_close(b.h_n, a.h_n, 1e-14, 1e-14);
  }
}

TEST(RnnLayerTest, EmptyBatchGivesEmptyOutputsAndZeroWeightGradients) {
  Generator gen(7);
  for (RnnCell cell : kCells) {
    LayerInputs in = layer_inputs(cell, 3, /*B=*/0, 2, false, gen);
    detail::RnnLayerResult r =
        detail::rnn_layer(cell, in.gates_x, in.h0, in.c0, in.w_hh, in.b_ih, in.b_hh, false, false, "test");
    EXPECT_EQ(r.output.sizes(), IntArrayRef({3, 0, 2}));
    EXPECT_EQ(r.h_n.sizes(), IntArrayRef({0, 2}));
    (r.output.sum() + r.h_n.sum()).backward();
    expect_close(in.w_hh.grad(), zeros(in.w_hh.sizes(), kFloat64), 0, 0);
    expect_close(in.b_hh.grad(), zeros(in.b_hh.sizes(), kFloat64), 0, 0);
  }
}

// The packed form (ember::lstm(data, batch_sizes, ...) & co.) on sequences of lengths 4, 3, 3, 1:
// each sequence's outputs and last states are those of the same layers run on it alone.
TEST(RnnFunctionsTest, PackedBatchRunsEachSequenceForItsOwnLength) {
  Generator gen(9);
  const std::vector<int64_t> lengths{4, 3, 3, 1}, batch_sizes{4, 3, 3, 1};
  const int64_t B = 4, I = 3, H = 2, L = 2;
  for (RnnCell cell : kCells)
    for (bool bidirectional : {false, true}) {
      SCOPED_TRACE(detail::str(name_of(cell), " bidirectional=", bidirectional));
      const int64_t D = bidirectional ? 2 : 1, G = rnn_gates(cell) * H;
      auto draw = [&](IntArrayRef shape) { return randn(shape, kFloat64, &gen) * 0.6; };
      TensorList seqs, params;
      for (int64_t n : lengths) seqs.push_back(draw({n, I}));
      for (int64_t l = 0; l < L; ++l)
        for (int64_t d = 0; d < D; ++d)
          for (const DimVector& shape : std::vector<DimVector>{{G, l == 0 ? I : H * D}, {G, H}, {G}, {G}})
            params.push_back(draw(shape));
      Tensor hx = draw({L * D, B, H}), cx = cell == RnnCell::Lstm ? draw({L * D, B, H}) : Tensor();
      TensorList steps;  // the packed data: step by step, the sequences still running
      for (int64_t t = 0; t < 4; ++t)
        for (int64_t b = 0; b < batch_sizes[static_cast<size_t>(t)]; ++b) steps.push_back(narrow(seqs[b], 0, t, 1));
      auto run = [&](const Tensor& x, const Tensor& sizes, const Tensor& h, const Tensor& c) -> std::vector<Tensor> {
        switch (cell) {
          case RnnCell::Tanh: { auto [o, hn] = rnn_tanh(x, sizes, h, params, true, L, 0.0, false, bidirectional); return {o, hn, Tensor()}; }
          case RnnCell::Relu: { auto [o, hn] = rnn_relu(x, sizes, h, params, true, L, 0.0, false, bidirectional); return {o, hn, Tensor()}; }
          case RnnCell::Lstm: { auto [o, hn, cn] = lstm(x, sizes, {h, c}, params, true, L, 0.0, false, bidirectional); return {o, hn, cn}; }
          case RnnCell::Gru: { auto [o, hn] = gru(x, sizes, h, params, true, L, 0.0, false, bidirectional); return {o, hn, Tensor()}; }
        }
        return {};
      };
      std::vector<Tensor> packed = run(cat(steps, 0), tensor(batch_sizes), hx, cx);
      ASSERT_EQ(packed[0].sizes(), IntArrayRef({11, D * H}));
      for (int64_t b = 0; b < B; ++b) {
        const int64_t n = lengths[static_cast<size_t>(b)];
        auto one = [&](const Tensor& s) { return s.defined() ? narrow(s, 1, b, 1) : s; };
        std::vector<Tensor> alone = run(seqs[b], tensor(std::vector<int64_t>(static_cast<size_t>(n), 1)), one(hx), one(cx));
        for (int64_t t = 0, row = 0; t < n; ++t) {
          row = 0;
          for (int64_t u = 0; u < t; ++u) row += batch_sizes[static_cast<size_t>(u)];
          expect_close(narrow(packed[0], 0, row + b, 1), narrow(alone[0], 0, t, 1), 1e-12, 1e-12,
                       detail::str("output of sequence ", b, " at step ", t));
        }
        expect_close(one(packed[1]), alone[1], 1e-12, 1e-12, detail::str("h_n of sequence ", b));
        if (cx.defined()) expect_close(one(packed[2]), alone[2], 1e-12, 1e-12, detail::str("c_n of sequence ", b));
      }
    }
}

TEST(RnnFunctionsTest, PackedGradientsMatchFiniteDifferences) {
  Generator gen(10);
  const std::vector<int64_t> batch_sizes{3, 2, 1};
  for (RnnCell cell : kCells) {
    SCOPED_TRACE(name_of(cell));
    const int64_t H = 2, G = rnn_gates(cell) * H;
    auto draw = [&](IntArrayRef shape) { return (randn(shape, kFloat64, &gen) * 0.6).set_requires_grad(); };
    // Inputs: data, hx, (cx,) then one bidirectional layer's weights.
    TensorList in{draw({6, 2}), draw({2, 3, H})};
    if (cell == RnnCell::Lstm) in.push_back(draw({2, 3, H}));
    for (int d = 0; d < 2; ++d)
      for (const DimVector& shape : std::vector<DimVector>{{G, 2}, {G, H}, {G}, {G}}) in.push_back(draw(shape));
    const size_t first_weight = cell == RnnCell::Lstm ? 3 : 2;
    auto fn = [&](const TensorList& t) {
      TensorList params(t.begin() + static_cast<int64_t>(first_weight), t.end());
      Tensor sizes = tensor(batch_sizes);
      std::vector<Tensor> r;
      switch (cell) {
        case RnnCell::Tanh: { auto [o, h] = rnn_tanh(t[0], sizes, t[1], params, true, 1, 0.0, false, true); r = {o, h}; break; }
        case RnnCell::Relu: { auto [o, h] = rnn_relu(t[0], sizes, t[1], params, true, 1, 0.0, false, true); r = {o, h}; break; }
        case RnnCell::Lstm: { auto [o, h, c] = lstm(t[0], sizes, {t[1], t[2]}, params, true, 1, 0.0, false, true); r = {o, h, c}; break; }
        case RnnCell::Gru: { auto [o, h] = gru(t[0], sizes, t[1], params, true, 1, 0.0, false, true); r = {o, h}; break; }
      }
      TensorList flat;
      for (const Tensor& x : r) flat.push_back(x.reshape({-1}));
      return cat(flat, 0);
    };
    gradcheck(fn, in);
    gradgradcheck(fn, in);
  }
}

TEST(RnnFunctionsTest, ErrorsNameTheFunctionAndShapes) {
  Tensor x = randn({5, 3, 4}), h = zeros({1, 3, 6});
  TensorList params{randn({24, 4}), randn({24, 6}), randn({24}), randn({24})};
  expect_error([&] { lstm(randn({5, 4}), {h, h}, params, true, 1, 0.0, false, false, false); },
               {"lstm", "3 dims", "[5, 4]"});
  expect_error([&] { lstm(x, {h, h}, params, true, 2, 0.0, false, false, false); },
               {"lstm", "expected 8 weights", "got 4"});
  expect_error([&] { lstm(x, {zeros({1, 2, 6}), h}, params, true, 1, 0.0, false, false, false); },
               {"lstm", "h_0", "[1, 3, 6]", "[1, 2, 6]"});
  expect_error([&] { lstm(x, {h, zeros({1, 3, 7})}, params, true, 1, 0.0, false, false, false); },
               {"lstm", "projections", "[1, 3, 7]"});
  expect_error<TypeError>([&] { lstm(x.to(kFloat64), {h, h}, params, true, 1, 0.0, false, false, false); },
                          {"lstm", "float64", "float32"});
  expect_error([&] { lstm(randn({5, 3, 2}), {h, h}, params, true, 1, 0.0, false, false, false); },
               {"lstm", "weight_ih", "[24, 4]", "2"});
  expect_error([&] { lstm(randn({0, 3, 4}), {h, h}, params, true, 1, 0.0, false, false, false); },
               {"lstm", "sequence length"});
  expect_error([&] { gru(x, h, params, true, 1, 0.0, false, false, false); }, {"gru", "weight_hh", "[24, 6]", "[18, 6]"});
  expect_error([&] { rnn_tanh(x, h, params, true, 1, 1.5, true, false, false); }, {"rnn_tanh", "dropout", "1.5"});
  expect_error([&] { lstm_cell(randn({3, 5}), {zeros({3, 6}), zeros({3, 6})}, params[0], params[1]); },
               {"lstm_cell: input has inconsistent input_size: got 5 expected 4"});
  expect_error([&] { lstm_cell(randn({3, 4}), {zeros({2, 6}), zeros({2, 6})}, params[0], params[1]); },
               {"lstm_cell: Input batch size 3 doesn't match hidden0 batch size 2"});
  expect_error([&] { lstm_cell(randn({3, 4}), {zeros({3, 6})}, params[0], params[1]); }, {"lstm_cell", "[h, c]"});
  expect_error([&] { gru_cell(randn({4}), zeros({6}), randn({18, 4}), randn({18, 6})); },
               {"gru_cell", "[batch, input_size]", "[4]"});
  expect_error([&] { rnn_tanh_cell(randn({3, 4}), zeros({3, 6}), randn({6, 4}), randn({6, 6}), randn({6})); },
               {"rnn_tanh_cell", "both biases"});
  TensorList tanh_params{randn({6, 4}), randn({6, 6}), randn({6}), randn({6})};
  expect_error([&] { rnn_tanh(randn({5, 4}), tensor(std::vector<int64_t>{2, 3}), zeros({1, 2, 6}), tanh_params, true,
                              1, 0.0, false, false); },
               {"rnn_tanh", "batch_sizes", "non-increasing", "[2, 3]"});
  expect_error([&] { rnn_tanh(randn({4, 4}), tensor(std::vector<int64_t>{2, 1}), zeros({1, 2, 6}), tanh_params, true,
                              1, 0.0, false, false); },
               {"rnn_tanh", "add up to 3", "4 rows"});
  expect_error<TypeError>([&] { rnn_tanh(randn({3, 4}), tensor(std::vector<float>{2, 1}), zeros({1, 2, 6}), tanh_params,
                                         true, 1, 0.0, false, false); },
                          {"rnn_tanh", "batch_sizes", "int64", "float32"});
}
