// The loader never trusts the file (FORMAT.md §4): every case of the committed corpus
// tests/fixtures/io/malformed/ (written by make_malformed.py, listed in its EXPECTED.tsv) is
// refused with the expected exception type and a message naming the file and the reason, both
// from disk (io::load) and from memory (io::File::from_bytes). Under `make test-asan` the same
// cases also prove there is no out-of-bounds read and no undefined behaviour on the way.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "ember/ember.h"
#include "io/io_test_util.h"

namespace ember::io {
namespace {

using ember::testing::read_file;
using ember::testing::TempDir;
using ember::testing::write_file;
using ::testing::HasSubstr;

// tests/fixtures is found through the same definition as tests/support/fixture.cpp; the tests
// CMakeLists gives it to every test executable.
const std::filesystem::path kCorpusDir = std::filesystem::path(EMBER_FIXTURES_DIR) / "io" / "malformed";

struct Case {
  std::string file;
  std::string type;       // "ValueError", "NotImplementedError", ...; "-" for a file that loads
  std::string substring;  // what the message must say
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.file; }

std::vector<Case> read_cases() {
  std::vector<Case> cases;
  std::ifstream in(kCorpusDir / "EXPECTED.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t a = line.find('\t'), b = line.find('\t', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;  // CorpusIsListed reports it
    cases.push_back({line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1)});
  }
  return cases;
}

bool has_type(const Error& e, const std::string& type) {
  if (type == "ValueError") return dynamic_cast<const ValueError*>(&e) != nullptr;
  if (type == "NotImplementedError") return dynamic_cast<const NotImplementedError*>(&e) != nullptr;
  if (type == "KeyError") return dynamic_cast<const KeyError*>(&e) != nullptr;
  if (type == "TypeError") return dynamic_cast<const TypeError*>(&e) != nullptr;
  if (type == "IndexError") return dynamic_cast<const IndexError*>(&e) != nullptr;
  return type == "Error";
}

// Runs `load` (which must throw) and checks the exception's type and that its message holds
// `name` and `reason`.
template <typename F>
void expect_refused(F&& load, const std::string& type, const std::string& name, const std::string& reason) {
  try {
    Value v = load();
    ADD_FAILURE() << name << " loaded, expected " << type << " \"" << reason << "\"; got " << v.str();
  } catch (const Error& e) {
    EXPECT_TRUE(has_type(e, type)) << name << ": expected a " << type << ", got " << typeid(e).name()
                                   << ": " << e.what();
    EXPECT_THAT(e.what(), HasSubstr(reason));
    EXPECT_THAT(e.what(), HasSubstr("'" + name + "'")) << "the message must name the file";
  } catch (const std::exception& e) {
    ADD_FAILURE() << name << ": a non-Ember exception escaped the loader: " << typeid(e).name() << ": "
                  << e.what();
  }
}

class MalformedFileTest : public ::testing::TestWithParam<Case> {};

TEST_P(MalformedFileTest, IsRefusedNamingTheFileAndTheReason) {
  const Case& c = GetParam();
  std::string path = (kCorpusDir / c.file).string();
  ASSERT_TRUE(std::filesystem::is_regular_file(path)) << path;
  std::string bytes = read_file(path);
  std::string memory_name = "memory:" + c.file;
  auto from_memory = [&] { return File::from_bytes(bytes.data(), bytes.size(), memory_name).root(); };

  if (c.type == "-") {
    // A control: it loads, from disk and from memory alike, and every checksum in it holds.
    Value v = load(path);
    EXPECT_TRUE(v.equals(from_memory())) << v.str();
    File file = File::open(path);
    for (const TensorInfo& info : file.tensors()) EXPECT_TRUE(file.verify(info.key)) << info.key;
    return;
  }
  expect_refused([&] { return load(path); }, c.type, path, c.substring);
  expect_refused(from_memory, c.type, memory_name, c.substring);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.file;  // "doc_bad_json.ember" -> "doc_bad_json_ember"
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Malformed, MalformedFileTest, ::testing::ValuesIn(read_cases()), case_name);

TEST(MalformedTest, CorpusIsListedAndCoversBothLayers) {
  std::vector<Case> cases = read_cases();
  ASSERT_GE(cases.size(), 50u) << "EXPECTED.tsv missing or unreadable in " << kCorpusDir;
  std::set<std::string> listed;
  int controls = 0;
  for (const Case& c : cases) {
    listed.insert(c.file);
    controls += c.type == "-";
  }
  EXPECT_GE(controls, 2);
  for (const auto& entry : std::filesystem::directory_iterator(kCorpusDir)) {
    std::string name = entry.path().filename().string();
    if (name != "EXPECTED.tsv") EXPECT_TRUE(listed.count(name)) << name << " has no expectation";
  }
}

// A safetensors container: the length, the header padded with spaces to 8 bytes, the data.
std::string container(std::string header, const std::string& data = "") {
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// A million nested arrays (too large to commit, so built here): a recursive parser would overflow
// the stack, ASan's larger frames first. The header's own JSON and Ember's document are both
// refused at a fixed depth, before anything is built.
TEST(MalformedTest, MillionDeepHeaderIsRefusedWithoutOverflowingTheStack) {
  TempDir dir;
  std::string path = dir.file("deep.safetensors");
  write_file(path, container(nested(1'000'000)));
  expect_refused([&] { return load(path); }, "ValueError", path,
                 "header is nested deeper than a safetensors header can be");
}

TEST(MalformedTest, MillionDeepValueTreeIsRefusedWithoutOverflowingTheStack) {
  TempDir dir;
  std::string path = dir.file("deep.ember");
  // The document is a JSON string inside the header; brackets need no escaping, quotes do.
  std::string document = R"({\"schema\":\"ember.checkpoint\",\"version\":1,\"tensors\":{},\"root\":)" +
                         nested(1'000'000) + "}";
  write_file(path, container(R"({"__metadata__":{"format":"ember","ember":")" + document + "\"}}"));
  expect_refused([&] { return load(path); }, "ValueError", path, "nested deeper than 200 levels");
  // The same, every level a list node: {"t":"list","v":[ ... ]}.
  std::string tree;
  for (int i = 0; i < 200'000; ++i) tree += R"({\"t\":\"list\",\"v\":[)";
  tree += R"({\"t\":\"none\"})";
  for (int i = 0; i < 200'000; ++i) tree += "]}";
  document = R"({\"schema\":\"ember.checkpoint\",\"version\":1,\"tensors\":{},\"root\":)" + tree + "}";
  std::string bytes = container(R"({"__metadata__":{"format":"ember","ember":")" + document + "\"}}");
  expect_refused([&] { return File::from_bytes(bytes.data(), bytes.size(), "deep-nodes").root(); },
                 "ValueError", "deep-nodes", "nested deeper than 200 levels");
}

// The corpus's deepest tree that still parses (250 list levels) stops at the limit; the limit
// itself loads (a tree Ember wrote can always be read back).
TEST(MalformedTest, TreeAtTheDepthLimitLoads) {
  TempDir dir;
  Value v = 1;
  for (int i = 0; i < 200; ++i) v = Value::list({v});
  save(v, dir.file("limit.ember"));
  EXPECT_TRUE(load(dir.file("limit.ember")).equals(v));
}

// Every strict prefix of a valid checkpoint is refused with a clean error (a truncated
// download or a crash mid-copy), never a crash or a read past the end.
TEST(MalformedTest, EveryTruncationOfAValidFileIsRefused) {
  TempDir dir;
  std::string path = dir.file("full.ember");
  Tensor w = arange(6, kFloat32).reshape({2, 3});
  save(Value::dict({{"w", w}, {"i", arange(3, kInt64)}, {"note", Value::tuple({"x", 1.5})}}), path);
  std::string bytes = read_file(path);
  ASSERT_NO_THROW(File::from_bytes(bytes.data(), bytes.size()).root());
  for (size_t n = 0; n < bytes.size(); ++n) {
    try {
      File::from_bytes(bytes.data(), n, "cut").root();
      ADD_FAILURE() << "a prefix of " << n << " of " << bytes.size() << " bytes loaded";
    } catch (const ValueError& e) {
      ASSERT_THAT(e.what(), HasSubstr("'cut'")) << n;
    }
  }
}

// Flipping any single byte of a valid checkpoint never crashes the loader: the result is either a
// clean ember::Error or (a flip in the JSON that keeps it meaningful, e.g. a digit of the epoch) a
// value; a flip in the data is always caught by the checksum.
TEST(MalformedTest, EverySingleByteFlipIsHandled) {
  TempDir dir;
  std::string path = dir.file("flip.ember");
  save(Value::dict({{"w", arange(4, kFloat64)}, {"epoch", 3}}), path);
  std::string bytes = read_file(path);
  uint64_t header_len = 0;
  std::memcpy(&header_len, bytes.data(), 8);
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned char mask : {0x01, 0x80}) {
      std::string copy = bytes;
      copy[i] = static_cast<char>(copy[i] ^ mask);
      try {
        File::from_bytes(copy.data(), copy.size(), "flip").root();
        EXPECT_LT(i, 8 + header_len) << "a flipped data byte " << i << " passed the checksum";
      } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr("'flip'")) << i;
      }
    }
  }
}

}  // namespace
}  // namespace ember::io
