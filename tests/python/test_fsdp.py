"""FullyShardedDataParallel in real processes (python -m ember.distributed.run, loopback): the GPT
tutorial's model trained at 2 and 4 ranks matches the unwrapped model trained in one process, each
rank holds 1/W of the parameters (the CPU allocator's statistics), the optimizer keys its state by the
model's names, bf16 parameters and activation checkpointing compose with it, and a sharded checkpoint saved at 4 ranks loads at 2, at 1 and into the unwrapped
model; unsupported options and bad state are refused by name. fsdp_worker.py is the rank's program."""
import json
import math
import os
import subprocess
import sys

import pytest

WORKER = os.path.join(os.path.dirname(__file__), "fsdp_worker.py")


def run(nproc, *args, timeout=240):
    if nproc is None:
        cmd = [sys.executable, WORKER, *args]
    else:
        cmd = [sys.executable, "-m", "ember.distributed.run", "--nproc", str(nproc), "--grace", "1", WORKER, *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    lines = [line.split("result ", 1)[1] for line in out.splitlines() if "result {" in line]
    assert len(lines) == 1, out
    return json.loads(lines[0])


@pytest.fixture(scope="module")
def single():
    return run(None, "single", "6")


@pytest.mark.parametrize("nproc", [2, 4])
def test_fsdp_trains_the_gpt_as_one_process_does(single, nproc):
    got = run(nproc, "train", "6")
    assert got["losses"] == pytest.approx(single["losses"], rel=1e-4, abs=1e-5)
    assert got["losses"][-1] < got["losses"][0] - 0.1  # it learns
    for name, head in single["state"].items():
        assert got["state"][name] == pytest.approx(head, rel=1e-3, abs=1e-4), name
    # AdamW's state is keyed by the unwrapped model's names, every parameter's.
    assert got["optim_names"] == sorted(single["state"])
    memory = got["memory"]
    full = memory["numel"] * 4
    assert memory["full_bytes"] >= full
    # Each rank keeps ceil(numel / W) elements of each parameter, nothing else.
    assert memory["param_bytes_per_rank"] <= full / nproc + 4 * 64 * nproc
    assert memory["sharded_bytes"] <= full / nproc * 1.02 + 4096, memory


def test_fsdp_bf16_parameters_train_close_to_float32(single):
    got = run(2, "train", "6", "bf16")
    assert all(math.isfinite(v) for v in got["losses"])
    assert got["losses"] == pytest.approx(single["losses"], rel=3e-2)


def test_fsdp_composes_with_activation_checkpointing(single):
    # Each Block's forward runs again inside backward: its parameters are gathered for it.
    got = run(2, "train", "6", "recompute")
    assert got["losses"] == pytest.approx(single["losses"], rel=1e-4, abs=1e-5)


def test_sharded_checkpoint_of_4_ranks_loads_at_2_at_1_and_into_the_plain_model(tmp_path):
    ckpt = str(tmp_path / "ckpt")
    saved = run(4, "save", ckpt)
    for nproc in (2, 1):
        resumed = run(nproc, "resume", ckpt)
        assert resumed["digest"] == saved["digest"], nproc  # the parameters, bit for bit
        assert resumed["losses"] == pytest.approx(saved["losses"], rel=1e-4, abs=1e-5), nproc
    plain = run(None, "plain", ckpt)
    assert plain["digest"] == saved["digest"]
    assert plain["losses"] == pytest.approx(saved["losses"], rel=1e-4, abs=1e-5)


def test_parameters_and_values_past_the_boundaries_at_3_ranks():
    boundary = os.path.join(os.path.dirname(__file__), "fsdp_boundary_worker.py")
    cmd = [sys.executable, "-m", "ember.distributed.run", "--nproc", "3", "--grace", "1", boundary]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stdout + p.stderr
    assert all(f"[rank{r}]: {r} ok" in p.stdout for r in range(3)), p.stdout + p.stderr


def test_unsupported_options_and_bad_state_are_refused_by_name(tmp_path):
    import ember
    import ember.distributed as dist
    import ember.nn as nn
    from ember.distributed.fsdp import CPUOffload, FullyShardedDataParallel as FSDP, ShardingStrategy
    dist.init_process_group("gloo", init_method=f"file://{tmp_path}/store", rank=0, world_size=1)
    try:
        with pytest.raises(NotImplementedError, match="NO_SHARD"):
            FSDP(nn.Linear(2, 2), sharding_strategy=ShardingStrategy.NO_SHARD)
        with pytest.raises(NotImplementedError, match="offload_params"):
            FSDP(nn.Linear(2, 2), cpu_offload=CPUOffload(offload_params=True))
        import functools
        from ember.distributed.fsdp import size_based_auto_wrap_policy
        sized = FSDP(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)),
                     auto_wrap_policy=functools.partial(size_based_auto_wrap_policy, min_num_params=30))
        assert [sized._fsdp.unit_name(u) for u in range(sized._fsdp.num_units())] == ["", "0"]  # 40 and 18
        model = FSDP(nn.Linear(3, 2))
        with pytest.raises(RuntimeError, match=r"'weight'.*\[2, 4\].*\[2, 3\]"):
            model.load_state_dict({"weight": ember.zeros(2, 4), "bias": ember.zeros(2)})
        with pytest.raises(RuntimeError, match="bias"):
            model.load_state_dict({"weight": ember.zeros(2, 3)})
        # A whole state loads into the shards, and comes back whole.
        model.load_state_dict({"weight": ember.ones(2, 3), "bias": ember.full((2,), 2.0)})
        state = model.state_dict()
        assert state["weight"].tolist() == [[1.0] * 3] * 2 and state["bias"].tolist() == [2.0, 2.0]
        assert [n for n, _ in model.named_parameters()] == ["weight", "bias"]
        # summon_full_params: the whole parameters in the model, changes written back to the shards.
        with FSDP.summon_full_params(model):
            assert list(model.module.weight.shape) == [2, 3]
            with ember.no_grad():
                model.module.weight.mul_(3.0)
        assert list(model.module.weight.shape) == [6]
        assert model.state_dict()["weight"].tolist() == [[3.0] * 3] * 2
        # no_sync: no reduction inside, the sum reduced by the next backward outside.
        x = ember.ones(1, 3)
        with model.no_sync():
            model(x).sum().backward()
        assert model.module.weight.grad is None
        model(x).sum().backward()
        assert model.module.weight.grad.tolist() == [2.0] * 6
    finally:
        dist.destroy_process_group()
