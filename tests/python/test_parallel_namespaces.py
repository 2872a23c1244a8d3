"""What scripts import and probe before they go parallel: ember.nn.parallel (DataParallel is the
identity wrapper PyTorch's is without GPUs; DistributedDataParallel needs a process group),
ember.distributed before init_process_group (tests/python/test_distributed.py runs it) and
ember.multiprocessing (the standard library's, with torch's spawn and sharing-strategy calls)."""
import os

import pytest

import ember
import ember.distributed as dist
import ember.multiprocessing as mp
from ember import nn
from ember.nn.parallel import DataParallel, DistributedDataParallel


def test_data_parallel_wraps_the_module_and_prefixes_its_state():
    model = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
    dp = nn.DataParallel(model, device_ids=[0, 1])
    assert isinstance(dp, DataParallel) and dp.module is model and dp.device_ids == []
    x = ember.randn(4, 3)
    assert dp(x).tolist() == model(x).tolist()
    assert list(dp.state_dict()) == ["module.0.weight", "module.0.bias"]
    assert [n for n, _ in dp.named_parameters()] == ["module.0.weight", "module.0.bias"]
    plain = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
    plain.load_state_dict({k[len("module."):]: v for k, v in dp.state_dict().items()})
    assert plain(x).tolist() == model(x).tolist()
    assert ember.nn.parallel.data_parallel(model, x).tolist() == model(x).tolist()


def test_distributed_data_parallel_needs_a_process_group():
    with pytest.raises(ValueError, match="process group has not been initialized"):
        DistributedDataParallel(nn.Linear(2, 2))


def test_distributed_before_init_process_group(monkeypatch):
    assert dist.is_available() is True and dist.is_initialized() is False
    assert dist.is_torchelastic_launched() is False and dist.GroupMember.WORLD is None
    with pytest.raises(ValueError, match="init_process_group"):
        dist.get_rank()
    for name in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ValueError, match="init_process_group: "):
        dist.init_process_group("gloo")
    assert dist.is_initialized() is False
    assert dist.ReduceOp.SUM.name == "SUM"


def _write_rank(rank, folder):
    with open(os.path.join(folder, f"rank{rank}"), "w") as f:
        f.write(str(ember.tensor([rank]).sum().item()))


def _fail(rank):
    if rank == 1:
        raise ValueError("rank 1 failed")


def test_multiprocessing_spawn_runs_each_rank_and_reports_failures(tmp_path):
    assert mp.get_sharing_strategy() in mp.get_all_sharing_strategies()
    mp.set_sharing_strategy("file_system")
    assert mp.get_sharing_strategy() == "file_system"
    with pytest.raises(ValueError, match="unknown strategy"):
        mp.set_sharing_strategy("telepathy")
    mp.set_sharing_strategy("file_descriptor")
    assert mp.Queue is not None and mp.cpu_count() >= 1
    mp.spawn(_write_rank, args=(str(tmp_path),), nprocs=2, start_method="fork")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rank0", "rank1"]
    assert (tmp_path / "rank1").read_text() == "1"
    with pytest.raises(mp.ProcessRaisedException, match="rank 1 failed"):
        mp.spawn(_fail, nprocs=2, start_method="fork")
