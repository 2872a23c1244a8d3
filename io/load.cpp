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

#include <cmath>
#include <cstring>
#include <unordered_map>

#include "ember/core/backend.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/core/parallel.h"
#include "ember/io/checksum.h"
#include "ember/io/mapped_file.h"
#include "ember/io/pt_load.h"
#include "ember/io/safetensors.h"
#include "ember/io/schema.h"
#include "ember/io/serialize.h"

namespace ember::io {

using json = nlohmann::json;

struct File::Impl {
  std::string path;
  std::shared_ptr<void> owner;  // keeps `bytes` alive: the mapping, or a copy in memory
  uint8_t* bytes = nullptr;
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
  Tensor make_tensor(size_t i) const;
  bool verify(size_t i) const;
  void check_checksum(size_t i) const;
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

Tensor File::Impl::make_tensor(size_t i) const {
  const detail::TensorRecord& r = header.tensors[i];
  uint8_t* data = bytes + header.data_start + r.begin;
  if (r.dtype == kBool) detail::check_bool_bytes(data, r.nbytes(), path, "tensor '" + r.key + "'");
  const TensorInfo& info = infos[i];  // its dtype and shape differ from r's for complex128
  Tensor t;
  if (reinterpret_cast<uintptr_t>(data) % itemsize(r.dtype) == 0) {
    t = from_blob(data, info.shape, info.dtype, owner);
  } else {
    // Files from other writers may place a tensor off its alignment: that one is copied.
    t = empty(info.shape, info.dtype);
    if (r.nbytes() > 0) std::memcpy(t.data_ptr(), data, r.nbytes());
  }
  if (!info.attributes.empty()) t.attributes() = info.attributes;
  if (info.requires_grad) t.set_requires_grad(true);
  return t;
}

bool File::Impl::verify(size_t i) const {
  const TensorInfo& info = infos[i];
  if (!info.checksum) return true;
  const detail::TensorRecord& r = header.tensors[i];
  return detail::checksum(bytes + header.data_start + r.begin, r.nbytes()) == *info.checksum;
}

void File::Impl::check_checksum(size_t i) const {
  EMBER_CHECK_VALUE(verify(i), "io: checksum mismatch for tensor '", infos[i].key, "' in '", path,
                    "': the file is damaged");
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
    if (!made[i].defined()) made[i] = make_tensor(i);
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

std::shared_ptr<File::Impl> open_impl(std::string path, std::shared_ptr<void> owner, uint8_t* bytes, size_t size) {
  auto impl = std::make_shared<File::Impl>();
  impl->path = std::move(path);
  impl->owner = std::move(owner);
  impl->bytes = bytes;
  impl->size = size;
  // The file type is told by content: a zip archive is torch.save's, anything else safetensors.
  if (is_pytorch_zip(bytes, size)) {
    impl->torch = std::make_shared<detail::TorchFile>(detail::read_torch(bytes, size, impl->path, impl->owner));
    return impl;
  }
  refuse_foreign_format(bytes, size, impl->path);
  impl->header = detail::parse_header(bytes, size, impl->path);
  for (const detail::TensorRecord& r : impl->header.tensors) {
    TensorInfo info;
    info.key = r.key;
    info.dtype = r.dtype;
    info.shape = r.shape;
    info.nbytes = r.nbytes();
    impl->infos.push_back(std::move(info));
  }
  // A file that claims to be Ember's (either key Ember writes) must hold a document that parses:
  // it never falls back to a plain safetensors dict, which would hand the user a different tree.
  const auto& metadata = impl->header.metadata;
  auto doc = metadata.find(detail::kDocumentKey);
  auto format = metadata.find(detail::kFormatKey);
  if (doc != metadata.end()) {
    impl->read_document(doc->second);
  } else if (format != metadata.end() && format->second == detail::kFormatName) {
    impl->invalid("__metadata__ says \"format\": \"", detail::kFormatName, "\" but holds no \"",
                  detail::kDocumentKey, "\" document");
  }
  for (size_t i = 0; i < impl->infos.size(); ++i) {
    TensorInfo& info = impl->infos[i];
    info.names.insert(info.names.begin(), info.key);
    for (const std::string& name : info.names) {
      auto [it, fresh] = impl->by_name.emplace(name, i);
      if (!fresh && it->second != i)
        impl->invalid("name '", name, "' is given to tensors '", impl->infos[it->second].key, "' and '", info.key, "'");
    }
  }
  return impl;
}

}  // namespace

File File::open(const std::string& path, bool read_all) {
  std::shared_ptr<detail::MappedFile> map = detail::MappedFile::open(path, read_all);
  uint8_t* bytes = map->data();
  size_t size = map->size();
  return File(open_impl(path, std::move(map), bytes, size));
}

File File::from_bytes(const void* data, size_t size, const std::string& name) {
  std::shared_ptr<uint8_t[]> copy(new uint8_t[size > 0 ? size : 1]);
  if (size > 0) std::memcpy(copy.get(), data, size);
  uint8_t* bytes = copy.get();
  return File(open_impl(name, std::move(copy), bytes, size));
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

Tensor File::tensor(const std::string& name) const {
  size_t i = impl_->index_of(name);
  impl_->check_checksum(i);
  return impl_->make_tensor(i);
}

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
  if (verify) {
    std::vector<char> ok(n, 1);
    // Tensors are hashed on every thread; the first damaged one (in file order) is reported.
    parallel_for(0, static_cast<int64_t>(n), 1, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) ok[static_cast<size_t>(i)] = impl.verify(static_cast<size_t>(i));
    });
    for (size_t i = 0; i < n; ++i)
      if (!ok[i]) impl.check_checksum(i);
  }
  std::vector<Tensor> made(n);
  if (impl.version > 0) return impl.decode(impl.root, 0, made);
  // A plain safetensors file: its tensors by key, in file order.
  Value out = Value::dict();
  for (size_t i = 0; i < n; ++i) out.set(impl.infos[i].key, impl.make_tensor(i));
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
  Value root = File::open(path, options.verify).root(options.verify);
  if (options.map_location.is_cpu()) return root;
  std::unordered_map<const TensorImpl*, Tensor> moved;
  map_tensors(root, options.map_location, moved);
  return root;
}

Tensor load_tensor(const std::string& path, const std::string& name) {
  return File::open(path).tensor(name);
}

}  // namespace ember::io
