#include "ember/io/mapped_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "ember/core/error.h"
#include "ember/io/file_ops.h"

namespace ember::io::detail {

namespace {

// The mappings under a lease, as the signal handler sees them: only atomics, no locks (a
// handler may interrupt a thread that holds one).
enum State : int { kFree, kClaimed, kLive, kCopying, kDetached, kReleasing };
struct Slot {
  std::atomic<int> state{kFree};
  std::atomic<int> fd{-1};
  std::atomic<uint8_t*> data{nullptr};
  std::atomic<size_t> size{0};
};
constexpr int kSlots = 1024;
Slot g_slots[kSlots];

int lease_signal() { return SIGRTMIN + 6; }

// Runs in the signal handler: moves slot `s`'s bytes into anonymous memory at the same address,
// then gives the lease up so that the writer waiting on it may go on.
void detach(Slot& s) {
  int expected = kLive;
  if (!s.state.compare_exchange_strong(expected, kCopying)) return;
  uint8_t* data = s.data.load();
  size_t size = s.size.load();
  void* copy = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (copy != MAP_FAILED) {
    std::memcpy(copy, data, size);
    // NB: one step replaces the file's pages by the copy's at the same address.
    if (::mremap(copy, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, data) == MAP_FAILED) ::munmap(copy, size);
  }
  int fd = s.fd.exchange(-1);
  ::fcntl(fd, F_SETLEASE, F_UNLCK);
  ::close(fd);
  s.state = kDetached;
}

void on_lease_break(int, siginfo_t* info, void*) {
  int saved = errno;
  for (Slot& s : g_slots)
    if (s.state.load() == kLive && s.fd.load() == info->si_fd) detach(s);
  errno = saved;
}

bool install_handler() {
  static bool ok = [] {
    struct sigaction old {};
    if (::sigaction(lease_signal(), nullptr, &old) != 0) return false;
    // NB: never take over a handler someone else installed on that signal.
    if ((old.sa_flags & SA_SIGINFO) ? old.sa_sigaction != nullptr : old.sa_handler != SIG_DFL) return false;
    struct sigaction sa {};
    sa.sa_sigaction = on_lease_break;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return ::sigaction(lease_signal(), &sa, nullptr) == 0;
  }();
  return ok;
}

// A dup of `fd` holding a read lease that signals this process; -1 when none can be taken.
int take_lease(int fd) {
  if (!install_handler()) return -1;
  int lease = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (lease < 0) return -1;
  if (::fcntl(lease, F_SETSIG, lease_signal()) != 0 || ::fcntl(lease, F_SETOWN, ::getpid()) != 0 ||
      ::fcntl(lease, F_SETLEASE, F_RDLCK) != 0) {
    ::close(lease);
    return -1;
  }
  return lease;
}

int claim_slot() {
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (g_slots[i].state.compare_exchange_strong(expected, kClaimed)) return i;
  }
  return -1;
}

}  // namespace

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path, int fd, size_t size, bool populate) {
  if (size == 0) return std::shared_ptr<MappedFile>(new MappedFile(path, nullptr, 0, -1));
  int slot = claim_slot();
  if (slot < 0) return nullptr;
  int lease = take_lease(fd);
  if (lease < 0) {
    g_slots[slot].state = kFree;
    return nullptr;
  }
  // NB: the lease comes first: a writer that opened the file before it would have made it fail,
  // and one that opens it afterwards waits for the handler, so the pages mapped are the file's.
  void* data = fs_map(size, lease);
  if (data != MAP_FAILED && populate) ::madvise(data, size, MADV_WILLNEED);
  // Made writable: an in-place edit of a loaded tensor copies only the page it touches, never
  // the file. (Mapped read-only first: populating a writable private mapping would copy.)
  if (data != MAP_FAILED && ::mprotect(data, size, PROT_READ | PROT_WRITE) != 0) {
    ::munmap(data, size);
    data = MAP_FAILED;
  }
  if (data == MAP_FAILED) {
    int err = errno;
    ::fcntl(lease, F_SETLEASE, F_UNLCK);
    ::close(lease);
    g_slots[slot].state = kFree;
    throw OSError(::ember::detail::str("io: cannot map '", path, "': ", std::strerror(err)), err, path);
  }
  Slot& s = g_slots[slot];
  s.fd = lease;
  s.data = static_cast<uint8_t*>(data);
  s.size = size;
  s.state = kLive;
  return std::shared_ptr<MappedFile>(new MappedFile(path, static_cast<uint8_t*>(data), size, slot));
}

bool MappedFile::detached() const { return slot_ >= 0 && g_slots[slot_].state.load() == kDetached; }

MappedFile::~MappedFile() {
  if (slot_ < 0) return;
  Slot& s = g_slots[slot_];
  // A handler copying right now finishes first.
  for (;;) {
    int state = s.state.load();
    if (state == kCopying) continue;
    if (s.state.compare_exchange_weak(state, kReleasing)) break;
  }
  int fd = s.fd.exchange(-1);
  if (fd >= 0) {
    ::fcntl(fd, F_SETLEASE, F_UNLCK);
    ::close(fd);
  }
  ::munmap(data_, size_);
  s.data = nullptr;
  s.size = 0;
  s.state = kFree;
}

}  // namespace ember::io::detail
