// torch.save archives: the zip (pt_zip.cpp), then data.pkl through a restricted unpickler that
// builds nothing but containers, scalars, strings, storages and tensors. Objects live in an arena
// and refer to each other by index, so a hostile pickle that makes a list hold itself neither
// leaks nor recurses on destruction; the tree is converted to an io::Value with its depth and its
// total size (shared references expand) bounded.
#include "ember/io/pt_load.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "ember/core/factory.h"
#include "ember/core/storage.h"
#include "ember/io/schema.h"
#include "ember/io/safetensors.h"

namespace ember::io {

bool is_pytorch_zip(const void* bytes, size_t size) {
  return size >= 4 && std::memcmp(bytes, "PK\x03\x04", 4) == 0;
}

void refuse_foreign_format(const void* bytes, size_t size, const std::string& file) {
  // Before PyTorch 1.6 (and with _use_new_zipfile_serialization=False) torch.save wrote pickles
  // one after another, the first being the magic number 0x1950a86a20f9469cfc6c as a LONG1.
  static constexpr uint8_t kLegacyMagic[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c,
                                             0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
  const auto* p = static_cast<const uint8_t*>(bytes);
  // NB: a safetensors header length can begin with the same bytes as a pickle (0x380 is 80 03 ...);
  // a file whose length fits and whose header opens with '{' is left to the safetensors reader.
  if (size > 8) {
    uint64_t header_length = 0;
    for (int i = 7; i >= 0; --i) header_length = header_length << 8 | p[i];
    if (header_length <= size - 8 && p[8] == '{') return;
  }
  if (size >= sizeof(kLegacyMagic) && std::memcmp(p, kLegacyMagic, sizeof(kLegacyMagic)) == 0)
    throw NotImplementedError(::ember::detail::str(
        "io: '", file, "' is a legacy PyTorch checkpoint (torch.save before PyTorch 1.6, or with "
        "_use_new_zipfile_serialization=False), which Ember does not read: load it in PyTorch and save it "
        "again with torch.save(obj, path)"));
  if (size >= 2 && p[0] == 0x80 && p[1] >= 2 && p[1] <= 5)
    throw NotImplementedError(::ember::detail::str(
        "io: '", file, "' is a Python pickle (protocol ", int(p[1]), "), not a checkpoint Ember reads (safetensors, "
        "an Ember checkpoint or a torch.save zip archive); Ember never unpickles a file outside a torch.save archive"));
}

namespace detail {

const ZipEntry* TorchFile::first_damaged() const {
  for (const ZipEntry* e : used)
    if (!archive->check_crc(*e)) return e;
  return nullptr;
}

namespace {

// NB: the storage classes torch.save names (torch.FloatStorage, ...) and the dtypes they hold.
struct StorageType {
  const char* name;
  DType dtype;
};
constexpr StorageType kStorageTypes[] = {
    {"DoubleStorage", DType::Float64},         {"FloatStorage", DType::Float32},
    {"HalfStorage", DType::Float16},           {"BFloat16Storage", DType::BFloat16},
    {"LongStorage", DType::Int64},             {"IntStorage", DType::Int32},
    {"ByteStorage", DType::UInt8},             {"BoolStorage", DType::Bool},
    {"ShortStorage", DType::Int16},            {"CharStorage", DType::Int8},
    {"ComplexFloatStorage", DType::Complex64}, {"ComplexDoubleStorage", DType::Complex128},
};
constexpr const char* kTorchDTypes[] = {"float64", "float32", "float16", "bfloat16", "int64", "int32",
                                        "int16", "int8", "uint8", "bool", "double", "float", "half",
                                        "long", "int", "short", "complex64", "complex128"};

struct Obj {
  // Object: made from an allowed global by REDUCE or NEWOBJ (LoadOptions::pickle_globals).
  enum class Kind : uint8_t { None, Bool, Int, Float, Str, List, Tuple, Dict, Global, Storage, Tensor, Object };
  Kind kind = Kind::None;
  int64_t i = 0;
  double f = 0;
  std::string s;                   // Str; Global: "module.name"
  std::vector<uint32_t> items;     // list and tuple elements, dict values
  std::vector<Key> keys;   // dict keys, parallel to items
  std::unordered_map<Key, size_t, Key::Hash> index;  // dict key -> position
  std::shared_ptr<Storage> storage;  // Storage
  DType dtype = DType::Float32;      // Storage
  int64_t numel = 0;                 // Storage
  std::string storage_key;           // Storage
  Tensor tensor;                     // Tensor
  bool parameter = false;            // Tensor
  bool allowed = false;              // Global: one the caller allowed (not Ember's own)
  const char* call = nullptr;        // Object: "new" or "reduce"; s is its global
  uint32_t args = 0;                 // Object: its argument tuple
  std::optional<uint32_t> state;     // Object: what BUILD set
};

const char* kind_name(Obj::Kind k) {
  switch (k) {
    case Obj::Kind::None: return "None";
    case Obj::Kind::Bool: return "bool";
    case Obj::Kind::Int: return "int";
    case Obj::Kind::Float: return "float";
    case Obj::Kind::Str: return "str";
    case Obj::Kind::List: return "list";
    case Obj::Kind::Tuple: return "tuple";
    case Obj::Kind::Dict: return "dict";
    case Obj::Kind::Global: return "global";
    case Obj::Kind::Storage: return "storage";
    case Obj::Kind::Tensor: return "Tensor";
    case Obj::Kind::Object:
      return "object";
  }
  return "?";
}

bool valid_utf8(const uint8_t* p, size_t n) {
  size_t i = 0;
  while (i < n) {
    uint8_t c = p[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (len == 0 || i + len > n) return false;
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (p[i + k] & 0x3f);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += len;
  }
  return true;
}

class Unpickler {
 public:
  Unpickler(const ZipArchive& zip, std::string prefix, std::shared_ptr<void> owner, TorchFile& out,
            const std::vector<std::string>& globals)
      : zip_(zip), prefix_(std::move(prefix)), owner_(std::move(owner)), out_(out), globals_(globals) {}

  Value run(const uint8_t* data, size_t size) {
    data_ = data;
    size_ = size;
    uint32_t top = parse();
    node_budget_ = 4 * size + 1024;
    return convert(top, 0);
  }

 private:
  template <typename... Args>
  [[noreturn]] void fail(const Args&... args) const {
    throw ValueError(::ember::detail::str("io: '", zip_.file(), "' is not a valid PyTorch checkpoint: ",
                                          prefix_, "/data.pkl: ", args..., " (at byte ", op_pos_, ")"));
  }

  // ---- reading the opcode stream
  const uint8_t* take(size_t n) {
    if (n > size_ - pos_) fail("the pickle ends in the middle of an opcode");
    const uint8_t* p = data_ + pos_;
    pos_ += n;
    return p;
  }
  uint64_t read_le(size_t n) {
    const uint8_t* p = take(n);
    uint64_t v = 0;
    for (size_t k = 0; k < n; ++k) v |= static_cast<uint64_t>(p[k]) << (8 * k);
    return v;
  }
  std::string read_line() {
    const void* nl = std::memchr(data_ + pos_, '\n', std::min<size_t>(size_ - pos_, 1024));
    if (nl == nullptr) fail("a GLOBAL name is not terminated by a newline within 1024 bytes");
    size_t n = static_cast<const uint8_t*>(nl) - (data_ + pos_);
    std::string s(reinterpret_cast<const char*>(take(n)), n);
    take(1);
    return s;
  }
  std::string read_utf8(uint64_t n) {
    if (n > size_ - pos_) fail("a string of ", n, " bytes runs past the end of the pickle (", size_ - pos_, " left)");
    const uint8_t* p = take(static_cast<size_t>(n));
    if (!valid_utf8(p, static_cast<size_t>(n))) fail("a string is not valid UTF-8");
    return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
  }

  // ---- the arena and the stack
  uint32_t make(Obj::Kind kind) {
    Obj o;
    o.kind = kind;
    objs_.push_back(std::move(o));
    return static_cast<uint32_t>(objs_.size() - 1);
  }
  uint32_t make_int(int64_t v) {
    uint32_t id = make(Obj::Kind::Int);
    objs_[id].i = v;
    return id;
  }
  uint32_t make_str(std::string s) {
    uint32_t id = make(Obj::Kind::Str);
    objs_[id].s = std::move(s);
    return id;
  }
  void push(uint32_t id) { stack_.push_back(id); }
  uint32_t pop() {
    if (stack_.size() <= floor()) fail("the stack is empty");
    uint32_t id = stack_.back();
    stack_.pop_back();
    return id;
  }
  uint32_t top() {
    if (stack_.size() <= floor()) fail("the stack is empty");
    return stack_.back();
  }
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  std::vector<uint32_t> pop_mark() {
    if (marks_.empty()) fail("no MARK to pop to");
    size_t m = marks_.back();
    marks_.pop_back();
    std::vector<uint32_t> items(stack_.begin() + static_cast<ptrdiff_t>(m), stack_.end());
    stack_.resize(m);
    return items;
  }
  Obj& expect(uint32_t id, Obj::Kind kind, const char* what) {
    if (objs_[id].kind != kind) fail(what, " is a ", kind_name(objs_[id].kind), ", expected a ", kind_name(kind));
    return objs_[id];
  }
  Key dict_key(uint32_t id) {
    const Obj& k = objs_[id];
    if (k.kind == Obj::Kind::Str) return k.s;
    if (k.kind == Obj::Kind::Int) return k.i;
    fail("a dict key is a ", kind_name(k.kind), " (only str and int keys are read)");
  }
  void set_item(uint32_t dict, uint32_t key, uint32_t value) {
    Obj& d = expect(dict, Obj::Kind::Dict, "the target of SETITEM");
    Key k = dict_key(key);
    auto [it, fresh] = d.index.emplace(k, d.items.size());
    if (fresh) {
      d.keys.push_back(std::move(k));
      d.items.push_back(value);
    } else {
      d.items[it->second] = value;  // as Python: the later value wins, the first position stays
    }
  }
  void memo_put(uint64_t index) {
    if (memo_.size() >= size_ && !memo_.count(index)) fail("the memo outgrows the pickle");
    memo_[index] = top();
  }
  uint32_t memo_get(uint64_t index) {
    auto it = memo_.find(index);
    if (it == memo_.end()) fail("memo index ", index, " is read before it is written");
    return it->second;
  }

  uint32_t global(const std::string& module, const std::string& name) {
    std::string full = module + "." + name;
    auto allow = [&] {
      uint32_t id = make(Obj::Kind::Global);
      objs_[id].s = full;
      return id;
    };
    if (full == "collections.OrderedDict" || full == "torch._utils._rebuild_tensor_v2" ||
        full == "torch._utils._rebuild_parameter" || full == "torch._utils._rebuild_parameter_with_state" ||
        full == "torch.Size")
      return allow();
    if (module == "torch") {
      for (const StorageType& s : kStorageTypes)
        if (name == s.name) return allow();
      for (const char* d : kTorchDTypes)
        if (name == d) return make_str(full);  // a dtype is kept as its name
    }
    if (std::find(globals_.begin(), globals_.end(), full) != globals_.end() ||
        std::find(globals_.begin(), globals_.end(), "*") != globals_.end()) {
      uint32_t id = allow();
      objs_[id].allowed = true;
      return id;
    }
    throw ValueError(::ember::detail::str(
        "io: '", zip_.file(), "': ", prefix_, "/data.pkl refers to the global '", full,
        "', which Ember does not load (only tensors, containers and scalars are read, as "
        "torch.load(weights_only=True); nothing in the file is executed). If you trust it, allow it: "
        "ember.serialization.add_safe_globals in Python, io::LoadOptions::pickle_globals in C++"));
  }

  // An object an allowed global makes (REDUCE: fn(*args); NEWOBJ: cls.__new__(cls, *args)),
  // described for the caller: nothing runs here.
  uint32_t make_object(uint32_t global, const char* call, uint32_t args_id) {
    expect(args_id, Obj::Kind::Tuple, "the arguments of a call");
    uint32_t id = make(Obj::Kind::Object);
    objs_[id].s = objs_[global].s;
    objs_[id].call = call;
    objs_[id].args = args_id;
    return id;
  }

  uint32_t persistent_load(uint32_t pid_id) {
    const Obj& pid = expect(pid_id, Obj::Kind::Tuple, "a persistent id");
    if (pid.items.size() != 5 || objs_[pid.items[0]].kind != Obj::Kind::Str || objs_[pid.items[0]].s != "storage")
      fail("a persistent id is not ('storage', type, key, location, numel)");
    const Obj& type = expect(pid.items[1], Obj::Kind::Global, "a storage type");
    std::string key = expect(pid.items[2], Obj::Kind::Str, "a storage key").s;
    expect(pid.items[3], Obj::Kind::Str, "a storage location");
    int64_t numel = expect(pid.items[4], Obj::Kind::Int, "a storage size").i;
    const StorageType* st = nullptr;
    for (const StorageType& s : kStorageTypes)
      if (type.s == std::string("torch.") + s.name) st = &s;
    if (st == nullptr) fail("'", type.s, "' is not a storage type");
    DType dtype = st->dtype;
    auto cached = storages_.find(key);
    if (cached != storages_.end()) {
      if (objs_[cached->second].dtype != dtype)
        fail("storage '", key, "' is read as ", objs_[cached->second].dtype, " and as ", dtype);
      return cached->second;
    }
    const ZipEntry* entry = zip_.find(prefix_ + "/data/" + key);
    if (entry == nullptr) fail("storage '", key, "' has no entry ", prefix_, "/data/", key, " in the archive");
    size_t item = itemsize(dtype);
    if (numel < 0 || static_cast<uint64_t>(numel) > entry->size / item || entry->size != static_cast<uint64_t>(numel) * item)
      fail("storage '", key, "' of ", numel, " ", dtype, " elements does not match its entry of ", entry->size, " bytes");
    const uint8_t* bytes = zip_.data(*entry);
    std::shared_ptr<Storage> storage;
    size_t nbytes = static_cast<size_t>(entry->size);
    if (reinterpret_cast<uintptr_t>(bytes) % item == 0) {
      storage = std::make_shared<Storage>(const_cast<uint8_t*>(bytes), nbytes, Device(), owner_);
    } else {
      // Another zip writer may place an entry off its alignment: that one is copied.
      storage = std::make_shared<Storage>(nbytes, Device());
      if (nbytes > 0) std::memcpy(storage->data(), bytes, nbytes);
    }
    if (dtype == DType::Bool) check_bool_bytes(bytes, nbytes, zip_.file(), "storage '" + key + "'");
    out_.used.push_back(entry);
    uint32_t id = make(Obj::Kind::Storage);
    Obj& o = objs_[id];
    o.storage = std::move(storage);
    o.dtype = dtype;
    o.numel = numel;
    o.storage_key = key;
    storages_.emplace(key, id);
    return id;
  }

  std::vector<int64_t> int_tuple(uint32_t id, const char* what) {
    const Obj& t = objs_[id];
    if (t.kind != Obj::Kind::Tuple && t.kind != Obj::Kind::List) fail(what, " is a ", kind_name(t.kind), ", not a tuple");
    if (t.items.size() > kMaxDims) fail(what, " has ", t.items.size(), " dimensions (at most ", kMaxDims, ")");
    std::vector<int64_t> out;
    for (uint32_t x : t.items) {
      if (objs_[x].kind != Obj::Kind::Int) fail(what, " holds a ", kind_name(objs_[x].kind));
      out.push_back(objs_[x].i);
    }
    return out;
  }

  void expect_no_hooks(uint32_t id) {
    const Obj& h = objs_[id];
    if (h.kind == Obj::Kind::None) return;
    if (h.kind != Obj::Kind::Dict || !h.items.empty()) fail("a tensor has backward hooks (", kind_name(h.kind), ")");
  }

  uint32_t rebuild_tensor(const std::vector<uint32_t>& args) {
    if (args.size() < 6 || args.size() > 7) fail("_rebuild_tensor_v2 takes 6 or 7 arguments, got ", args.size());
    Obj& st = expect(args[0], Obj::Kind::Storage, "the storage of a tensor");
    int64_t offset = expect(args[1], Obj::Kind::Int, "a storage offset").i;
    std::vector<int64_t> sizes = int_tuple(args[2], "a tensor's size");
    std::vector<int64_t> strides = int_tuple(args[3], "a tensor's stride");
    bool requires_grad = expect(args[4], Obj::Kind::Bool, "requires_grad").i != 0;
    expect_no_hooks(args[5]);
    if (sizes.size() != strides.size()) fail("a tensor has ", sizes.size(), " sizes but ", strides.size(), " strides");
    if (offset < 0) fail("a tensor has a negative storage offset ", offset);
    // The last element the view reaches must lie inside its storage.
    int64_t numel = 1, last = offset;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] < 0 || strides[d] < 0) fail("a tensor has a negative size or stride: ", IntArrayRef(sizes), ", ", IntArrayRef(strides));
      if (sizes[d] == 0) numel = 0;
      else if (numel != 0 && __builtin_mul_overflow(numel, sizes[d], &numel)) fail("a tensor's size overflows: ", IntArrayRef(sizes));
    }
    if (numel > 0) {
      for (size_t d = 0; d < sizes.size(); ++d) {
        int64_t span;
        if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &span) || __builtin_add_overflow(last, span, &last))
          fail("a tensor's view overflows: size ", IntArrayRef(sizes), ", stride ", IntArrayRef(strides));
      }
      if (last >= st.numel)
        fail("a view (offset ", offset, ", size ", IntArrayRef(sizes), ", stride ", IntArrayRef(strides), ") reaches element ",
             last, " of storage '", st.storage_key, "', which holds ", st.numel);
    } else if (offset > st.numel) {
      fail("an empty tensor starts at offset ", offset, " past storage '", st.storage_key, "' (", st.numel, ")");
    }
    if (requires_grad && !is_floating(st.dtype)) fail("a tensor of ", st.dtype, " requires grad");
    // The same view of the same storage is the same Tensor: a tie stays a tie.
    std::string view_key = ::ember::detail::str(st.storage_key, '|', offset, '|', IntArrayRef(sizes), '|',
                                                IntArrayRef(strides), '|', requires_grad);
    auto it = views_.find(view_key);
    if (it != views_.end()) return it->second;
    uint32_t id = make(Obj::Kind::Tensor);
    Tensor t = make_tensor(objs_[args[0]].storage, objs_[args[0]].dtype, sizes, strides, offset);
    if (requires_grad) t.set_requires_grad(true);
    objs_[id].tensor = std::move(t);
    views_.emplace(std::move(view_key), id);
    return id;
  }

  uint32_t call(uint32_t callable, uint32_t args_id) {
    const Obj& fn = objs_[callable];
    if (fn.kind != Obj::Kind::Global) fail("REDUCE calls a ", kind_name(fn.kind));
    if (fn.allowed) return make_object(callable, "reduce", args_id);
    std::vector<uint32_t> args = expect(args_id, Obj::Kind::Tuple, "the arguments of a call").items;
    const std::string name = fn.s;
    if (name == "collections.OrderedDict") {
      if (!args.empty()) fail("OrderedDict is called with ", args.size(), " arguments");
      return make(Obj::Kind::Dict);
    }
    if (name == "torch.Size") {
      if (args.size() != 1) fail("torch.Size takes one argument");
      std::vector<int64_t> dims = int_tuple(args[0], "a torch.Size");
      uint32_t id = make(Obj::Kind::Tuple);
      for (int64_t d : dims) {
        uint32_t x = make_int(d);
        objs_[id].items.push_back(x);
      }
      return id;
    }
    if (name == "torch._utils._rebuild_tensor_v2") return rebuild_tensor(args);
    if (name == "torch._utils._rebuild_parameter" || name == "torch._utils._rebuild_parameter_with_state") {
      size_t want = name == "torch._utils._rebuild_parameter" ? 3 : 4;
      if (args.size() != want) fail(name, " takes ", want, " arguments, got ", args.size());
      Obj& data = expect(args[0], Obj::Kind::Tensor, "the data of a parameter");
      bool requires_grad = expect(args[1], Obj::Kind::Bool, "requires_grad").i != 0;
      expect_no_hooks(args[2]);
      // NB: the state of _rebuild_parameter_with_state (Python attributes set on the parameter)
      // has no place on an Ember tensor and is not read.
      if (requires_grad && !is_floating(data.tensor.dtype())) fail("a parameter of ", data.tensor.dtype(), " requires grad");
      uint32_t id = make(Obj::Kind::Tensor);
      Tensor t = data.tensor;
      if (requires_grad) t.set_requires_grad(true);
      objs_[id].tensor = std::move(t);
      objs_[id].parameter = true;
      return id;
    }
    fail("'", name, "' cannot be called");
  }

  uint32_t parse() {
    bool stopped = false;
    while (!stopped) {
      op_pos_ = pos_;
      uint8_t op = *take(1);
      switch (op) {
        case 0x80: {  // PROTO
          uint8_t v = *take(1);
          if (v < 2 || v > 5) fail("pickle protocol ", int(v), " (2 to 5 are read)");
          break;
        }
        case 0x95: {  // FRAME: a hint for buffered readers, but never one past the end
          uint64_t n = read_le(8);
          if (n > size_ - pos_) fail("a FRAME of ", n, " bytes runs past the end of the pickle (", size_ - pos_, " bytes left)");
          break;
        }
        case '}': push(make(Obj::Kind::Dict)); break;
        case ']': push(make(Obj::Kind::List)); break;
        case ')': push(make(Obj::Kind::Tuple)); break;
        case '(':
          if (marks_.size() >= 10000) fail("more than 10000 open MARKs");
          marks_.push_back(stack_.size());
          break;
        case 'X': push(make_str(read_utf8(read_le(4)))); break;          // BINUNICODE
        case 0x8c: push(make_str(read_utf8(read_le(1)))); break;         // SHORT_BINUNICODE
        case 0x8d: push(make_str(read_utf8(read_le(8)))); break;         // BINUNICODE8
        case 'J': push(make_int(static_cast<int32_t>(read_le(4)))); break;  // BININT
        case 'K': push(make_int(static_cast<int64_t>(read_le(1)))); break;  // BININT1
        case 'M': push(make_int(static_cast<int64_t>(read_le(2)))); break;  // BININT2
        case 0x8a: {  // LONG1: n bytes of two's complement, little-endian
          uint8_t n = *take(1);
          if (n > 8) fail("an integer of ", int(n), " bytes does not fit in int64");
          uint64_t v = n ? read_le(n) : 0;
          if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t{0} << (8 * n);  // sign-extend
          push(make_int(static_cast<int64_t>(v)));
          break;
        }
        case 'G': {  // BINFLOAT: big-endian double
          const uint8_t* p = take(8);
          uint64_t bits = 0;
          for (int k = 0; k < 8; ++k) bits = (bits << 8) | p[k];
          uint32_t id = make(Obj::Kind::Float);
          std::memcpy(&objs_[id].f, &bits, 8);
          push(id);
          break;
        }
        case 0x88:
        case 0x89: {  // NEWTRUE, NEWFALSE
          uint32_t id = make(Obj::Kind::Bool);
          objs_[id].i = op == 0x88;
          push(id);
          break;
        }
        case 'N': push(make(Obj::Kind::None)); break;
        case 0x85:
        case 0x86:
        case 0x87: {  // TUPLE1..3
          size_t n = op - 0x84u;
          if (stack_.size() < floor() + n) fail("TUPLE", n, " needs ", n, " items on the stack");
          uint32_t id = make(Obj::Kind::Tuple);
          objs_[id].items.assign(stack_.end() - static_cast<ptrdiff_t>(n), stack_.end());
          stack_.resize(stack_.size() - n);
          push(id);
          break;
        }
        case 't': {  // TUPLE
          std::vector<uint32_t> items = pop_mark();
          uint32_t id = make(Obj::Kind::Tuple);
          objs_[id].items = std::move(items);
          push(id);
          break;
        }
        case 'l': {  // LIST
          std::vector<uint32_t> items = pop_mark();
          uint32_t id = make(Obj::Kind::List);
          objs_[id].items = std::move(items);
          push(id);
          break;
        }
        case '0': pop(); break;      // POP
        case '1': pop_mark(); break;  // POP_MARK
        case 'a': {  // APPEND
          uint32_t v = pop();
          expect(top(), Obj::Kind::List, "the target of APPEND").items.push_back(v);
          break;
        }
        case 'e': {  // APPENDS
          std::vector<uint32_t> items = pop_mark();
          Obj& list = expect(top(), Obj::Kind::List, "the target of APPENDS");
          list.items.insert(list.items.end(), items.begin(), items.end());
          break;
        }
        case 's': {  // SETITEM
          uint32_t v = pop(), k = pop();
          set_item(top(), k, v);
          break;
        }
        case 'u': {  // SETITEMS
          std::vector<uint32_t> items = pop_mark();
          if (items.size() % 2) fail("SETITEMS with an odd number of items");
          uint32_t d = top();
          for (size_t k = 0; k < items.size(); k += 2) set_item(d, items[k], items[k + 1]);
          break;
        }
        case 'q': memo_put(read_le(1)); break;                // BINPUT
        case 'r': memo_put(read_le(4)); break;                // LONG_BINPUT
        case 0x94: memo_put(memo_.size()); break;             // MEMOIZE
        case 'h': push(memo_get(read_le(1))); break;          // BINGET
        case 'j': push(memo_get(read_le(4))); break;          // LONG_BINGET
        case 'c': {  // GLOBAL
          std::string module = read_line();
          std::string name = read_line();
          push(global(module, name));
          break;
        }
        case 0x93: {  // STACK_GLOBAL
          uint32_t name = pop(), module = pop();
          push(global(expect(module, Obj::Kind::Str, "a module name").s, expect(name, Obj::Kind::Str, "a global name").s));
          break;
        }
        case 'R': {  // REDUCE
          uint32_t args = pop(), fn = pop();
          push(call(fn, args));
          break;
        }
        case 0x81: {  // NEWOBJ: cls.__new__(cls, *args), for OrderedDict and allowed globals only
          uint32_t args = pop(), cls = pop();
          if (objs_[cls].kind == Obj::Kind::Global && objs_[cls].allowed) {
            push(make_object(cls, "new", args));
            break;
          }
          if (objs_[cls].kind != Obj::Kind::Global || objs_[cls].s != "collections.OrderedDict")
            fail("NEWOBJ of a ", objs_[cls].kind == Obj::Kind::Global ? objs_[cls].s : kind_name(objs_[cls].kind));
          push(call(cls, args));
          break;
        }
        case 'b': {  // BUILD
          uint32_t state = pop();
          Obj& target = objs_[top()];
          if (target.kind == Obj::Kind::Object) {  // the caller sets it, as pickle would
            target.state = state;
            break;
          }
          // NB: state_dict() is an OrderedDict with a `_metadata` attribute (module versions),
          // which pickle restores with BUILD; Ember keeps the items and drops the attribute.
          Obj::Kind sk = objs_[state].kind;
          if (target.kind != Obj::Kind::Dict || (sk != Obj::Kind::Dict && sk != Obj::Kind::Tuple && sk != Obj::Kind::None))
            fail("BUILD sets the state of a ", kind_name(target.kind), " to a ", kind_name(sk));
          break;
        }
        case 'Q': {  // BINPERSID
          uint32_t pid = pop();
          push(persistent_load(pid));
          break;
        }
        case '.': stopped = true; break;  // STOP
        default: fail("unsupported opcode 0x", "0123456789abcdef"[op >> 4], "0123456789abcdef"[op & 15]);
      }
    }
    if (!marks_.empty()) fail("STOP with an open MARK");
    if (stack_.size() != 1) fail("STOP with ", stack_.size(), " values on the stack, expected 1");
    return stack_.back();
  }

  Value convert(uint32_t id, int depth) {
    if (depth > kMaxDepth) fail("the value tree is nested deeper than ", kMaxDepth, " levels (or holds itself)");
    if (node_budget_-- == 0) fail("shared references expand the tree beyond ", 4 * size_ + 1024, " values");
    const Obj& o = objs_[id];
    switch (o.kind) {
      case Obj::Kind::None: return Value();
      case Obj::Kind::Bool: return Value(o.i != 0);
      case Obj::Kind::Int: return Value(o.i);
      case Obj::Kind::Float: return Value(o.f);
      case Obj::Kind::Str: return Value(o.s);
      case Obj::Kind::Tensor: return Value(o.tensor, o.parameter ? TensorKind::Parameter : TensorKind::Tensor);
      case Obj::Kind::List:
      case Obj::Kind::Tuple: {
        std::vector<Value> items;
        items.reserve(o.items.size());
        for (size_t k = 0; k < o.items.size(); ++k) items.push_back(convert(objs_[id].items[k], depth + 1));
        return o.kind == Obj::Kind::List ? Value::list(std::move(items)) : Value::tuple(std::move(items));
      }
      case Obj::Kind::Dict: {
        std::vector<Value::Item> items;
        items.reserve(o.items.size());
        for (size_t k = 0; k < o.items.size(); ++k) items.emplace_back(o.keys[k], convert(o.items[k], depth + 1));
        return Value::dict(std::move(items));
      }
      case Obj::Kind::Global:
        if (!o.allowed) fail("the tree holds the global '", o.s, "' itself, not a value");
        return Value::dict({{kPickledGlobalKey, o.s}, {"call", "global"}});
      case Obj::Kind::Object: {
        std::vector<Value::Item> items{{kPickledGlobalKey, Value(o.s)}, {"call", Value(std::string(o.call))}};
        const uint32_t args = o.args;
        const std::optional<uint32_t> state = o.state;
        items.emplace_back("args", convert(args, depth + 1));
        if (state) items.emplace_back("state", convert(*state, depth + 1));
        return Value::dict(std::move(items));
      }
      case Obj::Kind::Storage: fail("the tree holds a bare storage ('", o.storage_key, "'), not a tensor");
    }
    fail("unknown object");
  }

  const ZipArchive& zip_;
  std::string prefix_;
  std::shared_ptr<void> owner_;
  TorchFile& out_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;
  size_t op_pos_ = 0;
  size_t node_budget_ = 0;
  std::vector<Obj> objs_;
  std::vector<uint32_t> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, uint32_t> memo_;
  std::unordered_map<std::string, uint32_t> storages_;
  std::unordered_map<std::string, uint32_t> views_;
  const std::vector<std::string>& globals_;
};

// PyTorch's reader refuses archive versions outside the range it knows
// (caffe2/serialize/versions.h); so does Ember, rather than guess at a newer layout.
constexpr uint64_t kMinTorchArchiveVersion = 1, kMaxTorchArchiveVersion = 10;

void check_archive_version(const ZipArchive& zip, const std::string& prefix) {
  const ZipEntry* entry = zip.find(prefix + "/.data/version");
  if (entry == nullptr) entry = zip.find(prefix + "/version");
  if (entry == nullptr) return;  // torch.save always writes one; hand-made archives may not
  std::string text(reinterpret_cast<const char*>(zip.data(*entry)), static_cast<size_t>(std::min<uint64_t>(entry->size, 32)));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  uint64_t version = 0;
  bool digits = !text.empty() && text.size() <= 18 && text.find_first_not_of("0123456789") == std::string::npos;
  if (digits) version = std::stoull(text);
  if (!digits || version < kMinTorchArchiveVersion || version > kMaxTorchArchiveVersion) {
    std::string shown = digits ? text : "'" + text.substr(0, 16) + "'";
    for (char& c : shown) if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    throw ValueError(::ember::detail::str("io: '", zip.file(), "' is a PyTorch archive of version ", shown, " (",
                                          entry->name, "); Ember reads versions ", kMinTorchArchiveVersion, " to ",
                                          kMaxTorchArchiveVersion, ", those PyTorch's reader accepts"));
  }
}

}  // namespace

TorchFile read_torch(const uint8_t* bytes, size_t size, const std::string& file, std::shared_ptr<void> owner,
                     const std::vector<std::string>& globals) {
  TorchFile out;
  auto zip = std::make_shared<ZipArchive>(bytes, size, file);
  out.archive = zip;
  // torch.save puts everything under one folder, named after the file when it was written.
  const ZipEntry* pickle = nullptr;
  for (const auto& [name, entry] : zip->entries()) {
    size_t slash = name.find('/');
    if (slash != std::string::npos && slash > 0 && name.compare(slash, std::string::npos, "/data.pkl") == 0) {
      EMBER_CHECK_VALUE(pickle == nullptr, "io: '", file, "' is not a valid PyTorch checkpoint: it holds both '",
                        pickle ? pickle->name : "", "' and '", name, "'");
      pickle = &entry;
    }
  }
  if (pickle == nullptr) {
    bool jit = false;
    for (const auto& [name, entry] : zip->entries()) jit |= name.find("/constants.pkl") != std::string::npos;
    throw ValueError(::ember::detail::str("io: '", file, "' is not a valid PyTorch checkpoint: ",
                                          jit ? "it is a TorchScript archive (torch.jit.save), which holds code"
                                              : "the zip archive holds no <name>/data.pkl (is it a torch.save file?)"));
  }
  std::string prefix = pickle->name.substr(0, pickle->name.size() - std::strlen("/data.pkl"));
  if (const ZipEntry* order = zip->find(prefix + "/byteorder")) {
    const uint8_t* p = zip->data(*order);
    std::string text(reinterpret_cast<const char*>(p), static_cast<size_t>(std::min<uint64_t>(order->size, 16)));
    if (text != "little")
      throw NotImplementedError(::ember::detail::str("io: '", file, "' was written on a machine of byte order '",
                                                     text, "'; Ember reads little-endian checkpoints only"));
  }
  check_archive_version(*zip, prefix);
  out.used.push_back(pickle);
  out.root =
      read_pickle(*zip, prefix, zip->data(*pickle), static_cast<size_t>(pickle->size), std::move(owner), out, globals);
  return out;
}

Value read_pickle(const ZipArchive& zip, const std::string& prefix, const uint8_t* pickle, size_t size,
                  std::shared_ptr<void> owner, TorchFile& out, const std::vector<std::string>& globals) {
  return Unpickler(zip, prefix, std::move(owner), out, globals).run(pickle, size);
}

}  // namespace detail

}  // namespace ember::io
