#pragma once
// Turns a runtime op code into a compile-time one: visit_op(op, f) calls
// f(std::integral_constant<Family, op>{}), so a kernel written over core/math/elementwise.h's
// per-value math compiles one loop per op code with the op's switch folded away (a switch per
// element keeps the compiler from vectorising even round or trunc).
#include <cstddef>
#include <type_traits>
#include <utility>

#include "ember/core/kernels/op_codes.h"

namespace ember::cpu {

template <typename Family, typename F>
void visit_op(Family op, F&& f) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    ((static_cast<size_t>(op) == I ? (f(std::integral_constant<Family, static_cast<Family>(I)>{}), true) : false) ||
     ...);
  }(std::make_index_sequence<kOpCount<Family>>{});
}

}  // namespace ember::cpu
