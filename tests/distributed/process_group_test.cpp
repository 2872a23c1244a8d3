// Every collective of the Gloo group, for every dtype, at world sizes 1, 2 and 4, on odd sizes,
// zero elements and non-contiguous tensors, checked exactly against values computed here.
#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "dist_test_util.h"
#include "ember/core/factory.h"
#include "ember/distributed/error.h"
#include "ember/distributed/tcp_store.h"
#include "ember/ops/ops.h"
#include "support/expect.h"

namespace ember {
namespace {

using distributed::ProcessGroup;
using distributed::ReduceOp;
using testing::run_ranks;

const std::vector<DType> kAllDTypes = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt32,
                                       kInt16,   kInt8,    kUInt8,   kBool,     kComplex64, kComplex128};
const std::vector<int64_t> kSizes = {0, 1, 7, 1031};

// Rank r's value at i: small integers, exact in every dtype (bool: a pattern of 0s and 1s).
double value(int r, int64_t i, DType dtype) {
  if (dtype == kBool) return (r + i) % 3 == 0;
  if (dtype == kUInt8) return (r * 5 + i * 3) % 7;
  return (r * 5 + i * 3) % 7 - 3;
}

Tensor rank_tensor(int r, int64_t n, DType dtype, int64_t offset = 0) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = value(r, i + offset, dtype);
  return tensor<double>(v, {n}, TensorOptions(kFloat64)).to(dtype);
}

// The values as float64 (complex: the real parts, which carry the pattern; imaginary are 0).
std::vector<double> values_of(const Tensor& t) {
  Tensor x = t.is_complex() ? view_as_real(t.contiguous()).select(-1, 0) : t;
  return x.to(kFloat64).contiguous().to_vector<double>();
}

double combine(ReduceOp op, DType dtype, double a, double b) {
  if (dtype == kBool) return (op == ReduceOp::Min || op == ReduceOp::Product) ? (a && b) : (a || b);
  switch (op) {
    case ReduceOp::Product: return a * b;
    case ReduceOp::Min: return std::min(a, b);
    case ReduceOp::Max: return std::max(a, b);
    default: return a + b;
  }
}

std::vector<ReduceOp> ops_for(DType dtype) {
  std::vector<ReduceOp> ops = {ReduceOp::Sum, ReduceOp::Product};
  if (!is_complex(dtype)) ops.insert(ops.end(), {ReduceOp::Min, ReduceOp::Max});
  if (is_floating(dtype) || is_complex(dtype)) ops.push_back(ReduceOp::Avg);
  return ops;
}

// The expected result of reducing every rank's values at i.
double reduced(ReduceOp op, DType dtype, int world, int64_t i) {
  double acc = value(0, i, dtype);
  for (int r = 1; r < world; ++r) acc = combine(op, dtype, acc, value(r, i, dtype));
  if (op == ReduceOp::Avg) {
    // The sum is exact; the quotient is rounded once to the dtype (a world of 3 does not divide).
    const DType real = dtype == kComplex64 ? kFloat32 : dtype == kComplex128 ? kFloat64 : dtype;
    acc = tensor<double>({acc / world}, {1}, TensorOptions(kFloat64)).to(real).to(kFloat64).to_vector<double>()[0];
  }
  if (dtype == kUInt8 || dtype == kInt8 || dtype == kInt16) {
    // NB: products of small ints wrap like C++ does: compare modulo the width.
    int64_t bits = dtype == kInt16 ? 16 : 8, m = int64_t(1) << bits, x = ((int64_t(acc) % m) + m) % m;
    acc = double(dtype == kUInt8 ? x : (x >= m / 2 ? x - m : x));
  }
  return acc;
}

class ProcessGroupTest : public ::testing::TestWithParam<int> {};

TEST_P(ProcessGroupTest, AllreduceEveryDTypeAndOpIsExact) {
  int world = GetParam();
  run_ranks(world, [&](ProcessGroup& pg) {
    for (DType dtype : kAllDTypes)
      for (ReduceOp op : ops_for(dtype))
        for (int64_t n : kSizes) {
          Tensor t = rank_tensor(pg.rank(), n, dtype);
          pg.allreduce(t, op)->wait();
          std::vector<double> got = values_of(t), want(n);
          for (int64_t i = 0; i < n; ++i) want[i] = reduced(op, dtype, world, i);
          ASSERT_EQ(got, want) << dtype << " " << distributed::reduce_op_name(op) << " n=" << n;
        }
  });
}

TEST_P(ProcessGroupTest, AllreduceWritesBackIntoANonContiguousTensor) {
  int world = GetParam();
  run_ranks(world, [&](ProcessGroup& pg) {
    Tensor base = rank_tensor(pg.rank(), 6 * 5, kFloat32).view({6, 5});
    Tensor t = base.transpose(0, 1);  // [5, 6], strided
    ASSERT_FALSE(t.is_contiguous());
    pg.allreduce(t, ReduceOp::Sum)->wait();
    std::vector<double> got = values_of(base);
    for (int64_t i = 0; i < 30; ++i) ASSERT_EQ(got[i], reduced(ReduceOp::Sum, kFloat32, world, i));
  });
}

TEST_P(ProcessGroupTest, BroadcastEveryDTypeFromEveryRoot) {
  int world = GetParam();
  run_ranks(world, [&](ProcessGroup& pg) {
    for (DType dtype : kAllDTypes)
      for (int src = 0; src < world; ++src)
        for (int64_t n : kSizes) {
          Tensor t = rank_tensor(pg.rank(), n, dtype);
          pg.broadcast(t, src)->wait();
          ASSERT_EQ(values_of(t), values_of(rank_tensor(src, n, dtype))) << dtype << " src=" << src;
        }
    Tensor strided = rank_tensor(pg.rank(), 12, kInt64).view({3, 4}).transpose(0, 1);
    pg.broadcast(strided, world - 1)->wait();
    ASSERT_EQ(values_of(strided.contiguous()),
              values_of(rank_tensor(world - 1, 12, kInt64).view({3, 4}).transpose(0, 1).contiguous()));
  });
}

TEST_P(ProcessGroupTest, AllgatherEveryDType) {
  int world = GetParam();
  run_ranks(world, [&](ProcessGroup& pg) {
    for (DType dtype : kAllDTypes)
      for (int64_t n : kSizes) {
        std::vector<Tensor> out;
        for (int r = 0; r < world; ++r) out.push_back(zeros({n}, TensorOptions(dtype)));
        pg.allgather(out, rank_tensor(pg.rank(), n, dtype))->wait();
        for (int r = 0; r < world; ++r)
          ASSERT_EQ(values_of(out[r]), values_of(rank_tensor(r, n, dtype))) << dtype << " r=" << r;
      }
  });
}

TEST_P(ProcessGroupTest, ReduceScatterEveryDTypeAndOp) {
  int world = GetParam();
  run_ranks(world, [&](ProcessGroup& pg) {
    for (DType dtype : kAllDTypes)
      for (ReduceOp op : ops_for(dtype))
        for (int64_t n : kSizes) {
          // inputs[j] holds the values at offsets j*n ... (j+1)*n - 1 of this rank's pattern.
          std::vector<Tensor> inputs;
          for (int j = 0; j < world; ++j) inputs.push_back(rank_tensor(pg.rank(), n, dtype, j * n));
          Tensor out = zeros({n}, TensorOptions(dtype));
          pg.reduce_scatter(out, inputs, op)->wait();
          std::vector<double> want(n);
          for (int64_t i = 0; i < n; ++i) want[i] = reduced(op, dtype, world, pg.rank() * n + i);
          ASSERT_EQ(values_of(out), want) << dtype << " " << distributed::reduce_op_name(op);
        }
  });
}

TEST_P(ProcessGroupTest, BarrierAndSendRecvInARing) {
  int world = GetParam();
  run_ranks(world, [&](ProcessGroup& pg) {
    pg.barrier()->wait();
    if (world == 1) return;
    int next = (pg.rank() + 1) % world, prev = (pg.rank() + world - 1) % world;
    for (DType dtype : kAllDTypes)
      for (int64_t n : kSizes) {
        // Everyone sends before receiving: send must not wait behind this rank's own recv.
        auto sent = pg.send(rank_tensor(pg.rank(), n, dtype), next, 3);
        Tensor got = zeros({n}, TensorOptions(dtype));
        pg.recv(got, prev, 3)->wait();
        sent->wait();
        ASSERT_EQ(values_of(got), values_of(rank_tensor(prev, n, dtype))) << dtype;
      }
    // Into a strided tensor.
    auto sent = pg.send(rank_tensor(pg.rank(), 6, kFloat64), next, 4);
    Tensor base = zeros({3, 2}, TensorOptions(kFloat64));
    pg.recv(base.transpose(0, 1), prev, 4)->wait();
    sent->wait();
    ASSERT_EQ(values_of(base.transpose(0, 1).contiguous()), values_of(rank_tensor(prev, 6, kFloat64)));
  });
}

TEST_P(ProcessGroupTest, AsyncOperationsCompleteInOrder) {
  int world = GetParam();
  run_ranks(world, [&](ProcessGroup& pg) {
    std::vector<Tensor> ts;
    std::vector<distributed::WorkPtr> works;
    for (int k = 0; k < 20; ++k) {
      ts.push_back(full({257}, k + pg.rank(), TensorOptions(kInt64)));
      works.push_back(pg.allreduce(ts.back()));
    }
    for (int k = 19; k >= 0; --k) {
      works[k]->wait();
      EXPECT_TRUE(works[k]->is_completed());
      ASSERT_EQ(ts[k].to_vector<int64_t>()[256], int64_t(k) * world + world * (world - 1) / 2);
    }
  });
}

INSTANTIATE_TEST_SUITE_P(WorldSize, ProcessGroupTest, ::testing::Values(1, 2, 3, 4),
                         [](const auto& info) { return "World" + std::to_string(info.param); });

TEST(ProcessGroupErrorsTest, BadArgumentsNameTheOperation) {
  run_ranks(2, [&](ProcessGroup& pg) {
    Tensor t = zeros({3});
    testing::expect_error<ValueError>([&] { pg.broadcast(t, 2); }, {"broadcast", "src", "[0, 2)", "2"});
    testing::expect_error<TypeError>([&] { pg.allreduce(zeros({2}, TensorOptions(kInt64)), ReduceOp::Avg); },
                                     {"allreduce", "avg", "int64"});
    testing::expect_error<TypeError>([&] { pg.allreduce(zeros({2}, TensorOptions(kComplex64)), ReduceOp::Max); },
                                     {"allreduce", "max", "complex64"});
    testing::expect_error<ValueError>([&] { pg.allgather({zeros({3})}, t); },
                                      {"allgather", "outputs", "one tensor per rank (2)", "got 1"});
    testing::expect_error<ValueError>([&] { pg.allgather({zeros({3}), zeros({4})}, t); },
                                      {"allgather", "outputs[1]", "[4]", "[3]"});
    testing::expect_error<ValueError>([&] { pg.send(t, pg.rank(), 0); }, {"send", "itself"});
    pg.barrier()->wait();
  });
}

TEST(ProcessGroupErrorsTest, LostPeerIsNamedByItsRank) {
  // Three ranks as threads; rank 2's group goes away (its connections close), and rank 0's next
  // allreduce names rank 2 from the address Gloo reports. Repeated: which side of each connection
  // connected first varies, and with it the address Gloo prints.
  using namespace distributed;
  for (int attempt = 0; attempt < 8; ++attempt) {
    auto server = std::make_shared<TCPStore>("127.0.0.1", 0, true, Milliseconds(10000));
    std::vector<std::shared_ptr<ProcessGroupGloo>> groups(3);
    std::vector<std::thread> threads;
    for (int r = 0; r < 3; ++r)
      threads.emplace_back([&, r] {
        auto store = std::make_shared<TCPStore>("127.0.0.1", server->port(), false, Milliseconds(10000));
        ProcessGroupGlooOptions o;
        o.timeout = Milliseconds(10000);
        groups[r] = std::make_shared<ProcessGroupGloo>(std::make_shared<PrefixStore>("g", store), r, 3, o);
      });
    for (auto& t : threads) t.join();
    groups[2].reset();
    testing::expect_error<DistributedError>([&] { groups[0]->allreduce(ones({4}))->wait(); },
                                            {"allreduce: lost the connection to rank 2 ([127.0.0.1]:"});
  }
}

}  // namespace
}  // namespace ember
