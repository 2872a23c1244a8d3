#include "ember/distributed/process_group.h"

#include "ember/core/error.h"

namespace ember::distributed {

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Avg: return "avg";
    case ReduceOp::Product: return "product";
    case ReduceOp::Min: return "min";
    case ReduceOp::Max: return "max";
  }
  return "?";
}

ProcessGroup::ProcessGroup(int rank, int size, Milliseconds timeout)
    : rank_(rank), size_(size), timeout_(timeout) {
  EMBER_CHECK_VALUE(size >= 1, "ProcessGroup: size must be at least 1, got ", size);
  EMBER_CHECK_VALUE(rank >= 0 && rank < size, "ProcessGroup: rank must be in [0, ", size,
                    "), got ", rank);
  EMBER_CHECK_VALUE(timeout.count() > 0, "ProcessGroup: timeout must be positive, got ",
                    timeout.count(), " ms");
}

void ProcessGroup::check_tensor(const char* op, const Tensor& t) const {
  EMBER_CHECK_VALUE(t.defined(), op, ": the tensor is undefined");
  EMBER_CHECK_VALUE(t.device() == device(), op, ": the ", backend(), " backend takes tensors on ", device(),
                    ", got one on ", t.device());
}

void ProcessGroup::check_rank(const char* op, const char* arg, int r) const {
  EMBER_CHECK_VALUE(r >= 0 && r < size_, op, ": ", arg, " must be a rank in [0, ", size_, "), got ", r);
}

void ProcessGroup::check_list(const char* op, const char* arg, const std::vector<Tensor>& list,
                              const Tensor& like) const {
  EMBER_CHECK_VALUE(static_cast<int>(list.size()) == size_, op, ": ", arg, " must hold one tensor "
                    "per rank (", size_, "), got ", list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    check_tensor(op, list[i]);
    EMBER_CHECK_VALUE(list[i].sizes() == like.sizes() && list[i].dtype() == like.dtype(), op, ": ",
                      arg, "[", i, "] is ", list[i].dtype(), " ", list[i].sizes(), ", expected ",
                      like.dtype(), " ", like.sizes());
  }
}

void ProcessGroup::check_reduce_op(const char* op, ReduceOp reduce, DType dtype) {
  bool complex = is_complex(dtype);
  EMBER_CHECK_TYPE(!(complex && (reduce == ReduceOp::Min || reduce == ReduceOp::Max)), op, ": ",
                   reduce_op_name(reduce), " is not defined for ", dtype);
  EMBER_CHECK_TYPE(reduce != ReduceOp::Avg || is_floating(dtype) || complex, op,
                   ": avg needs a floating or complex dtype, got ", dtype,
                   " (use sum and divide)");
}

}  // namespace ember::distributed
