"""Per-op overhead from Python, the 1024x1024 float32 matmul (and bfloat16 and float16 ones), the MLP,
CNN, ResNet-18/50, MobileNetV2, small-GPT and LSTM language-model training steps and one
Fashion-MNIST epoch of the MLP (read with numpy, the same for both), for Ember or PyTorch: the same
code through the same names, as Ember's Python API follows PyTorch's. bench/cpp_bench.cpp runs the
same workloads in C++; keep the two in step. Prints "name value unit" lines for bench/run.sh.
    python python_bench.py ember|torch THREADS
"""
import gzip
import os
import sys
import time

import numpy as np

import vision_models

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
    """The best round's time per call. A call longer than a round (PyTorch's emulated bfloat16 steps
    on a CPU without bfloat16: half a minute each) gets one warm-up, and rounds stop at twice the
    budget after 3: the full count took such a row 12 minutes."""
    t0 = time.perf_counter()
    fn()
    slow = time.perf_counter() - t0 > budget / ROUNDS
    for _ in range(0 if slow else 2):
        fn()
    best, start = float("inf"), time.perf_counter()
    for done in range(ROUNDS):
        if slow and done >= 3 and time.perf_counter() - start > 2 * budget:
            break
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


def mlp_layers(nn, w):
    return nn.Sequential(nn.Linear(w[0], w[1]), nn.ReLU(), nn.Linear(w[1], w[2]), nn.ReLU(), nn.Linear(w[2], w[3]))


def gpt_model(lib, vocab=256, block=64, layers=2, heads=4, width=128):
    """bench/cpp_bench.cpp's GPT: nanoGPT's pre-norm decoder with scaled_dot_product_attention."""
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.c_attn, self.c_proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.c_fc, self.mlp_proj = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = (y.view(b, t, heads, c // heads).transpose(1, 2)
                       for y in self.c_attn(self.ln_1(x)).split(c, dim=2))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.c_proj(y.transpose(1, 2).contiguous().view(b, t, c))
            return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x))))

    class Gpt(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, width), nn.Embedding(block, width)
            self.blocks = nn.ModuleList([Block() for _ in range(layers)])
            self.ln_f = nn.LayerNorm(width)
            self.lm_head = nn.Linear(width, vocab, bias=False)

        def forward(self, idx):
            x = self.wte(idx) + self.wpe(lib.arange(idx.shape[1]))
            for block in self.blocks:
                x = block(x)
            return self.lm_head(self.ln_f(x))

    return Gpt()


def save_gpt_program(path):
    """The GPT below traced (ember.jit.trace) and saved for bench/cpp_bench.cpp to train from C++."""
    import ember as lib
    lib.manual_seed(0)
    gpt = gpt_model(lib)
    lib.jit.save(lib.jit.trace(gpt, lib.randint(0, 256, (16, 64))), path)


def main():
    if sys.argv[1] == "ember-gpt-program":
        save_gpt_program(sys.argv[2])
        return
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

    # The same product and elementwise work in bfloat16 and float16 (issue 28): both libraries compute
    # in float32 registers and round once; where the CPU has no 16-bit dot product, PyTorch falls back
    # to a reference kernel and Ember to its float32 GEMM.
    with lib.no_grad():
        for dtype in ("bfloat16", "float16"):
            d = getattr(lib, dtype)
            m16, n16 = m.to(d), n.to(d)
            t = time_per_call(lambda: m16 @ n16, 1.5)
            print(f"matmul1024_{dtype} {2.0 * 1024 ** 3 / t / 1e9:.4g} GFLOP/s")
            big, other = lib.randn(1 << 20).to(d), lib.randn(1 << 20).to(d)
            t = time_per_call(lambda: (big * other).exp_(), 1.0)
            print(f"mul_exp_1m_{dtype} {t * 1e3:.4g} ms")

    # Discrete Fourier transforms (issue 32): a batch of real signals (power of 2), a batch of complex
    # images, and a length with a prime factor of 13 (1000 = 2^3 5^3 is all small radices; 1040 = 2^4 5 13).
    with lib.no_grad():
        signals = lib.randn(64, 4096)
        images = lib.randn(8, 256, 256).to(lib.complex64)
        odd = lib.randn(256, 1040).to(lib.complex64)
        print(f"fft_rfft_64x4096 {time_per_call(lambda: lib.fft.rfft(signals), 1.0) * 1e3:.4g} ms")
        print(f"fft_fft2_8x256x256 {time_per_call(lambda: lib.fft.fft2(images), 1.0) * 1e3:.4g} ms")
        print(f"fft_ifft_256x1040 {time_per_call(lambda: lib.fft.ifft(odd), 1.0) * 1e3:.4g} ms")

    # The 16-wide MLP's forward at batch 1, eager and traced into a program: what replaying a program
    # costs per call (torch.jit.trace's TorchScript interpreter on the PyTorch side).
    lib.manual_seed(0)
    tiny = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 10))
    tiny_x = lib.randn(1, 16)
    tiny_traced = lib.jit.trace(tiny, tiny_x)
    with lib.no_grad():
        print(f"mlp_forward_b1_eager {time_per_call(lambda: tiny(tiny_x)) * 1e6:.4g} us")
        print(f"mlp_forward_b1_traced {time_per_call(lambda: tiny_traced(tiny_x)) * 1e6:.4g} us")

    # The 784-256-128-10 MLP at batch 64 and 512, and the same layers 16 wide at batch 1, where
    # the step is all overhead; SGD (lr 0.01, momentum 0.9) and Adam (lr 1e-3).
    def mlp(w):
        return mlp_layers(nn, w)

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

    # ResNet-18 (torchvision's layout adapted to 32x32 inputs: a 3x3 stem, no max pooling) on
    # 3x32x32 images, batch 32, 10 classes, SGD with momentum and weight decay.
    lib.manual_seed(0)
    net = vision_models.resnet(nn, 18, stem="cifar")
    opt = optim.SGD(named(net), lr=0.1, momentum=0.9, weight_decay=5e-4)
    images, labels = lib.randn(32, 3, 32, 32), lib.randint(0, 10, (32,))
    t = time_per_call(lambda: train_step(net, opt, images, labels, F), 10.0)
    print(f"resnet18_step_b32_sgd {t * 1e3:.4g} ms/step")

    # The same step under autocast to bfloat16: convolutions and the classifier in bfloat16, batch
    # norm and the loss in float32.
    def resnet_step_autocast():
        opt.zero_grad()
        with lib.autocast("cpu", dtype=lib.bfloat16):
            loss = F.cross_entropy(net(images), labels)
        loss.backward()
        opt.step()

    t = time_per_call(resnet_step_autocast, 10.0)
    print(f"resnet18_step_b32_sgd_autocast_bf16 {t * 1e3:.4g} ms/step")

    # torchvision's ResNet-18 as it is (7x7 stride-2 stem, max pool) at 32x32, batch 32, and at
    # 224x224, batch 8: small feature maps (8x8 down to 1x1), then ImageNet's.
    for size, batch, budget in ((32, 32, 10.0), (224, 8, 20.0)):
        lib.manual_seed(0)
        net = vision_models.resnet(nn, 18)
        opt = optim.SGD(named(net), lr=0.1, momentum=0.9, weight_decay=5e-4)
        images, labels = lib.randn(batch, 3, size, size), lib.randint(0, 10, (batch,))
        t = time_per_call(lambda: train_step(net, opt, images, labels, F), budget)
        print(f"resnet18tv_step_{size}px_b{batch}_sgd {t * 1e3:.4g} ms/step")

    # torchvision's ResNet-50 (bottlenecks) at 224x224, batch 4, and MobileNetV2 (depthwise
    # convolutions, ReLU6) at 224x224, batch 8, and at 32x32, batch 32.
    for name, build, size, batch, budget in (
            ("resnet50_step_224px_b4_sgd", lambda: vision_models.resnet(nn, 50), 224, 4, 20.0),
            ("mobilenetv2_step_224px_b8_sgd", lambda: vision_models.mobilenet_v2(nn), 224, 8, 10.0),
            ("mobilenetv2_step_32px_b32_sgd", lambda: vision_models.mobilenet_v2(nn), 32, 32, 5.0)):
        lib.manual_seed(0)
        net = build()
        opt = optim.SGD(named(net), lr=0.1, momentum=0.9, weight_decay=5e-4)
        images, labels = lib.randn(batch, 3, size, size), lib.randint(0, 10, (batch,))
        t = time_per_call(lambda: train_step(net, opt, images, labels, F), budget)
        print(f"{name} {t * 1e3:.4g} ms/step")

    # The GPT's training step: batch 16 of 64 tokens, AdamW lr 3e-4.
    lib.manual_seed(0)
    gpt = gpt_model(lib)
    opt = optim.AdamW(named(gpt), lr=3e-4)
    idx, targets = lib.randint(0, 256, (16, 64)), lib.randint(0, 256, (16, 64))

    def gpt_step():
        opt.zero_grad()
        F.cross_entropy(gpt(idx).view(-1, 256), targets.view(-1)).backward()
        opt.step()

    print(f"gpt_step_b16_adamw {time_per_call(gpt_step, 3.0) * 1e3:.4g} ms/step")

    # The same GPT traced into a program (ember.jit.trace / torch.jit.trace), trained through it.
    traced_gpt = lib.jit.trace(gpt, idx)
    traced_opt = optim.AdamW(named(traced_gpt), lr=3e-4)

    def gpt_step_traced():
        traced_opt.zero_grad()
        F.cross_entropy(traced_gpt(idx).view(-1, 256), targets.view(-1)).backward()
        traced_opt.step()

    print(f"gpt_step_b16_adamw_traced {time_per_call(gpt_step_traced, 3.0) * 1e3:.4g} ms/step")

    # The same step under autocast to bfloat16 (float32 parameters and optimizer, the products in
    # bfloat16, the loss in float32), as PyTorch's mixed-precision recipes train.
    def gpt_step_autocast():
        opt.zero_grad()
        with lib.autocast("cpu", dtype=lib.bfloat16):
            loss = F.cross_entropy(gpt(idx).view(-1, 256), targets.view(-1))
        loss.backward()
        opt.step()

    print(f"gpt_step_b16_adamw_autocast_bf16 {time_per_call(gpt_step_autocast, 3.0) * 1e3:.4g} ms/step")

    # The same step with the model, its optimizer state and its activations in bfloat16 (not
    # autocast: the parameters themselves are bfloat16).
    gpt.to(lib.bfloat16)
    opt = optim.AdamW(named(gpt), lr=3e-4)
    print(f"gpt_step_b16_adamw_bf16 {time_per_call(gpt_step, 3.0) * 1e3:.4g} ms/step")

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

    # The same example's Transformer model at its defaults (tests/compat/transformer_lm.py): 2 encoder
    # layers 200 wide, 2 heads, seq-first under a causal mask, dropout 0.2, log_softmax and NLLLoss,
    # clipping, and its hand-written SGD step at lr 20.
    class TransformerModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Embedding(LM_VOCAB, 200)
            layer = nn.TransformerEncoderLayer(200, 2, 200, 0.2)
            self.transformer_encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.decoder = nn.Linear(200, LM_VOCAB)
            self.register_buffer("pe", lib.randn(35, 1, 200) * 0.1)  # the positional encodings' shape
            self.dropout = nn.Dropout(0.2)

        def forward(self, src, mask):
            x = self.dropout(self.encoder(src) * 200 ** 0.5 + self.pe[:src.size(0)])
            return F.log_softmax(self.decoder(self.transformer_encoder(x, mask)), dim=-1)

    lib.manual_seed(0)
    tlm = TransformerModel()
    mask = nn.Transformer.generate_square_subsequent_mask(35)
    criterion = nn.NLLLoss()

    def transformer_step():
        tlm.zero_grad()
        criterion(tlm(tokens, mask).view(-1, LM_VOCAB), following).backward()
        nn.utils.clip_grad_norm_(tlm.parameters(), 0.25)
        with lib.no_grad():
            for p in tlm.parameters():
                p.add_(p.grad, alpha=-20.0)

    print(f"transformer_lm_step_sgd {time_per_call(transformer_step, 3.0) * 1e3:.4g} ms/step")

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

    # Per-sample gradients (issue 32), as pytorch/tutorials' per_sample_grads computes them: vmap(grad)
    # over a batch of 64 against the tutorial's loop of one backward per sample, for the 784-256-128-10
    # MLP and the tutorial's SimpleCNN (conv 1->32, 32->64, max pool, 9216-128-10, 28x28 inputs).
    # NB: last, as vmap's first use gives the bindings its dispatching overloads (python/src/
    # batched_dispatch.cpp), which cost the calls of some ops a little from then on.
    def per_sample_rows(name, model, inputs):
        targets = lib.randint(0, 10, (inputs.shape[0],))
        params = {k: v.detach() for k, v in model.named_parameters()}

        def loss(p, sample, target):
            out = lib.func.functional_call(model, p, (sample.unsqueeze(0),))
            return F.cross_entropy(out, target.unsqueeze(0))
        vmapped = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))

        def loop():
            grads = []
            for b in range(inputs.shape[0]):
                out = F.cross_entropy(model(inputs[b:b + 1]), targets[b:b + 1])
                grads.append(lib.autograd.grad(out, list(model.parameters())))
            return [lib.stack(g) for g in zip(*grads)]
        print(f"per_sample_grads_{name}_vmap {time_per_call(lambda: vmapped(params, inputs, targets), 2.0) * 1e3:.4g} "
              "ms")
        print(f"per_sample_grads_{name}_loop {time_per_call(loop, 2.0) * 1e3:.4g} ms")

    lib.manual_seed(0)
    per_sample_rows("mlp_b64", mlp_layers(nn, MLP), lib.randn(64, MLP[0]))
    per_sample_rows("cnn_b64", vision_models.tutorial_cnn(nn), lib.randn(64, 1, 28, 28))


if __name__ == "__main__":
    main()
