"""The same workloads as bench/overhead.cpp, in PyTorch from PyPI (which links MKL): the
per-op overhead of autograd from Python and the 1024x1024 float32 matmul. Prints
"torch_py name value unit" lines for bench/run.sh.
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
    a = torch.rand(4, requires_grad=True)
    b = torch.rand(4, requires_grad=True)

    def forward():
        for _ in range(100):
            a * b

    print(f"torch_py op_forward {time_per_call(forward) / 100 * 1e6:.4g} us/op")
    x = torch.rand(4, requires_grad=True)
    w = torch.rand(4, requires_grad=True)

    def forward_backward():
        y = x
        for _ in range(64):
            y = y * w
        y.sum().backward()

    print(f"torch_py op_forward_backward {time_per_call(forward_backward) / 65 * 1e6:.4g} us/op")
    with torch.no_grad():
        m = torch.rand(1024, 1024)
        n = torch.rand(1024, 1024)
        t = time_per_call(lambda: m @ n, 1.5)
    print(f"torch_py matmul1024 {2.0 * 1024 ** 3 / t / 1e9:.4g} GFLOP/s")


if __name__ == "__main__":
    main()
