#include "ember/distributed/checkpoint.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ember/core/error.h"
#include "ember/core/factory.h"
#include "ember/distributed/error.h"
#include "ember/distributed/object_collectives.h"
#include "ember/io/atomic_file.h"
#include "ember/io/checksum.h"
#include "ember/io/file_ops.h"
#include "ember/io/serialize.h"

namespace ember::distributed {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kIndex = "index.json";
constexpr const char* kReplicated = "replicated.ember";
// How the index's checksum appears in its text (json::dump(1) puts a space after the colon).
constexpr const char* kChecksumField = "\"checksum\": \"";

// NB: a test hook. EMBER_TEST_KILL_AT="<rank>:<point>" makes that rank SIGKILL itself at that
// point of a save (before_write, mid_file, before_index, before_rename), as a crash would.
bool kill_point(ProcessGroup& group, const char* point) {
  const char* spec = std::getenv("EMBER_TEST_KILL_AT");
  if (!spec) return false;
  std::string s(spec);
  size_t colon = s.find(':');
  if (colon == std::string::npos || std::atoi(s.substr(0, colon).c_str()) != group.rank() ||
      s.substr(colon + 1) != point)
    return false;
  return true;
}
void maybe_die(ProcessGroup& group, const char* point) {
  if (kill_point(group, point)) ::kill(::getpid(), SIGKILL);
}


DType parse_dtype(const std::string& name, const std::string& where) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (dtype_name(static_cast<DType>(i)) == name) return static_cast<DType>(i);
  throw ValueError("CheckpointReader: " + where + ": unknown dtype '" + name + "'");
}

// The failures of the ranks, one line each ("" when every rank succeeded).
std::string failures(const std::vector<std::string>& statuses) {
  std::string out;
  for (size_t r = 0; r < statuses.size(); ++r)
    if (!statuses[r].empty()) out += (out.empty() ? "" : "; ") + ("rank " + std::to_string(r) + ": " + statuses[r]);
  return out;
}

// Writes this rank's files into `tmp`; returns its chunks' index entries.
json write_rank(ProcessGroup& group, const CheckpointState& state, const fs::path& tmp) {
  maybe_die(group, "before_write");
  if (group.rank() == 0) io::save(state.replicated, (tmp / kReplicated).string());
  std::vector<io::Value> tensors;
  json chunks = json::array();
  for (size_t i = 0; i < state.shards.size(); ++i) {
    const Shard& s = state.shards[i];
    EMBER_CHECK_VALUE(s.local.defined(), "save_checkpoint: shard '", s.name, "' has no tensor");
    EMBER_CHECK_VALUE(s.global_shape.size() == static_cast<size_t>(s.local.dim()) &&
                      s.offsets.size() == s.global_shape.size(), "save_checkpoint: shard '", s.name,
                      "': a ", s.local.dim(), "-d chunk needs ", s.local.dim(), " offsets and a ",
                      s.local.dim(), "-d global shape");
    for (int64_t d = 0; d < s.local.dim(); ++d)
      EMBER_CHECK_VALUE(s.offsets[d] >= 0 && s.offsets[d] + s.local.size(d) <= s.global_shape[d],
                        "save_checkpoint: shard '", s.name, "' does not fit its global shape in dim ", d);
    tensors.push_back(io::Value(s.local));
    chunks.push_back({{"name", s.name}, {"dtype", std::string(dtype_name(s.local.dtype()))},
                      {"global_shape", s.global_shape}, {"offsets", s.offsets},
                      {"shape", std::vector<int64_t>(s.local.sizes().begin(), s.local.sizes().end())},
                      {"file", rank_file_name(group.rank())},
                      {"key", "shards/" + std::to_string(i)}});
  }
  io::Value mine = io::Value::dict({{"per_rank", state.per_rank}, {"shards", io::Value::list(tensors)}});
  fs::path file = tmp / rank_file_name(group.rank());
  if (kill_point(group, "mid_file")) {
    // Half a file, then death: what a crash in the middle of writing leaves.
    io::save(mine, file.string());
    fs::resize_file(file, fs::file_size(file) / 2);
    ::kill(::getpid(), SIGKILL);
  }
  io::save(mine, file.string());
  return chunks;
}

// The text of a checkpoint's index.json: refuses a missing index (an uncommitted checkpoint),
// a file that is not regular, and one larger than any index a save writes.
std::string read_index(const std::string& path, const std::string& dir) {
  struct stat st {};
  if (io::detail::fs_stat(path.c_str(), &st) != 0) {
    int err = errno;
    if (err == ENOENT)
      throw FileNotFoundError("CheckpointReader: '" + dir + "' is not a committed checkpoint (no " + kIndex + ")", path);
    throw OSError("CheckpointReader: cannot read '" + path + "': " + std::strerror(err), err, path);
  }
  EMBER_CHECK_AS(OSError, S_ISREG(st.st_mode), "CheckpointReader: '", path, "' is not a regular file");
  EMBER_CHECK_VALUE(st.st_size <= (1 << 30), "CheckpointReader: '", path, "' has ", st.st_size,
                    " bytes, more than an index can");
  int fd = io::detail::fs_open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    int err = errno;
    throw OSError("CheckpointReader: cannot open '" + path + "': " + std::strerror(err), err, path);
  }
  std::string text(static_cast<size_t>(st.st_size), '\0');
  try {
    io::detail::read_exactly(fd, text.data(), text.size(), 0, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return text;
}

}  // namespace

std::string rank_file_name(int rank) {
  char name[32];
  std::snprintf(name, sizeof name, "rank-%05d.ember", rank);
  return name;
}

void save_checkpoint(ProcessGroup& group, const CheckpointState& state, const std::string& dir) {
  fs::path final_dir(dir), tmp(dir + ".tmp");
  // 1. Rank 0 makes the temporary directory (a crashed save's leftover is removed first).
  std::string status;
  if (group.rank() == 0) {
    try {
      std::error_code ec;
      fs::remove_all(tmp, ec);
      fs::create_directories(tmp);
    } catch (const std::exception& e) {
      status = std::string("cannot create '") + tmp.string() + "': " + e.what();
    }
  }
  std::vector<std::string> statuses = allgather_strings(group, status);
  if (!statuses[0].empty())
    throw DistributedError("save_checkpoint: " + failures(statuses));
  // 2. Every rank writes its files, and says how it went.
  json chunks;
  status.clear();
  try {
    chunks = write_rank(group, state, tmp);
  } catch (const std::exception& e) {
    status = e.what();
  }
  if (status.empty()) status = "\x01" + chunks.dump();  // NB: ok, with this rank's chunks
  statuses = allgather_strings(group, status);
  std::vector<std::string> errors(statuses.size());
  for (size_t r = 0; r < statuses.size(); ++r)
    if (statuses[r].empty() || statuses[r][0] != '\x01') errors[r] = statuses[r].empty() ? "no status" : statuses[r];
  std::string failed = failures(errors);
  if (!failed.empty()) {
    if (group.rank() == 0) {
      std::error_code ec;
      fs::remove_all(tmp, ec);
    }
    throw DistributedError("save_checkpoint: '" + dir + "' not written: " + failed);
  }
  // 3. Rank 0 writes the index and renames the directory into place.
  status.clear();
  if (group.rank() == 0) {
    try {
      maybe_die(group, "before_index");
      // NB: version 2 carries "checksum" (checksum.h's seal()): every byte of the index is
      // covered, so an edited chunk key or dtype is refused rather than read.
      json index = {{"format", "ember.distributed_checkpoint"}, {"version", 2},
                    {"checksum", io::detail::checksum_text(0)},
                    {"world_size", group.size()}, {"tensors", json::object()}};
      json files = json::array({kReplicated});
      for (size_t r = 0; r < statuses.size(); ++r) {
        files.push_back(rank_file_name(static_cast<int>(r)));
        for (const json& c : json::parse(statuses[r].substr(1))) {
          json& t = index["tensors"][c["name"].get<std::string>()];
          if (t.is_null()) t = {{"dtype", c["dtype"]}, {"shape", c["global_shape"]}, {"chunks", json::array()}};
          EMBER_CHECK_VALUE(t["dtype"] == c["dtype"] && t["shape"] == c["global_shape"],
                            "save_checkpoint: the ranks disagree on the dtype or shape of '",
                            c["name"].get<std::string>(), "'");
          t["chunks"].push_back({{"file", c["file"]}, {"key", c["key"]}, {"offsets", c["offsets"]},
                                 {"shape", c["shape"]}});
        }
      }
      index["files"] = files;
      std::string text = index.dump(1);
      io::detail::seal(text, kChecksumField);
      io::detail::AtomicFile f((tmp / kIndex).string());
      f.write(text.data(), text.size());
      f.commit();
      maybe_die(group, "before_rename");
      // NB: a checkpoint already there is swapped with the new one in one step (RENAME_EXCHANGE):
      // at no moment is there no committed checkpoint under `dir`.
      std::error_code ec;
      const bool replacing = fs::exists(final_dir, ec);
      if (io::detail::fs_rename(tmp.c_str(), final_dir.c_str(), /*exchange=*/replacing) != 0)
        throw OSError("cannot rename '" + tmp.string() + "' to '" + dir + "': " + std::strerror(errno), errno, dir);
      if (io::detail::fs_fsync_dir(io::detail::directory_of(final_dir.string())) != 0)
        throw OSError("cannot flush the directory of '" + dir + "': " + std::strerror(errno), errno, dir);
      if (replacing) fs::remove_all(tmp, ec);  // the old checkpoint, now under the temporary name
    } catch (const std::exception& e) {
      status = e.what();
    }
  }
  statuses = allgather_strings(group, status);
  if (!statuses[0].empty()) throw DistributedError("save_checkpoint: '" + dir + "' not committed: " + failures(statuses));
}

CheckpointReader::CheckpointReader(std::string dir) : dir_(std::move(dir)) {
  fs::path index_path = fs::path(dir_) / kIndex;
  std::string text = read_index(index_path.string(), dir_);
  json index;
  try {
    index = json::parse(text);
    EMBER_CHECK_VALUE(index.at("format") == "ember.distributed_checkpoint",
                      "not an Ember distributed checkpoint index");
    EMBER_CHECK_VALUE(index.at("version").get<int>() <= 2, "index version ",
                      index.at("version").get<int>(), " is newer than this Ember reads (2)");
    // A version-2 index is sealed; one that has a checksum is checked whatever its version says,
    // so that damage to either the version or the checksum's key cannot skip the check.
    io::detail::SealCheck seal = io::detail::check_seal(text, kChecksumField);
    EMBER_CHECK_VALUE(seal == io::detail::SealCheck::Valid ||
                      (seal == io::detail::SealCheck::Missing && index.at("version").get<int>() < 2 &&
                       !index.contains("checksum")),
                      "its checksum does not match: the file is damaged");
    world_size_ = index.at("world_size").get<int>();
    files_ = index.at("files").get<std::vector<std::string>>();
    for (auto& [name, t] : index.at("tensors").items()) {
      Entry e;
      e.dtype = parse_dtype(t.at("dtype").get<std::string>(), name);
      e.shape = t.at("shape").get<std::vector<int64_t>>();
      for (const json& c : t.at("chunks"))
        e.chunks.push_back({c.at("file").get<std::string>(), c.at("key").get<std::string>(),
                            c.at("offsets").get<std::vector<int64_t>>(), c.at("shape").get<std::vector<int64_t>>()});
      entries_.emplace_back(name, std::move(e));
    }
  } catch (const json::exception& e) {
    throw ValueError("CheckpointReader: '" + index_path.string() + "' is malformed: " + e.what());
  } catch (const ValueError& e) {
    throw ValueError("CheckpointReader: '" + index_path.string() + "': " + e.what());
  }
  std::sort(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

io::Value CheckpointReader::replicated() const { return io::load((fs::path(dir_) / kReplicated).string()); }

std::optional<io::Value> CheckpointReader::per_rank(int rank) const {
  if (rank < 0 || rank >= world_size_) return std::nullopt;
  return io::load((fs::path(dir_) / rank_file_name(rank)).string()).at("per_rank");
}

std::vector<std::string> CheckpointReader::shard_names() const {
  std::vector<std::string> out;
  for (auto& [name, e] : entries_) out.push_back(name);
  return out;
}

bool CheckpointReader::has_shard(const std::string& name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const auto& e, const std::string& n) { return e.first < n; });
  return it != entries_.end() && it->first == name;
}

const CheckpointReader::Entry& CheckpointReader::entry(const std::string& name) const {
  EMBER_CHECK_KEY(has_shard(name), "CheckpointReader: '", dir_, "' has no sharded tensor '", name, "'");
  return std::lower_bound(entries_.begin(), entries_.end(), name,
                          [](const auto& e, const std::string& n) { return e.first < n; })->second;
}

std::vector<int64_t> CheckpointReader::global_shape(const std::string& name) const { return entry(name).shape; }
DType CheckpointReader::dtype(const std::string& name) const { return entry(name).dtype; }

Tensor CheckpointReader::read(const std::string& name, const std::vector<int64_t>& offsets,
                              const std::vector<int64_t>& shape) const {
  const Entry& e = entry(name);
  size_t dims = e.shape.size();
  EMBER_CHECK_VALUE(offsets.size() == dims && shape.size() == dims, "CheckpointReader.read: '", name,
                    "' has ", dims, " dims; got ", offsets.size(), " offsets and ", shape.size(), " sizes");
  for (size_t d = 0; d < dims; ++d)
    EMBER_CHECK_INDEX(offsets[d] >= 0 && shape[d] >= 0 && offsets[d] + shape[d] <= e.shape[d],
                      "CheckpointReader.read: the region of '", name, "' leaves its shape ",
                      IntArrayRef(e.shape), " in dim ", d);
  Tensor out = zeros(shape, TensorOptions(e.dtype));
  int64_t covered = 0;
  for (const Chunk& c : e.chunks) {
    // The intersection of the chunk and the region, per dim.
    std::vector<int64_t> lo(dims), hi(dims);
    bool overlaps = true;
    for (size_t d = 0; d < dims; ++d) {
      lo[d] = std::max(offsets[d], c.offsets[d]);
      hi[d] = std::min(offsets[d] + shape[d], c.offsets[d] + c.shape[d]);
      overlaps = overlaps && lo[d] < hi[d];
    }
    if (!overlaps && dims > 0) continue;
    Tensor chunk = io::load_tensor((fs::path(dir_) / c.file).string(), c.key);
    EMBER_CHECK_VALUE(chunk.sizes() == IntArrayRef(c.shape), "CheckpointReader: chunk '", c.key, "' of '",
                      c.file, "' has shape ", chunk.sizes(), ", the index says ", IntArrayRef(c.shape));
    Tensor src = chunk, dst = out;
    int64_t n = 1;
    for (size_t d = 0; d < dims; ++d) {
      src = src.slice(static_cast<int64_t>(d), lo[d] - c.offsets[d], hi[d] - c.offsets[d]);
      dst = dst.slice(static_cast<int64_t>(d), lo[d] - offsets[d], hi[d] - offsets[d]);
      n *= hi[d] - lo[d];
    }
    dst.copy_(src);
    covered += n;
  }
  int64_t want = 1;
  for (int64_t s : shape) want *= s;
  EMBER_CHECK(covered == want, "CheckpointReader.read: the chunks of '", name, "' cover ", covered, " of the ",
              want, " elements asked for (a rank's chunk is missing)");
  return out;
}

Tensor CheckpointReader::read(const std::string& name) const {
  const Entry& e = entry(name);
  return read(name, std::vector<int64_t>(e.shape.size(), 0), e.shape);
}

void CheckpointReader::verify() const {
  for (const std::string& f : files_) io::load((fs::path(dir_) / f).string());
}

}  // namespace ember::distributed
