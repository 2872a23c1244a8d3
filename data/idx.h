#pragma once
// The idx format of MNIST and Fashion-MNIST (http://yann.lecun.com/exdb/mnist/), plain or gzipped:
//
//   offset 0   uint8  0, 0
//   offset 2   uint8  element type: 0x08 uint8, 0x0C int32, 0x0D float32, 0x0E float64
//   offset 3   uint8  number of dimensions, 1 to 8
//   offset 4   uint32 big-endian size of each dimension
//   then       the elements, row-major, big-endian
//
//   Tensor images = data::read_idx("t10k-images-idx3-ubyte.gz");   // uint8 [10000, 28, 28]
//
// Files are read through zlib (gzopen/gzread), which reads a gzip stream and passes a file that
// is not gzip through unchanged, so one reader serves both forms.
#include <string>

#include "ember/core/tensor.h"

namespace ember::data {

/// Reads the idx file at `path` (gzipped or plain) into a new contiguous CPU tensor of its shape:
/// uint8, int32, float32 or float64 as the header says. Throws ember::ValueError naming the file
/// for a bad magic number, an unsupported element type, a zero or oversized dimension count,
/// a truncated payload or trailing bytes, and ember::Error when the file cannot be opened or its
/// gzip stream is corrupt.
Tensor read_idx(const std::string& path);

}  // namespace ember::data
