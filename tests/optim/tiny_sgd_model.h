#pragma once
// A float32 model small enough to know its gradients, for the GradScaler tests (tests/optim and
// tests/io): w (2 x 3) and b (3) under SGD, loss sum((x @ w + b) * c) of a fixed x (times scale_x).
#include <vector>

#include "ember/ember.h"
#include "ember/optim/optim.h"

namespace ember::testing {

struct TinySgdModel {
  Tensor w = tensor(std::vector<double>{0.5, -1, 2, 0.25, 3, -0.75}, {2, 3}).to(kFloat32).set_requires_grad();
  Tensor b = zeros({3}, kFloat32).set_requires_grad();
  optim::SGD sgd{{{"w", w}, {"b", b}}, {.lr = 0.125}};
  Tensor loss(double scale_x = 1) const {
    Tensor x = tensor(std::vector<double>{1, 2, -1, 0.5}, {2, 2}).to(kFloat32) * scale_x;
    return sum((matmul(x, w) + b) * tensor(std::vector<double>{1, -2, 0.5}).to(kFloat32));
  }
};

}  // namespace ember::testing
