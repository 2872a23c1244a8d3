// ember._C.distributed: stores, process groups, init from the environment, DDP's reducer and the
// launcher. ember.distributed (Python) gives them torch.distributed's names. Every operation that
// may wait on other ranks releases the GIL.
#include "bindings.h"

#include <pybind11/chrono.h>
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "ember/distributed/distributed.h"

namespace ember::python {
namespace {

using namespace distributed;
using Seconds = std::chrono::duration<double>;

Milliseconds to_ms(double seconds) {
  return std::chrono::duration_cast<Milliseconds>(Seconds(seconds));
}

py::bytes store_get(Store& s, const std::string& key) {
  std::string v;
  {
    py::gil_scoped_release nogil;
    v = s.get(key);
  }
  return py::bytes(v);
}

}  // namespace

void bind_distributed(py::module_& m) {
  py::module_ d = m.def_submodule("distributed", "ember.distributed's C++ half");
  // torch.distributed's hierarchy: DistError (a RuntimeError), and under it DistBackendError (a
  // collective's failure) and DistStoreError (a rendezvous or store that timed out).
  // NB: StoreError after DistributedError: the translator registered last is tried first.
  auto dist_error = py::reinterpret_steal<py::object>(
      PyErr_NewException("ember._C.distributed.DistError", PyExc_RuntimeError, nullptr));
  d.attr("DistError") = dist_error;
  py::register_exception<DistributedError>(d, "DistBackendError", dist_error);
  py::register_exception<StoreError>(d, "DistStoreError", dist_error);
  using nogil = py::call_guard<py::gil_scoped_release>;

  py::enum_<ReduceOp>(d, "ReduceOp")
      .value("SUM", ReduceOp::Sum)
      .value("AVG", ReduceOp::Avg)
      .value("PRODUCT", ReduceOp::Product)
      .value("MIN", ReduceOp::Min)
      .value("MAX", ReduceOp::Max);

  py::class_<Work, std::shared_ptr<Work>>(d, "Work", "A started operation: wait() for it.")
      .def("wait", [](Work& w, std::optional<double> timeout) {
        py::gil_scoped_release nogil;
        w.wait(timeout ? std::optional<Milliseconds>(to_ms(*timeout)) : std::nullopt);
        return true;
      }, py::arg("timeout") = py::none(), "Blocks until done (timeout in seconds); raises on failure.")
      .def("is_completed", &Work::is_completed);

  py::class_<Store, std::shared_ptr<Store>>(d, "Store")
      .def("set", [](Store& s, const std::string& k, const py::bytes& v) {
        std::string value = v;
        py::gil_scoped_release nogil;
        s.set(k, value);
      }, py::arg("key"), py::arg("value"))
      .def("get", &store_get, py::arg("key"))
      .def("add", &Store::add, py::arg("key"), py::arg("amount"), nogil())
      .def("check", &Store::check, py::arg("keys"), nogil())
      .def("wait", [](Store& s, const std::vector<std::string>& keys, std::optional<double> timeout) {
        py::gil_scoped_release nogil;
        timeout ? s.wait(keys, to_ms(*timeout)) : s.wait(keys);
      }, py::arg("keys"), py::arg("timeout") = py::none())
      .def_property_readonly("timeout", [](Store& s) { return Seconds(s.timeout()).count(); });
  py::class_<TCPStore, Store, std::shared_ptr<TCPStore>>(d, "TCPStore")
      .def(py::init([](const std::string& host, int port, bool is_master, double timeout) {
        return std::make_shared<TCPStore>(host, port, is_master, to_ms(timeout));
      }), py::arg("host_name"), py::arg("port"), py::arg("is_master") = false,
          py::arg("timeout") = 300.0, nogil())
      .def_property_readonly("port", &TCPStore::port)
      .def_property_readonly("host", &TCPStore::host);
  py::class_<FileStore, Store, std::shared_ptr<FileStore>>(d, "FileStore")
      .def(py::init([](const std::string& dir, double timeout) {
        return std::make_shared<FileStore>(dir, to_ms(timeout));
      }), py::arg("path"), py::arg("timeout") = 300.0);
  py::class_<PrefixStore, Store, std::shared_ptr<PrefixStore>>(d, "PrefixStore")
      .def(py::init<std::string, std::shared_ptr<Store>>(), py::arg("prefix"), py::arg("store"));

  py::class_<ProcessGroup, std::shared_ptr<ProcessGroup>>(d, "ProcessGroup")
      .def("rank", &ProcessGroup::rank)
      .def("size", &ProcessGroup::size)
      .def("backend", &ProcessGroup::backend)
      .def_property_readonly("timeout", [](ProcessGroup& g) { return Seconds(g.timeout()).count(); })
      .def_property_readonly("timeout", [](ProcessGroup& g) { return Seconds(g.timeout()).count(); })
      .def("allreduce", &ProcessGroup::allreduce, py::arg("tensor"), py::arg("op") = ReduceOp::Sum, nogil())
      .def("broadcast", &ProcessGroup::broadcast, py::arg("tensor"), py::arg("src"), nogil())
      .def("allgather", &ProcessGroup::allgather, py::arg("outputs"), py::arg("input"), nogil())
      .def("reduce_scatter", &ProcessGroup::reduce_scatter, py::arg("output"), py::arg("inputs"),
           py::arg("op") = ReduceOp::Sum, nogil())
      .def("barrier", &ProcessGroup::barrier, nogil())
      .def("send", &ProcessGroup::send, py::arg("tensor"), py::arg("dst"), py::arg("tag") = 0, nogil())
      .def("recv", &ProcessGroup::recv, py::arg("tensor"), py::arg("src"), py::arg("tag") = 0, nogil());
  d.def("new_gloo_group", [](std::shared_ptr<Store> store, int rank, int size, double timeout,
                             const std::string& hostname) -> std::shared_ptr<ProcessGroup> {
    ProcessGroupGlooOptions o;
    o.timeout = to_ms(timeout);
    o.hostname = hostname;
    return std::make_shared<ProcessGroupGloo>(std::move(store), rank, size, o);
  }, py::arg("store"), py::arg("rank"), py::arg("size"), py::arg("timeout") = 1800.0,
     py::arg("hostname") = "127.0.0.1", nogil());

  d.def("init_process_group", [](const std::string& backend, const std::string& init_method,
                                 int rank, int world_size, std::optional<double> timeout,
                                 std::optional<double> rendezvous_timeout) {
    InitOptions o;
    o.backend = backend;
    o.init_method = init_method;
    o.rank = rank;
    o.world_size = world_size;
    if (timeout) o.timeout = to_ms(*timeout);
    if (rendezvous_timeout) o.rendezvous_timeout = to_ms(*rendezvous_timeout);
    init_process_group(o);
  }, py::arg("backend") = "gloo", py::arg("init_method") = "env://", py::arg("rank") = -1,
     py::arg("world_size") = -1, py::arg("timeout") = py::none(), py::arg("rendezvous_timeout") = py::none(),
     nogil(), "Timeouts in seconds; None: 1800 for the operations, 300 for the rendezvous (distributed/init.h).");
  d.def("rendezvous", [](Store& store, int rank, int world_size, double timeout) {
    rendezvous(store, rank, world_size, to_ms(timeout));
  }, py::arg("store"), py::arg("rank"), py::arg("world_size"),
     py::arg("timeout") = Seconds(kDefaultRendezvousTimeout).count(), nogil(),
     "Meets the other ranks through store, checking WORLD_SIZE and RANK (distributed/rendezvous.h).");
  d.def("new_group", &new_group, py::arg("backend") = "", nogil());
  d.def("is_initialized", &is_initialized);
  d.def("default_group", &default_group_ptr);
  d.def("destroy_process_group", &destroy_process_group, nogil());
  d.def("get_rank", &get_rank);
  d.def("get_world_size", &get_world_size);
  d.def("broadcast_coalesced", [](std::shared_ptr<ProcessGroup> g, const std::vector<Tensor>& ts, int src) {
    broadcast_coalesced(*g, ts, src);
  }, py::arg("group"), py::arg("tensors"), py::arg("src") = 0, nogil());

  d.def(
      "launch",
      [](int nproc, std::vector<std::string> command, int max_restarts, const std::string& master_addr, int master_port,
         double grace, bool prefix, int nnodes, int node_rank, const std::string& rdzv_endpoint, double join_timeout,
         double node_timeout, const std::string& local_addr) {
        LaunchOptions o;
        o.nproc = nproc;
        o.command = std::move(command);
        o.max_restarts = max_restarts;
        o.master_addr = master_addr;
        o.master_port = master_port;
        o.grace_seconds = grace;
        o.prefix_output = prefix;
        o.nnodes = nnodes;
        o.node_rank = node_rank;
        o.rdzv_endpoint = rdzv_endpoint;
        o.join_timeout_seconds = join_timeout;
        o.node_timeout_seconds = node_timeout;
        o.local_addr = local_addr;
        return launch(o);
      },
      py::arg("nproc"), py::arg("command"), py::arg("max_restarts") = 0, py::arg("master_addr") = "127.0.0.1",
      py::arg("master_port") = 0, py::arg("grace") = 5.0, py::arg("prefix_output") = true, py::arg("nnodes") = 1,
      py::arg("node_rank") = 0, py::arg("rdzv_endpoint") = "", py::arg("join_timeout") = 300.0,
      py::arg("node_timeout") = 30.0, py::arg("local_addr") = "", nogil(),
      "Runs a job's ranks (distributed/launcher.h).");

  py::class_<Reducer, std::shared_ptr<Reducer>>(d, "Reducer",
                                                "DDP's gradient buckets (distributed/reducer.h).")
      .def(py::init([](std::vector<std::pair<std::string, Tensor>> params,
                       std::shared_ptr<ProcessGroup> group, double bucket_cap_mb, bool find_unused) {
        ReducerOptions o;
        o.bucket_cap_bytes = static_cast<int64_t>(bucket_cap_mb * 1024 * 1024);
        o.find_unused_parameters = find_unused;
        return std::make_shared<Reducer>(std::move(params), std::move(group), o);
      }), py::arg("params"), py::arg("group"), py::arg("bucket_cap_mb") = 25.0,
          py::arg("find_unused_parameters") = false)
      .def_property("sync", &Reducer::sync, &Reducer::set_sync)
      .def("bucket_names", &Reducer::bucket_names);
  bind_fsdp(d);

  // Distributed checkpoints (distributed/checkpoint.h), for ember.distributed.checkpoint. The
  // Python trees are converted while the GIL is held; the write, which waits on the other ranks,
  // runs without it (async_save calls it from a thread of its own).
  using ShardArgs = std::vector<std::tuple<std::string, Tensor, std::vector<int64_t>, std::vector<int64_t>>>;
  d.def(
      "save_checkpoint",
      [](std::shared_ptr<ProcessGroup> group, py::handle replicated, py::handle per_rank, const ShardArgs& shards,
         const std::string& dir) {
        EMBER_CHECK_VALUE(group != nullptr, "save_checkpoint: no process group (call init_process_group first)");
        CheckpointState state;
        state.replicated = py_to_value(replicated);
        state.per_rank = py_to_value(per_rank);
        for (const auto& [name, local, global_shape, offsets] : shards)
          state.shards.push_back({name, local, global_shape, offsets});
        py::gil_scoped_release release;
        save_checkpoint(*group, state, dir);
      },
      py::arg("group"), py::arg("replicated"), py::arg("per_rank"), py::arg("shards"), py::arg("dir"),
      "Writes every rank's part into dir and commits it atomically across ranks (distributed/checkpoint.h).");
  py::class_<CheckpointReader>(d, "CheckpointReader",
                               "A committed distributed checkpoint, read by any number of ranks.")
      .def(py::init<std::string>(), py::arg("dir"))
      .def("world_size", &CheckpointReader::world_size)
      .def("replicated", [](const CheckpointReader& r) { return value_to_py(r.replicated()); })
      .def(
          "per_rank",
          [](const CheckpointReader& r, int rank) -> py::object {
            auto v = r.per_rank(rank);
            return v ? value_to_py(*v) : py::none();
          },
          py::arg("rank"))
      .def("shard_names", &CheckpointReader::shard_names)
      .def("has_shard", &CheckpointReader::has_shard, py::arg("name"))
      .def("global_shape", &CheckpointReader::global_shape, py::arg("name"))
      .def("read",
           py::overload_cast<const std::string&, const std::vector<int64_t>&, const std::vector<int64_t>&>(
               &CheckpointReader::read, py::const_),
           py::arg("name"), py::arg("offsets"), py::arg("shape"), nogil())
      .def("read_all", py::overload_cast<const std::string&>(&CheckpointReader::read, py::const_), py::arg("name"),
           nogil())
      .def("verify", &CheckpointReader::verify, nogil());

  // ZeroRedundancyOptimizer over any optimizer class: `make` (Python) builds the local optimizer
  // from this rank's (name, parameter) pairs. Its shards go into ember.distributed.checkpoint.
  py::class_<ZeroRedundancyOptimizer, std::shared_ptr<ZeroRedundancyOptimizer>>(d, "ZeroRedundancyOptimizer")
      .def(py::init([](const optim::NamedParameters& params, py::function make, std::shared_ptr<ProcessGroup> group) {
             // NB: the factory runs inside the constructor, on this thread, with the GIL held.
             auto factory = [make](optim::NamedParameters share) {
               py::list pairs;
               for (auto& [name, t] : share) pairs.append(py::make_tuple(name, t));
               return make(pairs).cast<std::shared_ptr<optim::Optimizer>>();
             };
             return std::make_shared<ZeroRedundancyOptimizer>(params, factory, std::move(group));
           }),
           py::arg("params"), py::arg("make"), py::arg("group") = nullptr)
      .def("step", &ZeroRedundancyOptimizer::step, nogil())
      .def("zero_grad", &ZeroRedundancyOptimizer::zero_grad, py::arg("set_to_none") = true)
      .def("owner", &ZeroRedundancyOptimizer::owner, py::arg("name"))
      .def_property_readonly("local", &ZeroRedundancyOptimizer::local_ptr)
      .def(
          "state_shards",
          [](const ZeroRedundancyOptimizer& z, const std::string& prefix) {
            py::list out;
            for (const Shard& s : z.state_shards(prefix))
              out.append(py::make_tuple(s.name, s.local, s.global_shape, s.offsets));
            return out;
          },
          py::arg("prefix") = "")
      .def("load_state_shards", &ZeroRedundancyOptimizer::load_state_shards, py::arg("reader"), py::arg("prefix") = "");
}

}  // namespace ember::python
