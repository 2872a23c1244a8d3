#pragma once
// What both fuzz targets do with a loaded tree: read every byte of every tensor it reaches, so
// a tensor pointing outside its buffer is an ASan report. Views (a torch.save file's strided
// tensors) are read through a contiguous copy, which visits every element they reach.
#include <cstdint>

#include "ember/io/value.h"

namespace ember::fuzz {

inline uint64_t sink = 0;  // keeps the reads from being optimized away

inline void read_all(const io::Value& v) {
  switch (v.type()) {
    case io::Value::Type::Tensor: {
      const Tensor c = v.as_tensor().contiguous();
      const auto* p = static_cast<const uint8_t*>(c.data_ptr());
      for (size_t i = 0; i < c.nbytes(); ++i) sink += p[i];
      sink += v.as_tensor().requires_grad() + static_cast<uint64_t>(c.dim());
      return;
    }
    case io::Value::Type::List:
    case io::Value::Type::Tuple:
    case io::Value::Type::Dict:
      for (const io::Value& item : v.items()) read_all(item);
      return;
    default:
      sink += static_cast<uint64_t>(v.type());
  }
}

}  // namespace ember::fuzz
