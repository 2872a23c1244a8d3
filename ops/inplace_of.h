#pragma once
// The in-place form of an out-of-place op (the table's `inplace` entries: t.exp_(), t.scatter_(...)):
// the op's result written into self through copy_, so every view of self sees it and autograd records
// a copy into self (a leaf that requires grad is refused, as PyTorch refuses it). While a graph is
// recorded the op reads a clone of self, which its backward may have saved. As PyTorch, a result whose
// dtype self holds only by changing category (a float into an int64 tensor) is refused, not truncated.
#include <functional>
#include <initializer_list>

#include "ember/core/tensor.h"

namespace ember::detail {

/// How the gradient goes through an in-place op (the table's `inplace` values), as PyTorch's:
/// kRecorded: the op's own (true); kZero: self and the other operands get zeros, and self requires
/// grad when any of them does (the comparisons: eq_, lt_, ...; "zero_grad"); kUntracked: the write is
/// outside the graph and self keeps its history, as PyTorch's ops without a derivative (logical_and_;
/// "untracked").
enum class InplaceGrad { kRecorded, kZero, kUntracked };

/// self.copy_(op(self or a clone of it)); `read` are the op's other tensor arguments (undefined ones
/// allowed), whose needing grad also makes the op record; `name` (t.name_) goes into errors.
const Tensor& inplace_of(const Tensor& self, const char* name,
                         std::initializer_list<std::reference_wrapper<const Tensor>> read,
                         const std::function<Tensor(const Tensor&)>& op, InplaceGrad grad = InplaceGrad::kRecorded);

}  // namespace ember::detail
