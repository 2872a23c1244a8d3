#include "ember/data/fashion_mnist.h"

#include <filesystem>

#include "ember/core/copy.h"
#include "ember/core/error.h"
#include "ember/core/shape.h"
#include "ember/data/idx.h"

namespace ember::data {

const std::array<const char*, FashionMNIST::kNumClasses> FashionMNIST::kClasses = {
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
    "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

namespace {

/// <root>/<name>.gz, else <root>/<name>; an error naming both when neither exists.
std::string find_file(const std::string& root, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path gz = fs::path(root) / (name + ".gz");
  const fs::path plain = fs::path(root) / name;
  if (fs::exists(gz)) return gz.string();
  if (fs::exists(plain)) return plain.string();
  throw FileNotFoundError(detail::str("FashionMNIST: missing '", gz.string(), "' (nor '", plain.string(),
                          "'); the Debian package dataset-fashion-mnist installs it under ",
                          FashionMNIST::kDefaultRoot, " (scripts/install_deps.sh data)"));
}

}  // namespace

FashionMNIST::FashionMNIST(const std::string& root, bool train) {
  const std::string prefix = train ? "train" : "t10k";
  const std::string images_path = find_file(root, prefix + "-images-idx3-ubyte");
  const std::string labels_path = find_file(root, prefix + "-labels-idx1-ubyte");
  images = read_idx(images_path);
  Tensor raw_labels = read_idx(labels_path);

  EMBER_CHECK_VALUE(images.dtype() == kUInt8 && images.dim() == 3 && images.size(1) == 28 &&
                        images.size(2) == 28,
                    "FashionMNIST: '", images_path, "' holds ", dtype_name(images.dtype()), " ",
                    shape_str(images.sizes()), ", expected uint8 [N, 28, 28]");
  EMBER_CHECK_VALUE(raw_labels.dtype() == kUInt8 && raw_labels.dim() == 1, "FashionMNIST: '",
                    labels_path, "' holds ", dtype_name(raw_labels.dtype()), " ",
                    shape_str(raw_labels.sizes()), ", expected uint8 [N]");
  EMBER_CHECK_VALUE(raw_labels.size(0) == images.size(0), "FashionMNIST: '", labels_path, "' has ",
                    raw_labels.size(0), " labels but '", images_path, "' has ", images.size(0),
                    " images");
  const uint8_t* l = raw_labels.data_ptr<uint8_t>();
  for (int64_t i = 0; i < raw_labels.size(0); ++i)
    EMBER_CHECK_VALUE(l[i] < kNumClasses, "FashionMNIST: '", labels_path, "': label ",
                      static_cast<int>(l[i]), " at index ", i, " is not in [0, ", kNumClasses, ")");
  labels = copy_as(raw_labels, kInt64, raw_labels.device());
}

}  // namespace ember::data
