#pragma once
// Fashion-MNIST (Xiao, Rasul and Vollgraf, 2017): 28x28 grey images of clothing in 10 classes,
// 60,000 for training and 10,000 for testing, read from the four gzipped idx files that Debian's
// dataset-fashion-mnist installs (scripts/install_deps.sh data):
//
//   data::FashionMNIST train(data::FashionMNIST::kDefaultRoot, /*train=*/true);
//   train.images;   // uint8 [60000, 28, 28], 0 = background
//   train.labels;   // int64 [60000], in [0, 10); FashionMNIST::kClasses names them
//
// Files: <root>/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz (or the same names without .gz).
#include <array>
#include <string>

#include "ember/core/tensor.h"

namespace ember::data {

struct FashionMNIST {
  /// Where dataset-fashion-mnist puts the files.
  static constexpr const char* kDefaultRoot = "/usr/share/datasets/fashion-mnist";
  static constexpr int64_t kNumClasses = 10;
  /// The class names, by label.
  static const std::array<const char*, kNumClasses> kClasses;

  /// Reads the training (train = true) or test split under `root`. Throws ember::Error naming the
  /// missing file (and how to install it), or ember::ValueError naming a file whose contents are
  /// not Fashion-MNIST's: wrong dtype or shape, image and label counts that differ, a label >= 10.
  explicit FashionMNIST(const std::string& root = kDefaultRoot, bool train = true);

  /// uint8 [N, 28, 28].
  Tensor images;
  /// int64 [N].
  Tensor labels;

  /// N, the number of samples.
  int64_t size() const { return labels.size(0); }
};

}  // namespace ember::data
