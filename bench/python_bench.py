"""Per-op overhead from Python, an MLP training step and the 1024x1024 float32 matmul, for Ember
or PyTorch (the same code through the same names: Ember's Python API follows PyTorch's). PyTorch
from PyPI links MKL, so this is also the fair matmul reference (Debian's libtorch has no fast BLAS). Prints "name value unit" lines for
bench/python.sh, which runs it once per framework in the same run.
    python python_bench.py ember|torch THREADS
"""
import sys
import time


def time_per_call(fn, budget=0.5):
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
    name, threads = sys.argv[1], int(sys.argv[2])
    if name == "torch":
        import torch as lib
        import torch.nn.functional as F
        lib.set_num_threads(threads)
        named = lambda m: m.parameters()
    else:
        import ember as lib
        import ember.nn.functional as F
        named = lambda m: m.named_parameters()  # Ember keys optimizer state by name
    nn, optim = lib.nn, lib.optim

    a = lib.rand(4, requires_grad=True)
    b = lib.rand(4, requires_grad=True)

    def forward():
        for _ in range(100):
            a * b

    print(f"op_forward {time_per_call(forward) / 100 * 1e6:.4g} us/op")
    x = lib.rand(4, requires_grad=True)
    w = lib.rand(4, requires_grad=True)

    def forward_backward():
        y = x
        for _ in range(64):
            y = y * w
        y.sum().backward()

    print(f"op_forward_backward {time_per_call(forward_backward) / 65 * 1e6:.4g} us/op")

    with lib.no_grad():
        m, n = lib.rand(1024, 1024), lib.rand(1024, 1024)
        t = time_per_call(lambda: m @ n, 1.5)
    print(f"matmul1024 {2.0 * 1024 ** 3 / t / 1e9:.4g} GFLOP/s")

    for batch in (64, 512):
        lib.manual_seed(0)
        model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                              nn.Linear(128, 10))
        for opt_name in ("SGD", "Adam"):
            opt = (optim.SGD(named(model), lr=0.01, momentum=0.9) if opt_name == "SGD"
                   else optim.Adam(named(model), lr=1e-3))
            inputs = lib.randn(batch, 784)
            targets = lib.randint(0, 10, (batch,))

            def step():
                opt.zero_grad()
                loss = F.cross_entropy(model(inputs), targets)
                loss.backward()
                opt.step()

            print(f"mlp_step_b{batch}_{opt_name.lower()} {time_per_call(step, 1.0) * 1e3:.4g} ms/step")


if __name__ == "__main__":
    main()
