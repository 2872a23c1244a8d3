#include "ember/distributed/process_group_gloo.h"

#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/address.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>
#include <gloo/types.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "ember/core/error.h"
#include "ember/core/factory.h"
#include "ember/distributed/error.h"
#include "ember/distributed/peers.h"
#include "ember/distributed/reduce_functions.h"
#include "ember/ops/ops.h"

namespace ember::distributed {
namespace {

// Gloo's view of an Ember store.
class GlooStore : public gloo::rendezvous::Store {
 public:
  explicit GlooStore(std::shared_ptr<distributed::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, std::string(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    std::string v = store_->get(key);
    return std::vector<char>(v.begin(), v.end());
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  // NB: connectFullMesh waits for the peers' addresses as long as an operation may (30 minutes by
  // default); the store's timeout (init_process_group's rendezvous one) bounds it instead.
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    store_->wait(keys, std::min(timeout, store_->timeout()));
  }

 private:
  std::shared_ptr<distributed::Store> store_;
};

// How a peer's Gloo errors may print this rank's end of their connection (peers.h): the end of
// the socket, and the address this rank listened on for that peer (Gloo's key "<rank>" holds it:
// one tcp::Address per peer, in rank order).
std::vector<std::vector<std::string>> own_ends(gloo::Context& context, distributed::Store& store) {
  const int rank = context.rank, size = context.size;
  std::vector<std::vector<std::string>> ends(size);
  std::string listened;
  if (size > 1 && store.check({std::to_string(rank)})) listened = store.get(std::to_string(rank));
  const size_t each = size > 1 ? listened.size() / (size - 1) : 0;
  for (int r = 0; r < size; ++r) {
    if (r == rank) continue;
    ends[r].push_back(context.getPair(r)->address().str());
    size_t at = static_cast<size_t>(r < rank ? r : r - 1) * each;
    try {
      if (each > 0) ends[r].push_back(gloo::transport::tcp::Address(std::vector<char>(
          listened.begin() + at, listened.begin() + at + each)).str());
    } catch (const std::exception&) {
      // another layout (another Gloo): the socket's end alone
    }
  }
  return ends;
}

// NB: Gloo writes to its sockets with writev, so a write to a peer that died raises SIGPIPE, whose
// default action ends the process before any error can name the peer (Python ignores SIGPIPE; a
// C++ program does not). The threads that write block it, and the write fails with EPIPE
// instead: Gloo's loop thread (it inherits the mask of the thread that creates the device), the
// group's worker, and a caller's thread while it posts a send or recv (which then takes back a
// SIGPIPE it caused, so none is delivered once the mask is restored).
sigset_t sigpipe_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  return set;
}

class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigset_t set = sigpipe_set();
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~SigpipeBlocked() {
    if (sigismember(&old_, SIGPIPE)) return;
    sigset_t pending, set = sigpipe_set();
    timespec now{0, 0};
    if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE)) sigtimedwait(&set, nullptr, &now);
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

 private:
  sigset_t old_;
};

// Slots of send/recv: a prefix no Gloo collective uses, and the user's tag.
constexpr uint8_t kSendRecvSlotPrefix = 0x20;

// A contiguous tensor holding `t`'s values (t itself when it already is one).
Tensor contiguous_of(const Tensor& t) { return t.is_contiguous() ? t : t.contiguous(); }

// Gloo sizes elements by sizeof(T): an unsigned type of the dtype's width carries any dtype.
struct Bytes16 {
  uint64_t lo, hi;
};
template <typename F>
void with_element(DType dtype, F&& f) {
  switch (itemsize(dtype)) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
    default: return f(Bytes16{});
  }
}

// Gloo's allreduce of the contiguous `buf` in place (for Avg, the sum: the caller divides).
void gloo_allreduce(const std::shared_ptr<gloo::Context>& ctx, const Tensor& buf, ReduceOp op, uint32_t tag) {
  gloo::AllreduceOptions opts(ctx);
  with_element(buf.dtype(), [&](auto e) {
    using E = decltype(e);
    opts.setOutput(static_cast<E*>(buf.data_ptr()), static_cast<size_t>(buf.numel()));
  });
  opts.setReduceFunction(detail::reduce_function(buf.dtype(), op));
  opts.setTag(tag);
  gloo::allreduce(opts);
}

// The slots of reduce_scatter's ring: a prefix of its own and the call's tag (one slot for all its
// steps: a pair delivers them in order, and each step waits for the last).
constexpr uint8_t kReduceScatterSlotPrefix = 0x21;

// Ring reduce-scatter of the contiguous `flat` (n chunks of k elements) in place: in each of n - 1
// steps every rank sends one chunk to the next rank and adds in the one the previous rank sent, so
// that chunk `me` ends reduced over every rank. Each rank sends (n - 1) / n of the data, half of
// what an allreduce moves. For Avg, the sum (the caller divides).
void ring_reduce_scatter(const std::shared_ptr<gloo::Context>& ctx, const Tensor& flat, int64_t k, ReduceOp op,
                         uint32_t tag) {
  const int n = ctx->size, me = ctx->rank;
  const size_t bytes = static_cast<size_t>(k) * itemsize(flat.dtype());
  char* base = static_cast<char*>(flat.data_ptr());
  Tensor scratch = empty({k}, TensorOptions(flat.dtype()));
  const detail::ReduceFunction combine = detail::reduce_function(flat.dtype(), op);
  const gloo::Slot slot = gloo::Slot::build(kReduceScatterSlotPrefix, tag);
  std::unique_ptr<gloo::transport::UnboundBuffer> incoming = ctx->createUnboundBuffer(scratch.data_ptr(), bytes);
  for (int s = 0; s < n - 1; ++s) {
    const int64_t send_chunk = ((me - s - 1) % n + n) % n, recv_chunk = ((me - s - 2) % n + n) % n;
    std::unique_ptr<gloo::transport::UnboundBuffer> outgoing =
        ctx->createUnboundBuffer(base + send_chunk * static_cast<int64_t>(bytes), bytes);
    outgoing->send((me + 1) % n, slot);
    incoming->recv((me - 1 + n) % n, slot);
    incoming->waitRecv();
    outgoing->waitSend();
    char* into = base + recv_chunk * static_cast<int64_t>(bytes);
    combine(into, into, scratch.data_ptr(), static_cast<size_t>(k));
  }
}

// The slots of allgather's ring, as reduce_scatter's.
constexpr uint8_t kAllgatherSlotPrefix = 0x22;

// Ring allgather into `parts` (one contiguous tensor per rank, this rank's filled): in each of
// n - 1 steps every rank passes the part it got last (its own first) to the next rank and receives
// the previous rank's into its place, with no staging copy.
void ring_allgather(const std::shared_ptr<gloo::Context>& ctx, const std::vector<Tensor>& parts, uint32_t tag) {
  const int n = ctx->size, me = ctx->rank;
  const size_t bytes = parts[static_cast<size_t>(me)].nbytes();
  const gloo::Slot slot = gloo::Slot::build(kAllgatherSlotPrefix, tag);
  for (int s = 0; s < n - 1; ++s) {
    const Tensor& send = parts[static_cast<size_t>(((me - s) % n + n) % n)];
    const Tensor& recv = parts[static_cast<size_t>(((me - s - 1) % n + n) % n)];
    std::unique_ptr<gloo::transport::UnboundBuffer> outgoing = ctx->createUnboundBuffer(send.data_ptr(), bytes);
    std::unique_ptr<gloo::transport::UnboundBuffer> incoming = ctx->createUnboundBuffer(recv.data_ptr(), bytes);
    outgoing->send((me + 1) % n, slot);
    incoming->recv((me - 1 + n) % n, slot);
    incoming->waitRecv();
    outgoing->waitSend();
  }
}

// A send or recv: posted at once, waited on by wait().
class PointToPointWork : public Work {
 public:
  PointToPointWork(std::unique_ptr<gloo::transport::UnboundBuffer> buffer, bool sending, Tensor staged,
                   Tensor target, std::string what, Milliseconds timeout,
                   std::shared_ptr<const detail::Peers> peers)
      : buffer_(std::move(buffer)), sending_(sending), staged_(std::move(staged)),
        target_(std::move(target)), what_(std::move(what)), timeout_(timeout), peers_(std::move(peers)) {}
  ~PointToPointWork() override {
    // NB: the buffer must not be destroyed while the transport may still touch it.
    if (!done_) {
      try {
        sending_ ? buffer_->abortWaitSend() : buffer_->abortWaitRecv();
      } catch (...) {
      }
    }
  }
  void wait(std::optional<Milliseconds> timeout) override {
    if (done_) return;
    try {
      bool ok = sending_ ? buffer_->waitSend(timeout.value_or(timeout_))
                         : buffer_->waitRecv(timeout.value_or(timeout_));
      if (!ok) throw DistributedError(what_ + ": aborted");
    } catch (const gloo::Exception& e) {
      throw DistributedError(peers_->explain(what_, e.what()));
    }
    done_ = true;
    if (!sending_ && !staged_.is_same(target_)) target_.copy_(staged_);
  }
  bool is_completed() override { return done_; }

 private:
  std::unique_ptr<gloo::transport::UnboundBuffer> buffer_;
  bool sending_;
  Tensor staged_;  // the contiguous bytes the transport reads or writes
  Tensor target_;  // the user's tensor (a recv copies into it when it is not `staged_`)
  std::string what_;
  Milliseconds timeout_;
  std::shared_ptr<const detail::Peers> peers_;
  bool done_ = false;
};

}  // namespace

struct ProcessGroupGloo::Impl {
  std::shared_ptr<gloo::rendezvous::Context> context;
  std::shared_ptr<const detail::Peers> peers;  // who is who, to name the peer an error is about
  std::thread worker;
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  bool stopping = false;
  std::string broken;  // the first failure; every later operation fails with it (worker only)
  uint32_t next_tag = 0;  // worker only

  void run() {
    sigset_t set = sigpipe_set();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);  // for good: this thread writes to Gloo's sockets
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [&] { return stopping || !queue.empty(); });
        if (queue.empty()) return;
        task = std::move(queue.front());
        queue.pop_front();
      }
      task();
    }
  }
};

ProcessGroupGloo::ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size,
                                   ProcessGroupGlooOptions options)
    : ProcessGroup(rank, size, options.timeout), impl_(std::make_unique<Impl>()) {
  EMBER_CHECK_VALUE(store != nullptr, "ProcessGroupGloo: the store is null");
  SigpipeBlocked sigpipe_blocked;  // while Gloo's loop thread is created (it keeps this mask)
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = options.hostname;
    std::shared_ptr<gloo::transport::Device> device = gloo::transport::tcp::CreateDevice(attr);
    impl_->context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    impl_->context->setTimeout(options.timeout);
    auto gloo_store = std::make_shared<GlooStore>(store);
#if EMBER_GLOO_SHARED_STORE
    impl_->context->connectFullMesh(gloo_store, device);
#else
    impl_->context->connectFullMesh(*gloo_store, device);
#endif
    impl_->peers = detail::Peers::exchange(*store, rank, size, own_ends(*impl_->context, *store));
  } catch (const gloo::Exception& e) {
    throw DistributedError(::ember::detail::str("ProcessGroupGloo: rank ", rank, " of ", size,
                                                " could not connect to its peers: ", e.what()));
  } catch (const StoreError& e) {
    throw StoreError(::ember::detail::str("ProcessGroupGloo: rank ", rank, " of ", size, " did not get every "
                                          "peer's address (is every rank running?): ", e.what()));
  }
  impl_->worker = std::thread([impl = impl_.get()] { impl->run(); });
}

ProcessGroupGloo::~ProcessGroupGloo() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->cv.notify_all();
  impl_->worker.join();
}

WorkPtr ProcessGroupGloo::enqueue(const char* what, std::function<void(uint32_t)> body) {
  auto work = std::make_shared<FutureWork>(what, timeout(), [peers = impl_->peers] {
    return peers->suspects("", /*timed_out=*/true);
  });
  std::string name = what;
  Impl* impl = impl_.get();
  auto task = [impl, work, name, body = std::move(body)] {
    if (!impl->broken.empty()) {
      work->complete(std::make_exception_ptr(DistributedError(
          name + ": the process group is unusable after an earlier failure: " + impl->broken)));
      return;
    }
    try {
      body(impl->next_tag++);
      work->complete();
    } catch (const gloo::Exception& e) {
      impl->broken = impl->peers->explain(name, e.what());
      work->complete(std::make_exception_ptr(DistributedError(impl->broken)));
    } catch (...) {
      work->complete(std::current_exception());
    }
  };
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->queue.push_back(std::move(task));
  }
  impl_->cv.notify_one();
  return work;
}

WorkPtr ProcessGroupGloo::allreduce(const Tensor& tensor, ReduceOp op) {
  check_tensor("allreduce", tensor);
  check_reduce_op("allreduce", op, tensor.dtype());
  if (tensor.numel() == 0) return std::make_shared<CompletedWork>();
  Tensor buf = contiguous_of(tensor);
  int n = size();
  auto ctx = impl_->context;
  return enqueue("allreduce", [=](uint32_t tag) {
    if (n > 1) gloo_allreduce(ctx, buf, op, tag);
    if (op == ReduceOp::Avg) detail::divide_by(buf.data_ptr(), buf.dtype(), buf.numel(), n);
    if (!buf.is_same(tensor)) tensor.copy_(buf);
  });
}

WorkPtr ProcessGroupGloo::broadcast(const Tensor& tensor, int src) {
  check_tensor("broadcast", tensor);
  check_rank("broadcast", "src", src);
  if (tensor.numel() == 0 || size() == 1) return std::make_shared<CompletedWork>();
  Tensor buf = contiguous_of(tensor);
  auto ctx = impl_->context;
  return enqueue("broadcast", [=](uint32_t tag) {
    gloo::BroadcastOptions opts(ctx);
    with_element(buf.dtype(), [&](auto e) {
      using E = decltype(e);
      opts.setOutput(static_cast<E*>(buf.data_ptr()), static_cast<size_t>(buf.numel()));
    });
    opts.setRoot(src);
    opts.setTag(tag);
    gloo::broadcast(opts);
    if (!buf.is_same(tensor)) tensor.copy_(buf);
  });
}

WorkPtr ProcessGroupGloo::allgather(const std::vector<Tensor>& outputs, const Tensor& input) {
  check_tensor("allgather", input);
  check_list("allgather", "outputs", outputs, input);
  if (input.numel() == 0) return std::make_shared<CompletedWork>();
  const int n = size(), me = rank();
  // Each part is received straight into its output (a contiguous stand-in for one that is not).
  // This rank's own part goes there now: a snapshot, as the caller may change input meanwhile.
  std::vector<Tensor> parts;
  for (const Tensor& out : outputs) parts.push_back(out.is_contiguous() ? out : empty_like(out).contiguous());
  parts[me].copy_(input);
  auto ctx = impl_->context;
  return enqueue("allgather", [=](uint32_t tag) {
    if (n > 1) ring_allgather(ctx, parts, tag);
    for (int r = 0; r < n; ++r)
      if (!parts[r].is_same(outputs[r])) outputs[r].copy_(parts[r]);
  });
}

WorkPtr ProcessGroupGloo::reduce_scatter(const Tensor& output, const std::vector<Tensor>& inputs,
                                         ReduceOp op) {
  check_tensor("reduce_scatter", output);
  check_list("reduce_scatter", "inputs", inputs, output);
  check_reduce_op("reduce_scatter", op, output.dtype());
  if (output.numel() == 0) return std::make_shared<CompletedWork>();
  // The inputs side by side, reduced around the ring; this rank keeps its chunk.
  std::vector<Tensor> flat_inputs;
  for (const Tensor& t : inputs) flat_inputs.push_back(t.reshape({t.numel()}));
  Tensor flat = cat(flat_inputs, 0);
  int n = size(), me = rank();
  auto ctx = impl_->context;
  return enqueue("reduce_scatter", [=](uint32_t tag) {
    int64_t k = output.numel();
    if (n > 1) ring_reduce_scatter(ctx, flat, k, op, tag);
    Tensor mine = flat.slice(0, me * k, (me + 1) * k);
    if (op == ReduceOp::Avg) {
      mine = mine.contiguous();
      detail::divide_by(mine.data_ptr(), mine.dtype(), k, n);
    }
    output.copy_(mine.view(output.sizes()));
  });
}

WorkPtr ProcessGroupGloo::barrier() {
  if (size() == 1) return std::make_shared<CompletedWork>();
  auto ctx = impl_->context;
  return enqueue("barrier", [=](uint32_t tag) {
    gloo::BarrierOptions opts(ctx);
    opts.setTag(tag);
    gloo::barrier(opts);
  });
}

WorkPtr ProcessGroupGloo::send(const Tensor& tensor, int dst, int tag) {
  check_tensor("send", tensor);
  check_rank("send", "dst", dst);
  EMBER_CHECK_VALUE(dst != rank(), "send: dst is this rank (", dst, "); a rank cannot send to itself");
  EMBER_CHECK_VALUE(tag >= 0, "send: tag must be non-negative, got ", tag);
  if (tensor.numel() == 0) return std::make_shared<CompletedWork>();
  Tensor staged = tensor.contiguous().clone();  // the caller may change tensor before wait()
  SigpipeBlocked sigpipe_blocked;
  try {
    auto buf = impl_->context->createUnboundBuffer(staged.data_ptr(), staged.nbytes());
    buf->send(dst, gloo::Slot::build(kSendRecvSlotPrefix, static_cast<uint32_t>(tag)));
    return std::make_shared<PointToPointWork>(std::move(buf), true, staged, tensor,
                                              ::ember::detail::str("send to rank ", dst), timeout(), impl_->peers);
  } catch (const gloo::Exception& e) {
    throw DistributedError(impl_->peers->explain(::ember::detail::str("send to rank ", dst), e.what()));
  }
}

WorkPtr ProcessGroupGloo::recv(const Tensor& tensor, int src, int tag) {
  check_tensor("recv", tensor);
  check_rank("recv", "src", src);
  EMBER_CHECK_VALUE(src != rank(), "recv: src is this rank (", src, "); a rank cannot receive from itself");
  EMBER_CHECK_VALUE(tag >= 0, "recv: tag must be non-negative, got ", tag);
  if (tensor.numel() == 0) return std::make_shared<CompletedWork>();
  Tensor staged = contiguous_of(tensor);
  SigpipeBlocked sigpipe_blocked;
  try {
    auto buf = impl_->context->createUnboundBuffer(staged.data_ptr(), staged.nbytes());
    buf->recv(src, gloo::Slot::build(kSendRecvSlotPrefix, static_cast<uint32_t>(tag)));
    return std::make_shared<PointToPointWork>(std::move(buf), false, staged, tensor,
                                              ::ember::detail::str("recv from rank ", src), timeout(), impl_->peers);
  } catch (const gloo::Exception& e) {
    throw DistributedError(impl_->peers->explain(::ember::detail::str("recv from rank ", src), e.what()));
  }
}

}  // namespace ember::distributed
