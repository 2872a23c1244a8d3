import ember as torch
# pytorch/tutorials' "Per-sample-gradients" (intermediate_source/per_sample_grads.py): the SimpleCNN,
# per-sample gradients by torch.func's functional_call, grad and vmap, checked against the loop of one
# backward per sample with the tutorial's torch.allclose; then used as differential-privacy training
# uses them (DP-SGD as in Opacus: each sample's gradient clipped to --max-norm, averaged, plus
# Gaussian noise of --noise-multiplier). Edits: the tutorial's random batch is a slice of
# Fashion-MNIST from --data, device is 'cpu', the float64 baseline and the Timer comparison are left
# out, and the training loop with its --init, --epochs, --lr and --losses-out is added for the harness.
import argparse
import json

import ember.nn as nn
import ember.nn.functional as F
from ember.func import functional_call, vmap, grad


class SimpleCNN(nn.Module):
    def __init__(self):
        super(SimpleCNN, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)


def main():
    parser = argparse.ArgumentParser(description="per-sample gradients and DP-SGD")
    parser.add_argument("--data", required=True, help="a torch.save'd {'images': [n, 28, 28] uint8, 'labels': [n]}")
    parser.add_argument("--init", default=None, help="a torch.save'd state dict for the model")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batches", type=int, default=4, help="batches per epoch")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--max-norm", type=float, default=1.0)
    parser.add_argument("--noise-multiplier", type=float, default=0.0)
    parser.add_argument("--losses-out", default=None)
    args = parser.parse_args()

    torch.manual_seed(0)
    device = 'cpu'
    batch_size = args.batch_size
    saved = torch.load(args.data)
    images = (saved["images"].float() / 255.0 - 0.2860) / 0.3530
    labels = saved["labels"]
    data = images[:batch_size].unsqueeze(1).to(device)
    targets = labels[:batch_size].to(device)

    model = SimpleCNN().to(device=device)
    if args.init:
        model.load_state_dict(torch.load(args.init))

    def compute_grad(sample, target):
        sample = sample.unsqueeze(0)  # prepend batch dimension for processing
        target = target.unsqueeze(0)

        prediction = model(sample)
        loss = loss_fn(prediction, target)

        return torch.autograd.grad(loss, list(model.parameters()))

    def compute_sample_grads(data, targets):
        """ manually process each sample with per sample gradient """
        sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
        sample_grads = zip(*sample_grads)
        sample_grads = [torch.stack(shards) for shards in sample_grads]
        return sample_grads

    per_sample_grads = compute_sample_grads(data, targets)
    print(per_sample_grads[0].shape)

    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        batch = sample.unsqueeze(0)
        targets = target.unsqueeze(0)

        predictions = functional_call(model, (params, buffers), (batch,))
        loss = loss_fn(predictions, targets)
        return loss

    ft_compute_grad = grad(compute_loss)
    ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
    ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)

    for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads.values()):
        assert torch.allclose(per_sample_grad, ft_per_sample_grad, atol=3e-3, rtol=1e-5)

    # DP-SGD: clip each sample's gradient, average, add noise, step.
    losses = {"train": [], "grad_norms": []}
    for epoch in range(args.epochs):
        for b in range(args.batches):
            x = images[b * batch_size:(b + 1) * batch_size].unsqueeze(1)
            y = labels[b * batch_size:(b + 1) * batch_size]
            params = {k: v.detach() for k, v in model.named_parameters()}
            sample_grads = ft_compute_sample_grad(params, buffers, x, y)
            norms = torch.stack([g.flatten(1).norm(dim=1) for g in sample_grads.values()], dim=1).norm(dim=1)
            scale = (args.max_norm / (norms + 1e-6)).clamp(max=1.0)
            with torch.no_grad():
                for name, p in model.named_parameters():
                    g = (sample_grads[name] * scale.view(-1, *([1] * p.dim()))).sum(0)
                    g += torch.randn_like(g) * args.noise_multiplier * args.max_norm
                    p -= args.lr * g / x.shape[0]
                loss = loss_fn(model(x), y)
            losses["train"].append(loss.item())
            losses["grad_norms"].append(norms.mean().item())
            print(f"epoch {epoch} batch {b} loss {loss.item():.4f} mean per-sample grad norm {norms.mean().item():.4f}")
    if args.losses_out:
        with open(args.losses_out, "w") as f:
            json.dump(losses, f)


if __name__ == "__main__":
    main()
