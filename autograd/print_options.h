#pragma once
// How tensors print (Tensor::str, operator<<, Python's repr): PyTorch's printout and its options
// (torch.set_printoptions). The options are process-wide and unsynchronized, as PyTorch's.
#include <cstdint>
#include <optional>
#include <string_view>

namespace ember {

struct PrintOptions {
  int64_t precision = 4;         // digits after the point
  double threshold = 1000;       // past this many elements, each dim shows only its edges
  int64_t edgeitems = 3;         // entries shown at each end of a summarized dim
  int64_t linewidth = 80;        // characters per line before a row wraps
  std::optional<bool> sci_mode;  // nullopt: each tensor chooses its notation
};

/// The options tensors print with now.
const PrintOptions& print_options();
/// Replaces them: `profile` ("default", "short", "full"; another changes nothing) sets the first four,
/// then each given option overrides it; sci_mode is always assigned (nullopt: chosen per tensor).
void set_print_options(std::optional<int64_t> precision, std::optional<double> threshold,
                       std::optional<int64_t> edgeitems, std::optional<int64_t> linewidth,
                       std::optional<std::string_view> profile, std::optional<bool> sci_mode);

}  // namespace ember
