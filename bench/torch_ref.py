"""The 1024x1024 float32 matmul of bench/overhead.cpp in PyTorch from PyPI, which links MKL
(Debian's libtorch has no fast BLAS). Prints "torch_py name value unit" lines for bench/run.sh;
Python-side overheads are measured by bench/python_bench.py.
    python torch_ref.py THREADS
"""
import sys
import time

import torch


def time_per_call(fn, budget=0.3):
    for _ in range(3):
        fn()
    best = float("inf")
    for _ in range(5):
        calls = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < budget / 5:
            fn()
            calls += 1
        best = min(best, (time.perf_counter() - t0) / calls)
    return best


def main():
    threads = int(sys.argv[1])
    torch.set_num_threads(threads)
    print(f"torch_py threads {threads}")
    with torch.no_grad():
        m = torch.rand(1024, 1024)
        n = torch.rand(1024, 1024)
        t = time_per_call(lambda: m @ n, 1.5)
    print(f"torch_py matmul1024 {2.0 * 1024 ** 3 / t / 1e9:.4g} GFLOP/s")


if __name__ == "__main__":
    main()
