"""Per-op overhead from Python, the 1024x1024 float32 matmul, the MLP and CNN training steps and
one Fashion-MNIST epoch of the MLP (read with numpy, the same for both), for Ember or PyTorch (the same code through the same names: Ember's Python API follows PyTorch's). PyTorch
from PyPI links MKL, so this is also the fair matmul reference (Debian's libtorch has no fast BLAS). Prints "name value unit" lines for
bench/python.sh, which runs it once per framework in the same run.
    python python_bench.py ember|torch THREADS
"""
import gzip
import os
import sys
import time

import numpy as np

FASHION = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


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

    # The CNN of tutorials/fashion_mnist (conv 1->16 and 16->32, 3x3 padding 1, each with ReLU and
    # 2x2 max pooling, then 1568-128-10), batch 64, Adam.
    lib.manual_seed(0)
    cnn = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(32 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = optim.Adam(named(cnn), lr=1e-3)
    images, labels = lib.randn(64, 1, 28, 28), lib.randint(0, 10, (64,))

    def cnn_step():
        opt.zero_grad()
        F.cross_entropy(cnn(images), labels).backward()
        opt.step()

    print(f"cnn_step_b64_adam {time_per_call(cnn_step, 1.0) * 1e3:.4g} ms/step")

    # One epoch of the MLP over the 60,000 training images, batch 64, SGD with momentum.
    if os.path.exists(os.path.join(FASHION, "train-images-idx3-ubyte.gz")):
        x = read_idx(os.path.join(FASHION, "train-images-idx3-ubyte.gz")).reshape(-1, 784)
        y = read_idx(os.path.join(FASHION, "train-labels-idx1-ubyte.gz")).astype(np.int64)
        x = lib.from_numpy((x.astype(np.float32) / 255.0 - 0.2860) / 0.3530)
        y = lib.from_numpy(y)
        lib.manual_seed(0)
        model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                              nn.Linear(128, 10))
        opt = optim.SGD(named(model), lr=0.05, momentum=0.9)
        t0 = time.perf_counter()
        for start in range(0, x.shape[0] - 63, 64):
            opt.zero_grad()
            F.cross_entropy(model(x[start:start + 64]), y[start:start + 64]).backward()
            opt.step()
        print(f"mlp_epoch_b64_sgd {time.perf_counter() - t0:.4g} s/epoch")


if __name__ == "__main__":
    main()
