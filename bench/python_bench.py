"""Per-op overhead from Python, the 1024x1024 float32 matmul, the MLP, CNN and LSTM language model
training steps and one Fashion-MNIST epoch of the MLP (read with numpy, the same for both), for Ember or PyTorch: the
same code through the same names, as Ember's Python API follows PyTorch's. bench/cpp_bench.cpp
runs the same workloads in C++; keep the two in step. Prints "name value unit" lines for
bench/run.sh.
    python python_bench.py ember|torch THREADS
"""
import gzip
import os
import sys
import time

import numpy as np

FASHION = "/usr/share/datasets/fashion-mnist"
MLP, TINY = (784, 256, 128, 10), (16, 16, 16, 10)  # an MLP's layer widths
LM_VOCAB = 10000  # the LSTM language model's vocabulary


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


ROUNDS = 20  # many short rounds: the best of them is clean even when bursts of other work spoil some
EPOCHS = 3  # the Fashion-MNIST epoch: the best of this many, one after the other


def time_per_call(fn, budget=0.5):
    for _ in range(3):
        fn()
    best = float("inf")
    for _ in range(ROUNDS):
        calls = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < budget / ROUNDS:
            fn()
            calls += 1
        best = min(best, (time.perf_counter() - t0) / calls)
    return best


def train_step(model, opt, inputs, targets, F):
    """Zero the gradients, forward, cross-entropy, backward, update."""
    opt.zero_grad()
    F.cross_entropy(model(inputs), targets).backward()
    opt.step()


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
        lib.set_num_threads(threads)
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

    # The 784-256-128-10 MLP at batch 64 and 512, and the same layers 16 wide at batch 1, where
    # the step is all overhead; SGD (lr 0.01, momentum 0.9) and Adam (lr 1e-3).
    def mlp(w):
        return nn.Sequential(nn.Linear(w[0], w[1]), nn.ReLU(), nn.Linear(w[1], w[2]), nn.ReLU(),
                             nn.Linear(w[2], w[3]))

    for workload, widths, batch in (("mlp_step_b64", MLP, 64), ("mlp_step_b512", MLP, 512),
                                    ("step_overhead", TINY, 1)):
        lib.manual_seed(0)
        model = mlp(widths)
        for opt_name in ("SGD", "Adam"):
            opt = (optim.SGD(named(model), lr=0.01, momentum=0.9) if opt_name == "SGD"
                   else optim.Adam(named(model), lr=1e-3))
            inputs = lib.randn(batch, widths[0])
            targets = lib.randint(0, 10, (batch,))
            t = time_per_call(lambda: train_step(model, opt, inputs, targets, F), 2.0)
            print(f"{workload}_{opt_name.lower()} {t * 1e3:.4g} ms/step")

    # The CNN of tutorials/fashion_mnist (conv 1->16 and 16->32, 3x3 padding 1, each with ReLU and
    # 2x2 max pooling, then 1568-128-10), batch 64, Adam.
    lib.manual_seed(0)
    cnn = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(32 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = optim.Adam(named(cnn), lr=1e-3)
    images, labels = lib.randn(64, 1, 28, 28), lib.randint(0, 10, (64,))
    t = time_per_call(lambda: train_step(cnn, opt, images, labels, F), 2.0)
    print(f"cnn_step_b64_adam {t * 1e3:.4g} ms/step")

    # pytorch/examples' word_language_model at its defaults: 200 wide, 2 LSTM layers, batch 20, 35
    # steps of truncated backpropagation, clipping to norm 0.25, plain SGD at lr 20 (no dropout);
    # a vocabulary of LM_VOCAB words (cpp_bench.cpp's kLm* constants).
    class LanguageModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Embedding(LM_VOCAB, 200)
            self.rnn = nn.LSTM(200, 200, 2)
            self.decoder = nn.Linear(200, LM_VOCAB)

        def forward(self, tokens):
            output, _ = self.rnn(self.encoder(tokens))
            return self.decoder(output).view(-1, LM_VOCAB)

    lib.manual_seed(0)
    lm = LanguageModel()
    opt = optim.SGD(named(lm), lr=20.0)
    tokens, following = lib.randint(0, LM_VOCAB, (35, 20)), lib.randint(0, LM_VOCAB, (35 * 20,))

    def lm_step():
        opt.zero_grad()
        F.cross_entropy(lm(tokens), following).backward()
        nn.utils.clip_grad_norm_(lm.parameters(), 0.25)
        opt.step()

    print(f"lstm_lm_step_sgd {time_per_call(lm_step, 2.0) * 1e3:.4g} ms/step")

    # One epoch of the MLP over the 60,000 training images in order, batch 64, SGD with momentum;
    # the images are standardised beforehand, untimed.
    if os.path.exists(os.path.join(FASHION, "train-images-idx3-ubyte.gz")):
        x = read_idx(os.path.join(FASHION, "train-images-idx3-ubyte.gz")).reshape(-1, 784)
        y = read_idx(os.path.join(FASHION, "train-labels-idx1-ubyte.gz")).astype(np.int64)
        x = lib.from_numpy((x.astype(np.float32) / 255.0 - 0.2860) / 0.3530)
        y = lib.from_numpy(y)
        lib.manual_seed(0)
        model = mlp(MLP)
        opt = optim.SGD(named(model), lr=0.05, momentum=0.9)
        best = float("inf")
        for _ in range(EPOCHS):
            t0 = time.perf_counter()
            for start in range(0, x.shape[0] - 63, 64):
                train_step(model, opt, x[start:start + 64], y[start:start + 64], F)
            best = min(best, time.perf_counter() - t0)
        print(f"mlp_epoch_b64_sgd {best:.4g} s/epoch")


if __name__ == "__main__":
    main()
