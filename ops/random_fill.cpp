// The random fills of a tensor (t.normal_(), t.uniform_(), ..., t.random_()): self's elements
// replaced through copy_ (every view sees them; a leaf that requires grad is refused, as PyTorch
// refuses it) by draws from `generator` (the default one when null), in self's dtype, on self's
// device. Each is a transform of rand or randn draws, so one seed gives the same values each run.
#include "ember/ops/random_fill.h"

#include <cmath>
#include <limits>
#include <numbers>

#include "ember/core/factory.h"
#include "ember/ops/ops.h"

namespace ember {
namespace {

TensorOptions on_device_of(const Tensor& t, DType dtype) { return TensorOptions(dtype).device(t.device()); }

void check_floating(const Tensor& self, const char* op) {
  EMBER_CHECK_AS(NotImplementedError, is_floating(self.dtype()), op, " expects a floating point tensor, got ",
                 self.dtype());
}

// One past the largest value random_() draws: the integers a floating dtype holds exactly, up to
// 2^digits (PyTorch's), or the integer dtype's range (int64's largest value is never drawn).
int64_t random_end(DType dtype) {
  switch (dtype) {
    case kBool:
      return 2;
    case kUInt8:
      return 256;
    case kInt8:
      return 128;
    case kInt16:
      return 1 << 15;
    case kInt32:
      return int64_t{1} << 31;
    case kFloat16:
      return (1 << 11) + 1;
    case kBFloat16:
      return (1 << 8) + 1;
    case kFloat32:
      return (int64_t{1} << 24) + 1;
    case kFloat64:
      return (int64_t{1} << 53) + 1;
    default:
      return std::numeric_limits<int64_t>::max();
  }
}

}  // namespace

Tensor impl_normal_(const Tensor& self, double mean, double std, Generator* generator) {
  check_floating(self, "normal_");
  EMBER_CHECK(std >= 0, "normal_ expects std >= 0.0, but found std ", std);
  self.copy_(randn(self.sizes(), on_device_of(self, self.dtype()), generator) * std + mean);
  return self;
}

Tensor impl_uniform_(const Tensor& self, double from_, double to, Generator* generator) {
  check_floating(self, "uniform_");
  EMBER_CHECK(from_ <= to, "uniform_ expects to return a [from, to) range, but found from=", from_, " > to=", to);
  self.copy_(rand(self.sizes(), on_device_of(self, self.dtype()), generator) * (to - from_) + from_);
  return self;
}

Tensor impl_bernoulli_(const Tensor& self, double p, Generator* generator) {
  EMBER_CHECK(0 <= p && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  self.copy_(lt(rand(self.sizes(), on_device_of(self, kFloat64), generator), Scalar(p)));
  return self;
}

Tensor bernoulli_(const Tensor& self, const Tensor& p, Generator* generator) {
  const Tensor probabilities = p.detach().to(kFloat64);
  EMBER_CHECK(all(logical_and(ge(probabilities, Scalar(0)), le(probabilities, Scalar(1)))).item<bool>(),
              "bernoulli_: expected every probability in p to be in [0, 1]");
  const Tensor u = rand(self.sizes(), on_device_of(self, kFloat64), generator);
  self.copy_(lt(u, probabilities.to(self.device()).expand(self.sizes())));
  return self;
}

Tensor impl_exponential_(const Tensor& self, double lambd, Generator* generator) {
  check_floating(self, "exponential_");
  EMBER_CHECK(lambd > 0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  self.copy_(-log1p(-rand(self.sizes(), on_device_of(self, self.dtype()), generator)) / lambd);
  return self;
}

Tensor impl_cauchy_(const Tensor& self, double median, double sigma, Generator* generator) {
  check_floating(self, "cauchy_");
  // median + sigma tan(pi (u - 1/2)), with u drawn in float64: tan's argument stays inside (-pi/2, pi/2)
  const Tensor u = rand(self.sizes(), on_device_of(self, kFloat64), generator);
  self.copy_(tan((u - 0.5) * std::numbers::pi) * sigma + median);
  return self;
}

Tensor impl_log_normal_(const Tensor& self, double mean, double std, Generator* generator) {
  check_floating(self, "log_normal_");
  EMBER_CHECK(std > 0, "log_normal_ expects std > 0.0, but found std=", std);
  self.copy_(exp(randn(self.sizes(), on_device_of(self, self.dtype()), generator) * std + mean));
  return self;
}

Tensor impl_geometric_(const Tensor& self, double p, Generator* generator) {
  EMBER_CHECK(0 < p && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  // the number of Bernoulli(p) trials up to the first success: ceil(log(u) / log(1 - p)), u in (0, 1]
  const Tensor u = 1 - rand(self.sizes(), on_device_of(self, kFloat64), generator);
  self.copy_(clamp_min(ceil(log(u) / std::log1p(-p)), Scalar(1)));
  return self;
}

Tensor impl_random_(const Tensor& self, int64_t from_, std::optional<int64_t> to, Generator* generator) {
  if (!to && from_ != 0) {  // random_(n): [0, n)
    to = from_;
    from_ = 0;
  }
  const int64_t end = to ? *to : random_end(self.dtype());
  EMBER_CHECK(from_ < end, "random_ expects 'from' to be less than 'to', but got from=", from_, " >= to=", end);
  self.copy_(randint(from_, end, self.sizes(), on_device_of(self, kInt64), generator));
  return self;
}

}  // namespace ember
