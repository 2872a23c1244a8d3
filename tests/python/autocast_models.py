"""Two small models written once over `lib` (torch or ember), for the autocast model fixture
(tests/fixtures/make_autocast_model_fixtures.py writes PyTorch's results, test_autocast_models.py
replays them in Ember): a CNN (convolution, batch norm, ReLU, max and average pooling, linear) and a
GPT (embedding, layer norm, attention, GELU, linear). Same parameter names in both libraries."""


def cnn(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 16, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))


def gpt(lib, vocab=64, block=16, width=16, heads=2, layers=2):
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.attn, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.fc, self.fc_proj = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = (y.view(b, t, heads, c // heads).transpose(1, 2) for y in self.attn(self.ln_1(x)).split(c, dim=2))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
            return x + self.fc_proj(F.gelu(self.fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, width), nn.Embedding(block, width)
            self.blocks = nn.ModuleList([Block() for _ in range(layers)])
            self.ln_f = nn.LayerNorm(width)
            self.head = nn.Linear(width, vocab, bias=False)

        def forward(self, idx):
            x = self.wte(idx) + self.wpe(lib.arange(idx.shape[1]))
            for b in self.blocks:
                x = b(x)
            return self.head(self.ln_f(x))

    return GPT()


MODELS = {"cnn": cnn, "gpt": gpt}
