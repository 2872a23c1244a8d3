#include "ember/core/philox_run.h"

#include <immintrin.h>

#include <algorithm>

#include "ember/core/philox.h"

namespace ember {
namespace {

// A vector of 64-bit lanes, each holding one 32-bit Philox word: a lane's product of two words is
// then one unsigned 32x32 -> 64-bit multiply (pmuludq), which no compiler forms from the scalar
// code (it needs the product's high half, which x86 has no 32-bit vector instruction for).
#if defined(__AVX512F__)
using Lanes = __m512i;
inline Lanes splat(uint64_t v) { return _mm512_set1_epi64(static_cast<long long>(v)); }
inline Lanes load(const uint64_t* p) { return _mm512_loadu_si512(p); }
inline void store(uint64_t* p, Lanes v) { _mm512_storeu_si512(p, v); }
inline Lanes mul32(Lanes a, Lanes b) { return _mm512_mul_epu32(a, b); }
inline Lanes high32(Lanes a) { return _mm512_srli_epi64(a, 32); }
inline Lanes bits_and(Lanes a, Lanes b) { return _mm512_and_si512(a, b); }
inline Lanes bits_xor(Lanes a, Lanes b) { return _mm512_xor_si512(a, b); }
#elif defined(__AVX2__)
using Lanes = __m256i;
inline Lanes splat(uint64_t v) { return _mm256_set1_epi64x(static_cast<long long>(v)); }
inline Lanes load(const uint64_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
inline void store(uint64_t* p, Lanes v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
inline Lanes mul32(Lanes a, Lanes b) { return _mm256_mul_epu32(a, b); }
inline Lanes high32(Lanes a) { return _mm256_srli_epi64(a, 32); }
inline Lanes bits_and(Lanes a, Lanes b) { return _mm256_and_si256(a, b); }
inline Lanes bits_xor(Lanes a, Lanes b) { return _mm256_xor_si256(a, b); }
#else
using Lanes = __m128i;
inline Lanes splat(uint64_t v) { return _mm_set1_epi64x(static_cast<long long>(v)); }
inline Lanes load(const uint64_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline void store(uint64_t* p, Lanes v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
inline Lanes mul32(Lanes a, Lanes b) { return _mm_mul_epu32(a, b); }
inline Lanes high32(Lanes a) { return _mm_srli_epi64(a, 32); }
inline Lanes bits_and(Lanes a, Lanes b) { return _mm_and_si128(a, b); }
inline Lanes bits_xor(Lanes a, Lanes b) { return _mm_xor_si128(a, b); }
#endif

constexpr int kWidth = sizeof(Lanes) / sizeof(uint64_t);
constexpr int kLanes = 16;  // blocks per call
constexpr int kVectors = kLanes / kWidth;

// Blocks block0 .. block0 + 15 of the stream keyed by `key`, block l's word w at out[4 l + w]:
// philox4x32's rounds (core/philox.h) with the blocks in lanes.
void sixteen_blocks(uint64_t block0, uint64_t key, uint32_t* out) {
  constexpr uint32_t kM0 = 0xD2511F53, kM1 = 0xCD9E8D57, kW0 = 0x9E3779B9, kW1 = 0xBB67AE85;
  alignas(64) uint64_t words[4][kLanes];
  for (int l = 0; l < kLanes; ++l) {
    const uint64_t block = block0 + static_cast<uint64_t>(l);
    words[0][l] = block & 0xFFFFFFFFu;
    words[1][l] = block >> 32;
  }
  const Lanes m0 = splat(kM0), m1 = splat(kM1), low = splat(0xFFFFFFFFu);
  for (int v = 0; v < kVectors; ++v) {
    Lanes c0 = load(&words[0][v * kWidth]), c1 = load(&words[1][v * kWidth]), c2 = splat(0), c3 = splat(0);
    uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
    for (int round = 0; round < 10; ++round) {
      const Lanes p0 = mul32(m0, c0), p1 = mul32(m1, c2);
      c0 = bits_xor(bits_xor(high32(p1), c1), splat(k0));
      c2 = bits_xor(bits_xor(high32(p0), c3), splat(k1));
      c1 = bits_and(p1, low);
      c3 = bits_and(p0, low);
      k0 += kW0;
      k1 += kW1;
    }
    store(&words[0][v * kWidth], c0);
    store(&words[1][v * kWidth], c1);
    store(&words[2][v * kWidth], c2);
    store(&words[3][v * kWidth], c3);
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
