#include "ember/io/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>

#include "ember/core/error.h"

namespace ember::io::detail {

using json = nlohmann::json;

namespace {

constexpr std::pair<DType, std::string_view> kDTypeNames[] = {
    {DType::Bool, "BOOL"}, {DType::UInt8, "U8"},    {DType::Int8, "I8"},   {DType::Int16, "I16"}, {DType::Int32, "I32"},
    {DType::Int64, "I64"}, {DType::Float16, "F16"}, {DType::BFloat16, "BF16"},
    {DType::Float32, "F32"}, {DType::Float64, "F64"}, {DType::Complex64, "C64"}};

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& [dtype, text] : kDTypeNames)
    if (text == name) return dtype;
  return std::nullopt;
}

// Errors about the file itself: every one names the file and what is wrong with it.
struct Invalid {
  const std::string& file;
  template <typename... Args>
  [[noreturn]] void operator()(const Args&... args) const {
    throw ValueError(::ember::detail::str("io: '", file, "' is not a valid safetensors file: ",
                                          args...));
  }
};

uint64_t read_u64_le(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

TensorRecord parse_record(const std::string& key, const json& entry, const Invalid& invalid) {
  if (!entry.is_object()) invalid("entry '", key, "' is not an object");
  auto field = [&](const char* name) -> const json& {
    auto it = entry.find(name);
    if (it == entry.end()) invalid("entry '", key, "' has no \"", name, "\"");
    return *it;
  };
  TensorRecord r;
  r.key = key;
  const json& dtype = field("dtype");
  if (!dtype.is_string()) invalid("entry '", key, "': dtype is not a string");
  std::optional<DType> parsed = parse_dtype(dtype.get_ref<const std::string&>());
  if (!parsed)
    invalid("entry '", key, "': unknown dtype '", dtype.get_ref<const std::string&>(),
            "' (Ember reads BOOL, U8, I8, I16, I32, I64, F16, BF16, F32, F64, C64)");
  r.dtype = *parsed;

  const json& shape = field("shape");
  if (!shape.is_array()) invalid("entry '", key, "': shape is not a list");
  if (shape.size() > kMaxDims) invalid("entry '", key, "': ", shape.size(), " dimensions (at most ", kMaxDims, ")");
  // NB: `span`, the product of the sizes with 0 counted as 1, bounds every contiguous stride: an
  // empty shape such as [0, 2^40, 2^40] has no elements, but its strides (2^80) overflow int64.
  uint64_t numel = 1, span = 1;
  for (const json& d : shape) {
    if (!d.is_number_integer()) invalid("entry '", key, "': shape ", shape.dump(), " is not a list of integers");
    if (d.is_number_unsigned() ? d.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX) : d.get<int64_t>() < 0)
      invalid("entry '", key, "': shape ", shape.dump(), " has a negative or too large size");
    uint64_t n = d.get<uint64_t>();
    if (__builtin_mul_overflow(numel, n, &numel) || __builtin_mul_overflow(span, std::max<uint64_t>(n, 1), &span) ||
        span > static_cast<uint64_t>(INT64_MAX))
      invalid("entry '", key, "': shape ", shape.dump(), " has more elements than can be addressed");
    r.shape.push_back(static_cast<int64_t>(n));
  }
  uint64_t nbytes = 0;
  if (__builtin_mul_overflow(numel, static_cast<uint64_t>(itemsize(r.dtype)), &nbytes) ||
      numel > static_cast<uint64_t>(INT64_MAX))
    invalid("entry '", key, "': shape ", shape.dump(), " has more bytes than can be addressed");

  const json& offsets = field("data_offsets");
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned())
    invalid("entry '", key, "': data_offsets ", offsets.dump(), " is not [begin, end]");
  r.begin = offsets[0].get<uint64_t>();
  r.end = offsets[1].get<uint64_t>();
  if (r.end < r.begin) invalid("entry '", key, "': data_offsets [", r.begin, ", ", r.end, "] end before begin");
  if (r.end - r.begin != nbytes)
    invalid("entry '", key, "': shape ", shape.dump(), " of ", dtype.get_ref<const std::string&>(),
            " needs ", nbytes, " bytes, data_offsets [", r.begin, ", ", r.end, "] hold ", r.end - r.begin);
  return r;
}

}  // namespace

const TensorRecord* Header::find(std::string_view key) const {
  auto it = index.find(std::string(key));
  return it == index.end() ? nullptr : &tensors[it->second];
}

std::string_view safetensors_dtype(DType t) {
  for (const auto& [dtype, text] : kDTypeNames)
    if (dtype == t) return text;
  return "?";
}

Header parse_header(const uint8_t* bytes, size_t available, uint64_t size, const std::string& file) {
  Invalid invalid{file};
  if (size < 8) invalid("it has ", size, " bytes, fewer than the 8 of the header length");
  uint64_t header_len = read_u64_le(bytes);
  if (header_len > kMaxHeaderBytes)
    invalid("header length ", header_len, " exceeds the limit of ", kMaxHeaderBytes, " bytes");
  if (header_len > size - 8)
    invalid("header length ", header_len, " runs past the end of the file (", size, " bytes): truncated?");
  EMBER_INTERNAL_ASSERT(available >= 8 + header_len, "parse_header given ", available, " of ", 8 + header_len, " bytes");
  std::string_view text(reinterpret_cast<const char*>(bytes + 8), header_len);
  // NB: nlohmann's parser stops at a NUL byte and ignores what follows; valid JSON never holds
  // one raw (a string spells it \u0000), so a NUL means bytes the parser would silently skip.
  if (size_t nul = text.find('\0'); nul != std::string_view::npos)
    invalid("header is not valid JSON (a NUL byte at header offset ", nul, ")");

  // The callback bounds nesting (a hostile header could nest arrays a million deep); a valid
  // header is at most three levels deep.
  json doc;
  try {
    doc = json::parse(text, [](int depth, json::parse_event_t, json&) {
      if (depth > 8) throw ValueError("nested deeper than a safetensors header can be");
      return true;
    });
  } catch (const json::exception& e) {
    invalid("header is not valid JSON (", e.what(), ")");
  } catch (const ValueError& e) {
    invalid("header is ", e.what());
  }
  if (!doc.is_object()) invalid("header is not a JSON object");

  Header header;
  header.data_start = 8 + header_len;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it->is_object()) invalid("__metadata__ is not an object");
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (!m->is_string()) invalid("__metadata__ value '", m.key(), "' is not a string");
        header.metadata.emplace(m.key(), m->get<std::string>());
      }
      continue;
    }
    header.tensors.push_back(parse_record(it.key(), *it, invalid));
  }

  // The tensors must tile the data exactly: sorted by offset, each begins where the last ended,
  // and the last ends at the end of the file.
  std::stable_sort(header.tensors.begin(), header.tensors.end(),
                   [](const TensorRecord& a, const TensorRecord& b) {
                     return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
                   });
  uint64_t data_size = size - header.data_start;
  uint64_t expected = 0;
  for (const TensorRecord& r : header.tensors) {
    if (r.begin < expected) invalid("tensor '", r.key, "' overlaps the tensor before it (offset ", r.begin, " < ", expected, ")");
    if (r.begin > expected) invalid("the data has a hole before tensor '", r.key, "' (offset ", r.begin, ", expected ", expected, ")");
    if (r.end > data_size)
      invalid("tensor '", r.key, "' ends at data offset ", r.end, ", past the end of the data (", data_size, " bytes): truncated?");
    expected = r.end;
  }
  if (expected != data_size)
    invalid("the data holds ", data_size, " bytes but the tensors cover ", expected);
  for (size_t i = 0; i < header.tensors.size(); ++i) header.index.emplace(header.tensors[i].key, i);
  return header;
}

std::string format_header(const std::vector<TensorRecord>& tensors,
                          const std::map<std::string, std::string>& metadata) {
  // ordered_json keeps the entries in data order, which is also how a reader lists them.
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  if (!metadata.empty()) doc["__metadata__"] = metadata;
  for (const TensorRecord& r : tensors) {
    doc[r.key] = {{"dtype", safetensors_dtype(r.dtype)},
                  {"shape", std::vector<int64_t>(r.shape.begin(), r.shape.end())},
                  {"data_offsets", {r.begin, r.end}}};
  }
  std::string text = doc.dump();
  // Padding to a multiple of 8 puts the data (and every tensor, see save.cpp) on an 8-byte
  // boundary of the mapped file.
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  uint64_t len = text.size();
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((len >> (8 * i)) & 0xff);
  return out + text;
}

void check_bool_bytes(const uint8_t* bytes, size_t n, const std::string& file, const std::string& what) {
  const uint8_t* bad = std::find_if(bytes, bytes + n, [](uint8_t b) { return b > 1; });
  if (bad != bytes + n)
    throw ValueError(::ember::detail::str("io: '", file, "': ", what, " is bool but its element ", bad - bytes,
                                          " holds the byte ", int(*bad), "; a bool must be 0 or 1"));
}

}  // namespace ember::io::detail
