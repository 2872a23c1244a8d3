// Fused attention as the CUDA kernels compute it (cuda/kernels/attention.cu), replayed on the host
// from the shared scores and probabilities (cuda/shared/attention_score.h) with the kernels'
// formulas, against the CPU kernel (core/cpu/attention_kernel.cpp): every mask kind, causal or not,
// more keys than queries and fewer, a fully masked row, probs kept or recomputed.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "cuda_test_util.h"
#include "ember/core/kernels/attention.h"
#include "ember/cuda/shared/attention_score.h"

using namespace ember;
using cuda::AttentionMask;
using cuda::AttentionShape;
using ember::cuda_test::uniform;

namespace {

struct Result {
  std::vector<double> out, lse, probs, dq, dk, dv;
};

// The kernels' passes over contiguous float64 operands.
Result replay(const AttentionShape& s, const double* q, const double* k, const double* v, const void* mask,
              const double* g) {
  constexpr double kNegInf = -std::numeric_limits<double>::infinity();
  Result r;
  r.out.assign(static_cast<size_t>(s.batch * s.L * s.Ev), 0);
  r.lse.assign(static_cast<size_t>(s.batch * s.L), 0);
  r.probs.assign(static_cast<size_t>(s.batch * s.L * s.S), 0);
  r.dq.assign(static_cast<size_t>(s.batch * s.L * s.E), 0);
  r.dk.assign(static_cast<size_t>(s.batch * s.S * s.E), 0);
  r.dv.assign(static_cast<size_t>(s.batch * s.S * s.Ev), 0);
  auto score = [&](int64_t b, int64_t i, int64_t j) {
    double d = 0;
    for (int64_t e = 0; e < s.E; ++e) d += q[(b * s.L + i) * s.E + e] * k[(b * s.S + j) * s.E + e];
    return cuda::attention_score<double>(s, d, mask, b, i, j);
  };
  std::vector<double> dots(static_cast<size_t>(s.batch * s.L));
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t i = 0; i < s.L; ++i) {
      const int64_t row = b * s.L + i, len = cuda::attention_keys(s, i);
      double top = kNegInf;
      for (int64_t j = 0; j < len; ++j) top = std::max(top, score(b, i, j));
      double lse = kNegInf;
      if (top != kNegInf) {
        double sum = 0;
        for (int64_t j = 0; j < len; ++j) sum += std::exp(score(b, i, j) - top);
        lse = top + std::log(sum);
      }
      r.lse[static_cast<size_t>(row)] = lse;
      for (int64_t j = 0; j < len && lse != kNegInf; ++j) {
        const double p = cuda::attention_probability(score(b, i, j), lse);
        r.probs[static_cast<size_t>(row * s.S + j)] = p;
        for (int64_t e = 0; e < s.Ev; ++e) r.out[static_cast<size_t>(row * s.Ev + e)] += p * v[(b * s.S + j) * s.Ev + e];
      }
      double dot = 0;
      for (int64_t e = 0; e < s.Ev; ++e) dot += g[row * s.Ev + e] * r.out[static_cast<size_t>(row * s.Ev + e)];
      dots[static_cast<size_t>(row)] = dot;
    }
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t i = 0; i < s.L; ++i) {
      const int64_t row = b * s.L + i;
      const double lse = r.lse[static_cast<size_t>(row)];
      if (lse == kNegInf) continue;
      for (int64_t j = 0; j < cuda::attention_keys(s, i); ++j) {
        const double p = cuda::attention_probability(score(b, i, j), lse);
        double dp = 0;
        for (int64_t e = 0; e < s.Ev; ++e) dp += g[row * s.Ev + e] * v[(b * s.S + j) * s.Ev + e];
        const double ds = p * (dp - dots[static_cast<size_t>(row)]);
        for (int64_t e = 0; e < s.E; ++e) {
          r.dq[static_cast<size_t>(row * s.E + e)] += ds * k[(b * s.S + j) * s.E + e] * s.scale;
          r.dk[static_cast<size_t>((b * s.S + j) * s.E + e)] += ds * q[row * s.E + e] * s.scale;
        }
        for (int64_t e = 0; e < s.Ev; ++e) r.dv[static_cast<size_t>((b * s.S + j) * s.Ev + e)] += p * g[row * s.Ev + e];
      }
    }
  return r;
}

void check(int64_t L, int64_t S, bool causal, AttentionMask kind) {
  SCOPED_TRACE("L " + std::to_string(L) + " S " + std::to_string(S) + (causal ? " causal" : "") + " mask " +
               std::to_string(static_cast<int>(kind)));
  const int64_t batch = 2, E = 3, Ev = 4;
  AttentionInputs in;
  in.q = uniform({batch, L, E}, -1, 1, 1);
  in.k = uniform({batch, S, E}, -1, 1, 2);
  in.v = uniform({batch, S, Ev}, -1, 1, 3);
  in.causal = causal;
  in.scale = 0.7;
  if (kind == AttentionMask::Bool) {
    in.mask = uniform({batch, L, S}, 0, 1, 4).gt(0.3);
    // Row 0 of entry 1 sees no key at all: zero output, log-sum-exp -inf, no gradient.
    in.mask.select(0, 1).select(0, 0).fill_(Scalar(false));
  } else if (kind == AttentionMask::Additive) {
    in.mask = uniform({batch, L, S}, -2, 1, 5);
  }
  const Tensor g = uniform({batch, L, Ev}, -1, 1, 6);
  const Tensor out = empty({batch, L, Ev}, kFloat64), lse = empty({batch, L}, kFloat64),
               probs = empty({batch, L, S}, kFloat64);
  attention_forward_stub(DeviceType::CPU, out, lse, probs, in);
  const Tensor dq = empty({batch, L, E}, kFloat64), dk = empty({batch, S, E}, kFloat64),
               dv = empty({batch, S, Ev}, kFloat64);
  attention_backward_stub(DeviceType::CPU, dq, dk, dv, g, out, lse, Tensor(), in);

  AttentionShape s{batch, L, S, E, Ev, in.scale, causal, kind};
  const Result r = replay(s, in.q.data_ptr<double>(), in.k.data_ptr<double>(), in.v.data_ptr<double>(),
                          in.mask.defined() ? in.mask.data_ptr() : nullptr, g.data_ptr<double>());
  auto as = [](const std::vector<double>& x, IntArrayRef shape) { return tensor(x, shape); };
  ember::testing::expect_close(as(r.out, {batch, L, Ev}), out, 1e-12, 1e-12, "out");
  ember::testing::expect_close(as(r.lse, {batch, L}), lse, 1e-12, 1e-12, "logsumexp");
  ember::testing::expect_close(as(r.probs, {batch, L, S}), probs, 1e-12, 1e-12, "probs");
  ember::testing::expect_close(as(r.dq, {batch, L, E}), dq, 1e-12, 1e-12, "grad_q");
  ember::testing::expect_close(as(r.dk, {batch, S, E}), dk, 1e-12, 1e-12, "grad_k");
  ember::testing::expect_close(as(r.dv, {batch, S, Ev}), dv, 1e-12, 1e-12, "grad_v");
}

}  // namespace

TEST(AttentionScoreTest, TheKernelsPassesGiveTheCpuKernelsResults) {
  for (AttentionMask kind : {AttentionMask::None, AttentionMask::Bool, AttentionMask::Additive})
    for (bool causal : {false, true})
      for (auto [L, S] : {std::pair<int64_t, int64_t>{5, 5}, {3, 7}, {7, 3}, {1, 1}}) check(L, S, causal, kind);
}

TEST(AttentionScoreTest, ScoresAreScaledMaskedOrShifted) {
  AttentionShape s{1, 1, 3, 1, 1, 0.5, false, AttentionMask::Bool};
  const bool keep[3] = {true, false, true};
  EXPECT_EQ(cuda::attention_score<double>(s, 4.0, keep, 0, 0, 0), 2.0);
  EXPECT_EQ(cuda::attention_score<double>(s, 4.0, keep, 0, 0, 1), -std::numeric_limits<double>::infinity());
  const float add[3] = {1, -2, 3};
  s.mask = AttentionMask::Additive;
  EXPECT_EQ(cuda::attention_score<float>(s, 4.0f, add, 0, 0, 1), 0.0f);
  s.mask = AttentionMask::None;
  EXPECT_EQ(cuda::attention_score<double>(s, 4.0, nullptr, 0, 0, 2), 2.0);
  s.causal = true;
  s.S = 5;
  EXPECT_EQ(cuda::attention_keys(s, 0), 1);
  EXPECT_EQ(cuda::attention_keys(s, 2), 3);
  EXPECT_EQ(cuda::attention_keys(s, 9), 5);
  EXPECT_EQ(cuda::attention_probability(1.0, -std::numeric_limits<double>::infinity()), 0.0);
}
