#pragma once
// A Tensor method that writes self in place, recorded as one op of a program while a tracer is
// installed (core/tracing.h): `run` calls the method again, which then runs unrecorded (the
// recorded op's inside), and the program names self anew after it.
#include <string_view>
#include <utility>
#include <vector>

#include "ember/core/tracing.h"

namespace ember::detail {

template <typename F>
const Tensor& recorded_method(const Tensor& self, std::string_view op, F&& run, std::vector<tracing::Arg> args) {
  tracing::record<Tensor>(
      op, [&]() -> Tensor { return run(); }, std::move(args));
  return self;
}

}  // namespace ember::detail
