#include "ember/io/retention.h"

#include <sys/stat.h>

#include <algorithm>
#include <exception>
#include <filesystem>

#include "ember/core/error.h"
#include "ember/core/warning.h"

namespace ember::io::detail {

namespace fs = std::filesystem;

namespace {

void append_identity(std::string& out, const std::string& name, const struct stat& st) {
  out += name;
  for (long long v : {static_cast<long long>(st.st_dev), static_cast<long long>(st.st_ino),
                      static_cast<long long>(st.st_size), static_cast<long long>(st.st_mtim.tv_sec),
                      static_cast<long long>(st.st_mtim.tv_nsec), static_cast<long long>(st.st_ctim.tv_sec),
                      static_cast<long long>(st.st_ctim.tv_nsec)})
    out += ":" + std::to_string(v);
  out += ";";
}

// The identity of a file, or of each file in a directory (a distributed checkpoint); "" when it
// cannot be read.
std::string fingerprint(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  std::string out;
  append_identity(out, ".", st);
  if (S_ISDIR(st.st_mode)) {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) names.push_back(it->path().string());
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      struct stat entry {};
      if (::stat(name.c_str(), &entry) != 0) return "";
      append_identity(out, name, entry);
    }
  }
  return out;
}

}  // namespace

bool VerifyCache::verifies(const std::string& path, const std::function<void()>& verify, std::string* reason) {
  std::string before = fingerprint(path);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = known_.find(path);
    if (!before.empty() && it != known_.end() && it->second.fingerprint == before) {
      if (reason) *reason = it->second.reason;
      return it->second.ok;
    }
  }
  Known k{before, true, ""};
  try {
    verify();
  } catch (const std::exception& e) {
    k.ok = false;
    k.reason = e.what();
  }
  // NB: a result is remembered only for files that did not change while they were read, and
  // only a good one: a failure may be passing (an I/O error), so it is checked again next time.
  std::lock_guard<std::mutex> lock(mutex_);
  if (k.ok && !before.empty() && fingerprint(path) == before) known_[path] = k;
  else known_.erase(path);
  if (reason) *reason = k.reason;
  return k.ok;
}

void VerifyCache::trust(const std::string& path) {
  std::string now = fingerprint(path);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!now.empty()) known_[path] = Known{now, true, ""};
}

std::optional<size_t> newest_that_loads(const std::vector<Checkpoint>& checkpoints,
                                        const std::function<void(size_t)>& load, bool allow_fresh_start,
                                        const std::string& who, const std::string& dir) {
  std::string reasons;
  for (size_t i = checkpoints.size(); i-- > 0;) {
    try {
      load(i);
      return i;
    } catch (const std::exception& err) {
      warn(::ember::detail::str(who, ": skipping checkpoint '", checkpoints[i].path, "' (step ", checkpoints[i].step,
                                "), it does not load: ", err.what()));
      reasons += ::ember::detail::str("\n  '", checkpoints[i].path, "': ", err.what());
    }
  }
  if (checkpoints.empty()) return std::nullopt;
  std::string message = ::ember::detail::str(who, ": '", dir, "' holds ", checkpoints.size(), " checkpoint",
                                             checkpoints.size() == 1 ? "" : "s", " but none loads:", reasons);
  EMBER_CHECK(allow_fresh_start, message,
              "\nPass allow_fresh_start=true to start over from scratch (the files are kept).");
  warn(message + "\nStarting over from scratch (allow_fresh_start).");
  return std::nullopt;
}

std::vector<size_t> checkpoints_to_prune(size_t n, size_t keep, std::optional<size_t> just_written,
                                         const std::function<bool(size_t)>& verifies) {
  size_t good = 0;
  size_t i = n;
  while (i > 0 && good < keep) {
    --i;
    if (i == just_written || verifies(i)) ++good;
  }
  if (good < keep) return {};  // fewer than `keep` verify: everything stays
  std::vector<size_t> out;
  for (size_t j = 0; j < i; ++j)
    if (j != just_written) out.push_back(j);
  return out;
}

}  // namespace ember::io::detail
