// CPU kernel for multinomial sampling (core/kernels/sampling.h): inverse transform sampling by a
// binary search of each row's running sums. Rows are drawn one after another from one generator:
// the draws are the same on any number of threads.
#include <algorithm>
#include <vector>

#include "ember/core/kernels/sampling.h"

namespace ember::cpu {
namespace {

void cpu_multinomial(const Tensor& out, const Tensor& weights, int64_t k, bool replacement, Generator& gen) {
  const int64_t n = weights.size(-1), rows = weights.numel() / std::max<int64_t>(n, 1);
  const double* w = static_cast<const double*>(weights.data_ptr());
  int64_t* o = static_cast<int64_t*>(out.data_ptr());
  std::vector<double> cdf(static_cast<size_t>(n));
  std::vector<bool> used(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = w + r * n;
    used.assign(static_cast<size_t>(n), false);
    double total = 0;
    for (int64_t s = 0; s < k; ++s) {
      if (s == 0 || !replacement) {  // running sums of the weights still in the row
        total = 0;
        for (int64_t j = 0; j < n; ++j) cdf[static_cast<size_t>(j)] = total += used[static_cast<size_t>(j)] ? 0 : row[j];
      }
      const double u = gen.uniform_double();  // drawn even when unused: k draws per row
      int64_t pick = 0;
      if (total > 0) {
        // The first category whose running sum exceeds u * total: never a zero-weight one, as
        // the sums do not grow there. u * total may round up to total: then the last positive.
        pick = std::upper_bound(cdf.begin(), cdf.end(), u * total) - cdf.begin();
        while (pick >= n || row[pick] == 0 || used[static_cast<size_t>(pick)]) --pick;
      } else {
        // Without replacement, past the positive weights: the unused categories in index order.
        while (used[static_cast<size_t>(pick)]) ++pick;
      }
      o[r * k + s] = pick;
      if (!replacement) used[static_cast<size_t>(pick)] = true;
    }
  }
}

}  // namespace

EMBER_REGISTER_KERNEL(multinomial_stub, DeviceType::CPU, &cpu_multinomial);

}  // namespace ember::cpu
