"""A DataLoader worker that dies while batches stream (issue 26): SIGKILLed from outside while it
writes a batch bigger than a pipe holds, os._exit(3) or a segfault in __getitem__, with fork, spawn
and forkserver workers, persistent or not. The loader raises PyTorch's "DataLoader worker (pid(s)
...) exited unexpectedly", naming the worker, its pid and how it died, within the timeout (at once
without one), and leaves no worker process behind, not even a zombie; the workers of a main process
that is itself killed exit on their own.

Each case runs the loader in a child Python (this file run as a script): a hang then fails the test
at a deadline instead of stopping the suite, and the child's own processes can be counted. The
workers write their pids into a scratch folder (worker_init_fn), which also carries the handshakes
that put a worker in the middle of writing a batch when it is killed. Data sets are module-level so
that spawned workers can unpickle them.
"""
import ctypes
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from ember.utils.data import DataLoader, Dataset, get_worker_info

BIG = 1 << 19       # float64 values in sample 1 of a streaming case: 4 MB, 64 times what a pipe holds
CHILD_DEADLINE = 20  # seconds; a child that has not finished by then hung


def mark(scratch, name, text=""):
    path = os.path.join(scratch, name)
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def wait_for(scratch, name, seconds=CHILD_DEADLINE):
    path, deadline = os.path.join(scratch, name), time.monotonic() + seconds
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {name} after {seconds} s")
        time.sleep(0.01)
    with open(path) as f:
        return f.read()


def worker_pids(scratch):
    """{pid: worker id} of every worker that started (record_worker)."""
    return {int(name[4:]): int(open(os.path.join(scratch, name)).read())
            for name in os.listdir(scratch) if name.startswith("pid-") and not name.endswith(".tmp")}


def running(pid):
    """Whether pid is a process that has not exited (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def record_worker(worker_id):
    mark(get_worker_info().dataset.scratch, f"pid-{os.getpid()}", str(worker_id))


class Stream(Dataset):
    """8 samples. how="kill" (and "parent"): sample 1 is BIG and loaded only once the main process
    has handed out sample 0, so that its worker is still writing it while the loop's body kills
    that worker. "exit" / "segv": the worker loading sample 5 exits with code 3 / segfaults.
    "unpicklable": sample 2 cannot be pickled."""

    def __init__(self, scratch, how):
        self.scratch, self.how = scratch, how

    def __len__(self):
        return 8

    def __getitem__(self, i):
        me = f"{get_worker_info().id} {os.getpid()}"
        if i == 1 and self.how in ("kill", "parent"):
            wait_for(self.scratch, "handed-0")
            mark(self.scratch, "loading-1", me)
            return np.zeros(BIG)
        if i == 5 and self.how in ("exit", "segv"):
            mark(self.scratch, "dying", me)
            if self.how == "exit":
                os._exit(3)
            ctypes.string_at(0)
        if i == 2 and self.how == "unpicklable":
            return threading.Lock()
        return np.full(1, float(i))


def child(case):
    """The loader side of a case: prints {"error", "latency", "victim", "left", "active", ...} as JSON."""
    if os.environ.get("EMBER_TEST_MP_START"):  # as tests/python/conftest.py does for the suite
        multiprocessing.set_start_method(os.environ["EMBER_TEST_MP_START"], force=True)
        multiprocessing.set_forkserver_preload(["ember"])
    scratch, how = case["scratch"], case["how"]
    loader = DataLoader(Stream(scratch, how), batch_size=None if how == "unpicklable" else 1, num_workers=2,
                        timeout=case.get("timeout", 0), multiprocessing_context=case.get("context"),
                        persistent_workers=case.get("persistent", False), worker_init_fn=record_worker)
    report = {"error": None, "latency": None, "victim": None}
    killed_at = time.monotonic()
    try:
        for n, _ in enumerate(loader):
            if n == 0 and how in ("kill", "parent"):
                mark(scratch, "handed-0")
                report["victim"] = [int(v) for v in wait_for(scratch, "loading-1").split()]
                time.sleep(0.3)  # its sender is now blocked in the middle of the BIG message
                if how == "parent":
                    mark(scratch, "ready")
                    time.sleep(CHILD_DEADLINE)  # until the test kills this process
                os.kill(report["victim"][1], signal.SIGKILL)
                killed_at = time.monotonic()
            if how == "idle" and n == 7:
                time.sleep(1.5)  # longer than a worker waits for a task before it checks its parent
    except (RuntimeError, TypeError) as e:
        report["error"], report["latency"] = str(e), time.monotonic() - killed_at
    if case.get("persistent"):
        first = set(worker_pids(scratch))
        report["next_epoch"] = [b.tolist()[0][0] for b in loader]
        report["next_epoch_new_workers"] = len(set(worker_pids(scratch)) - first)
        del loader
    # NB: a joined worker was reaped (a forkserver worker by the server, before it told the main process)
    report["left"] = [p for p in worker_pids(scratch) if os.path.exists(f"/proc/{p}")]
    report["active"] = [p.pid for p in multiprocessing.active_children()]
    print(json.dumps(report))


def run_child(tmp_path, **case):
    case["scratch"] = str(tmp_path)
    try:
        done = subprocess.run([sys.executable, __file__, json.dumps(case)], capture_output=True, text=True,
                              timeout=CHILD_DEADLINE)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the loader hung: no answer in {CHILD_DEADLINE} s")
    finally:
        for pid in worker_pids(tmp_path):  # NB: a hung child's workers outlive it
            if running(pid):
                os.kill(pid, signal.SIGKILL)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["left"] == [] and report["active"] == []  # terminated and joined: no orphan, no zombie
    return report


def who_died(tmp_path):
    """(worker id, pid) of the worker that died in __getitem__."""
    worker_id, pid = wait_for(tmp_path, "dying", 0).split()
    return int(worker_id), int(pid)


def dead_worker_message(worker_id, pid, code, how):
    """PyTorch's message, then which worker died and how."""
    return (f"DataLoader worker (pid(s) {pid} (exit code {code})) exited unexpectedly: "
            f"worker {worker_id} (pid {pid}) {how}")


KILLED = "was killed by signal: Killed (SIGKILL)"


@pytest.mark.parametrize("context,timeout", [("fork", 5), ("fork", 0), ("spawn", 5), ("forkserver", 0)])
def test_a_worker_killed_while_it_sends_a_batch_makes_the_loader_raise_at_once(tmp_path, context, timeout):
    report = run_child(tmp_path, how="kill", context=context, timeout=timeout)
    worker_id, pid = report["victim"]
    assert report["error"] == dead_worker_message(worker_id, pid, -9, KILLED)
    assert report["latency"] < (timeout or 2)


@pytest.mark.parametrize("context", [None, "forkserver"])
def test_a_worker_that_calls_os_exit_makes_the_loader_raise(tmp_path, context):
    report = run_child(tmp_path, how="exit", context=context)
    worker_id, pid = who_died(tmp_path)
    assert report["error"] == dead_worker_message(worker_id, pid, 3, "exited with code 3")


@pytest.mark.parametrize("context", ["fork", "spawn"])
def test_a_worker_that_segfaults_makes_the_loader_raise(tmp_path, context):
    report = run_child(tmp_path, how="segv", context=context, timeout=5)
    worker_id, pid = who_died(tmp_path)
    if "libasan" in os.environ.get("LD_PRELOAD", ""):
        # NB: under AddressSanitizer (make test-asan) its SEGV handler reports and exits with 1.
        assert report["error"] == dead_worker_message(worker_id, pid, 1, "exited with code 1")
        return
    assert report["error"] == dead_worker_message(worker_id, pid, -11,
                                                  "was killed by signal: Segmentation fault (SIGSEGV)")


def test_persistent_workers_raise_then_start_afresh_for_the_next_epoch(tmp_path):
    report = run_child(tmp_path, how="kill", context="fork", persistent=True)
    worker_id, pid = report["victim"]
    assert report["error"] == dead_worker_message(worker_id, pid, -9, KILLED)
    assert report["next_epoch"] == [0.0, 0.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]  # sample 1 is zeros
    assert report["next_epoch_new_workers"] == 2


def test_persistent_forkserver_workers_outlive_an_idle_second(tmp_path):
    # NB: a forkserver worker's parent is the server, not the main process: its check that the main
    # process lives must not take the one for the other.
    report = run_child(tmp_path, how="idle", context="forkserver", persistent=True)
    assert report["error"] is None
    assert report["next_epoch"] == [float(i) for i in range(8)] and report["next_epoch_new_workers"] == 0


def test_a_batch_that_cannot_be_pickled_is_an_error_not_a_hang(tmp_path):
    report = run_child(tmp_path, how="unpicklable")
    assert report["error"].startswith("Caught TypeError in DataLoader worker process 0 while sending batch 2.")
    assert "cannot pickle '_thread.lock' object" in report["error"]


@pytest.mark.parametrize("context", ["fork", "spawn", "forkserver"])
def test_workers_exit_when_the_main_process_is_killed(tmp_path, context):
    case = json.dumps({"scratch": str(tmp_path), "how": "parent", "context": context})
    # NB: stderr to a file: the killed process's resource tracker warns of the semaphores it frees
    with open(tmp_path / "stderr", "w") as stderr:
        parent = subprocess.Popen([sys.executable, __file__, case], stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        wait_for(tmp_path, "ready")
        pids = worker_pids(tmp_path)
        assert len(pids) == 2 and all(running(p) for p in pids)
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 5
        while any(running(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [p for p in pids if running(p)] == []
    finally:
        parent.kill()
        parent.wait()
        for pid in worker_pids(tmp_path):
            if running(pid):
                os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    child(json.loads(sys.argv[1]))
