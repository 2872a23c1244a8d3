#pragma once
// Philox draws in bulk, for CPU code that fills a buffer: exactly the words Generator::next_u32
// gives one at a time (core/philox.h), sixteen blocks at once in vector lanes. A draw through the
// Generator costs about 35 cycles, nearly all of it Philox's ten rounds of 32x32-bit products done
// one block at a time; dropout spent 6% of a Transformer language model's step there.
#include <cstdint>

namespace ember {

/// out[i] = philox_u32(seed, first + i), the draw a Generator at {seed, first + i} would make, for
/// i in [0, n).
void philox_u32_run(uint64_t seed, uint64_t first, uint32_t* out, int64_t n);

}  // namespace ember
