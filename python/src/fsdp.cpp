// ember._C.distributed.FSDP: distributed/fsdp.h for ember.distributed.fsdp. Python registers the
// units' forward hooks itself (its modules take any arguments) and calls pre_forward and
// post_forward from them; the gathers, reductions and backward hooks are the C++ ones. Every
// call that may wait on other ranks releases the GIL.
#include "ember/distributed/fsdp.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "ember/distributed/fsdp_state.h"

namespace ember::python {
namespace {

using namespace distributed;

py::dict to_dict(const nn::StateDict& state) {
  py::dict out;
  for (const auto& [name, t] : state) out[py::str(name)] = t;
  return out;
}

}  // namespace

void bind_fsdp(py::module_& d) {
  using nogil = py::call_guard<py::gil_scoped_release>;
  py::class_<FSDP, std::shared_ptr<FSDP>>(d, "FSDP", "Fully sharded data parallel state (distributed/fsdp.h).")
      .def(py::init([](std::shared_ptr<nn::Module> module,
                       std::optional<std::function<bool(std::string, int64_t)>> policy, bool reshard_after_forward,
                       std::optional<DType> param_dtype, std::optional<DType> reduce_dtype, bool sync_module_states,
                       bool prefetch, std::shared_ptr<ProcessGroup> group) {
             FSDPOptions o;
             if (policy)
               o.auto_wrap_policy = [fn = *policy](const std::string& name, nn::Module&, int64_t numel) {
                 py::gil_scoped_acquire gil;
                 return fn(name, numel);
               };
             o.reshard_after_forward = reshard_after_forward;
             o.param_dtype = param_dtype;
             o.reduce_dtype = reduce_dtype;
             o.sync_module_states = sync_module_states;
             o.prefetch = prefetch;
             o.install_hooks = false;
             py::gil_scoped_release nogil;
             return std::make_shared<FSDP>(std::move(module), o, std::move(group));
           }),
           py::arg("module"), py::arg("auto_wrap_policy") = py::none(), py::arg("reshard_after_forward") = true,
           py::arg("param_dtype") = py::none(), py::arg("reduce_dtype") = py::none(),
           py::arg("sync_module_states") = true, py::arg("prefetch") = true, py::arg("group") = nullptr)
      .def("num_units", &FSDP::num_units)
      .def("unit_name", [](const FSDP& f, size_t i) { return f.unit(i).name(); })
      .def(
          "params",
          [](const FSDP& f) {
            const int rank = f.group().rank();
            py::list out;
            for (size_t u = 0; u < f.num_units(); ++u)
              for (const ShardedParam& p : f.unit(u).params())
                out.append(py::make_tuple(p.name, u, p.shape, p.numel, p.shard_numel, p.shard, p.start_on(rank),
                                          p.count_on(rank)));
            return out;
          },
          "(name, unit, shape, numel, shard_numel, shard, this rank's start, its count) of every parameter.")
      .def("find_param", &FSDP::find_param, py::arg("name"))
      .def("rank", [](const FSDP& f) { return f.group().rank(); })
      .def("world_size", [](const FSDP& f) { return f.group().size(); })
      .def("pre_forward", &FSDP::pre_forward, py::arg("unit"), nogil())
      .def("post_forward", &FSDP::post_forward, py::arg("unit"), py::arg("outputs"), nogil())
      .def("reshard", &FSDP::reshard, nogil())
      .def_property("sync", &FSDP::sync, &FSDP::set_sync)
      .def("summon_full_params", &FSDP::summon_full_params, nogil())
      .def("end_full_params", &FSDP::end_full_params, py::arg("writeback") = true, nogil())
      .def("clip_grad_norm_", &FSDP::clip_grad_norm_, py::arg("max_norm"), py::arg("norm_type") = 2.0, nogil())
      .def(
          "full_state_dict",
          [](FSDP& f, bool rank0_only) {
            nn::StateDict state;
            {
              py::gil_scoped_release nogil;
              state = fsdp_full_state_dict(f, rank0_only);
            }
            return to_dict(state);
          },
          py::arg("rank0_only") = false)
      .def(
          "load_full_state_dict",
          [](FSDP& f, const py::dict& state, bool strict) {
            nn::StateDict sd;
            for (auto [k, v] : state) sd.insert(py::str(k), v.cast<Tensor>());
            nn::LoadResult r = fsdp_load_full_state_dict(f, sd, strict);
            return py::make_tuple(r.missing_keys, r.unexpected_keys);
          },
          py::arg("state_dict"), py::arg("strict") = true, "(missing_keys, unexpected_keys)");
}

}  // namespace ember::python
