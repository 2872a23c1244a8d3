"""GPU rows of `make bench`: the same Python code on cuda:0 for Ember or PyTorch (run by bench/run.sh
only where ember.cuda.is_available(); PyTorch's rows need a CUDA build of torch in .venv-bench).
Each workload is timed between device synchronisations; prints "name value unit" lines.
    python gpu_bench.py ember|torch
"""
import sys
import time


def time_per_call(fn, sync, budget=1.0):
    for _ in range(3):
        fn()
    sync()
    best = float("inf")
    for _ in range(10):
        calls = 0
        sync()
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < budget / 10:
            fn()
            calls += 1
        sync()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best


def main():
    name = sys.argv[1]
    if name == "torch":
        import torch as lib
        import torch.nn.functional as F
        named = lambda m: m.parameters()
    else:
        import ember as lib
        import ember.nn.functional as F
        named = lambda m: m.named_parameters()
    if not lib.cuda.is_available():
        print(f"gpu_bench: {name} sees no CUDA device", file=sys.stderr)
        return
    nn, optim, dev = lib.nn, lib.optim, "cuda"
    sync = lib.cuda.synchronize

    with lib.no_grad():
        for n in (1024, 4096):
            a, b = lib.rand(n, n, device=dev), lib.rand(n, n, device=dev)
            t = time_per_call(lambda: a @ b, sync)
            print(f"gpu_matmul{n} {2.0 * n ** 3 / t / 1e9:.4g} GFLOP/s")
        x, y = lib.rand(1 << 24, device=dev), lib.rand(1 << 24, device=dev)
        t = time_per_call(lambda: x + y, sync)
        print(f"gpu_add_16m {3 * 4 * (1 << 24) / t / 1e9:.4g} GB/s")
        t = time_per_call(lambda: x.sum(), sync)
        print(f"gpu_sum_16m {4 * (1 << 24) / t / 1e9:.4g} GB/s")
        h = lib.rand(1 << 24)
        t = time_per_call(lambda: h.to(dev), sync)
        print(f"gpu_host_to_device_64mb {4 * (1 << 24) / t / 1e9:.4g} GB/s")

    def step(model, opt, inputs, targets):
        opt.zero_grad()
        F.cross_entropy(model(inputs), targets).backward()
        opt.step()

    lib.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)).to(dev)
    opt = optim.Adam(named(mlp), lr=1e-3)
    inputs, targets = lib.randn(512, 784).to(dev), lib.randint(0, 10, (512,)).to(dev)
    print(f"gpu_mlp_step_b512_adam {time_per_call(lambda: step(mlp, opt, inputs, targets), sync) * 1e3:.4g} ms/step")
    cnn = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(32 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10)).to(dev)
    opt = optim.Adam(named(cnn), lr=1e-3)
    images, labels = lib.randn(64, 1, 28, 28).to(dev), lib.randint(0, 10, (64,)).to(dev)
    print(f"gpu_cnn_step_b64_adam {time_per_call(lambda: step(cnn, opt, images, labels), sync) * 1e3:.4g} ms/step")


if __name__ == "__main__":
    main()
