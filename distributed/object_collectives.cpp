#include "ember/distributed/object_collectives.h"

#include <algorithm>
#include <cstring>

#include "ember/core/factory.h"

namespace ember::distributed {

std::vector<std::string> allgather_strings(ProcessGroup& group, const std::string& mine) {
  int n = group.size();
  std::vector<Tensor> lengths;
  for (int r = 0; r < n; ++r) lengths.push_back(zeros({1}, TensorOptions(kInt64)));
  group.allgather(lengths, full({1}, static_cast<int64_t>(mine.size()), TensorOptions(kInt64)))->wait();
  int64_t longest = 0;
  for (const Tensor& l : lengths) longest = std::max(longest, l.to_vector<int64_t>()[0]);
  std::vector<std::string> out(n);
  if (longest == 0) return out;
  Tensor padded = zeros({longest}, TensorOptions(kUInt8));
  std::memcpy(padded.data_ptr(), mine.data(), mine.size());
  std::vector<Tensor> all;
  for (int r = 0; r < n; ++r) all.push_back(zeros({longest}, TensorOptions(kUInt8)));
  group.allgather(all, padded)->wait();
  for (int r = 0; r < n; ++r)
    out[r].assign(static_cast<const char*>(all[r].data_ptr()),
                  static_cast<size_t>(lengths[r].to_vector<int64_t>()[0]));
  return out;
}

}  // namespace ember::distributed
