// io::load and io::File: the header is parsed and checked by safetensors.cpp; this file reads
// Ember's document from "__metadata__", checks it against the header, and builds tensors that
// borrow the mapped bytes. Nothing in the file is trusted: every field is type-checked, every
// reference resolved, nesting is bounded, and each failure names the file and the reason.
//
// NB: the JSON is read with nlohmann::json, not cereal. cereal's JSONInputArchive parses with
// RapidJSON's recursive parser (flags fixed inside cereal), and a header of ten million nested
// brackets overflows the stack and kills the process; nlohmann's parser is iterative, its
// callback bounds the depth, and its values are destroyed without recursion.
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "ember/core/backend.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/core/parallel.h"
#include "ember/core/warning.h"
#include "ember/io/checksum.h"
#include "ember/io/file_ops.h"
#include "ember/io/mapped_file.h"
#include "ember/io/pt_load.h"
#include "ember/io/safetensors.h"
#include "ember/io/schema.h"
#include "ember/io/serialize.h"

namespace ember::io {

using json = nlohmann::json;

namespace {
// An open file read with pread: tensors are read into memory of their own (read mode).
struct OpenFile {
  int fd = -1;
  ~OpenFile() {
    if (fd >= 0) detail::fs_close(fd);
  }
};
}  // namespace

struct File::Impl {
  std::string path;
  std::shared_ptr<void> owner;  // keeps `bytes` alive: the mapping, or a copy in memory
  uint8_t* bytes = nullptr;     // the whole file when mapped or in memory; null in read mode
  std::shared_ptr<OpenFile> file;  // read mode: the file, open
  bool mapped = false;             // bytes is a mapping of the file (OpenOptions::mmap)
  size_t size = 0;
  detail::Header header;
  int64_t version = 0;
  json root;                        // Ember's value tree (Ember files only)
  std::vector<TensorInfo> infos;    // parallel to header.tensors
  std::unordered_map<std::string, size_t> by_name;  // key or alias -> index
  std::shared_ptr<const detail::TorchFile> torch;  // a torch.save file (pt_load.cpp); no tensor table

  template <typename... Args>
  [[noreturn]] void invalid(const Args&... args) const {
    throw ValueError(::ember::detail::str("io: '", path, "' has an invalid Ember schema: ", args...));
  }
  size_t index_of(const std::string& name) const;
  /// Tensor i: its bytes read (read mode) or borrowed (mapped, in memory), its checksum
  /// checked on exactly the bytes handed out when `verify`.
  Tensor make_tensor(size_t i, bool verify) const;
  /// Reads `n` bytes at file offset `offset` into `dst`.
  void read(uint64_t offset, void* dst, size_t n) const;
  bool verify(size_t i) const;
  void check_checksum(size_t i, const void* data) const;
  void check_header_seal(std::string_view header_bytes) const;
  void read_document(const std::string& text);
  Value decode(const json& node, int depth, std::vector<Tensor>& made) const;
};

namespace {

std::optional<AttrValue> attr_value(const json& node) {
  if (!node.is_object() || !node.contains("t") || !node.contains("v") || !node["t"].is_string()) return {};
  const std::string& t = node["t"].get_ref<const std::string&>();
  const json& v = node["v"];
  if (t == "bool" && v.is_boolean()) return AttrValue(v.get<bool>());
  if (t == "int" && v.is_number_integer() && !(v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX))
    return AttrValue(v.get<int64_t>());
  if (t == "float" && v.is_number()) return AttrValue(v.get<double>());
  if (t == "float" && v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "nan") return AttrValue(std::nan(""));
    if (s == "inf") return AttrValue(HUGE_VAL);
    if (s == "-inf") return AttrValue(-HUGE_VAL);
    return {};
  }
  if (t == "str" && v.is_string()) return AttrValue(v.get<std::string>());
  return {};
}

// A short, printable piece of a hostile node for an error message: ASCII-escaped, so that cutting
// it never splits a UTF-8 character.
std::string excerpt(const json& node) {
  std::string text = node.dump(-1, ' ', /*ensure_ascii=*/true);
  return text.size() <= 80 ? text : text.substr(0, 77) + "...";
}

}  // namespace

void File::Impl::read_document(const std::string& text) {
  // NB: nlohmann's parser stops at a NUL byte (here from a \u0000 in the header) and ignores the
  // rest; valid JSON never holds one raw.
  if (size_t nul = text.find('\0'); nul != std::string::npos)
    invalid("the document is not valid JSON (a NUL byte at offset ", nul, ")");
  // Each level of the value tree is at most three JSON levels (node, item list, [key, node]).
  json doc;
  try {
    doc = json::parse(text, [](int depth, json::parse_event_t, json&) {
      if (depth > 3 * detail::kMaxDepth + 8)
        throw ValueError(::ember::detail::str("the value tree is nested deeper than ", detail::kMaxDepth, " levels"));
      return true;
    });
  } catch (const json::exception& e) {
    invalid("the document is not valid JSON (", e.what(), ")");
  } catch (const ValueError& e) {
    invalid(e.what());
  }
  if (!doc.is_object()) invalid("the document is not a JSON object");
  if (!doc.contains("schema") || doc["schema"] != detail::kSchemaName)
    invalid("\"schema\" is not \"", detail::kSchemaName, "\"");
  if (!doc.contains("version") || !doc["version"].is_number_unsigned())
    invalid("\"version\" is missing or not a positive integer");
  uint64_t version = doc["version"].get<uint64_t>();
  if (version == 0) invalid("\"version\" is 0");
  if (version > static_cast<uint64_t>(kSchemaVersion))
    throw ValueError(::ember::detail::str("io: '", path, "' was written with Ember schema version ", version,
                                          "; this build reads versions up to ", kSchemaVersion,
                                          ": upgrade Ember to read it"));
  this->version = static_cast<int64_t>(version);
  if (doc.contains(detail::kSealedField) && !header.metadata.count(detail::kHeaderChecksumKey))
    throw ValueError(::ember::detail::str("io: '", path, "' is damaged: its header has lost its checksum (\"",
                                          detail::kHeaderChecksumKey, "\")"));
  if (!doc.contains("root")) invalid("\"root\" is missing");
  root = std::move(doc["root"]);
  if (!doc.contains("tensors") || !doc["tensors"].is_object()) invalid("\"tensors\" is missing or not an object");
  const json& table = doc["tensors"];
  if (table.size() != header.tensors.size())
    invalid("the table lists ", table.size(), " tensors, the file holds ", header.tensors.size());
  for (size_t i = 0; i < header.tensors.size(); ++i) {
    TensorInfo& info = infos[i];
    auto it = table.find(info.key);
    if (it == table.end()) invalid("tensor '", info.key, "' has no entry in the table");
    const json& entry = *it;
    if (!entry.is_object()) invalid("the entry of tensor '", info.key, "' is not an object");
    auto cs = entry.find("checksum");
    if (cs == entry.end() || !cs->is_string() || !(info.checksum = detail::parse_checksum(cs->get<std::string>())))
      invalid("tensor '", info.key, "' has no valid checksum");
    auto dt = entry.find("dtype");
    if (dt != entry.end()) {
      // Version 3: a complex128 tensor stored as float64 (real, imaginary) pairs.
      if (this->version < 3) invalid("tensor '", info.key, "': \"dtype\" needs schema version 3, the file has ", version);
      if (*dt != dtype_name(kComplex128)) invalid("tensor '", info.key, "': dtype ", excerpt(*dt), " is not \"complex128\"");
      if (info.dtype != kFloat64 || info.shape.empty() || info.shape.back() != 2)
        invalid("tensor '", info.key, "' is complex128, so it must be stored as F64 with a last dim of 2, not ",
                info.dtype, " ", IntArrayRef(info.shape));
      info.dtype = kComplex128;
      info.shape.pop_back();
    }
    auto rg = entry.find("requires_grad");
    if (rg != entry.end()) {
      if (!rg->is_boolean()) invalid("tensor '", info.key, "': requires_grad is not a bool");
      info.requires_grad = rg->get<bool>();
      if (info.requires_grad && !is_floating(info.dtype))
        invalid("tensor '", info.key, "' of ", info.dtype, " cannot require grad");
    }
    auto names = entry.find("names");
    if (names != entry.end()) {
      if (!names->is_array()) invalid("tensor '", info.key, "': names is not a list");
      for (const json& n : *names) {
        if (!n.is_string()) invalid("tensor '", info.key, "': names holds a non-string");
        if (n != info.key) info.names.push_back(n.get<std::string>());
      }
    }
    auto attrs = entry.find("attributes");
    if (attrs != entry.end()) {
      if (!attrs->is_object()) invalid("tensor '", info.key, "': attributes is not an object");
      for (auto a = attrs->begin(); a != attrs->end(); ++a) {
        std::optional<AttrValue> v = attr_value(*a);
        if (!v) invalid("tensor '", info.key, "': attribute '", a.key(), "' is not a bool, int, float or str node");
        info.attributes[a.key()] = *v;
      }
    }
  }
}

size_t File::Impl::index_of(const std::string& name) const {
  auto it = by_name.find(name);
  if (it == by_name.end()) [[unlikely]] {
    std::string known;
    for (size_t i = 0; i < infos.size() && i < 10; ++i) known += (i ? ", '" : "'") + infos[i].key + "'";
    if (infos.size() > 10) known += ", ...";
    throw KeyError(::ember::detail::str("io: no tensor named '", name, "' in '", path, "' (", infos.size(),
                                        " tensors: ", known, ")"));
  }
  return it->second;
}

void File::Impl::read(uint64_t offset, void* dst, size_t n) const {
  if (n == 0) return;
  if (bytes != nullptr) {
    std::memcpy(dst, bytes + offset, n);
    return;
  }
  detail::read_exactly(file->fd, dst, n, offset, path);
}

Tensor File::Impl::make_tensor(size_t i, bool verify) const {
  const detail::TensorRecord& r = header.tensors[i];
  const TensorInfo& info = infos[i];  // its dtype and shape differ from r's for complex128
  uint64_t offset = header.data_start + r.begin;
  Tensor t;
  if (bytes != nullptr && reinterpret_cast<uintptr_t>(bytes + offset) % itemsize(r.dtype) == 0) {
    t = from_blob(bytes + offset, info.shape, info.dtype, owner);
  } else {
    // Read mode, or a tensor that another writer's file places off its alignment: a copy.
    t = empty(info.shape, info.dtype);
    read(offset, t.data_ptr(), r.nbytes());
  }
  if (verify) check_checksum(i, t.data_ptr());
  if (r.dtype == kBool) detail::check_bool_bytes(static_cast<const uint8_t*>(t.data_ptr()), r.nbytes(), path, "tensor '" + r.key + "'");
  if (!info.attributes.empty()) t.attributes() = info.attributes;
  if (info.requires_grad) t.set_requires_grad(true);
  return t;
}

bool File::Impl::verify(size_t i) const {
  const TensorInfo& info = infos[i];
  if (!info.checksum) return true;
  const detail::TensorRecord& r = header.tensors[i];
  if (bytes != nullptr) return detail::checksum(bytes + header.data_start + r.begin, r.nbytes()) == *info.checksum;
  std::vector<uint8_t> data(r.nbytes());
  read(header.data_start + r.begin, data.data(), data.size());
  return detail::checksum(data.data(), data.size()) == *info.checksum;
}

void File::Impl::check_checksum(size_t i, const void* data) const {
  const TensorInfo& info = infos[i];
  EMBER_CHECK_VALUE(!info.checksum || detail::checksum(data, header.tensors[i].nbytes()) == *info.checksum,
                    "io: checksum mismatch for tensor '", info.key, "' in '", path, "': the file is damaged");
}

void File::Impl::check_header_seal(std::string_view header_bytes) const {
  const bool sealed = header.metadata.count(detail::kHeaderChecksumKey) > 0;
  if (!sealed) return;  // an older Ember file, or another writer's; read_document() decides
  EMBER_CHECK_VALUE(detail::check_seal(header_bytes, detail::kHeaderChecksumField) == detail::SealCheck::Valid,
                    "io: checksum mismatch for the header of '", path,
                    "': the file is damaged (or its header was rewritten by another tool)");
}

Value File::Impl::decode(const json& node, int depth, std::vector<Tensor>& made) const {
  if (depth > detail::kMaxDepth) invalid("the value tree is nested deeper than ", detail::kMaxDepth, " levels");
  if (!node.is_object()) invalid("a value node is not an object: ", excerpt(node));
  auto t_it = node.find("t");
  if (t_it == node.end() || !t_it->is_string()) invalid("a value node has no type \"t\"");
  const std::string& t = t_it->get_ref<const std::string&>();
  auto v_it = node.find("v");
  if (t == "none") return Value();
  if (v_it == node.end()) invalid("a '", t, "' node has no value \"v\"");
  const json& v = *v_it;
  if (t == "bool" || t == "int" || t == "float" || t == "str") {
    std::optional<AttrValue> a = attr_value(node);
    if (!a) invalid("a '", t, "' node holds ", excerpt(v));
    return std::visit([](const auto& x) { return Value(x); }, *a);
  }
  if (t == "tensor") {
    if (!v.is_string()) invalid("a tensor node does not name its tensor");
    size_t i;
    try {
      i = index_of(v.get<std::string>());
    } catch (const KeyError&) {
      invalid("the tree refers to tensor '", v.get<std::string>(), "', which the file does not hold");
    }
    if (!made[i].defined()) made[i] = make_tensor(i, /*verify=*/false);
    TensorKind kind = TensorKind::Tensor;
    auto k = node.find("kind");
    if (k != node.end()) {
      if (*k == "parameter") kind = TensorKind::Parameter;
      else if (*k == "buffer") kind = TensorKind::Buffer;
      else if (*k != "tensor") invalid("tensor '", infos[i].key, "': unknown kind ", excerpt(*k));
    }
    bool persistent = true;
    auto p = node.find("persistent");
    if (p != node.end()) {
      if (!p->is_boolean()) invalid("tensor '", infos[i].key, "': persistent is not a bool");
      persistent = p->get<bool>();
    }
    return Value(made[i], kind, persistent);
  }
  if (t == "list" || t == "tuple") {
    if (!v.is_array()) invalid("a '", t, "' node does not hold a list");
    std::vector<Value> items;
    items.reserve(v.size());
    for (const json& item : v) items.push_back(decode(item, depth + 1, made));
    return t == "list" ? Value::list(std::move(items)) : Value::tuple(std::move(items));
  }
  if (t == "dict") {
    if (!v.is_array()) invalid("a dict node does not hold a list of [key, value] pairs");
    Value out = Value::dict();
    for (const json& item : v) {
      if (!item.is_array() || item.size() != 2) invalid("a dict item is not a [key, value] pair");
      const json& k = item[0];
      std::optional<Key> key;
      if (k.is_string()) key = Key(k.get<std::string>());
      // Int keys arrived with version 2; a version-1 file holding one is damaged, not old.
      else if (version >= 2 && k.is_number_integer() && !(k.is_number_unsigned() && k.get<uint64_t>() > INT64_MAX))
        key = Key(k.get<int64_t>());
      else
        invalid("a dict key is ", excerpt(k), ", expected a string", version >= 2 ? " or an int64" : "",
                " (schema version ", version, ")");
      if (out.contains(*key)) invalid("a dict holds key ", *key, " twice");
      out.set(*key, decode(item[1], depth + 1, made));
    }
    return out;
  }
  invalid("unknown value type '", t, "'");
}

namespace {

// Reads the header and Ember's document of a file whose first bytes are `head` (at least the
// 8 + N header bytes, or the whole file when it is shorter), and `size` bytes long in all.
void parse_safetensors(File::Impl& impl, const uint8_t* head, size_t head_size) {
  refuse_foreign_format(head, head_size, impl.path);
  impl.header = detail::parse_header(head, head_size, impl.size, impl.path);
  impl.check_header_seal(std::string_view(reinterpret_cast<const char*>(head), impl.header.data_start));
  for (const detail::TensorRecord& r : impl.header.tensors) {
    TensorInfo info;
    info.key = r.key;
    info.dtype = r.dtype;
    info.shape = r.shape;
    info.nbytes = r.nbytes();
    impl.infos.push_back(std::move(info));
  }
  // A file that claims to be Ember's (either key Ember writes) must hold a document that parses:
  // it never falls back to a plain safetensors dict, which would hand the user a different tree.
  const auto& metadata = impl.header.metadata;
  auto doc = metadata.find(detail::kDocumentKey);
  auto format = metadata.find(detail::kFormatKey);
  if (doc != metadata.end()) {
    impl.read_document(doc->second);
  } else if (format != metadata.end() && format->second == detail::kFormatName) {
    impl.invalid("__metadata__ says \"format\": \"", detail::kFormatName, "\" but holds no \"",
                 detail::kDocumentKey, "\" document");
  } else if (metadata.count(detail::kHeaderChecksumKey)) {
    impl.invalid("__metadata__ holds \"", detail::kHeaderChecksumKey, "\" but no \"", detail::kDocumentKey,
                 "\" document");
  }
  for (size_t i = 0; i < impl.infos.size(); ++i) {
    TensorInfo& info = impl.infos[i];
    info.names.insert(info.names.begin(), info.key);
    for (const std::string& name : info.names) {
      auto [it, fresh] = impl.by_name.emplace(name, i);
      if (!fresh && it->second != i)
        impl.invalid("name '", name, "' is given to tensors '", impl.infos[it->second].key, "' and '", info.key, "'");
    }
  }
}

// A file held whole in memory (mapped, or copied): `bytes` lives as long as `owner`.
std::shared_ptr<File::Impl> open_in_memory(std::string path, std::shared_ptr<void> owner, uint8_t* bytes, size_t size,
                                           const std::vector<std::string>& pickle_globals = {}) {
  auto impl = std::make_shared<File::Impl>();
  impl->path = std::move(path);
  impl->owner = std::move(owner);
  impl->bytes = bytes;
  impl->size = size;
  // The file type is told by content: a zip archive is torch.save's, anything else safetensors.
  if (is_pytorch_zip(bytes, size)) {
    impl->torch =
        std::make_shared<detail::TorchFile>(detail::read_torch(bytes, size, impl->path, impl->owner, pickle_globals));
    return impl;
  }
  parse_safetensors(*impl, bytes, size);
  return impl;
}

[[noreturn]] void throw_os_error(const std::string& path, const char* what, int err) {
  if (err == ENOENT) throw FileNotFoundError(::ember::detail::str("io: cannot open '", path, "': ", std::strerror(err)), path);
  throw OSError(::ember::detail::str("io: cannot ", what, " '", path, "': ", std::strerror(err)), err, path);
}

// Opens `path` for reading, refusing anything but a regular file before it is opened (opening a
// FIFO would block until a writer came); returns the descriptor and the size.
std::shared_ptr<OpenFile> open_regular(const std::string& path, size_t& size) {
  struct stat st {};
  if (detail::fs_stat(path.c_str(), &st) != 0) throw_os_error(path, "open", errno);
  auto refuse = [&](mode_t mode) {
    throw OSError(::ember::detail::str("io: cannot load '", path, "': it is ", detail::file_kind(mode),
                                       ", not a checkpoint file"), S_ISDIR(mode) ? EISDIR : EINVAL, path);
  };
  if (!S_ISREG(st.st_mode)) refuse(st.st_mode);
  auto file = std::make_shared<OpenFile>();
  // NB: O_NONBLOCK in case the name became a FIFO since the stat: such an open returns at once.
  file->fd = detail::fs_open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (file->fd < 0) throw_os_error(path, "open", errno);
  if (detail::fs_fstat(file->fd, &st) != 0) throw_os_error(path, "inspect", errno);
  if (!S_ISREG(st.st_mode)) refuse(st.st_mode);
  size = static_cast<size_t>(st.st_size);
  return file;
}

std::shared_ptr<File::Impl> open_read(const std::string& path, const std::vector<std::string>& pickle_globals) {
  auto impl = std::make_shared<File::Impl>();
  impl->path = path;
  impl->file = open_regular(path, impl->size);
  // The first bytes tell the file type and, for safetensors, the header's length.
  std::vector<uint8_t> head(std::min<size_t>(impl->size, 64));
  impl->read(0, head.data(), head.size());
  if (is_pytorch_zip(head.data(), head.size())) {
    // NB: a torch.save archive is read whole (its zip directory sits at the end, and storages
    // borrow its bytes), into memory this process owns.
    std::shared_ptr<uint8_t[]> all(new uint8_t[impl->size > 0 ? impl->size : 1]);
    impl->read(0, all.get(), impl->size);
    uint8_t* bytes = all.get();
    return open_in_memory(path, std::move(all), bytes, impl->size, pickle_globals);
  }
  if (head.size() >= 8) {
    uint64_t header_len = 0;
    for (int i = 7; i >= 0; --i) header_len = header_len << 8 | head[static_cast<size_t>(i)];
    // parse_header() refuses a length beyond the file or the limit; read what is there.
    if (header_len <= std::min<uint64_t>(detail::kMaxHeaderBytes, impl->size - 8)) {
      const size_t have = head.size();
      head.resize(8 + header_len);
      if (head.size() > have) impl->read(have, head.data() + have, head.size() - have);
    }
  }
  parse_safetensors(*impl, head.data(), head.size());
  return impl;
}

}  // namespace

File File::open(const std::string& path, const OpenOptions& options) {
  if (!options.mmap) return File(open_read(path, options.pickle_globals));
  size_t size = 0;
  std::shared_ptr<OpenFile> file = open_regular(path, size);
  std::shared_ptr<detail::MappedFile> map = detail::MappedFile::open(path, file->fd, size, options.populate);
  if (!map) {
    warn(::ember::detail::str("io: cannot hold a lease on '", path, "', which a mapping needs to survive the file "
                              "being rewritten or truncated: reading it into memory instead of mapping it"));
    return File(open_read(path, options.pickle_globals));
  }
  uint8_t* bytes = map->data();
  std::shared_ptr<Impl> impl = open_in_memory(path, std::move(map), bytes, size, options.pickle_globals);
  impl->mapped = true;
  return File(std::move(impl));
}

File File::from_bytes(const void* data, size_t size, const std::string& name) {
  std::shared_ptr<uint8_t[]> copy(new uint8_t[size > 0 ? size : 1]);
  if (size > 0) std::memcpy(copy.get(), data, size);
  uint8_t* bytes = copy.get();
  return File(open_in_memory(name, std::move(copy), bytes, size));
}

const std::string& File::path() const { return impl_->path; }
bool File::is_ember() const { return impl_->version > 0; }
File::Kind File::kind() const {
  return impl_->torch ? Kind::PyTorch : impl_->version > 0 ? Kind::Ember : Kind::Safetensors;
}
int64_t File::version() const { return impl_->version; }
const std::map<std::string, std::string>& File::metadata() const { return impl_->header.metadata; }
const std::vector<TensorInfo>& File::tensors() const { return impl_->infos; }
const TensorInfo& File::info(const std::string& name) const { return impl_->infos[impl_->index_of(name)]; }
bool File::verify(const std::string& name) const { return impl_->verify(impl_->index_of(name)); }
bool File::is_mapped() const { return impl_->mapped; }

Tensor File::tensor(const std::string& name) const { return impl_->make_tensor(impl_->index_of(name), /*verify=*/true); }

Value File::root(bool verify) const {
  const Impl& impl = *impl_;
  if (impl.torch) {
    if (verify) {
      const detail::ZipEntry* bad = impl.torch->first_damaged();
      EMBER_CHECK_VALUE(bad == nullptr, "io: CRC-32 mismatch for entry '", bad ? bad->name : "", "' in '",
                        impl.path, "': the file is damaged");
    }
    return impl.torch->root;
  }
  size_t n = impl.infos.size();
  // Every tensor is read (or borrowed) and its checksum checked on the bytes handed out, on
  // every thread; the first damaged one (in file order) is reported.
  std::vector<Tensor> made(n);
  std::vector<std::exception_ptr> errors(n);
  parallel_for(0, static_cast<int64_t>(n), 1, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      try {
        made[static_cast<size_t>(i)] = impl.make_tensor(static_cast<size_t>(i), verify);
      } catch (...) {
        errors[static_cast<size_t>(i)] = std::current_exception();
      }
    }
  });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  if (impl.version > 0) return impl.decode(impl.root, 0, made);
  // A plain safetensors file: its tensors by key, in file order.
  Value out = Value::dict();
  for (size_t i = 0; i < n; ++i) out.set(impl.infos[i].key, made[i]);
  return out;
}

namespace {

// Copies every tensor of the tree to `device` in place, a tensor reached by two names (a tie) once.
void map_tensors(Value& v, Device device, std::unordered_map<const TensorImpl*, Tensor>& moved) {
  if (v.is_tensor()) {
    const Tensor& t = v.as_tensor();
    auto [it, fresh] = moved.try_emplace(t.impl_ptr().get());
    if (fresh) {
      Tensor m = copy_as(t, t.dtype(), device);
      m.attributes() = t.attributes();
      if (t.requires_grad()) m.set_requires_grad(true);
      it->second = m;
    }
    v = Value(it->second, v.tensor_kind(), v.persistent());
    return;
  }
  if (v.is_list() || v.is_tuple() || v.is_dict())
    for (Value& item : v.items()) map_tensors(item, device, moved);
}

}  // namespace

Value load(const std::string& path, const LoadOptions& options) {
  if (!options.map_location.is_cpu()) check_device(options.map_location, "io::load: map_location");
  Value root =
      File::open(path, {.mmap = options.mmap, .populate = options.verify, .pickle_globals = options.pickle_globals})
          .root(options.verify);
  if (options.map_location.is_cpu()) return root;
  std::unordered_map<const TensorImpl*, Tensor> moved;
  map_tensors(root, options.map_location, moved);
  return root;
}

Tensor load_tensor(const std::string& path, const std::string& name, const OpenOptions& options) {
  return File::open(path, options).tensor(name);
}

}  // namespace ember::io
