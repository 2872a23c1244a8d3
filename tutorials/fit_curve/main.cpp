// Fits y = x^3 - x/2 on [-1, 1] with a two-layer tanh network, using only tensors and autograd:
// the forward pass records the tape, backward() fills .grad, and a plain SGD update runs under
// NoGradGuard. The loss printed every 500 steps falls by orders of magnitude.
#include <cstdio>
#include <vector>

#include <ember/ember.h>

using namespace ember;

int main() {
  manual_seed(0);
  const int64_t n = 256, hidden = 32;
  Tensor x = linspace(-1.0, 1.0, n).reshape({n, 1});
  Tensor y = x * x * x - x * 0.5;

  Tensor w1 = (randn({1, hidden}) * 1.0).set_requires_grad();
  Tensor b1 = zeros({hidden}).set_requires_grad();
  Tensor w2 = (randn({hidden, 1}) * (1.0 / 32)).set_requires_grad();
  Tensor b2 = zeros({1}).set_requires_grad();
  std::vector<Tensor> params = {w1, b1, w2, b2};

  const double lr = 0.2;
  double first = 0, last = 0;
  for (int step = 0; step <= 3000; ++step) {
    Tensor pred = tanh(x.matmul(w1) + b1).matmul(w2) + b2;
    Tensor diff = pred - y;
    Tensor loss = (diff * diff).mean();
    for (Tensor& p : params) p.set_grad(Tensor());
    loss.backward();
    {
      NoGradGuard no_grad;
      for (Tensor& p : params) p.sub_(p.grad(), lr);
    }
    last = loss.item<double>();
    if (step == 0) first = last;
    if (step % 500 == 0) std::printf("step %4d  loss %.6f\n", step, last);
  }
  std::printf("loss fell from %.4f to %.6f (%.0fx)\n", first, last, first / last);
  return last < first / 20 ? 0 : 1;
}
