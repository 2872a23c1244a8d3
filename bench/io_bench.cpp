// Checkpoint throughput: saving and loading a ~1 GB state of 50 float32 tensors with io::save /
// io::load, against a plain sequential write(2)/read(2) of the same bytes (what dd does: the
// physical limit), with and without fsync; and how long a training loop is held up per save by
// io::save against io::AsyncSaver (save_async). Prints "name value unit" lines for bench/run.sh.
//   io_bench DIR [TENSORS] [ELEMENTS_PER_TENSOR]
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <ember/ember.h>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Resident memory in bytes: anonymous (heap) and file-backed (mapped pages), from /proc.
long rss_kb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) return std::atol(line.c_str() + std::string(field).size());
  return 0;
}
long peak_rss_kb() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return r.ru_maxrss;
}

void plain_write(const std::vector<ember::Tensor>& tensors, const std::string& path, bool sync) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  for (const ember::Tensor& t : tensors) {
    const char* p = static_cast<const char*>(t.data_ptr());
    size_t n = t.nbytes();
    while (n > 0) {
      ssize_t w = ::write(fd, p, n);
      if (w <= 0) std::abort();
      p += w;
      n -= static_cast<size_t>(w);
    }
  }
  if (sync) ::fsync(fd);
  ::close(fd);
}

void plain_read(const std::string& path, std::vector<char>& buffer) {
  int fd = ::open(path.c_str(), O_RDONLY);
  size_t done = 0;
  while (done < buffer.size()) {
    ssize_t r = ::read(fd, buffer.data() + done, buffer.size() - done);
    if (r <= 0) break;
    done += static_cast<size_t>(r);
  }
  ::close(fd);
}

template <typename F>
double best_of(int runs, F&& f) {
  double best = 1e30;
  for (int i = 0; i < runs; ++i) {
    auto t0 = Clock::now();
    f();
    best = std::min(best, seconds_since(t0));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: io_bench DIR [TENSORS] [ELEMENTS]\n");
    return 2;
  }
  std::filesystem::path dir = argv[1];
  int count = argc > 2 ? std::atoi(argv[2]) : 50;
  int64_t elements = argc > 3 ? std::atoll(argv[3]) : 5'000'000;

  std::vector<ember::Tensor> tensors;
  ember::io::Value state = ember::io::Value::dict();
  for (int i = 0; i < count; ++i) {
    tensors.push_back(ember::randn({elements}));
    state.set("layer" + std::to_string(i) + ".weight", tensors.back());
  }
  double gb = static_cast<double>(count) * static_cast<double>(elements) * 4 / 1e9;
  std::printf("state_size %.3f GB\n", gb);
  std::string ckpt = (dir / "state.ember").string();
  std::string plain = (dir / "state.raw").string();

  // Peak extra memory of one save: the high-water mark before and after (nothing else has
  // allocated yet, so any growth is the save's).
  long peak_before = peak_rss_kb();
  ember::io::save(state, ckpt, {.durable = false});
  long save_extra_kb = peak_rss_kb() - peak_before;

  const int runs = 5;  // disk writeback makes single runs noisy: best of five
  double save_nosync = best_of(runs, [&] { ember::io::save(state, ckpt, {.durable = false}); });
  double write_nosync = best_of(runs, [&] { plain_write(tensors, plain, false); });
  double save_sync = best_of(runs, [&] { ember::io::save(state, ckpt, {.durable = true}); });
  double write_sync = best_of(runs, [&] { plain_write(tensors, plain, true); });
  std::printf("save_nofsync %.3f GB/s\n", gb / save_nosync);
  std::printf("plain_write_nofsync %.3f GB/s\n", gb / write_nosync);
  std::printf("save_fsync %.3f GB/s\n", gb / save_sync);
  std::printf("plain_write_fsync %.3f GB/s\n", gb / write_sync);
  std::printf("save_peak_extra_memory %.2f %%_of_state\n",
              100.0 * static_cast<double>(save_extra_kb) * 1024 / (gb * 1e9));

  // What a save costs a training loop: the time it holds the loop up. io::save (durable) holds it
  // for the whole write; AsyncSaver::save for the copy into its buffers (allocated at the first
  // save, reused after), as long as the previous write ended while training ran. "Training" here
  // is matmuls for twice a synchronous save's time, touching the state in place.
  double sync_blocked = best_of(3, [&] { ember::io::save(state, ckpt, {.durable = true}); });
  ember::Tensor a = ember::randn({256, 256});
  auto train_for = [&](double s) {
    auto t0 = Clock::now();
    for (int step = 0; seconds_since(t0) < s; ++step) {
      ember::NoGradGuard no_grad;
      a = ember::matmul(a, a).tanh();
      tensors[step % count].mul_(1.0);
    }
  };
  std::vector<double> async_blocked;
  {
    ember::io::AsyncSaver saver;
    for (int i = 0; i < 4; ++i) {
      auto t0 = Clock::now();
      saver.save(state, ckpt, {.durable = true});
      async_blocked.push_back(seconds_since(t0));
      train_for(2 * sync_blocked);
    }
    saver.wait();
  }
  std::printf("save_blocked_sync %.4f s\n", sync_blocked);
  std::printf("save_blocked_async_first %.4f s\n", async_blocked[0]);
  std::printf("save_blocked_async %.4f s\n",
              *std::min_element(async_blocked.begin() + 1, async_blocked.end()));

  // Loads run from the page cache (the file was just written), once writeback has settled so that
  // the disk does not compete: open + read (or map) + verify every checksum, the state usable
  // afterwards. The default load reads into memory of its own; mmap borrows the page cache.
  ::sync();
  auto timed_load = [&](bool mmap, long& extra_anon_kb) {
    double t = best_of(runs, [&] {
      ember::io::Value back = ember::io::load(ckpt, {.mmap = mmap});
      if (back.size() != static_cast<size_t>(count)) std::abort();
    });
    long before = rss_kb("RssAnon:");
    ember::io::Value kept = ember::io::load(ckpt, {.mmap = mmap});
    extra_anon_kb = rss_kb("RssAnon:") - before;
    return t;
  };
  // NB: Ember's allocator keeps what earlier loads (and the async saver's buffers) freed, so a
  // read load's tensors may reuse it: its extra memory row can read 0 though it owns a copy.
  long load_anon_kb = 0, mmap_anon_kb = 0;
  double load = timed_load(false, load_anon_kb);
  double load_mmap = timed_load(true, mmap_anon_kb);
  std::vector<char> buffer(static_cast<size_t>(gb * 1e9));
  double read = best_of(runs, [&] { plain_read(plain, buffer); });
  std::printf("load_verify %.3f GB/s\n", gb / load);
  std::printf("load_mmap_verify %.3f GB/s\n", gb / load_mmap);
  std::printf("plain_read %.3f GB/s\n", gb / read);
  std::printf("load_extra_anon_memory %.2f %%_of_state\n",
              100.0 * static_cast<double>(load_anon_kb) * 1024 / (gb * 1e9));
  std::printf("load_mmap_extra_anon_memory %.2f %%_of_state\n",
              100.0 * static_cast<double>(mmap_anon_kb) * 1024 / (gb * 1e9));
  std::filesystem::remove(ckpt);
  std::filesystem::remove(plain);
  return 0;
}
