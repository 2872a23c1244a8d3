"""The convolution shape sweep of `make bench` (issue 29): every distinct convolution layer of
torchvision's ResNet-18, ResNet-50 and MobileNetV2 (depthwise) and of a UNet-like decoder
(ConvTranspose2d), at 32x32 (batch 32), 64x64 (batch 16) and 224x224 (batch 8) inputs, for Ember or
PyTorch: the forward pass and both gradients (the input's but for a model's first layer, whose
input is the image), in float32. Prints "name value unit" lines for bench/run.sh, one per layer:
    python conv_sweep.py ember|torch THREADS [SIZES...]
The layer lists are written out from torchvision's definitions (torchvision is not installed).
"""
import sys
import time

SIZES = {32: 32, 64: 16, 224: 8}  # input size: batch


def out_size(size, k, s, p):
    return (size + 2 * p - k) // s + 1


class Layers:
    """Distinct convolution layers as (c_in, c_out, kernel, stride, padding, groups, size, first,
    transposed), size being the input's spatial size."""

    def __init__(self):
        self.seen, self.rows = set(), []

    def add(self, c_in, c_out, k, s, p, size, groups=1, first=False, transposed=False):
        row = (c_in, c_out, k, s, p, groups, size, first, transposed)
        if row not in self.seen:
            self.seen.add(row)
            self.rows.append(row)
        if transposed:
            return (size - 1) * s - 2 * p + k
        return out_size(size, k, s, p)


def stem(layers, size):
    """torchvision's ResNet stem: 7x7 stride-2 convolution, then a 3x3 stride-2 max pool."""
    size = layers.add(3, 64, 7, 2, 3, size, first=True)
    return out_size(size, 3, 2, 1)


def resnet18(size):
    layers = Layers()
    size, c = stem(layers, size), 64
    for width, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        for block in range(2):
            s = stride if block == 0 else 1
            if s != 1 or c != width:
                layers.add(c, width, 1, s, 0, size)
            mid = layers.add(c, width, 3, s, 1, size)
            layers.add(width, width, 3, 1, 1, mid)
            size, c = mid, width
    return layers.rows


def resnet50(size):
    layers = Layers()
    size, c = stem(layers, size), 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for block in range(blocks):
            s = stride if block == 0 else 1
            if s != 1 or c != width * 4:
                layers.add(c, width * 4, 1, s, 0, size)
            layers.add(c, width, 1, 1, 0, size)
            mid = layers.add(width, width, 3, s, 1, size)  # torchvision's v1.5: the stride on the 3x3
            layers.add(width, width * 4, 1, 1, 0, mid)
            size, c = mid, width * 4
    return layers.rows


def mobilenet_v2(size):
    layers = Layers()
    size, c = layers.add(3, 32, 3, 2, 1, size, first=True), 32
    for t, width, n, stride in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                                (6, 160, 3, 2), (6, 320, 1, 1)):
        for block in range(n):
            hidden = c * t
            if t != 1:
                layers.add(c, hidden, 1, 1, 0, size)
            mid = layers.add(hidden, hidden, 3, stride if block == 0 else 1, 1, size, groups=hidden)
            layers.add(hidden, width, 1, 1, 0, mid)
            size, c = mid, width
    layers.add(c, 1280, 1, 1, 0, size)
    return layers.rows


def unet_decoder(size):
    """A UNet decoder from a 1/16 bottleneck: 2x2 stride-2 transposed convolutions, each followed by
    two 3x3 convolutions over the upsampled map concatenated with the skip connection."""
    layers = Layers()
    size = size // 16
    for c in (512, 256, 128, 64):
        size = layers.add(c, c // 2, 2, 2, 0, size, transposed=True)
        layers.add(c, c // 2, 3, 1, 1, size)
        layers.add(c // 2, c // 2, 3, 1, 1, size)
    return layers.rows


MODELS = {"resnet18": resnet18, "resnet50": resnet50, "mobilenetv2": mobilenet_v2, "unet": unet_decoder}


def time_layer(lib, row, batch, reps=5, budget=0.5):
    """The best of `reps` rounds (each at least `budget` / reps seconds) of forward + backward, in ms."""
    c_in, c_out, k, s, p, groups, size, first, transposed = row
    F = lib.nn.functional
    lib.manual_seed(0)
    x = lib.randn(batch, c_in, size, size, requires_grad=not first)
    if transposed:
        w = lib.randn(c_in, c_out // groups, k, k, requires_grad=True)
        conv = lambda: F.conv_transpose2d(x, w, None, s, p, 0, groups)
    else:
        w = lib.randn(c_out, c_in // groups, k, k, requires_grad=True)
        conv = lambda: F.conv2d(x, w, None, s, p, 1, groups)
    g = lib.randn(*conv().shape)

    def step():
        conv().backward(g)

    step()
    best = float("inf")
    for _ in range(reps):
        calls, t0 = 0, time.perf_counter()
        while calls == 0 or time.perf_counter() - t0 < budget / reps:
            step()
            calls += 1
        best = min(best, (time.perf_counter() - t0) / calls)
    return best * 1e3


def name_of(model, size, row):
    c_in, c_out, k, s, p, groups, layer_size, first, transposed = row
    kind = "convT" if transposed else ("dw" if groups == c_in and groups > 1 else "conv")
    return f"sweep_{model}_{size}px_{kind}{k}x{k}s{s}_{c_in}to{c_out}_at{layer_size}"


def main():
    which, threads = sys.argv[1], int(sys.argv[2])
    sizes = [int(a) for a in sys.argv[3:]] or list(SIZES)
    lib = __import__("torch" if which == "torch" else "ember")
    lib.set_num_threads(threads)
    for size in sizes:
        for model, layers in MODELS.items():
            for row in layers(size):
                print(f"{name_of(model, size, row)} {time_layer(lib, row, SIZES[size]):.4g} ms", flush=True)


if __name__ == "__main__":
    main()
