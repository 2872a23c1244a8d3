import ember as torch
import argparse
import json

import ember.nn as nn
import ember.nn.functional as F
import ember.optim as optim
from ember.optim.lr_scheduler import StepLR
from ember.utils.data import DataLoader, TensorDataset

# A CNN classifier trained with Adadelta and StepLR, written as pytorch/examples' mnist/main.py is
# (https://github.com/pytorch/examples): the same code runs under PyTorch with `import torch` as its
# first line. Only the data source differs: a tensor file instead of torchvision's download.


class Net(nn.Module):
    def __init__(self, dropout):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(2 * dropout)
        self.fc1 = nn.Linear(2304, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def train(args, model, device, train_loader, optimizer, epoch, losses):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if batch_idx % args.log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset), 100. * correct / len(test_loader.dataset)))
    return test_loss, correct


def main():
    parser = argparse.ArgumentParser(description='Fashion-MNIST CNN in the pytorch/examples style')
    parser.add_argument('--batch-size', type=int, default=64)
    parser.add_argument('--test-batch-size', type=int, default=1000)
    parser.add_argument('--epochs', type=int, default=14)
    parser.add_argument('--lr', type=float, default=1.0)
    parser.add_argument('--gamma', type=float, default=0.7)
    parser.add_argument('--dropout', type=float, default=0.25)
    parser.add_argument('--no-shuffle', action='store_true')
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--log-interval', type=int, default=10)
    parser.add_argument('--data', required=True, help='a file holding {"images": uint8 [N, 28, 28], "labels": int64 [N]}')
    parser.add_argument('--init', help='a state dict to start from')
    parser.add_argument('--save-model', help='where to save the trained state dict')
    parser.add_argument('--losses-out', help='where to write the per-batch losses (JSON)')
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    use_cuda = torch.cuda.is_available()
    device = torch.device("cuda" if use_cuda else "cpu")

    data = torch.load(args.data, map_location="cpu", weights_only=True)
    images = (data["images"].float() / 255 - 0.1307) / 0.3081
    dataset = TensorDataset(images.unsqueeze(1), data["labels"])
    n_test = len(dataset) // 4
    test_set = torch.utils.data.Subset(dataset, range(n_test))
    train_set = torch.utils.data.Subset(dataset, range(n_test, len(dataset)))
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=not args.no_shuffle)
    test_loader = DataLoader(test_set, batch_size=args.test_batch_size)

    model = Net(args.dropout).to(device)
    if args.init:
        model.load_state_dict(torch.load(args.init, weights_only=True))
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)

    losses, tests = [], []
    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, epoch, losses)
        tests.append(test(model, device, test_loader))
        scheduler.step()

    if args.save_model:
        torch.save(model.state_dict(), args.save_model)
    if args.losses_out:
        with open(args.losses_out, 'w') as f:
            json.dump({"train": losses, "test": tests}, f)


if __name__ == '__main__':
    main()
