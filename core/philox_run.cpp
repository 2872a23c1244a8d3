#include "ember/core/philox_run.h"

// NB: GCC 12's _mm512_mul_epu32 passes _mm512_undefined_epi32(), a self-initialised variable, and
// -Wuninitialized reports it at the header's line, a false positive
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <cstring>

#include "ember/core/philox.h"

namespace ember {
namespace {

// A vector of 64-bit lanes, each holding one 32-bit Philox word: a lane's product of two words is
// then one unsigned 32x32 -> 64-bit multiply (pmuludq), which no compiler forms from the scalar
// code (it needs the product's high half, which x86 has no 32-bit vector instruction for).
#if defined(__AVX512F__)
constexpr int kBytes = 64;
#elif defined(__AVX2__)
constexpr int kBytes = 32;
#else
constexpr int kBytes = 16;
#endif
using Lanes = uint64_t __attribute__((vector_size(kBytes)));

// a * m in each lane, a's words below 2^32.
inline Lanes mul32(Lanes a, uint32_t m) {
#if defined(__AVX512F__)
  return reinterpret_cast<Lanes>(_mm512_mul_epu32(reinterpret_cast<__m512i>(a), _mm512_set1_epi64(m)));
#elif defined(__AVX2__)
  return reinterpret_cast<Lanes>(_mm256_mul_epu32(reinterpret_cast<__m256i>(a), _mm256_set1_epi64x(m)));
#else
  return reinterpret_cast<Lanes>(_mm_mul_epu32(reinterpret_cast<__m128i>(a), _mm_set1_epi64x(m)));
#endif
}

constexpr int kWidth = sizeof(Lanes) / sizeof(uint64_t);
constexpr int kLanes = 16;  // blocks per call
constexpr int kVectors = kLanes / kWidth;

// Blocks block0 .. block0 + 15 of the stream keyed by `key`, block l's word w at out[4 l + w]:
// philox4x32's rounds (core/philox.h) with the blocks in lanes.
void sixteen_blocks(uint64_t block0, uint64_t key, uint32_t* out) {
  alignas(64) uint64_t words[4][kLanes];
  for (int l = 0; l < kLanes; ++l) {
    const uint64_t block = block0 + static_cast<uint64_t>(l);
    words[0][l] = block & 0xFFFFFFFFu;
    words[1][l] = block >> 32;
  }
  for (int v = 0; v < kVectors; ++v) {
    Lanes c0, c1, c2 = {}, c3 = {};
    std::memcpy(&c0, &words[0][v * kWidth], sizeof(Lanes));
    std::memcpy(&c1, &words[1][v * kWidth], sizeof(Lanes));
    uint64_t k0 = static_cast<uint32_t>(key), k1 = key >> 32;  // the round keys, kept below 2^32
    for (int round = 0; round < 10; ++round) {
      const Lanes p0 = mul32(c0, kPhiloxM0), p1 = mul32(c2, kPhiloxM1);
      c0 = (p1 >> 32) ^ c1 ^ k0;
      c2 = (p0 >> 32) ^ c3 ^ k1;
      c1 = p1 & 0xFFFFFFFFu;
      c3 = p0 & 0xFFFFFFFFu;
      k0 = (k0 + kPhiloxW0) & 0xFFFFFFFFu;
      k1 = (k1 + kPhiloxW1) & 0xFFFFFFFFu;
    }
    std::memcpy(&words[0][v * kWidth], &c0, sizeof(Lanes));
    std::memcpy(&words[1][v * kWidth], &c1, sizeof(Lanes));
    std::memcpy(&words[2][v * kWidth], &c2, sizeof(Lanes));
    std::memcpy(&words[3][v * kWidth], &c3, sizeof(Lanes));
  }
  for (int l = 0; l < kLanes; ++l)
    for (int w = 0; w < 4; ++w) out[4 * l + w] = static_cast<uint32_t>(words[w][l]);
}

}  // namespace

void philox_u32_run(uint64_t seed, uint64_t first, uint32_t* out, int64_t n) {
  int64_t i = 0;
  for (; i < n && ((first + static_cast<uint64_t>(i)) & 3) != 0; ++i)
    out[i] = philox_u32(seed, first + static_cast<uint64_t>(i));
  for (; n - i >= 4 * kLanes; i += 4 * kLanes) sixteen_blocks((first + static_cast<uint64_t>(i)) >> 2, seed, out + i);
  if (i < n) {
    uint32_t last[4 * kLanes];
    sixteen_blocks((first + static_cast<uint64_t>(i)) >> 2, seed, last);
    std::copy_n(last, n - i, out + i);
  }
}

}  // namespace ember
