// io::save: walks the value tree once to give every distinct tensor a key and to encode the tree
// as JSON, writes the header with placeholder checksums, streams each tensor's bytes (hashing
// each piece just before it is written), then writes the real checksums over the
// placeholders (same width), seals the header with its own checksum, and commits the file
// atomically.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "ember/core/copy.h"
#include "ember/io/atomic_file.h"
#include "ember/io/checksum.h"
#include "ember/io/safetensors.h"
#include "ember/io/schema.h"
#include "ember/io/serialize.h"

namespace ember::io {

namespace {

using ojson = nlohmann::ordered_json;

struct Stored {
  Tensor tensor;
  std::vector<std::string> names;  // names[0] is the key
  uint64_t checksum = 0;
};

ojson scalar_node(const char* type, ojson value) { return ojson{{"t", type}, {"v", std::move(value)}}; }

ojson float_node(double x) {
  // JSON has no NaN or infinity; finite values print with 17 digits and read back exactly.
  if (std::isnan(x)) return scalar_node("float", "nan");
  if (std::isinf(x)) return scalar_node("float", x > 0 ? "inf" : "-inf");
  return scalar_node("float", x);
}

ojson attr_node(const AttrValue& a) {
  return std::visit(
      [](const auto& x) -> ojson {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) return scalar_node("bool", x);
        else if constexpr (std::is_same_v<T, int64_t>) return scalar_node("int", x);
        else if constexpr (std::is_same_v<T, double>) return float_node(x);
        else return scalar_node("str", x);
      },
      a);
}

class Writer {
 public:
  explicit Writer(const std::string& path) : path_(path) {}

  ojson encode(const Value& v, const std::string& path, int depth) {
    EMBER_CHECK_VALUE(depth <= detail::kMaxDepth, "io::save: '", path_, "': the value is nested deeper than ",
                      detail::kMaxDepth, " levels (at '", path, "')");
    switch (v.type()) {
      case Value::Type::None: return ojson{{"t", "none"}};
      case Value::Type::Bool: return scalar_node("bool", v.as_bool());
      case Value::Type::Int: return scalar_node("int", v.as_int());
      case Value::Type::Float: return float_node(v.as_float());
      case Value::Type::String: return scalar_node("str", v.as_string());
      case Value::Type::Tensor:
        return ojson{{"t", "tensor"}, {"v", key_for(v.as_tensor(), path)},
                     {"kind", tensor_kind_name(v.tensor_kind())}, {"persistent", v.persistent()}};
      case Value::Type::List:
      case Value::Type::Tuple: {
        ojson items = ojson::array();
        for (size_t i = 0; i < v.size(); ++i) items.push_back(encode(v[i], join(path, std::to_string(i)), depth + 1));
        return scalar_node(v.is_list() ? "list" : "tuple", std::move(items));
      }
      case Value::Type::Dict: {
        ojson items = ojson::array();
        for (size_t i = 0; i < v.size(); ++i) {
          const Key& key = v.keys()[i];
          // An int key is a JSON integer (schema version 2); a str key stays a JSON string.
          ojson k = key.is_int() ? ojson(key.as_int()) : ojson(key.as_string());
          uses_int_keys_ |= key.is_int();
          items.push_back(ojson::array({std::move(k), encode(v.items()[i], join(path, key.str()), depth + 1)}));
        }
        return scalar_node("dict", std::move(items));
      }
    }
    return {};
  }

  std::vector<Stored>& stored() { return stored_; }
  /// The oldest schema version that holds what was encoded, so older readers keep reading files
  /// that need nothing newer.
  int64_t schema_version() const {
    for (const Stored& s : stored_)
      if (s.tensor.dtype() == kComplex128) return 3;
    return uses_int_keys_ ? 2 : 1;
  }

 private:
  static std::string join(const std::string& path, const std::string& part) {
    return path.empty() ? part : path + "/" + part;
  }

  // A new tensor takes its path as key; a tensor seen before (a tie) gains its path as another
  // name. Every name is unique in the file: a path reused (a dict key with a slash, "a/b" beside
  // "a" -> "b") or equal to "__metadata__" gets a suffix "#2", "#3", ...
  std::string key_for(const Tensor& t, const std::string& path) {
    std::string name = unique_name(path.empty() ? "tensor" : path);
    auto [it, fresh] = by_impl_.emplace(t.impl_ptr().get(), stored_.size());
    if (fresh) {
      stored_.push_back({t, {name}});
      return name;
    }
    stored_[it->second].names.push_back(name);
    return stored_[it->second].names[0];
  }

  std::string unique_name(const std::string& name) {
    std::string out = name;
    for (int n = 2; out == "__metadata__" || names_.count(out); ++n) out = name + "#" + std::to_string(n);
    names_.insert(out);
    return out;
  }

  const std::string& path_;
  std::vector<Stored> stored_;
  std::unordered_map<const TensorImpl*, size_t> by_impl_;
  std::unordered_set<std::string> names_;
  bool uses_int_keys_ = false;
};

ojson tensor_table(const std::vector<Stored>& stored) {
  ojson table = ojson::object();
  for (const Stored& s : stored) {
    ojson attributes = ojson::object();
    if (const Attributes* attrs = s.tensor.impl().attributes_if_any())
      for (const auto& [name, value] : *attrs) attributes[name] = attr_node(value);
    ojson entry{{"checksum", detail::checksum_text(s.checksum)},
                {"requires_grad", s.tensor.requires_grad()},
                {"names", s.names}};
    if (!attributes.empty()) entry["attributes"] = std::move(attributes);
    if (s.tensor.dtype() == kComplex128) entry["dtype"] = dtype_name(kComplex128);  // stored as F64 pairs
    table[s.names[0]] = std::move(entry);
  }
  return table;
}

// The whole header for the current checksums; its length does not depend on their values.
std::string header_bytes(const ojson& root, int64_t version, const std::vector<Stored>& stored,
                         const std::vector<detail::TensorRecord>& records, const std::string& path) {
  // NB: "header_checksum" tells a reader that the header must carry its checksum, so damage to
  // the checksum's key cannot pass for a file written without one.
  ojson doc{{"schema", detail::kSchemaName}, {"version", version}, {"root", root},
            {"tensors", tensor_table(stored)}, {detail::kSealedField, true}};
  try {
    std::string header = detail::format_header(records, {{detail::kFormatKey, detail::kFormatName},
                                                         {detail::kDocumentKey, doc.dump()},
                                                         {detail::kHeaderChecksumKey, detail::checksum_text(0)}});
    detail::seal(header, detail::kHeaderChecksumField);
    return header;
  } catch (const nlohmann::json::exception& e) {
    throw ValueError(::ember::detail::str("io::save: '", path, "': cannot encode the value (",
                                          e.what(), "); keys and strings must be UTF-8"));
  }
}

}  // namespace

namespace {

DType real_dtype_for_file(DType t) { return t == kComplex128 ? kFloat64 : t; }

// Data order: widest elements first, so every tensor starts on a multiple of its item size (the
// data itself starts on an 8-byte boundary) and loads without a copy. Returns the records in
// data order; order[i] is the index (into names/tensors) of the i-th record.
std::vector<detail::TensorRecord> layout(const std::vector<std::string>& names,
                                         const std::vector<Tensor>& tensors, std::vector<size_t>& order) {
  order.resize(tensors.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return tensors[a].itemsize() > tensors[b].itemsize();
  });
  std::vector<detail::TensorRecord> records;
  uint64_t offset = 0;
  for (size_t i : order) {
    const Tensor& t = tensors[i];
    DimVector shape = t.sizes().vec();
    // NB: safetensors has no complex128: its bytes are written as float64 (real, imaginary)
    // pairs, view_as_real's layout, and Ember's document names the dtype (io/FORMAT.md).
    if (t.dtype() == kComplex128) shape.push_back(2);
    records.push_back({names[i], real_dtype_for_file(t.dtype()), shape, offset, offset + t.nbytes()});
    offset += t.nbytes();
  }
  return records;
}

// Writes one tensor's bytes and returns their checksum. One tensor at a time is made contiguous
// and brought to the CPU: saving never holds a second copy of the whole state.
uint64_t write_tensor(detail::AtomicFile& file, const Tensor& t) {
  Tensor data = t.device().is_cpu() ? contiguous_data(t) : copy_as(t, t.dtype(), Device::cpu());
  // Hashed and written a piece at a time: the write copies each piece while it is still in
  // cache from the hash. NB: 8 MiB pieces fit the L3 cache, and writes that large let the page
  // cache keep large folios, which a mapped load then populates two to three times faster than
  // the small ones 512 KiB writes leave (measured with bench/io_bench.cpp).
  const char* bytes = static_cast<const char*>(data.data_ptr());
  size_t n = data.nbytes();
  constexpr size_t kPiece = 8 << 20;
  detail::Hasher hasher;
  for (size_t done = 0; done < n; done += kPiece) {
    size_t len = std::min(kPiece, n - done);
    hasher.update(bytes + done, len);
    file.write(bytes + done, len);
  }
  return hasher.digest();
}

// Every tensor leaf of `v` under its path (dict keys and indices joined with '/').
void collect_leaves(const Value& v, const std::string& path, int depth,
                    std::vector<std::pair<std::string, Tensor>>& out, std::vector<std::string>& dropped) {
  EMBER_CHECK_VALUE(depth <= detail::kMaxDepth, "io::save_safetensors: the value is nested deeper than ",
                    detail::kMaxDepth, " levels");
  auto join = [&](const std::string& part) { return path.empty() ? part : path + "/" + part; };
  if (v.is_tensor()) {
    out.emplace_back(path.empty() ? "tensor" : path, v.as_tensor());
  } else if (v.is_dict()) {
    for (size_t i = 0; i < v.size(); ++i) collect_leaves(v.items()[i], join(v.keys()[i].str()), depth + 1, out, dropped);
  } else if (v.is_list() || v.is_tuple()) {
    for (size_t i = 0; i < v.size(); ++i) collect_leaves(v[i], join(std::to_string(i)), depth + 1, out, dropped);
  } else {
    dropped.push_back(path.empty() ? "(root)" : path);
  }
}

}  // namespace

void save(const Value& value, const std::string& path, const SaveOptions& options) {
  Writer writer(path);
  ojson root = writer.encode(value, "", 0);
  std::vector<Stored>& stored = writer.stored();
  std::vector<std::string> keys;
  std::vector<Tensor> tensors;
  for (const Stored& s : stored) {
    keys.push_back(s.names[0]);
    tensors.push_back(s.tensor);
  }
  std::vector<size_t> order;
  std::vector<detail::TensorRecord> records = layout(keys, tensors, order);

  std::string header = header_bytes(root, writer.schema_version(), stored, records, path);
  detail::AtomicFile file(path, options.durable);
  file.write(header.data(), header.size());
  for (size_t i : order) stored[i].checksum = write_tensor(file, stored[i].tensor);
  std::string final_header = header_bytes(root, writer.schema_version(), stored, records, path);
  EMBER_INTERNAL_ASSERT(final_header.size() == header.size(), "checksums changed the header size");
  file.write_at(final_header.data(), final_header.size(), 0);
  file.commit();
}

std::vector<std::string> save_safetensors(const Value& value, const std::string& path,
                                          const std::map<std::string, std::string>& metadata,
                                          const SaveOptions& options) {
  std::vector<std::pair<std::string, Tensor>> leaves;
  std::vector<std::string> dropped;
  collect_leaves(value, "", 0, leaves, dropped);
  std::vector<std::string> names;
  std::vector<Tensor> tensors;
  std::unordered_set<std::string> seen;
  for (auto& [name, t] : leaves) {
    EMBER_CHECK_VALUE(seen.insert(name).second && name != "__metadata__", "io::save_safetensors: '", path,
                      "': two tensors would be stored under the name '", name, "'");
    names.push_back(name);
    tensors.push_back(t);
  }
  std::vector<size_t> order;
  std::vector<detail::TensorRecord> records = layout(names, tensors, order);
  std::string header;
  try {
    header = detail::format_header(records, metadata);
  } catch (const nlohmann::json::exception& e) {
    throw ValueError(::ember::detail::str("io::save_safetensors: '", path, "': cannot encode the header (",
                                          e.what(), "); names and metadata must be UTF-8"));
  }
  detail::AtomicFile file(path, options.durable);
  file.write(header.data(), header.size());
  for (size_t i : order) write_tensor(file, tensors[i]);
  file.commit();
  return dropped;
}

}  // namespace ember::io
