"""One rank of a 2-process DDP job on one machine (gloo), started by PythonWheelTest through torchrun (which sets
RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT): PinshardDataset takes rank and world
from torch.distributed; rank 0 checks that the ranks' samples are disjoint and together are the epoch of a
1-rank dataset. Eval mode (centre crops), so a sample's pixels name it. Usage: wheel_ddp.py DATASET"""

import hashlib
import sys

import torch
import torch.distributed as dist

from pinshard.torch import PinshardDataset

dist.init_process_group("gloo")
common = dict(batch_size=4, crop=32, dtype=torch.uint8, eval=True, workers=1, seed=3)


def samples(ds):
    ds.set_epoch(1)
    return [hashlib.sha1(image.numpy().tobytes()).hexdigest() for images, _ in ds for image in images]


with PinshardDataset(sys.argv[1], **common) as ds:
    mine = samples(ds)
    everyone = [None] * dist.get_world_size()
    dist.all_gather_object(everyone, (ds.rank, ds.world_size, len(ds), mine))
if dist.get_rank() == 0:
    with PinshardDataset(sys.argv[1], rank=0, world_size=1, **common) as whole_ds:
        whole = samples(whole_ds)
    assert len(set(whole)) == len(whole), "the epoch's centre crops are distinct"
    assert sorted(r[0] for r in everyone) == [0, 1] and all(r[1] == 2 for r in everyone), everyone
    first, second = set(everyone[0][3]), set(everyone[1][3])
    assert not first & second, "%d samples on both ranks" % len(first & second)
    assert first | second == set(whole), "the ranks' union is not the epoch"
    print("ddp: ranks of %s samples (%s batches each), disjoint, union = the epoch of %d"
          % ([len(r[3]) for r in everyone], [r[2] for r in everyone], len(whole)))
dist.destroy_process_group()
