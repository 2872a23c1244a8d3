// One rank of a small data-parallel job with ZeRO and distributed checkpoints, started by
// ember-run from tests/distributed/failure_test.cpp:
//
//   dcp_worker DIR STEPS [FAULT STEP]     FAULT: kill:<rank>:<point>, stop:<rank>,
//                                                iokill:<rank>:<k> or iocount:<rank>
//
// (the fault only in the first attempt of a job that ember-run restarts)
//
// It resumes from DIR's newest checkpoint that verifies (printing "restored step N: checksum
// ok"), then trains and saves one checkpoint per step up to STEPS (printing "saved step N, model
// <checksum of the parameters>"); at step STEP it injects FAULT
// (a SIGKILL at a point of the save, through EMBER_TEST_KILL_AT, or a SIGSTOP before it; iokill
// SIGKILLs that rank just before its k-th file call from there on, io/fault_injection.h; iocount
// prints "io calls N", the calls that rank's save of that step made). The process group's timeout
// is 3 s. Exit 3 on a distributed error.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "ember/ember.h"
#include "ember/io/checksum.h"
#include "ember/io/fault_injection.h"

using namespace ember;
using namespace ember::distributed;

namespace {
int64_t model_checksum(nn::Module& m) {
  io::detail::Hasher h;
  for (auto& [name, p] : m.named_parameters()) h.update(p.contiguous().data_ptr(), p.nbytes());
  return static_cast<int64_t>(h.digest() >> 1);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  std::string dir = argv[1];
  int steps = std::atoi(argv[2]);
  std::string fault = argc > 4 ? argv[3] : "";
  int fault_step = argc > 4 ? std::atoi(argv[4]) : -1;
  // A restarted job (ember-run --max-restarts) runs without the fault.
  const char* restart = std::getenv("EMBER_RESTART_COUNT");
  if (restart && std::string(restart) != "0") fault_step = -1;
  try {
    InitOptions init;
    init.timeout = Milliseconds(3000);
    init_process_group(init);
    ProcessGroup& pg = default_group();
    manual_seed(1);
    auto model = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
        std::make_shared<nn::Linear>(4, 8), std::make_shared<nn::Linear>(8, 2)});
    auto ddp = std::make_shared<DistributedDataParallel>(model);
    ZeroRedundancyOptimizer zero(model->named_parameters(), [](optim::NamedParameters p) {
      return std::make_unique<optim::Adam>(std::move(p), optim::AdamOptions{.lr = 0.01});
    });
    DistributedCheckpointManager manager(dir, 2);
    int start = 1;
    if (auto e = manager.latest()) {
      CheckpointReader r(e->path);
      io::Value rep = r.replicated();
      io::load_into(*model, rep.at("model"));
      zero.load_state_shards(r);
      bool ok = model_checksum(*model) == rep.at("checksum").as_int();
      std::printf("restored step %lld: checksum %s\n", static_cast<long long>(e->step), ok ? "ok" : "BAD");
      std::fflush(stdout);
      start = static_cast<int>(e->step) + 1;
    }
    for (int step = start; step <= steps; ++step) {
      Generator g(100 * step + pg.rank());
      Tensor x = randn({6, 4}, {}, &g);
      zero.zero_grad();
      (*ddp)(x).pow(2).mean().backward();
      zero.step();
      if (step == fault_step) {
        if (fault.rfind("kill:", 0) == 0) ::setenv("EMBER_TEST_KILL_AT", fault.substr(5).c_str(), 1);
        if (fault == "stop:" + std::to_string(pg.rank())) ::raise(SIGSTOP);
        const std::string me = std::to_string(pg.rank());
        if (fault.rfind("iokill:" + me + ":", 0) == 0)
          io::testing::set_fault_plan({.at = std::atoll(fault.substr(8 + me.size()).c_str()),
                                       .fault = io::testing::Fault::Kill});
        if (fault == "iocount:" + me) io::testing::set_fault_plan({});
      }
      CheckpointState st;
      st.replicated = io::Value::dict({{"model", io::to_value(*model)}, {"checksum", model_checksum(*model)}});
      st.per_rank = io::Value::dict({{"rank", pg.rank()}});
      st.shards = zero.state_shards();
      manager.save(st, step);
      if (step == fault_step && fault == "iocount:" + std::to_string(pg.rank())) {
        std::printf("io calls %lld\n", static_cast<long long>(io::testing::fault_points()));
        io::testing::clear_fault_plan();
      }
      std::printf("saved step %d, model %lld\n", step, static_cast<long long>(model_checksum(*model)));
      std::fflush(stdout);
    }
    destroy_process_group();
  } catch (const DistributedError& e) {
    std::fprintf(stderr, "DistributedError: %s\n", e.what());
    return 3;
  }
  return 0;
}
