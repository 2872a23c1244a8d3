import ember as torch
# PyTorch's recipe "How to use TensorBoard with PyTorch" (pytorch/tutorials,
# recipes_source/recipes/tensorboard_with_pytorch.py): a linear regression whose loss goes to
# TensorBoard through SummaryWriter. Edits for the test harness (tests/compat/README.md): the log
# directory, the data and the initial weights can be given (--log-dir, --data, --init), since the
# two libraries' random streams differ, and the number of epochs (--epochs).
import argparse

from ember.utils.tensorboard import SummaryWriter

parser = argparse.ArgumentParser(description="TensorBoard with PyTorch: linear regression")
parser.add_argument("--log-dir", default=None, help="where the event file goes (default runs/<date>_<host>)")
parser.add_argument("--data", default=None, help="a torch.save'd {'x', 'y'} instead of the random data")
parser.add_argument("--init", default=None, help="a torch.save'd state dict for the model")
parser.add_argument("--epochs", type=int, default=10)
args = parser.parse_args()

writer = SummaryWriter(args.log_dir)

######################################################################
# Log scalars
# -----------
#
# In machine learning, it's important to understand key metrics such as
# loss and how they change during training. Scalar helps to save
# the loss value of each training step, or the accuracy after each epoch.
#
# To log a scalar value, use
# ``add_scalar(tag, scalar_value, global_step=None, walltime=None)``.
# For example, lets create a simple linear regression training, and
# log loss value using ``add_scalar``
#

x = torch.arange(-5, 5, 0.1).view(-1, 1)
y = -5 * x + 0.1 * torch.randn(x.size())
if args.data:
    data = torch.load(args.data)
    x, y = data["x"], data["y"]

model = torch.nn.Linear(1, 1)
if args.init:
    model.load_state_dict(torch.load(args.init))
criterion = torch.nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr = 0.1)

def train_model(iter):
    for epoch in range(iter):
        y1 = model(x)
        loss = criterion(y1, y)
        writer.add_scalar("Loss/train", loss, epoch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

train_model(args.epochs)
writer.flush()

######################################################################
# Call ``flush()`` method to make sure that all pending events
# have been written to disk.
#
# See `torch.utils.tensorboard tutorials <https://pytorch.org/docs/stable/tensorboard.html>`_
# to find more TensorBoard visualization types you can log.
#
# If you do not need the summary writer anymore, call ``close()`` method.
#

writer.close()
