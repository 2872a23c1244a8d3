"""torch.save / torch.load of the same ~1 GB state as bench/io_bench.cpp (50 float32 tensors).

Prints "name value unit" lines for bench/run.sh: throughput with and without fsync, and how much
anonymous memory a load adds (torch.load reads the file into fresh memory).
    python io_bench.py DIR [TENSORS] [ELEMENTS]
"""
import os
import resource
import sys
import time

import torch


def rss_anon_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    return 0


def best_of(runs, fn):
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    directory = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    elements = int(sys.argv[3]) if len(sys.argv) > 3 else 5_000_000
    state = {f"layer{i}.weight": torch.randn(elements) for i in range(count)}
    gb = count * elements * 4 / 1e9
    path = os.path.join(directory, "state.pt")

    def save(sync):
        with open(path, "wb") as f:
            torch.save(state, f)
            if sync:
                f.flush()
                os.fsync(f.fileno())

    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    save(False)
    save_extra_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before
    runs = 5
    print(f"save_nofsync {gb / best_of(runs, lambda: save(False)):.3f} GB/s")
    print(f"save_fsync {gb / best_of(runs, lambda: save(True)):.3f} GB/s")
    print(f"save_peak_extra_memory {100.0 * save_extra_kb * 1024 / (gb * 1e9):.2f} %_of_state")

    def load():
        back = torch.load(path)
        assert len(back) == count

    os.sync()  # as in io_bench.cpp: writeback settled before the loads
    anon_before = rss_anon_kb()
    load_s = best_of(runs, load)
    kept = torch.load(path)
    anon_after = rss_anon_kb()
    print(f"load_verify {gb / load_s:.3f} GB/s")
    print(f"load_extra_anon_memory {100.0 * (anon_after - anon_before) * 1024 / (gb * 1e9):.2f} %_of_state")
    del kept
    os.remove(path)


if __name__ == "__main__":
    torch.set_num_threads(2)
    main()
