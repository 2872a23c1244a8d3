"""One rank of the jobs tests/python/test_distributed.py starts with python -m ember.distributed.run:

    distributed_worker.py collectives      every collective through ember.distributed
    distributed_worker.py ddp STEPS        DDP training; replicas compared by checksum
    distributed_worker.py ddp_traced PATH STEPS
                                           DDP training of the program file PATH (ember.jit.save of a
                                           traced MLP), and of the eager MLP with its state: equal
    distributed_worker.py fail             rank 1 exits 3, the others wait (the launcher stops them)
    distributed_worker.py killed_late      rank 1 exits 3 at once, rank 0 is SIGKILLed 100 ms later
    distributed_worker.py zero DIR PHASE   ZeroRedundancyOptimizer(Adam) under DDP, the same batch on
                                           every rank: PHASE save trains 3 steps, saves model and
                                           sharded state to DIR, trains 2 more; PHASE resume loads DIR
                                           and trains the 2; each prints a digest of the parameters
    distributed_worker.py dcp DIR          ember.distributed.checkpoint: a model's state and a [4, 3]
                                           tensor split by rows over the ranks, saved to DIR (and with
                                           async_save to DIR-async), loaded back by every rank

Prints "ok <rank> ..." lines the test reads; any mismatch raises (non-zero exit)."""
import hashlib
import os
import signal
import sys
import time

import ember
import ember.distributed as dist
import ember.nn as nn
import ember.nn.functional as F
from ember.nn.parallel import DistributedDataParallel as DDP


def environment():
    names = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE")
    print("env " + " ".join(f"{k}={os.environ[k]}" for k in names), flush=True)
    collectives()


def collectives():
    r, n = dist.get_rank(), dist.get_world_size()
    t = ember.full((5,), float(r + 1))
    dist.all_reduce(t)
    assert t.tolist() == [n * (n + 1) / 2] * 5, t
    t = ember.full((3,), float(r))
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    assert t.tolist() == [n - 1.0] * 3
    t = ember.arange(4) if r == 0 else ember.zeros(4, dtype=ember.int64)
    work = dist.broadcast(t, src=0, async_op=True)
    work.wait()
    assert t.tolist() == [0, 1, 2, 3]
    out = [ember.zeros(2) for _ in range(n)]
    dist.all_gather(out, ember.full((2,), float(r)))
    assert [o.tolist() for o in out] == [[float(k)] * 2 for k in range(n)]
    objs = [None] * n
    dist.all_gather_object(objs, {"rank": r, "name": "x" * r})
    assert objs == [{"rank": k, "name": "x" * k} for k in range(n)]
    res = ember.zeros(2)
    dist.reduce_scatter(res, [ember.full((2,), float(k + r)) for k in range(n)])
    # Rank k's inputs[j] is k + j: this rank receives the sum over k of (k + r).
    assert res.tolist() == [float(n * r + n * (n - 1) // 2)] * 2, res
    dist.barrier()
    side = dist.new_group()  # its own connections: a collective there never meets the default's
    t = ember.full((2,), float(r + 1))
    dist.all_reduce(t, group=side)
    assert t.tolist() == [n * (n + 1) / 2] * 2, t
    if n > 1:
        try:
            dist.new_group(ranks=[0])
            raise AssertionError("new_group(ranks=[0]) was accepted")
        except NotImplementedError as e:
            assert "only groups of all" in str(e), e
    print(f"ok {r} collectives", flush=True)


def mlp():
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))


def train_ddp(module, steps):
    """Trains module under DDP on this rank's data; the checksum of its parameters, the same on every rank."""
    model = DDP(module)
    opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    g = ember.Generator(7 + dist.get_rank())
    for _ in range(steps):
        x, y = ember.randn(8, 6, generator=g), ember.randn(8, 2, generator=g)
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
    digest = hashlib.sha256(b"".join(p.detach().numpy().tobytes() for p in module.parameters())).hexdigest()
    sums = [None] * dist.get_world_size()
    dist.all_gather_object(sums, digest)
    assert len(set(sums)) == 1, sums
    return digest


def ddp(steps):
    r = dist.get_rank()
    ember.manual_seed(100 + r)  # different initial weights: DDP broadcasts rank 0's
    print(f"ok {r} ddp {train_ddp(mlp(), steps)}", flush=True)


def ddp_traced(path, steps):
    traced = train_ddp(ember.jit.load(path), steps)  # no class needed
    eager = mlp()
    eager.load_state_dict(ember.jit.load(path).state_dict())
    assert train_ddp(eager, steps) == traced  # the program trains as the eager module, bit for bit
    print(f"ok {dist.get_rank()} ddp_traced {traced}", flush=True)


def fail():
    if dist.get_rank() == 1:
        sys.exit(3)
    time.sleep(60)


def killed_late():
    # A SIGKILLed rank's peer may exit before the killed rank can be reaped; this makes that order
    # certain, so the launcher must still name the signal as the cause.
    if dist.get_rank() == 1:
        sys.exit(3)
    time.sleep(0.1)
    os.kill(os.getpid(), signal.SIGKILL)


def dcp(directory):
    import ember.distributed.checkpoint as dcp
    r, n = dist.get_rank(), dist.get_world_size()
    ember.manual_seed(5)  # the same model on every rank, as DDP keeps it
    model = mlp()
    rows = 4 // n
    whole = ember.arange(12, dtype=ember.float32).reshape(4, 3)
    state = {"model": model.state_dict(), "step": 7,
             "split": dcp.Shard(whole[r * rows:(r + 1) * rows].clone(), [4, 3], [r * rows, 0])}
    dcp.save(state, checkpoint_id=directory)
    dcp.async_save(state, checkpoint_id=directory + "-async").result()
    for d in (directory, directory + "-async"):
        fresh = {"model": {k: ember.zeros_like(v) for k, v in model.state_dict().items()}, "step": 0,
                 "split": dcp.Shard(ember.zeros(rows, 3), [4, 3], [r * rows, 0])}
        dcp.load(fresh, checkpoint_id=d)
        assert fresh["step"] == 7
        for k, v in model.state_dict().items():
            assert ember.equal(fresh["model"][k], v), k
        assert ember.equal(fresh["split"].local, whole[r * rows:(r + 1) * rows]), fresh["split"].local
    print(f"ok {r} dcp", flush=True)


def zero(directory, phase):
    import ember.distributed.checkpoint as dcp
    from ember.distributed.optim import ZeroRedundancyOptimizer
    ember.manual_seed(11)
    model = mlp()
    ddp = DDP(model)
    opt = ZeroRedundancyOptimizer(ddp.parameters(), optimizer_class=ember.optim.Adam, lr=1e-2)
    x, y = ember.randn(16, 6), ember.randint(0, 2, (16,))  # the same batch on every rank

    def steps(n):
        for _ in range(n):
            opt.zero_grad()
            F.cross_entropy(ddp(x), y).backward()
            opt.step()

    if phase == "save":
        steps(3)
        dcp.save({"model": model.state_dict(), "optim": opt.sharded_state_dict()}, checkpoint_id=directory)
    else:
        state = {"model": model.state_dict()}
        dcp.load(state, checkpoint_id=directory)
        model.load_state_dict(state["model"])
        opt.load_sharded_state_dict(directory, key="optim")
    steps(2)
    digest = hashlib.sha256(b"".join(p.detach().numpy().tobytes() for p in model.parameters())).hexdigest()
    print(f"ok {dist.get_rank()} zero {phase} {digest}", flush=True)


if __name__ == "__main__":
    dist.init_process_group("gloo", timeout=20)
    {"collectives": collectives, "env": environment, "ddp": lambda: ddp(int(sys.argv[2])), "fail": fail,
     "ddp_traced": lambda: ddp_traced(sys.argv[2], int(sys.argv[3])),
     "killed_late": killed_late, "dcp": lambda: dcp(sys.argv[2]),
     "zero": lambda: zero(sys.argv[2], sys.argv[3])}[sys.argv[1]]()
    dist.destroy_process_group()
