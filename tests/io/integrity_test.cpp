// Every byte of a checkpoint is covered by a checksum: the header (its length, the safetensors
// table, Ember's document, the padding and the checksum itself) by the header's own, the data by
// each tensor's. So a change of any single byte anywhere is refused on load: tested over every
// byte position of a small checkpoint, with several replacement values each. Also the one-byte
// edits issue 26 found loading silently, and the live-mapping failures (SIGBUS, changed values).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ember/core/warning.h"
#include "ember/ember.h"
#include "ember/io/checksum.h"
#include "io/io_test_util.h"
#include "support/expect.h"

namespace ember::io {
namespace {

namespace fs = std::filesystem;
using ember::testing::bitwise_equal;
using ember::testing::expect_error;
using ember::testing::read_file;
using ember::testing::TempDir;
using ember::testing::write_file;
using ::testing::HasSubstr;

// A small training-like state: every node type, several dtypes, attributes, a tie.
Value small_state() {
  Tensor w = arange(6, TensorOptions(kFloat32)).reshape({2, 3}).set_requires_grad();
  w.attributes()["lr_scale"] = 0.5;
  Tensor steps = full({2}, 3, TensorOptions(kInt64));
  Tensor mask = full({4}, 1.0, TensorOptions(kBool));
  Tensor half = arange(3, TensorOptions(kFloat16));
  return Value::dict({{"model", Value::dict({{"fc.weight", Value(w, TensorKind::Parameter)},
                                             {"decoder.weight", Value(w, TensorKind::Parameter)},
                                             {"mask", Value(mask, TensorKind::Buffer)}})},
                      {"optimizer", Value::dict({{"exp_avg", Value(half)}, {"step", Value(steps)},
                                                 {"lr", 0.001}})},
                      {"epoch", 3},
                      {"note", Value::tuple({"best", 0.91, Value()})}});
}

TEST(IntegrityTest, EverySingleByteChangeAnywhereInACheckpointIsRefused) {
  TempDir dir;
  const std::string good = dir.file("good.ember"), bad = dir.file("bad.ember");
  io::save(small_state(), good);
  const std::string bytes = read_file(good);
  ASSERT_GT(bytes.size(), 500u);
  size_t refused = 0, tried = 0;
  for (size_t pos = 0; pos < bytes.size(); ++pos) {
    // A low bit, a high bit, every bit, and a byte that keeps JSON valid where one could.
    for (unsigned char to : {static_cast<unsigned char>(bytes[pos] ^ 0x01), static_cast<unsigned char>(bytes[pos] ^ 0x80),
                             static_cast<unsigned char>(~bytes[pos]), static_cast<unsigned char>(' '),
                             static_cast<unsigned char>('1')}) {
      if (to == static_cast<unsigned char>(bytes[pos])) continue;
      std::string damaged = bytes;
      damaged[pos] = static_cast<char>(to);
      write_file(bad, damaged);
      ++tried;
      try {
        io::load(bad);
        ADD_FAILURE() << "byte " << pos << " changed from " << int(static_cast<unsigned char>(bytes[pos])) << " to "
                      << int(to) << " loaded";
      } catch (const Error&) {
        ++refused;
      }
    }
  }
  EXPECT_EQ(refused, tried);
  std::cout << "integrity: " << bytes.size() << " byte positions, " << tried << " changes, all refused\n";
  EXPECT_TRUE(io::load(good).equals(small_state()));
}

// The edits issue 26 reproduced, each made by hand in the header's text.
std::string edit_once(std::string bytes, const std::string& from, const std::string& to) {
  size_t at = bytes.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(from.size(), to.size());
  return bytes.replace(at, from.size(), to);
}

TEST(IntegrityTest, OneByteEditsOfTheDocumentAreRefusedNamingTheFile) {
  TempDir dir;
  const std::string path = dir.file("ckpt.ember");
  Tensor f64 = arange(4, TensorOptions(kFloat64));
  io::save(Value::dict({{"epoch", 3}, {"lr", 0.001}, {"exp_avg", arange(4, TensorOptions(kFloat32))},
                        {"f64", f64}}),
           path);
  const std::string bytes = read_file(path);
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"\\\"v\\\":3", "\\\"v\\\":7"},                // epoch 3 -> 7
      {"0.001", "0.009"},                            // lr
      {"\"exp_avg\":{\"dtype\":\"F32\"", "\"exp_avg\":{\"dtype\":\"I32\""},  // F32 -> I32
      {"\"f64\":{\"dtype\":\"F64\"", "\"f64\":{\"dtype\":\"I64\""},          // F64 -> I64
      {"exp_avg", "expQavg"},                        // a key renamed
  };
  for (const auto& [from, to] : edits) {
    write_file(path, edit_once(bytes, from, to));
    expect_error<ValueError>([&] { io::load(path); }, {"'" + path + "'", "damaged"});
  }
}

TEST(IntegrityTest, AHeaderThatLostItsChecksumKeyIsRefused) {
  TempDir dir;
  const std::string path = dir.file("ckpt.ember");
  io::save(small_state(), path);
  write_file(path, edit_once(read_file(path), "\"ember.checksum\"", "\"ember.checksuM\""));
  expect_error<ValueError>([&] { io::load(path); }, {"'" + path + "' is damaged: its header has lost its checksum"});
}

TEST(IntegrityTest, FilesOfEarlierWritersWithoutAHeaderChecksumStillLoad) {
  // The golden files of schema versions 1-3 predate the header's checksum (golden_test.cpp reads
  // them all); a plain safetensors file has none either.
  TempDir dir;
  const std::string path = dir.file("plain.safetensors");
  io::save_safetensors(Value::dict({{"w", arange(3, TensorOptions(kFloat32))}}), path);
  EXPECT_TRUE(bitwise_equal(io::load(path).at("w").as_tensor(), arange(3, TensorOptions(kFloat32))));
}

// ---- no live mappings handed out by default (issue 26, item 2)

TEST(LoadOwnsItsMemoryTest, TruncatingOrRewritingTheFileChangesNothingLoaded) {
  TempDir dir;
  const std::string path = dir.file("r.ember"), other = dir.file("other.ember");
  Tensor ones = full({1 << 18}, 1.0, TensorOptions(kFloat32));
  io::save(Value::dict({{"w", ones}}), path);
  io::save(Value::dict({{"w", full({1 << 18}, 2.0, TensorOptions(kFloat32))}}), other);
  Tensor w = io::load(path).at("w").as_tensor();
  Tensor one = io::load_tensor(path, "w");
  // cp other.ember r.ember: the same inode, rewritten in place.
  write_file(path, read_file(other));
  EXPECT_TRUE(bitwise_equal(w, ones));
  EXPECT_TRUE(bitwise_equal(one, ones));
  ASSERT_EQ(::truncate(path.c_str(), 0), 0);
  EXPECT_EQ(w.sum().item<double>(), 1 << 18);  // no SIGBUS
  EXPECT_EQ(one.sum().item<double>(), 1 << 18);
}

TEST(LoadOwnsItsMemoryTest, AMappedLoadSurvivesTheFileBeingTruncatedOrRewritten) {
  TempDir dir;
  const std::string path = dir.file("r.ember");
  Tensor ones = full({1 << 18}, 1.0, TensorOptions(kFloat32));
  for (bool truncate : {true, false}) {
    io::save(Value::dict({{"w", ones}}), path);
    Tensor w = io::load(path, {.mmap = true}).at("w").as_tensor();
    Tensor one = io::load_tensor(path, "w", {.mmap = true});
    if (truncate) {
      ASSERT_EQ(::truncate(path.c_str(), 0), 0);  // waits for the lease to be given up
    } else {
      write_file(path, std::string(fs::file_size(path), '\x7f'));
    }
    EXPECT_TRUE(bitwise_equal(w, ones)) << (truncate ? "truncated" : "rewritten");
    EXPECT_TRUE(bitwise_equal(one, ones));
  }
}

TEST(LoadOwnsItsMemoryTest, TruncatedBeforeATensorIsReadIsAnErrorNotASignal) {
  TempDir dir;
  const std::string path = dir.file("r.ember");
  io::save(Value::dict({{"a", full({1000}, 1.0)}, {"b", full({1000}, 2.0)}}), path);
  File file = File::open(path);
  ASSERT_EQ(::truncate(path.c_str(), 100), 0);
  expect_error<ValueError>([&] { file.tensor("b"); }, {"'" + path + "'", "truncated"});
}

// ---- paths (issue 26, item 6)

TEST(SavePathTest, RefusesATargetThatIsNotARegularFileAndLeavesItAlone) {
  TempDir dir;
  const std::string d = dir.file("d");
  fs::create_directory(d);
  std::ofstream(d + "/inside") << "kept";
  expect_error<OSError>([&] { io::save(Value(1), d, {.durable = false}); },
                        {"io: cannot save to '" + d + "': it is a directory"});
  EXPECT_TRUE(fs::is_directory(d));
  EXPECT_EQ(read_file(d + "/inside"), "kept");
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_error<OSError>([&] { io::save(Value(1), fifo); }, {"it is a FIFO"});
  EXPECT_TRUE(fs::is_fifo(fifo));
  if (fs::exists("/dev/null")) {
    expect_error<OSError>([&] { io::save(Value(1), "/dev/null"); }, {"it is a device"});
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
  }
  EXPECT_TRUE(std::none_of(fs::directory_iterator(dir.path()), fs::directory_iterator(),
                           [](const auto& e) { return e.path().filename().string().find(".tmp.") != std::string::npos; }));
}

TEST(SavePathTest, WritesThroughASymlinkToItsTarget) {
  TempDir dir;
  fs::create_directory(dir.file("store"));
  const std::string target = dir.file("store/model-v2.ember"), link = dir.file("latest.ember");
  io::save(Value(1), target);
  fs::create_symlink("store/model-v2.ember", link);
  io::save(Value(2), link);
  EXPECT_TRUE(fs::is_symlink(link));  // the link stays a link
  EXPECT_TRUE(io::load(target).equals(Value(2)));
  // A dangling link: its target is created.
  fs::create_symlink("store/new.ember", dir.file("next.ember"));
  io::save(Value(3), dir.file("next.ember"));
  EXPECT_TRUE(io::load(dir.file("store/new.ember")).equals(Value(3)));
}

TEST(SavePathTest, RemovesTheTemporariesOfKilledSavesOfTheSameFile) {
  TempDir dir;
  const std::string path = dir.file("model.ember");
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status;
  ::waitpid(child, &status, 0);  // a pid that is gone
  const std::string dead = dir.file(".model.ember.tmp." + std::to_string(child) + ".0");
  const std::string other = dir.file(".other.ember.tmp." + std::to_string(child) + ".0");
  write_file(dead, "partial");
  write_file(other, "partial");
  io::save(Value(1), path);
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(other));  // another file's: its own save cleans it
}

TEST(LoadPathTest, RefusesAnythingButARegularFileBeforeOpeningIt) {
  TempDir dir;
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Opening a FIFO for reading would block until a writer came: refused at once instead.
  expect_error<OSError>([&] { io::load(fifo); }, {"io: cannot load '" + fifo + "': it is a FIFO"});
  expect_error<OSError>([&] { io::load_tensor(fifo, "w"); }, {"it is a FIFO"});
  expect_error<OSError>([&] { io::load(dir.path().string()); }, {"it is a directory"});
  expect_error<FileNotFoundError>([&] { io::load(dir.file("absent")); }, {"io: cannot open '" + dir.file("absent") + "'"});
}

}  // namespace
}  // namespace ember::io
