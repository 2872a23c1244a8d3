#pragma once
// One score of fused attention (core/kernels/attention.h) as the CUDA kernels compute it: the dot
// product q_i . k_j scaled and masked as the CPU kernel does (core/cpu/attention_kernel.cpp, its
// mask_row), -inf where the key is hidden; and a probability from a score and its row's
// log-sum-exp. tests/cuda build whole rows from these on the host against the CPU kernel.
#include <cmath>
#include <cstdint>
#include <limits>

#include "ember/core/host_device.h"

namespace ember::cuda {

/// The mask a kernel reads: none, bool (true = takes part) or added to the scores (the q dtype).
enum class AttentionMask : uint8_t { None, Bool, Additive };

/// The operands of one attention call, every tensor contiguous: q [batch, L, E], k [batch, S, E],
/// v [batch, S, Ev], mask [batch, L, S] (or null), grad_out and out [batch, L, Ev], logsumexp
/// [batch, L], probs [batch, L, S] (or null).
struct AttentionShape {
  int64_t batch = 0, L = 0, S = 0, E = 0, Ev = 0;
  double scale = 1;
  bool causal = false;
  AttentionMask mask = AttentionMask::None;
};

/// Keys query row i may see at all: under the causal mask none past its own index.
EMBER_HOST_DEVICE inline int64_t attention_keys(const AttentionShape& s, int64_t i) {
  return s.causal ? (i + 1 < s.S ? i + 1 : s.S) : s.S;
}

/// Score (i, j) of batch entry b from its q . k dot product: scaled, then -inf where the bool mask
/// hides it or the additive mask added (the caller skips keys past attention_keys).
template <typename T>
EMBER_HOST_DEVICE inline T attention_score(const AttentionShape& s, T dot, const void* mask, int64_t b, int64_t i,
                                           int64_t j) {
  const T scale = static_cast<T>(s.scale);
  const int64_t at = (b * s.L + i) * s.S + j;
  switch (s.mask) {
    case AttentionMask::Bool:
      return static_cast<const bool*>(mask)[at] ? dot * scale : -std::numeric_limits<T>::infinity();
    case AttentionMask::Additive: return dot * scale + static_cast<const T*>(mask)[at];
    default: return dot * scale;
  }
}

/// The probability of a score in a row whose log-sum-exp is lse (0 when the row sees no key).
template <typename T>
EMBER_HOST_DEVICE inline T attention_probability(T score, T lse) {
  return lse == -std::numeric_limits<T>::infinity() ? T(0) : std::exp(score - lse);
}

}  // namespace ember::cuda
