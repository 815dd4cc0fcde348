"""FashionMNIST distributed training, the seed scenario's network and hyper-parameters.

Runs as one replica of a PyTorchJob: the Kubeflow operator (or fairing4j's local cluster) injects
MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK. Reads the IDX .gz files itself (no download), so it
works offline from /usr/share/datasets/fashion-mnist (Debian's dataset-fashion-mnist) or any
directory given with --data-dir.
"""
import argparse
import gzip
import os
import struct
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class Net(nn.Module):
    """conv 20 / conv 50 / fc 500 / fc 10, as in the Kubeflow mnist example."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 20, 5, 1)
        self.conv2 = nn.Conv2d(20, 50, 5, 1)
        self.fc1 = nn.Linear(4 * 4 * 50, 500)
        self.fc2 = nn.Linear(500, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(x, 2, 2)
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2, 2)
        x = x.view(-1, 4 * 4 * 50)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def read_idx(path):
    """Parses an IDX file (gzip-compressed) into a uint8 tensor."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack(">I", data[:4])
    dims = magic & 0xFF
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    offset = 4 + 4 * dims
    return torch.frombuffer(bytearray(data[offset:]), dtype=torch.uint8).reshape(shape)


def load(data_dir, split, limit):
    prefix = "train" if split == "train" else "t10k"
    images = read_idx(os.path.join(data_dir, prefix + "-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(data_dir, prefix + "-labels-idx1-ubyte.gz"))
    if limit:
        images, labels = images[:limit], labels[:limit]
    # Same normalisation as the seed (torchvision's MNIST mean/std).
    x = (images.float().div(255.0).unsqueeze(1) - 0.1307) / 0.3081
    return TensorDataset(x, labels.long())


def summary_writer(log_dir, rank):
    """A TensorBoard writer on rank 0 when --log-dir is set and tensorboard is installed."""
    if not log_dir or rank != 0:
        return None
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        print("no TensorBoard logs: the tensorboard package is not installed", flush=True)
        return None
    os.makedirs(log_dir, exist_ok=True)
    return SummaryWriter(log_dir)


def train(args, model, loader, sampler, optimizer, epoch, rank, writer=None):
    model.train()
    sampler.set_epoch(epoch)
    for batch_idx, (data, target) in enumerate(loader):
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print("Train Epoch: {} [{}/{} ({:.0f}%)]\tloss={:.4f}".format(
                epoch, batch_idx * len(data) * args.world_size, len(sampler.dataset),
                100.0 * batch_idx / len(loader), loss.item()), flush=True)
            if writer is not None:
                writer.add_scalar("loss", loss.item(), (epoch - 1) * len(loader) + batch_idx)


def evaluate(model, loader):
    model.eval()
    correct = 0
    total = 0
    loss = 0.0
    with torch.no_grad():
        for data, target in loader:
            output = model(data)
            loss += F.nll_loss(output, target, reduction="sum").item()
            correct += output.argmax(dim=1).eq(target).sum().item()
            total += len(target)
    print("\naccuracy={:.4f}\n".format(correct / total), flush=True)
    print("test loss={:.4f}".format(loss / total), flush=True)


def main():
    parser = argparse.ArgumentParser(description="FashionMNIST DDP (fairing4j seed)")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--test-batch-size", type=int, default=100)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--momentum", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log-interval", type=int, default=10)
    parser.add_argument("--samples", type=int, default=0, help="train on the first N samples (0 = all)")
    parser.add_argument("--test-samples", type=int, default=0, help="evaluate on the first N (0 = all)")
    parser.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--model-dir", default="/opt/mnist/models")
    parser.add_argument("--backend", default="gloo", choices=["gloo", "nccl"])
    parser.add_argument("--log-dir", default="", help="TensorBoard logs (rank 0), if set")
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS", "1"))))
    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    if distributed:
        dist.init_process_group(backend=args.backend)
        rank, args.world_size = dist.get_rank(), dist.get_world_size()
        print("Using distributed PyTorch with {} backend, rank {} of {}".format(
            args.backend, rank, args.world_size), flush=True)
    else:
        rank, args.world_size = 0, 1

    train_set = load(args.data_dir, "train", args.samples)
    sampler = DistributedSampler(train_set, num_replicas=args.world_size, rank=rank)
    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler)
    model = Net()
    if distributed:
        model = nn.parallel.DistributedDataParallel(model)
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)

    writer = summary_writer(args.log_dir, rank)
    # Evaluation after every epoch (so accuracy has a curve), on rank 0 only: two ranks
    # evaluating at once doubles the slowest part.
    test_loader = None
    if rank == 0:
        test_set = load(args.data_dir, "test", args.test_samples)
        test_loader = DataLoader(test_set, batch_size=args.test_batch_size)
    started = time.time()
    for epoch in range(1, args.epochs + 1):
        train(args, model, loader, sampler, optimizer, epoch, rank, writer)
        if test_loader is not None:
            evaluate(model, test_loader)
    if writer is not None:
        writer.close()
    print("training took {:.1f}s".format(time.time() - started), flush=True)

    if rank == 0:
        os.makedirs(args.model_dir, exist_ok=True)
        path = os.path.join(args.model_dir, "mnist_cnn.pt")
        torch.save((model.module if distributed else model).state_dict(), path)
        print("saved model to " + path, flush=True)
    if distributed:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
