#pragma once
// Counter-based random numbers (Philox 4x32-10): the whole state is a seed and a counter, so a
// checkpoint saves it in 16 bytes and a resumed run draws exactly the numbers the original would.
#include <array>
#include <cstdint>

namespace ember {

class Generator {
 public:
  /// The saved form of a generator: restore it with set_state to replay the same draws.
  struct State {
    uint64_t seed = 0;
    uint64_t counter = 0;  // 32-bit draws made so far
    friend bool operator==(const State&, const State&) = default;
  };

  explicit Generator(uint64_t seed = 0x853c49e6748fea9bULL) { manual_seed(seed); }

  /// Restarts the stream from `seed`.
  void manual_seed(uint64_t seed);
  uint64_t seed() const { return state_.seed; }
  State get_state() const { return state_; }
  void set_state(State state);

  uint32_t next_u32();
  uint64_t next_u64();
  /// Uniform in [0, 1) with 24 random bits.
  float uniform_float();
  /// Uniform in [0, 1) with 53 random bits.
  double uniform_double();
  /// Standard normal (Box-Muller; uses two 64-bit draws, caches nothing).
  double normal();
  /// Uniform integer in [0, n) without modulo bias.
  uint64_t below(uint64_t n);

 private:
  State state_;
  uint64_t cached_block_ = ~0ULL;
  std::array<uint32_t, 4> block_{};
};

/// The generator ops use when none is passed (PyTorch's default generator).
Generator& default_generator();
/// Seeds the default generator.
void manual_seed(uint64_t seed);

}  // namespace ember
