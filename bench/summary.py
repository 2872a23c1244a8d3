"""Prints bench/run.sh's results as markdown tables: every workload with each side at its best
thread setting, the ratios Ember/PyTorch and the issue's targets; then each thread setting; then
the checkpoint details. Standard library only.
    python summary.py RESULTS_DIR
RESULTS_DIR holds SIDE.THREADS files (SIDE: ember-cpp, torch-cpp, ember-py, torch-py; THREADS: 1,
2, io for the checkpoint runs, gpu for the GPU rows, dist for the distributed ones, sweepN for the
convolution shape sweep at N threads, or contendedN for the C++ training steps with N busy processes
competing, at default threads), each of "name value unit" lines. The contended table checks issue
14's target: with 1 and with 2 busy processes, Ember's step at most 2x its quiet step and faster
than PyTorch's contended step.
"""
import datetime
import importlib.metadata
import math
import os
import subprocess
import sys

SIDES = ("ember-cpp", "torch-cpp", "ember-py", "torch-py")
HEADS = ("Ember C++", "PyTorch C++", "Ember Python", "PyTorch Python")
RATES = ("GFLOP/s", "GB/s")  # higher is better; every other unit is a time
# (name, label, speed-up over PyTorch that the issue asks for: 1.0 is "not slower")
WORKLOADS = [
    ("op_forward", "per-op overhead, forward (µs/op)", None),
    ("op_forward_backward", "per-op overhead, forward+backward (µs/op)", None),
    ("chain100k_backward", "100k-op chain, backward (µs/op)", None),
    ("matmul1024", "1024² float32 matmul (GFLOP/s)", None),
    ("matmul1024_bfloat16", "1024² bfloat16 matmul (GFLOP/s)", 1.0),
    ("matmul1024_float16", "1024² float16 matmul (GFLOP/s)", 1.0),
    ("mul_exp_1m_bfloat16", "(a * b).exp_() of 1M bfloat16 (ms)", None),
    ("mul_exp_1m_float16", "(a * b).exp_() of 1M float16 (ms)", None),
    ("fft_rfft_64x4096", "rfft of 64 real signals of 4096 (ms)", None),
    ("fft_fft2_8x256x256", "fft2 of 8 complex 256x256 images (ms)", None),
    ("fft_ifft_256x1040", "ifft of 256 complex signals of 1040 = 2^4 5 13 (ms)", None),
    ("per_sample_grads_mlp_b64_vmap", "per-sample gradients, MLP, batch 64, vmap(grad) (ms)", None),
    ("per_sample_grads_mlp_b64_loop", "per-sample gradients, MLP, batch 64, loop of backward (ms)", None),
    ("per_sample_grads_cnn_b64_vmap", "per-sample gradients, tutorial CNN, batch 64, vmap(grad) (ms)", None),
    ("per_sample_grads_cnn_b64_loop", "per-sample gradients, tutorial CNN, batch 64, loop of backward (ms)", None),
    ("mlp_forward_b1_eager", "16-16-16-10 MLP forward, batch 1, eager (µs)", None),
    ("mlp_forward_b1_traced", "the same forward traced (ember.jit / torch.jit.trace) (µs)", None),
    ("mlp_step_b64_sgd", "MLP step, batch 64, SGD (ms)", 1.6),
    ("mlp_step_b64_adam", "MLP step, batch 64, Adam (ms)", 1.6),
    ("mlp_step_b512_sgd", "MLP step, batch 512, SGD (ms)", 1.4),
    ("mlp_step_b512_adam", "MLP step, batch 512, Adam (ms)", 1.4),
    ("mlp_products_b64", "MLP step's products alone, batch 64 (ms)", None),
    ("mlp_products_b512", "MLP step's products alone, batch 512 (ms)", None),
    ("cnn_step_b64_adam", "CNN step, batch 64, Adam (ms)", 1.35),
    ("resnet18_step_b32_sgd", "ResNet-18 step, 32x32, batch 32, SGD (ms)", 1.3),
    ("resnet18_step_b32_sgd_autocast_bf16", "the ResNet-18 step under autocast to bfloat16 (ms)", None),
    ("resnet18tv_step_32px_b32_sgd", "torchvision's ResNet-18 (7x7 stem, max pool) step, 32x32, batch 32 (ms)", 1.25),
    ("resnet18tv_step_224px_b8_sgd", "torchvision's ResNet-18 step, 224x224, batch 8 (ms)", 1.25),
    ("resnet50_step_224px_b4_sgd", "torchvision's ResNet-50 step, 224x224, batch 4 (ms)", 1.25),
    ("mobilenetv2_step_224px_b8_sgd", "torchvision's MobileNetV2 step, 224x224, batch 8 (ms)", 1.25),
    ("mobilenetv2_step_32px_b32_sgd", "torchvision's MobileNetV2 step, 32x32, batch 32 (ms)", 1.25),
    ("gpt_step_b16_adamw", "GPT step (2x128, 4 heads, block 64), batch 16, AdamW (ms)", 1.3),
    ("gpt_step_b16_adamw_traced", "the GPT step through its traced program (ms)", None),
    ("gpt_step_b16_adamw_program", "the Python GPT's program loaded and stepped from C++ (ms)", None),
    ("gpt_step_b16_adamw_bf16", "the GPT step with the model in bfloat16 (ms)", None),
    ("gpt_step_b16_adamw_autocast_bf16", "the GPT step under autocast to bfloat16 (ms)", None),
    ("lstm_lm_step_sgd", "LSTM language model step, 2x200, batch 20, bptt 35, SGD (ms)", 1.3),
    ("transformer_lm_step_sgd", "the same example's Transformer model step, 2x200, 2 heads (ms)", 1.25),
    ("mlp_epoch_b64_sgd", "Fashion-MNIST epoch, MLP, batch 64, SGD (s)", 1.0),
    ("step_overhead_sgd", "per-step overhead: 16-16-16-10 MLP, batch 1, SGD (ms)", 1.0),
    ("step_overhead_adam", "per-step overhead: 16-16-16-10 MLP, batch 1, Adam (ms)", 1.0),
    ("save_nofsync", "checkpoint save, no fsync (GB/s)", None),
    ("save_fsync", "checkpoint save, fsync (GB/s)", None),
    ("load_verify", "checkpoint open + verify (GB/s)", None),
]


def load(folder):
    """{side: {threads: {name: (value, unit)}}}."""
    results = {side: {} for side in SIDES}
    for file in sorted(os.listdir(folder)):
        side, _, threads = file.partition(".")
        if side in results and threads:
            with open(os.path.join(folder, file)) as f:
                results[side][threads] = {n: (float(v), u) for n, v, u in map(str.split, f)}
    return results


def cost(entry):
    return 1 / entry[0] if entry[1] in RATES else entry[0]


def best(runs, name):
    """(value, unit, threads) at the thread setting where `name` is fastest, or None."""
    found = [(*r[name], t) for t, r in runs.items() if name in r and not t.startswith("contended")]
    return min(found, key=cost, default=None)


def ratio(ember, torch):
    """Ember's cost / PyTorch's (below 1: Ember is faster), or None."""
    return cost(ember) / cost(torch) if ember and torch else None


def cell(entry):
    """value, and in brackets the thread setting where best() chose one."""
    if entry is None:
        return "—"
    return f"{entry[0]:.4g}" + (f" ({entry[2]})" if entry[2:] and entry[2] != "io" else "")


def times(r, mark=""):
    return "—" if r is None else f"{r:.2f}x{mark}"


def table(heads, rows):
    print("| " + " | ".join(heads) + " |")
    print("|" + "|".join("-" * (len(h) + 2) for h in heads) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()


def machine():
    with open("/proc/cpuinfo") as f:
        info = f.read()
    model = next((line.split(":", 1)[1].strip() for line in info.splitlines()
                  if line.startswith("model name")), "?")
    flags = next((line.split(":", 1)[1].split() for line in info.splitlines() if line.startswith("flags")), [])
    # The vector extensions a GEMM kernel can use: tables are kept per kind of machine.
    wanted = [("avx512f", "AVX-512F"), ("avx512bw", "AVX-512BW"), ("avx512_vnni", "AVX-512 VNNI"),
              ("avx512_bf16", "AVX-512 BF16"), ("amx_tile", "AMX"), ("avx2", "AVX2"), ("fma", "FMA")]
    vector = ", ".join(label for flag, label in wanted if flag in flags) or "no AVX2"
    here = os.path.dirname(os.path.abspath(__file__))
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True,
                            text=True, cwd=here).stdout.strip()
    # Settings that make this machine stand in for one with fewer vector extensions (bench/run.sh).
    isa = [f"{k}={os.environ[k]}" for k in ("BENCH_MARCH", "DNNL_MAX_CPU_ISA", "ONEDNN_MAX_CPU_ISA",
                                            "ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS") if k in os.environ]
    return (f"{os.cpu_count()} cores ({model}; {vector}), {datetime.date.today()}, Ember "
            f"{commit or '?'}, torch {importlib.metadata.version('torch')} from PyPI (its libtorch "
            "for C++)" + (f", run with {' '.join(isa)}" if isa else ""))


# Floating-point work of one MLP training step (784-256-128-10, bench/cpp_bench.cpp's kMLP): each
# layer's product forward and its weight gradient, and the input gradient of every layer but the
# first (the data needs none), 2 flops per multiply-add; the element-wise work is negligible.
MLP_WIDTHS = (784, 256, 128, 10)


def mlp_step_flops(batch):
    pairs = list(zip(MLP_WIDTHS, MLP_WIDTHS[1:]))
    return 2 * batch * (2 * sum(i * o for i, o in pairs) + sum(i * o for i, o in pairs[1:]))


# cpp_bench.cpp's GPT (kGpt) and LSTM language model (kLm*): the floating-point work of their
# products, forward and both gradients (three times the forward's), attention's counted in full.
GPT = dict(vocab=256, block=64, layers=2, width=128, batch=16)
LM = dict(vocab=10000, width=200, layers=2, steps=35, batch=20)


def gpt_step_flops():
    n, c = GPT["batch"] * GPT["block"], GPT["width"]
    per_layer = 2 * n * 12 * c * c + 4 * GPT["batch"] * GPT["block"] ** 2 * c  # 4 linear layers; QK^T, PV
    return 3 * (GPT["layers"] * per_layer + 2 * n * c * GPT["vocab"])


def lstm_step_flops():
    n, h = LM["steps"] * LM["batch"], LM["width"]
    return 3 * (LM["layers"] * 2 * n * 2 * h * 4 * h + 2 * n * h * LM["vocab"])  # gates of x and h; decoder


STEP_FLOPS = {"mlp_step_b64_sgd": lambda: mlp_step_flops(64), "mlp_step_b64_adam": lambda: mlp_step_flops(64),
              "mlp_step_b512_sgd": lambda: mlp_step_flops(512), "mlp_step_b512_adam": lambda: mlp_step_flops(512),
              "gpt_step_b16_adamw": gpt_step_flops, "lstm_lm_step_sgd": lstm_step_flops}


def gemm_floor(results):
    """The GEMM-bound steps against what their products alone take at the run's best GEMM rate."""
    rates = [best(results[side], "matmul1024") for side in SIDES]
    rates = [r for r in rates if r]
    if not rates:
        return
    rate = max(r[0] for r in rates)
    # The FMA peak of the widest registers the GEMM may use (DNNL_MAX_CPU_ISA=AVX2: ymm).
    avx2_only = os.environ.get("DNNL_MAX_CPU_ISA", "").upper().startswith("AVX2")
    peak = best(results["ember-cpp"], "fma_peak_ymm" if avx2_only else "fma_peak_zmm") or \
        best(results["ember-cpp"], "fma_peak_ymm")
    at_peak = f"; at the cores' FMA peak ({peak[0]:.4g} GFLOP/s, {peak[2]} threads) they take the second floor" \
        if peak else ""
    print(f"The MLP, GPT and LSTM steps are GEMM-bound: their products alone, at the best 1024² matmul rate of "
          f"this run ({rate:.4g} GFLOP/s, any side, any thread setting), take the floor below{at_peak}; the "
          "MLP's products alone as each library runs them, with the step's shapes, are the \"products\" rows "
          "above; the target is PyTorch's C++ step divided by the speed-up asked for, and \"outside the "
          "products\" is what each step spends beyond the floor.\n")
    rows = []
    for name, label, target in WORKLOADS:
        if name not in STEP_FLOPS:
            continue
        flops = STEP_FLOPS[name]()
        floor = flops / rate / 1e6
        ember, torch = best(results["ember-cpp"], name), best(results["torch-cpp"], name)
        products = best(results["ember-cpp"], "mlp_products_b" + name.split("_b")[1].split("_")[0]) \
            if name.startswith("mlp_step_") else None
        goal = torch[0] / target if torch else None
        outside = lambda r: f"{max(r[0] - floor, 0):.4g}" if r else "—"
        rows.append([label, f"{flops / 1e6:.4g}", f"{floor:.4g}", f"{flops / peak[0] / 1e6:.4g}" if peak else "—",
                     cell(products), cell(ember), outside(ember), cell(torch), outside(torch),
                     f"{goal:.4g}" if goal else "—", f"{goal / floor:.2f}x" if goal else "—"])
    table(["workload", "MFLOP per step", "floor (ms)", "at the FMA peak (ms)", "Ember's products alone",
           "Ember C++", "Ember outside the products (ms)", "PyTorch C++", "PyTorch outside (ms)", "target (ms)",
           "target / floor"], rows)


CONTENDED = ["mlp_step_b64_sgd", "mlp_step_b64_adam", "mlp_step_b512_sgd", "mlp_step_b512_adam",
             "cnn_step_b64_adam"]


def contended(results):
    """The C++ training steps with 0, 1 and 2 busy processes (mean ms/step, default threads)."""
    e, t = results["ember-cpp"], results["torch-cpp"]
    if "contended0" not in e or "contended0" not in t:
        return
    print("A busy machine: C++ training steps (mean ms/step over 3 s, each library at its default "
          "threads) with 0, 1 and 2 CPU-bound processes competing; in brackets, x its quiet step. "
          "Target: Ember's contended step at most 2x its quiet one and faster than PyTorch's. "
          "Ember's quiet step on 1 thread, in brackets x its default quiet step, bounds the step "
          "with 2 busy processes from below where the cores are 2: fair scheduling then gives the "
          "process's 2 threads one core between them.\n")
    labels = {name: label for name, label, _ in WORKLOADS}
    one_thread = e.get("contended0t1", {})
    rows = []
    for name in CONTENDED:
        try:
            ev = [e[f"contended{b}"][name][0] for b in range(3)]
            tv = [t[f"contended{b}"][name][0] for b in range(3)]
        except KeyError:
            continue
        fmt = lambda v, q: f"{v:.3g} ({v / q:.2f}x)"
        met = all(ev[b] <= 2 * ev[0] and ev[b] < tv[b] for b in (1, 2))
        floor = fmt(one_thread[name][0], ev[0]) if name in one_thread else "—"
        rows.append([labels[name], f"{ev[0]:.3g}", fmt(ev[1], ev[0]), fmt(ev[2], ev[0]), floor, f"{tv[0]:.3g}",
                     fmt(tv[1], tv[0]), fmt(tv[2], tv[0]), "yes" if met else "no"])
    table(["workload", "Ember quiet", "Ember, 1 busy", "Ember, 2 busy", "Ember quiet, 1 thread", "PyTorch quiet",
           "PyTorch, 1 busy", "PyTorch, 2 busy", "met"], rows)


GPU = [("gpu_matmul1024", "1024² float32 matmul (GFLOP/s)"), ("gpu_matmul4096", "4096² float32 matmul (GFLOP/s)"),
       ("gpu_add_16m", "add of 16M float32 (GB/s)"), ("gpu_sum_16m", "sum of 16M float32 (GB/s)"),
       ("gpu_host_to_device_64mb", "64 MB host to device (GB/s)"),
       ("gpu_mlp_step_b512_adam", "MLP step, batch 512, Adam (ms)"),
       ("gpu_cnn_step_b64_adam", "CNN step, batch 64, Adam (ms)")]


def gpu(results):
    """The GPU rows (bench/gpu_bench.py), when the run had a GPU."""
    e, t = results["ember-py"].get("gpu"), results["torch-py"].get("gpu")
    if not e:
        return
    print("On the GPU (cuda:0, from Python; ratio = Ember's time / PyTorch's, rates inverted):\n")
    rows = [[label, cell(e.get(name)), cell((t or {}).get(name)), times(ratio(e.get(name), (t or {}).get(name)))]
            for name, label in GPU]
    table(["workload", "Ember", "PyTorch", "ratio"], rows)


def dist(results):
    """The distributed rows (bench/dist_bench.cpp): issue 17's allreduce target, 1 against 2 ranks."""
    d = results["ember-cpp"].get("dist")
    if not d:
        return
    print("Distributed (Gloo over loopback): collectives of float32 through Ember's process group against "
          "Gloo's own calls on a context of its own, at 2 and 4 ranks (GB/s of the buffer; target at least 0.9x of "
          "Gloo). Gloo has no function-style reduce-scatter: Ember's ring is set against Gloo's allreduce of "
          "the same buffer, what a reduce-scatter over allreduce costs. And DDP training steps, global batch "
          "64 split over the ranks:\n")
    rows = []
    for world in (2, 4):
        for mb in (25, 100):
            for op, gloo_name in (("allreduce", "gloo"), ("allgather", "gloo"), ("reduce_scatter", "gloo_allreduce")):
                e, g = d.get(f"{op}_{mb}mb_ember_world{world}"), d.get(f"{op}_{mb}mb_{gloo_name}_world{world}")
                if e and g:
                    share = e[0] / g[0]
                    rows.append([f"{op} {mb} MB (GB/s), {world} ranks", f"{e[0]:.4g}", f"{g[0]:.4g}",
                                 f"{share:.2f}x", "yes" if share >= 0.9 else "no"])
    table(["collective", "Ember", "Gloo", "Ember / Gloo", "met (>= 0.9x)"], rows)
    fsdp_rows = []
    for world in (1, 2, 4):
        ddp = d.get(f"ddp_mlp8x1024_step_world{world}")
        ddp_peak = d.get(f"ddp_mlp8x1024_step_peak_world{world}")
        fsdp = d.get(f"fsdp_mlp8x1024_step_world{world}")
        fsdp_peak = d.get(f"fsdp_mlp8x1024_step_peak_world{world}")
        if ddp and ddp_peak:
            fsdp_rows.append([f"{world}", f"{ddp[0]:.4g}", f"{fsdp[0]:.4g}" if fsdp else "-",
                              f"{fsdp[0] / ddp[0]:.2f}x" if fsdp else "-", f"{ddp_peak[0]:.4g}",
                              f"{fsdp_peak[0]:.4g}" if fsdp_peak else "-"])
    if fsdp_rows:
        print("\nFSDP (each Linear a unit) against DDP (one rank: the plain model): an 8 x 1024 MLP, 8.4M "
              "parameters, AdamW, global batch 64; peak memory per rank over the timed steps (the CPU "
              "allocator's statistics; DDP's whole state is 128 MB, the cap a rank must fit is 96 MB):\n")
        table(["ranks", "DDP step (ms)", "FSDP step (ms)", "FSDP / DDP", "DDP peak (MB/rank)",
               "FSDP peak (MB/rank)"], fsdp_rows)
    one, two = d.get("ddp_mlp_steps_world1"), d.get("ddp_mlp_steps_world2")
    if one and two:
        table(["MLP step, SGD (steps/s)", "1 rank, 2 threads", "2 ranks, 1 thread each", "2 ranks / 1"],
              [["784-256-128-10, batch 64", f"{one[0]:.4g}", f"{two[0]:.4g}", f"{two[0] / one[0]:.2f}x"]])


def sweep(results):
    """The convolution shape sweep (bench/conv_sweep.py): per thread setting, the totals, and the
    worst rows, since a total hides the shapes a user's model may consist of."""
    print_head = True
    for threads in ("1", "2"):
        e, t = results["ember-py"].get(f"sweep{threads}"), results["torch-py"].get(f"sweep{threads}")
        if not e or not t:
            continue
        rows = sorted(((e[n][0] / t[n][0], n) for n in e if n in t), reverse=True)
        if print_head:
            print("Convolution shape sweep (forward and both gradients, float32, from Python; the layers of "
                  "torchvision's ResNet-18, ResNet-50, MobileNetV2 and a UNet decoder at 32x32 batch 32, 64x64 "
                  "batch 16 and 224x224 batch 8). Target: no row above 1.1x PyTorch's time.\n")
            print_head = False
        geomean = math.exp(sum(math.log(r) for r, _ in rows) / len(rows))
        total = sum(e[n][0] for _, n in rows) / sum(t[n][0] for _, n in rows)
        over = sum(r > 1.1 for r, _ in rows)
        print(f"{threads} thread(s): {len(rows)} shapes, total time {total:.2f}x PyTorch's, geometric mean "
              f"{geomean:.2f}x, {over} above 1.1x. The worst:\n")
        table(["layer", "Ember (ms)", "PyTorch (ms)", "ratio"],
              [[n.removeprefix("sweep_"), f"{e[n][0]:.4g}", f"{t[n][0]:.4g}", f"{r:.2f}x"] for r, n in rows[:8]])


def main():
    results = load(sys.argv[1])
    print(f"machine: {machine()}\n")
    print("Each side at its faster thread setting, in brackets (checkpoints: 2 threads). Ratio = "
          "Ember's time / PyTorch's in the same language (rates inverted), below 1: Ember is "
          "faster; *: against PyTorch from Python, where C++ has no counterpart.\n")
    rows = []
    for name, label, target in WORKLOADS:
        e_cpp, t_cpp, e_py, t_py = (best(results[side], name) for side in SIDES)
        r_cpp, r_py = ratio(e_cpp, t_cpp or t_py), ratio(e_py, t_py)
        goal = "" if not target else "not slower" if target == 1 else f"{target}x faster"
        met = ["—" if r is None else "yes" if r <= 1 / target else "no"
               for r in (r_cpp, r_py) if target]
        rows.append([label, *map(cell, (e_cpp, t_cpp, e_py, t_py)),
                     times(r_cpp, "" if t_cpp else "*"), times(r_py), goal, " / ".join(met)])
    table(["workload", *HEADS, "C++ ratio", "Python ratio", "target", "met (C++ / Python)"], rows)

    gemm_floor(results)

    print("Each thread setting:\n")
    rows = []
    for name, label, _ in WORKLOADS:
        for threads in ("1", "2"):
            e_cpp, t_cpp, e_py, t_py = (results[side].get(threads, {}).get(name) for side in SIDES)
            if e_cpp or e_py:
                rows.append([label, threads, *map(cell, (e_cpp, t_cpp, e_py, t_py)),
                             times(ratio(e_cpp, t_cpp)), times(ratio(e_py, t_py))])
    table(["workload", "threads", *HEADS, "C++ ratio", "Python ratio"], rows)

    sweep(results)

    contended(results)

    gpu(results)

    dist(results)

    ember, torch = results["ember-cpp"].get("io"), results["torch-py"].get("io")
    if ember and torch:
        print(f"Checkpoints, {ember['state_size'][0]:g} GB of float32 tensors, against torch.save "
              "/ torch.load and a plain write(2) / read(2) of the same bytes (GB/s; ratios of "
              "times, below 1: Ember is faster):\n")
        rows = []
        for name, plain in (("save_nofsync", "plain_write_nofsync"),
                            ("save_fsync", "plain_write_fsync"), ("load_verify", "plain_read")):
            e, t, p = ember[name], torch[name], ember[plain]
            rows.append([name, *(f"{x[0]:.4g}" for x in (e, t, p)), times(ratio(e, t)),
                         times(ratio(e, p))])
        for name in ("save_peak_extra_memory", "load_extra_anon_memory"):
            rows.append([f"{name} (% of the state)", f"{ember[name][0]:.4g}",
                         f"{torch[name][0]:.4g}", "", "", ""])
        table(["metric", "Ember", "torch", "plain", "Ember / torch", "Ember / plain"], rows)
    if ember and "save_blocked_async" in ember:
        print("How long a training loop is held up per save of that state (s): io::save against "
              "io::AsyncSaver (save_async; its first save allocates the copy's buffers):\n")
        sync = ember["save_blocked_sync"]
        table(["save", "blocked (s)", "/ io::save"],
              [[label, f"{ember[name][0]:.4g}", times(ratio(ember[name], sync))]
               for label, name in (("io::save (fsync)", "save_blocked_sync"),
                                   ("save_async, first", "save_blocked_async_first"),
                                   ("save_async", "save_blocked_async"))])


if __name__ == "__main__":
    main()
