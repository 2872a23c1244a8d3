#pragma once
// A Store in a directory every rank can see (init_method "file:///path"): one file per key,
// named by the key's hex digits, written to a temporary and renamed into place, so a reader sees
// a whole value or none; add() holds an flock on "<dir>/lock". The directory belongs to one job:
// start each job with a new one (a key a finished job left would be seen as set).
#include <string>

#include "ember/distributed/store.h"

namespace ember::distributed {

class FileStore : public Store {
 public:
  /// Uses `dir` (created if absent).
  explicit FileStore(std::string dir, Milliseconds timeout = Milliseconds(300000));

  void set(const std::string& key, const std::string& value) override;
  int64_t add(const std::string& key, int64_t amount) override;
  bool check(const std::vector<std::string>& keys) override;
  const std::string& dir() const { return dir_; }

 protected:
  bool try_get(const std::string& key, std::string& value) override;

 private:
  std::string path_of(const std::string& key) const;
  std::string dir_;
};

}  // namespace ember::distributed
