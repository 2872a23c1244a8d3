#include "ember/ops/multinomial.h"

#include <cmath>

#include "ember/core/copy.h"
#include "ember/core/factory.h"

namespace ember {

Tensor impl_multinomial(const Tensor& self, int64_t num_samples, bool replacement, Generator* generator) {
  EMBER_CHECK_VALUE(self.dim() == 1 || self.dim() == 2, "multinomial: prob_dist must be 1 or 2 dim, got shape ",
                    self.sizes());
  EMBER_CHECK_TYPE(is_floating(self.dtype()),
                   "multinomial: multinomial only supports floating-point dtypes for input, got: ", self.dtype());
  EMBER_CHECK_VALUE(num_samples > 0, "multinomial: cannot sample n_sample <= 0 samples (num_samples = ",
                    num_samples, ")");
  const int64_t categories = self.size(-1);
  EMBER_CHECK_VALUE(replacement || num_samples <= categories,
                    "multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement (",
                    num_samples, " samples of ", categories, " categories)");
  EMBER_CHECK_VALUE(categories <= (int64_t{1} << 24), "multinomial: number of categories cannot exceed 2^24, got ",
                    categories);
  Tensor weights = contiguous_data(copy_as(self, kFloat64, self.device()));
  const int64_t rows = self.dim() == 1 ? 1 : self.size(0);
  weights = weights.reshape({rows, categories});
  // NB: read on the host to check; a CUDA kernel would check on the device instead.
  std::vector<double> w = weights.to_vector<double>();
  for (int64_t r = 0; r < rows; ++r) {
    double total = 0;
    for (int64_t j = 0; j < categories; ++j) {
      const double v = w[static_cast<size_t>(r * categories + j)];
      EMBER_CHECK_VALUE(std::isfinite(v) && v >= 0,
                        "multinomial: probability tensor contains either `inf`, `nan` or element < 0 (row ", r,
                        ", category ", j, ": ", v, ")");
      total += v;
    }
    EMBER_CHECK_VALUE(total > 0, "multinomial: invalid multinomial distribution (sum of probabilities <= 0) in row ",
                      r);
  }
  Tensor out = empty({rows, num_samples}, TensorOptions(kInt64).device(self.device()));
  if (rows > 0)
    multinomial_stub(self.device().type, out, weights, num_samples, replacement,
                     generator ? *generator : default_generator());
  return self.dim() == 1 ? out.reshape({num_samples}) : out;
}

}  // namespace ember
