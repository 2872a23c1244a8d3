// CPU kernel for value reductions (ops/reduce.h). The reduced dims are moved last (a copy only
// when the layout needs one) and each row is reduced with Eigen; reducing the leading dims of a
// contiguous tensor (a bias gradient) runs column sums in place instead.
#include <Eigen/Core>

#include "ember/core/copy.h"
#include "ember/core/cpu/loops.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"

namespace ember::cpu {
namespace {

template <typename T>
using RowMajor = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <typename T>
using ColMajor = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>>;

template <typename T, typename M>
void reduce_rows(ReduceOp op, T* out, const M& m) {
  Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> o(out, m.rows());
  switch (op) {
    case ReduceOp::Sum: o = m.rowwise().sum(); break;
    case ReduceOp::Max: o = m.rowwise().maxCoeff(); break;
    case ReduceOp::Min: o = m.rowwise().minCoeff(); break;
  }
}

void cpu_reduce(ReduceOp op, const Tensor& out, const Tensor& in, IntArrayRef dims) {
  visit_compute_dtype(in.dtype(), "reduce", [&]<typename T>(type_tag<T>) {
    if constexpr (std::is_same_v<T, bool>) {
      EMBER_CHECK_TYPE(false, "reduce: bool tensors are reduced as int64");
    } else {
      int64_t nd = in.dim();
      std::vector<bool> reduced(static_cast<size_t>(nd), false);
      for (int64_t d : dims) reduced[static_cast<size_t>(d)] = true;
      int64_t rows = 1, cols = 1;
      for (int64_t d = 0; d < nd; ++d) (reduced[static_cast<size_t>(d)] ? cols : rows) *= in.size(d);
      T* o = static_cast<T*>(out.data_ptr());
      bool prefix = true;  // reduced dims are exactly the leading ones
      for (int64_t d = 0; d < nd; ++d)
        if (reduced[static_cast<size_t>(d)] != (d < static_cast<int64_t>(dims.size()))) prefix = false;
      if (prefix && in.is_contiguous() && op == ReduceOp::Sum) {
        // in is [cols, rows] row-major = [rows, cols] column-major.
        const T* x = static_cast<const T*>(in.data_ptr());
        reduce_rows<T>(op, o, ColMajor<T>(x, rows, cols));
        return;
      }
      DimVector perm;
      for (int64_t d = 0; d < nd; ++d)
        if (!reduced[static_cast<size_t>(d)]) perm.push_back(d);
      for (int64_t d : dims) perm.push_back(d);
      DimVector sizes, strides;
      for (int64_t d : perm) {
        sizes.push_back(in.size(d));
        strides.push_back(in.stride(d));
      }
      Tensor moved = contiguous_data(as_strided_data(in, sizes, strides, in.storage_offset()));
      const T* x = static_cast<const T*>(moved.data_ptr());
      parallel_for(0, rows, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(cols, 1)),
                   [&](int64_t lo, int64_t hi) {
                     reduce_rows<T>(op, o + lo, RowMajor<T>(x + lo * cols, hi - lo, cols));
                   });
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(reduce_stub, DeviceType::CPU, &cpu_reduce);

}  // namespace ember::cpu
