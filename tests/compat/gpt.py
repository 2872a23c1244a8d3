import ember as torch
import argparse
import json
import math

import ember.nn as nn
from ember.nn import functional as F

# A small GPT (decoder-only transformer) trained as nanoGPT's train.py trains one: weight tying
# between the token embedding and the output layer, AdamW with parameter groups (weight decay on
# matrices only), gradient clipping, a warmup + cosine learning-rate schedule written by hand, and
# checkpoints holding the model, optimizer, iteration and config. The same code runs under PyTorch
# with `import torch` as its first line; only the data source differs (a tensor file of tokens).


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout):
        super().__init__()
        assert n_embd % n_head == 0
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        self.n_head = n_head
        self.n_embd = n_embd
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        y = self.resid_dropout(self.c_proj(y))
        return y


class MLP(nn.Module):
    def __init__(self, n_embd, dropout):
        super().__init__()
        self.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * n_embd, n_embd)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size, dropout)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = MLP(n_embd, dropout)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_layer, n_head, n_embd, dropout):
        super().__init__()
        self.block_size = block_size
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab_size, n_embd),
            wpe=nn.Embedding(block_size, n_embd),
            drop=nn.Dropout(dropout),
            h=nn.ModuleList([Block(n_embd, n_head, block_size, dropout) for _ in range(n_layer)]),
            ln_f=nn.LayerNorm(n_embd),
        ))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith('c_proj.weight'):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        assert t <= self.block_size
        pos = torch.arange(0, t, dtype=torch.long)
        tok_emb = self.transformer.wte(idx)
        pos_emb = self.transformer.wpe(pos)
        x = self.transformer.drop(tok_emb + pos_emb)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        logits = self.lm_head(x)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        param_dict = {pn: p for pn, p in self.named_parameters() if p.requires_grad}
        decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
        nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
        optim_groups = [
            {'params': decay_params, 'weight_decay': weight_decay},
            {'params': nodecay_params, 'weight_decay': 0.0},
        ]
        return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas)


def get_lr(it, learning_rate, warmup_iters, lr_decay_iters, min_lr):
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    if it > lr_decay_iters:
        return min_lr
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)


def main():
    parser = argparse.ArgumentParser(description='A small GPT in the nanoGPT style')
    parser.add_argument('--data', required=True, help='a file holding {"tokens": int64 [N]}')
    parser.add_argument('--init', help='a state dict to start from')
    parser.add_argument('--max-iters', type=int, default=200)
    parser.add_argument('--batch-size', type=int, default=8)
    parser.add_argument('--block-size', type=int, default=32)
    parser.add_argument('--n-layer', type=int, default=2)
    parser.add_argument('--n-head', type=int, default=4)
    parser.add_argument('--n-embd', type=int, default=64)
    parser.add_argument('--dropout', type=float, default=0.1)
    parser.add_argument('--lr', type=float, default=1e-3)
    parser.add_argument('--lr-decay-iters', type=int, help='where the cosine decay ends (default: --max-iters)')
    parser.add_argument('--out', help='checkpoint path')
    parser.add_argument('--resume', action='store_true')
    parser.add_argument('--losses-out')
    parser.add_argument('--sequential-batches', action='store_true', help='take batches in order (no sampling)')
    parser.add_argument('--seed', type=int, default=1337)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    tokens = torch.load(args.data, weights_only=True)["tokens"]
    vocab_size = int(tokens.max().item()) + 1

    def get_batch(it):
        if args.sequential_batches:
            starts = [(it * args.batch_size + i) * args.block_size % (len(tokens) - args.block_size - 1)
                      for i in range(args.batch_size)]
            ix = torch.tensor(starts)
        else:
            ix = torch.randint(len(tokens) - args.block_size - 1, (args.batch_size,))
        x = torch.stack([tokens[i:i + args.block_size] for i in ix.tolist()])
        y = torch.stack([tokens[i + 1:i + 1 + args.block_size] for i in ix.tolist()])
        return x, y

    config = dict(vocab_size=vocab_size, block_size=args.block_size, n_layer=args.n_layer, n_head=args.n_head,
                  n_embd=args.n_embd, dropout=args.dropout)
    model = GPT(**config)
    if args.init:
        model.load_state_dict(torch.load(args.init, weights_only=True))
    optimizer = model.configure_optimizers(0.1, args.lr, (0.9, 0.95))
    iter_num = 0
    if args.resume:
        checkpoint = torch.load(args.out, map_location='cpu')
        model.load_state_dict(checkpoint['model'])
        optimizer.load_state_dict(checkpoint['optimizer'])
        iter_num = checkpoint['iter_num']

    losses = []
    model.train()
    while iter_num < args.max_iters:
        lr = get_lr(iter_num, args.lr, 10, args.lr_decay_iters or args.max_iters, args.lr / 10)
        for param_group in optimizer.param_groups:
            param_group['lr'] = lr
        X, Y = get_batch(iter_num)
        logits, loss = model(X, Y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
        if iter_num % 10 == 0:
            print(f"iter {iter_num}: loss {loss.item():.4f}, lr {lr:.2e}")
        iter_num += 1

    if args.out:
        torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict(),
                    'iter_num': iter_num, 'config': config}, args.out)
    if args.losses_out:
        with open(args.losses_out, 'w') as f:
            json.dump({"train": losses}, f)


if __name__ == '__main__':
    main()
