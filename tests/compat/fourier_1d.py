import ember as torch
# The 1-D Fourier neural operator of the public neuraloperator examples (fourier_1d.py, Li et al.,
# "Fourier Neural Operator for Parametric PDEs"): complex weights made with torch.rand(...,
# dtype=torch.cfloat), torch.fft.rfft / irfft, a complex einsum, a slice of a complex tensor written
# in place, Adam on complex parameters, StepLR. Edits for the test harness (tests/compat/README.md):
# the Burgers data file is replaced by --data (a torch.save'd {'a', 'u'}), --init loads initial
# weights, --epochs, --width and --modes are arguments, the per-batch losses go to --losses-out, and
# the training runs under main() (the harness builds the model from the module).
import argparse
import json

import numpy as np
import ember.nn as nn
import ember.nn.functional as F


class SpectralConv1d(nn.Module):
    def __init__(self, in_channels, out_channels, modes1):
        super(SpectralConv1d, self).__init__()
        # 1D Fourier layer: FFT, a linear transform of the lowest modes, inverse FFT.
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.modes1 = modes1  # Fourier modes kept, at most floor(N/2) + 1
        self.scale = (1 / (in_channels * out_channels))
        self.weights1 = nn.Parameter(self.scale * torch.rand(in_channels, out_channels, self.modes1, dtype=torch.cfloat))

    # Complex multiplication
    def compl_mul1d(self, input, weights):
        # (batch, in_channel, x ), (in_channel, out_channel, x) -> (batch, out_channel, x)
        return torch.einsum("bix,iox->box", input, weights)

    def forward(self, x):
        batchsize = x.shape[0]
        x_ft = torch.fft.rfft(x)
        out_ft = torch.zeros(batchsize, self.out_channels, x.size(-1) // 2 + 1, device=x.device, dtype=torch.cfloat)
        out_ft[:, :, :self.modes1] = self.compl_mul1d(x_ft[:, :, :self.modes1], self.weights1)
        x = torch.fft.irfft(out_ft, n=x.size(-1))
        return x


class FNO1d(nn.Module):
    def __init__(self, modes, width):
        super(FNO1d, self).__init__()
        self.modes1 = modes
        self.width = width
        self.padding = 2  # pad the domain if input is non-periodic
        self.fc0 = nn.Linear(2, self.width)  # input channel is 2: (a(x), x)

        self.conv0 = SpectralConv1d(self.width, self.width, self.modes1)
        self.conv1 = SpectralConv1d(self.width, self.width, self.modes1)
        self.conv2 = SpectralConv1d(self.width, self.width, self.modes1)
        self.w0 = nn.Conv1d(self.width, self.width, 1)
        self.w1 = nn.Conv1d(self.width, self.width, 1)
        self.w2 = nn.Conv1d(self.width, self.width, 1)

        self.fc1 = nn.Linear(self.width, 128)
        self.fc2 = nn.Linear(128, 1)

    def forward(self, x):
        grid = self.get_grid(x.shape, x.device)
        x = torch.cat((x, grid), dim=-1)
        x = self.fc0(x)
        x = x.permute(0, 2, 1)
        x = F.pad(x, [0, self.padding])

        x1 = self.conv0(x)
        x2 = self.w0(x)
        x = F.gelu(x1 + x2)

        x1 = self.conv1(x)
        x2 = self.w1(x)
        x = F.gelu(x1 + x2)

        x1 = self.conv2(x)
        x2 = self.w2(x)
        x = x1 + x2

        x = x[..., :-self.padding]
        x = x.permute(0, 2, 1)
        x = self.fc1(x)
        x = F.gelu(x)
        x = self.fc2(x)
        return x

    def get_grid(self, shape, device):
        batchsize, size_x = shape[0], shape[1]
        gridx = torch.tensor(np.linspace(0, 1, size_x), dtype=torch.float)
        gridx = gridx.reshape(1, size_x, 1).repeat([batchsize, 1, 1])
        return gridx.to(device)


class LpLoss(object):
    # The relative L2 loss of the neuraloperator examples (utilities3.py).
    def __init__(self, p=2, size_average=True):
        self.p = p
        self.size_average = size_average

    def rel(self, x, y):
        num_examples = x.size()[0]
        diff_norms = torch.norm(x.reshape(num_examples, -1) - y.reshape(num_examples, -1), self.p, 1)
        y_norms = torch.norm(y.reshape(num_examples, -1), self.p, 1)
        return torch.mean(diff_norms / y_norms) if self.size_average else torch.sum(diff_norms / y_norms)

    def __call__(self, x, y):
        return self.rel(x, y)


def main():
    parser = argparse.ArgumentParser(description="FNO 1d on Burgers-like data")
    parser.add_argument("--data", required=True, help="a torch.save'd {'a': [n, s], 'u': [n, s]}")
    parser.add_argument("--init", default=None, help="a torch.save'd state dict for the model")
    parser.add_argument("--ntrain", type=int, default=48)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=500)
    parser.add_argument("--modes", type=int, default=16)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--losses-out", default=None, help="where to write the per-batch losses (JSON)")
    args = parser.parse_args()

    data = torch.load(args.data)
    x_data, y_data = data["a"], data["u"]
    ntrain, s = args.ntrain, x_data.shape[1]
    x_train, y_train = x_data[:ntrain].reshape(ntrain, s, 1), y_data[:ntrain]
    x_test, y_test = x_data[ntrain:].reshape(-1, s, 1), y_data[ntrain:]
    train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_train, y_train),
                                               batch_size=args.batch_size, shuffle=False)
    test_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_test, y_test),
                                              batch_size=args.batch_size, shuffle=False)

    model = FNO1d(args.modes, args.width)
    if args.init:
        model.load_state_dict(torch.load(args.init))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=100, gamma=0.5)

    myloss = LpLoss(size_average=False)
    losses = {"train": [], "test": []}
    for ep in range(args.epochs):
        model.train()
        train_mse = 0
        train_l2 = 0
        for x, y in train_loader:
            optimizer.zero_grad()
            out = model(x)

            mse = F.mse_loss(out.view(x.shape[0], -1), y, reduction='mean')
            l2 = myloss(out.view(x.shape[0], -1), y.view(x.shape[0], -1))
            l2.backward()  # use the l2 relative loss

            optimizer.step()
            train_mse += mse.item()
            train_l2 += l2.item()
            losses["train"].append(l2.item())

        scheduler.step()
        model.eval()
        test_l2 = 0.0
        with torch.no_grad():
            for x, y in test_loader:
                out = model(x)
                test_l2 += myloss(out.view(x.shape[0], -1), y.view(x.shape[0], -1)).item()

        train_mse /= len(train_loader)
        train_l2 /= ntrain
        test_l2 /= len(x_test)
        losses["test"].append(test_l2)
        print(ep, f"{train_mse:.6f} {train_l2:.6f} {test_l2:.6f}")

    if args.losses_out:
        with open(args.losses_out, "w") as f:
            json.dump(losses, f)


if __name__ == "__main__":
    main()
