// Built against the installed headers and library: a gradient through the public API.
#include <ember/ember.h>

#include <cstdio>

int main() {
  ember::Tensor x = ember::tensor<float>({1, 2, 3}).set_requires_grad();
  ember::Tensor y = (x * x).sum();
  y.backward();
  std::vector<float> g = x.grad().to_vector<float>();
  bool ok = g == std::vector<float>{2, 4, 6};
  std::printf("consumer: grad %s\n", ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
