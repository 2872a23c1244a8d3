"""ember.distributed.checkpoint (PyTorch DCP's save, load and async_save): in one process, and
saved by 2 and 4 ranks (python -m ember.distributed.run) then loaded here with other splits of the
sharded tensor (N -> M); a damaged or missing checkpoint and a key it lacks are errors that name
them, and a failed save leaves the previous checkpoint whole."""
import os
import subprocess
import sys

import numpy as np
import pytest

import ember
import ember.distributed.checkpoint as dcp
import ember.nn as nn

WORKER = os.path.join(os.path.dirname(__file__), "distributed_worker.py")


def trained(seed=0):
    ember.manual_seed(seed)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    opt = ember.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(2):
        opt.zero_grad()
        model(ember.randn(5, 4)).pow(2).mean().backward()
        opt.step()
    return model, opt


def test_a_model_and_its_optimizer_round_trip_in_one_process(tmp_path):
    model, opt = trained()
    dcp.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 3, "note": ("best", 0.5)},
             checkpoint_id=tmp_path / "ckpt")
    fresh_model, fresh_opt = trained(seed=1)
    fresh_opt = ember.optim.Adam(fresh_model.parameters(), lr=1e-2)  # no state yet: load adds it
    state = {"model": fresh_model.state_dict(), "optim": fresh_opt.state_dict(), "epoch": 0, "note": None}
    dcp.load(state, checkpoint_id=tmp_path / "ckpt")
    fresh_model.load_state_dict(state["model"])
    fresh_opt.load_state_dict(state["optim"])
    assert state["epoch"] == 3 and state["note"] == ("best", 0.5)
    for (k, a), (_, b) in zip(model.state_dict().items(), fresh_model.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)
    x = ember.randn(3, 4)
    for m, o in ((model, opt), (fresh_model, fresh_opt)):  # one more step each: the same bits
        o.zero_grad()
        m(x).pow(2).mean().backward()
        o.step()
    for (k, a), (_, b) in zip(model.state_dict().items(), fresh_model.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)


def test_errors_name_the_checkpoint_and_the_key(tmp_path):
    with pytest.raises(Exception, match="index.json"):
        dcp.load({"x": ember.zeros(2)}, checkpoint_id=tmp_path / "absent")
    dcp.save({"x": ember.ones(2)}, checkpoint_id=tmp_path / "c")
    with pytest.raises(KeyError, match="'y'"):
        dcp.load({"x": ember.zeros(2), "y": ember.zeros(1)}, checkpoint_id=tmp_path / "c")
    with pytest.raises(ValueError, match=r"'x' has shape \[2\] in the checkpoint but \[3\]"):
        dcp.load({"x": ember.zeros(3)}, checkpoint_id=tmp_path / "c")
    with pytest.raises(ValueError, match="required"):
        dcp.save({"x": ember.ones(2)})
    with pytest.raises(ValueError, match=r"dim 0: \[3, 5\) is outside the global size 4"):
        dcp.Shard(ember.zeros(2), [4], [3])
    # a save that fails (an object that cannot be saved) leaves the committed checkpoint as it was
    with pytest.raises(TypeError):
        dcp.save({"x": ember.zeros(2), "bad": object()}, checkpoint_id=tmp_path / "c")
    state = {"x": ember.zeros(2)}
    dcp.load(state, checkpoint_id=tmp_path / "c")
    assert state["x"].tolist() == [1.0, 1.0]
    # a damaged file is found when loading
    target = next(p for p in (tmp_path / "c").iterdir() if p.name.startswith("replicated"))
    data = bytearray(target.read_bytes())
    data[-1] ^= 0xFF
    target.write_bytes(bytes(data))
    with pytest.raises(Exception, match="checksum|damaged"):
        dcp.load({"x": ember.zeros(2)}, checkpoint_id=tmp_path / "c")


def test_async_save_returns_before_the_write_and_its_future_commits(tmp_path):
    x = ember.arange(6, dtype=ember.float32)
    future = dcp.async_save({"x": x}, checkpoint_id=tmp_path / "a")
    x.add_(100)  # after the call: the copy was taken, the checkpoint holds the values at the call
    future.result(timeout=60)
    state = {"x": ember.zeros(6)}
    dcp.load(state, checkpoint_id=tmp_path / "a")
    assert state["x"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


@pytest.mark.parametrize("nproc", [2, 4])
def test_saved_by_n_ranks_loads_here_with_any_split(tmp_path, nproc):
    directory = str(tmp_path / "ckpt")
    cmd = [sys.executable, "-m", "ember.distributed.run", "--nproc", str(nproc), "--grace", "1", WORKER, "dcp",
           directory]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr
    for r in range(nproc):
        assert f"ok {r} dcp" in p.stdout, p.stdout + p.stderr
    whole = np.arange(12, dtype=np.float32).reshape(4, 3)
    for d in (directory, directory + "-async"):
        # one process: the whole tensor, then a split of its own (rows [0, 1) and [1, 4), columns [1, 3))
        state = {"split": ember.zeros(4, 3), "step": 0}
        dcp.load(state, checkpoint_id=d)
        np.testing.assert_array_equal(state["split"].numpy(), whole)
        for offsets, shape in (([0, 1], [1, 2]), ([1, 0], [3, 3])):
            block = {"split": dcp.Shard(ember.zeros(*shape), [4, 3], offsets)}
            dcp.load(block, checkpoint_id=d)
            np.testing.assert_array_equal(block["split"].local.numpy(),
                                          whole[offsets[0]:offsets[0] + shape[0], offsets[1]:offsets[1] + shape[1]])
        assert state["step"] == 7 and len(state["model"]) == 4  # the model's entries were added


def test_loaded_entries_own_their_memory_when_the_checkpoint_is_replaced(tmp_path):
    dcp.save({"w": ember.arange(4, dtype=ember.float32), "s": dcp.Shard(ember.ones(2), [2], [0])},
             checkpoint_id=tmp_path / "c")
    state = {}
    dcp.load(state, checkpoint_id=tmp_path / "c")
    dcp.save({"w": ember.zeros(4), "s": dcp.Shard(ember.zeros(2), [2], [0])}, checkpoint_id=tmp_path / "c")
    assert state["w"].tolist() == [0.0, 1.0, 2.0, 3.0] and state["s"].tolist() == [1.0, 1.0]


@pytest.mark.parametrize("save_ranks, resume_ranks", [(2, 1), (1, 2)])
def test_zero_state_saved_on_n_ranks_resumes_on_m_bit_for_bit(tmp_path, save_ranks, resume_ranks):
    """ZeroRedundancyOptimizer(Adam) under DDP, its state sharded in the checkpoint: resumed on another
    number of ranks, the next two steps give the same parameters as the run that went on."""
    def job(nproc, phase):
        cmd = [sys.executable, "-m", "ember.distributed.run", "--nproc", str(nproc), "--grace", "1", WORKER, "zero",
               str(tmp_path / "ckpt"), phase]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
        assert p.returncode == 0, p.stdout + p.stderr
        digests = {line.split()[-1] for line in p.stdout.splitlines() if f" zero {phase} " in line}
        assert len(digests) == 1, p.stdout  # every rank holds the same parameters
        return digests.pop()

    assert job(save_ranks, "save") == job(resume_ranks, "resume")
