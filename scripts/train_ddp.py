"""Data-parallel training through pinshard.torch.PinshardDataset, one process per rank, as torchrun starts it:

    torchrun --nnodes=1 --rdzv_backend=c10d --rdzv_endpoint=localhost:0 --nproc_per_node=2 scripts/train_ddp.py DATASET [EPOCHS]

(with Debian's torch 1.13 on Python 3.11 add `--redirects 2 --tee 1 --log_dir DIR`: without them its torchrun fails
before starting a rank, in `Std.from_str`). Each rank's PinshardDataset takes rank and world from torch.distributed
(initialised here, gloo on the CPU, nccl on GPUs) and runs its own server with this machine's CPUs / LOCAL_WORLD_SIZE
workers; DistributedDataParallel averages the gradients. Rank 0 prints, per epoch, the batches and samples of every
rank (disjoint shares of the epoch) and the mean loss over all ranks."""

import sys

import torch
import torch.distributed as dist
from pinshard.torch import PinshardDataset

path, epochs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 2
cuda = torch.cuda.is_available()
dist.init_process_group("nccl" if cuda else "gloo")
torch.manual_seed(0)  # the same initial weights on every rank (DDP also broadcasts rank 0's)
ds = PinshardDataset(path, batch_size=8, crop=64, seed=42, device="cuda" if cuda else "cpu",
                     mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225))
model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 16, 3, stride=2, padding=1), torch.nn.ReLU(),
    torch.nn.Conv2d(16, 32, 3, stride=2, padding=1), torch.nn.ReLU(),
    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.LazyLinear(16))
if cuda:
    model = model.to(ds.device)
model(torch.zeros(1, 3, 64, 64, device=ds.device))  # materialise the lazy layer before DDP wraps it
model = torch.nn.parallel.DistributedDataParallel(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for epoch in range(epochs):
    ds.set_epoch(epoch)
    losses, samples = [], 0
    for images, labels in ds:
        loss = torch.nn.functional.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        samples += labels.shape[0]
    totals = torch.tensor([len(losses), samples, sum(losses)], dtype=torch.float64)
    per_rank = [torch.zeros_like(totals) for _ in range(dist.get_world_size())]
    dist.all_gather(per_rank, totals)
    if dist.get_rank() == 0:
        print("epoch %d: rank batches %s, samples %s, mean loss %.3f"
              % (epoch, [int(t[0]) for t in per_rank], [int(t[1]) for t in per_rank],
                 sum(float(t[2]) for t in per_rank) / max(1, sum(int(t[0]) for t in per_rank))), flush=True)
ds.close()
dist.destroy_process_group()
