"""ember.distributed from Python: collectives, DDP and the launcher in real processes
(python -m ember.distributed.run, loopback only, each job under a time limit), the rendezvous's
and the store's errors (a world that never fills, a WORLD_SIZE that differs, a key never set), and
DistributedSampler's resume on another number of ranks."""
import os
import subprocess
import sys
import time

import pytest

import ember
from ember.utils.data import DataLoader, DistributedSampler, TensorDataset

WORKER = os.path.join(os.path.dirname(__file__), "distributed_worker.py")


def run_job(nproc, *args, timeout=120, env=None):
    cmd = [sys.executable, "-m", "ember.distributed.run", "--nproc", str(nproc), "--grace", "1", WORKER, *args]
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       env=None if env is None else {**os.environ, **env})
    return p.returncode, p.stdout + p.stderr, time.monotonic() - start


@pytest.mark.parametrize("nproc", [1, 2, 4])
def test_collectives(nproc):
    code, out, _ = run_job(nproc, "collectives")
    assert code == 0, out
    for r in range(nproc):
        assert f"[rank{r}]: ok {r} collectives" in out, out


def run_nodes(nproc, *args, timeout=120):
    """A job on two "nodes" of nproc ranks each: two launchers on loopback addresses of their own."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.2", 0))
        port = s.getsockname()[1]

    def cmd(node):
        return [sys.executable, "-m", "ember.distributed.run", "--nnodes", "2", "--node-rank", str(node),
                "--nproc-per-node", str(nproc), "--master-addr", "127.0.0.2", "--master-port", str(port),
                "--local-addr", f"127.0.0.{2 + node}", "--grace", "1", "--join-timeout", "60", WORKER, *args]

    second = subprocess.Popen(cmd(1), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    first = subprocess.run(cmd(0), capture_output=True, text=True, timeout=timeout)
    out1, _ = second.communicate(timeout=timeout)
    return (first.returncode, second.returncode), first.stdout + first.stderr, out1


def test_gloo_socket_ifname_picks_the_interface_ranks_listen_on():
    code, out, _ = run_job(2, "collectives", env={"GLOO_SOCKET_IFNAME": "lo"})
    assert code == 0, out
    assert "[rank1]: ok 1 collectives" in out, out
    code, out, _ = run_job(2, "collectives", env={"GLOO_SOCKET_IFNAME": "nosuch0"})
    assert code != 0
    assert "GLOO_SOCKET_IFNAME names 'nosuch0', which is not a network interface" in out, out


def test_a_master_on_a_network_address_is_reached_by_its_route():
    # This host's address toward the outside (a UDP socket "connected" sends nothing); the ranks
    # listen on the address on the route to the master, here that same one.
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))
            address = s.getsockname()[0]
        except OSError:
            pytest.skip("no network interface but loopback")
    if address.startswith("127."):
        pytest.skip("no network interface but loopback")
    cmd = [sys.executable, "-m", "ember.distributed.run", "--nproc", "2", "--master-addr", address, "--grace", "1",
           WORKER, "collectives"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "[rank1]: ok 1 collectives" in p.stdout, p.stdout + p.stderr


def test_two_nodes_number_their_ranks_as_torchrun_does():
    codes, out0, out1 = run_nodes(2, "env")
    assert codes == (0, 0), out0 + out1
    for node, out in ((0, out0), (1, out1)):
        for local in range(2):
            r = 2 * node + local
            assert (f"[rank{r}]: env RANK={r} LOCAL_RANK={local} WORLD_SIZE=4 LOCAL_WORLD_SIZE=2 GROUP_RANK={node} "
                    f"GROUP_WORLD_SIZE=2") in out, out
            assert f"[rank{r}]: ok {r} collectives" in out, out


def test_ddp_on_two_nodes_equals_one_node_bit_for_bit():
    codes, out0, out1 = run_nodes(1, "ddp", "5")
    assert codes == (0, 0), out0 + out1
    code, single, _ = run_job(2, "ddp", "5")
    assert code == 0, single

    def digests(out):
        return {line.split()[-1] for line in out.splitlines() if " ok " in line and " ddp " in line}

    assert digests(out0) == digests(out1) == digests(single) and len(digests(single)) == 1, out0 + out1 + single


@pytest.mark.parametrize("nproc", [2, 4])
def test_ddp_replicas_stay_bitwise_equal(nproc):
    code, out, _ = run_job(nproc, "ddp", "5")
    assert code == 0, out
    digests = {line.split()[-1] for line in out.splitlines() if " ok " in line and " ddp " in line}
    assert len(digests) == 1, out


def test_ddp_trains_a_program_loaded_without_its_class_on_two_ranks(tmp_path):
    import ember.nn as nn
    ember.manual_seed(3)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
    ember.jit.save(ember.jit.trace(model, ember.randn(8, 6)), tmp_path / "mlp.ember")
    code, out, _ = run_job(2, "ddp_traced", str(tmp_path / "mlp.ember"), "4")
    assert code == 0, out
    digests = {line.split()[-1] for line in out.splitlines() if " ok " in line and " ddp_traced " in line}
    assert len(digests) == 1 and out.count("ddp_traced") >= 2, out


def test_launcher_stops_the_others_when_a_rank_fails():
    code, out, seconds = run_job(2, "fail")
    assert code == 3, out
    assert "rank 1 (pid" in out and "failed with exit code 3; stopping the other ranks" in out, out
    assert seconds < 30, out


def test_launcher_names_the_killed_rank_even_when_its_peer_exits_first():
    code, out, _ = run_job(2, "killed_late")
    assert code == 128 + 9, out
    assert "ember-run: rank 0 (pid" in out and "failed with killed by signal 9" in out, out
    # NB: rank 1 is named after rank 0 when its exit is reaped first; on a loaded machine its exit may
    # finish after rank 0's kill is reaped, and the launcher names the signal alone (and stops rank 1)
    assert "rank 1 (pid" not in out or out.index("rank 0 (pid") < out.index("rank 1 (pid"), out


def test_ddp_error_names_unused_parameters():
    # One rank is enough to see the error (a single-process group over a file store).
    import tempfile
    import ember.distributed as dist
    from ember.nn.parallel import DistributedDataParallel as DDP

    class TwoHeads(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = ember.nn.Linear(3, 2), ember.nn.Linear(3, 2)

        def forward(self, x):
            return self.a(x)

    with tempfile.TemporaryDirectory() as d:
        dist.init_process_group("gloo", init_method=f"file://{d}", rank=0, world_size=1, timeout=10)
        try:
            model = DDP(TwoHeads())
            with pytest.raises(ValueError, match=r"'b.weight', 'b.bias'.*find_unused_parameters"):
                model(ember.randn(4, 3)).sum().backward()
            ok = DDP(TwoHeads(), find_unused_parameters=True)
            ok(ember.randn(4, 3)).sum().backward()
            assert ok.module.b.weight.grad is None and ok.module.a.weight.grad is not None
            with ok.no_sync():
                ok(ember.randn(4, 3)).sum().backward()
        finally:
            dist.destroy_process_group()


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_rendezvous_that_never_fills_raises_dist_store_error_naming_the_missing_rank():
    import datetime
    import ember.distributed as dist
    start = time.monotonic()
    with pytest.raises(dist.DistStoreError, match=r"timed out after 1000 ms waiting for the ranks to join: "
                                                  r"1 of 2 joined; missing: rank 1\."):
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0, world_size=2,
                                timeout=datetime.timedelta(seconds=1))
    assert time.monotonic() - start < 10
    assert not dist.is_initialized()
    assert dist.default_rendezvous_timeout == datetime.timedelta(minutes=5)
    assert dist.default_pg_timeout == datetime.timedelta(minutes=30)


def test_world_size_that_differs_raises_value_error_on_every_rank():
    import threading
    import ember.distributed as dist
    server = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=10)
    errors = {}

    def rank(r, world):
        store = dist.TCPStore("127.0.0.1", server.port, timeout=10)
        try:
            dist._D.rendezvous(store, r, world, timeout=10)
        except ValueError as e:
            errors[r] = str(e)

    threads = [threading.Thread(target=rank, args=a) for a in [(0, 2), (1, 4)]]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    want = "init_process_group: the ranks disagree on WORLD_SIZE: rank 1 says WORLD_SIZE=4, rank 0 says 2"
    assert errors == {0: want, 1: want}


def test_store_key_never_set_raises_dist_store_error_naming_it():
    import ember.distributed as dist
    store = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=0.3)
    with pytest.raises(dist.DistStoreError, match=r"timed out after 200 ms waiting for 'never' to be set"):
        store.wait(["never"], 0.2)
    with pytest.raises(dist.DistStoreError, match=r"timed out after 300 ms waiting for 'never'"):
        store.get("never")
    assert issubclass(dist.DistStoreError, dist.DistError) and issubclass(dist.DistError, RuntimeError)
    assert not issubclass(dist.DistStoreError, dist.DistBackendError)


def _consumed_order(sampler_state_at, n, batch, world_before, steps, world_after, shuffle=True):
    """The global order seen by a job that ran `steps` steps on world_before ranks, saved,
    and went on to the end of the epoch on world_after ranks."""
    data = TensorDataset(ember.arange(n))
    seen = []
    states = []
    for r in range(world_before):
        s = DistributedSampler(data, num_replicas=world_before, rank=r, shuffle=shuffle, seed=5)
        s.set_epoch(2)
        loader = DataLoader(data, batch_size=batch, sampler=s)
        it = iter(loader)
        seen.append([next(it)[0].tolist() for _ in range(steps)])
        states.append(loader.state_dict())
    assert all(st == states[0] for st in states)  # every rank saves the same state
    order = []
    for step in range(steps):  # the global order so far: step by step, rank by rank, interleaved
        for k in range(batch):
            for r in range(world_before):
                order.append(seen[r][step][k])
    after = []
    for r in range(world_after):
        s = DistributedSampler(data, num_replicas=world_after, rank=r, shuffle=shuffle, seed=5)
        loader = DataLoader(data, batch_size=batch, sampler=s)
        loader.load_state_dict(states[0])
        after.append([i for b in loader for i in b[0].tolist()])
    longest = max(len(a) for a in after)
    for k in range(longest):
        for r in range(world_after):
            if k < len(after[r]):
                order.append(after[r][k])
    return order, states[0]


@pytest.mark.parametrize("world_after", [1, 2, 3, 4])
def test_distributed_sampler_resumes_the_global_order_on_any_number_of_ranks(world_after):
    n, batch, steps = 29, 3, 2
    order, state = _consumed_order(None, n, batch, 2, steps, world_after)
    assert state["sampler"]["consumed"] == steps * batch * 2 and state["sampler"]["epoch"] == 2
    full = ember.randperm(n, generator=ember.Generator(5 + 2)).tolist()
    # Up to the padding the last step adds (wrapped from the start of the order).
    assert order[:n] == full
    assert set(order[n:]) <= set(full[:world_after])


def test_distributed_sampler_matches_torch_api():
    data = TensorDataset(ember.arange(10))
    s = DistributedSampler(data, num_replicas=3, rank=1, shuffle=False)
    assert list(s) == [1, 4, 7, 0] and len(s) == 4  # padded by wrapping, as PyTorch
    assert list(DistributedSampler(data, num_replicas=3, rank=1, shuffle=False, drop_last=True)) == [1, 4, 7]
    with pytest.raises(ValueError, match=r"invalid rank 3, rank should be in the interval \[0, 2\]"):
        DistributedSampler(data, num_replicas=3, rank=3)
    s = DistributedSampler(data, num_replicas=2, rank=0, seed=1)
    with pytest.raises(ValueError, match="seed 9, this one has 1"):
        s.load_state_dict({"epoch": 0, "consumed": 0, "seed": 9, "shuffle": True, "num_samples": 10})
