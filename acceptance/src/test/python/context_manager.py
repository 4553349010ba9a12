"""The README's loop through the Python package and ./pinshard, as a user runs it on a fresh machine: prints how long
the `with pinshard.serve(...)` block took to return after its end, then, in `raise` mode, lets the block's own
exception propagate (the caller checks it is shown).

Usage: context_manager.py REPO DATASET ok|raise"""

import sys
import time

REPO, DATASET, MODE = sys.argv[1:4]
sys.path.insert(0, REPO + "/python")
import pinshard  # noqa: E402

ended = None
try:
    with pinshard.serve(DATASET, batch=4, crop=16, workers=1, seed=42) as ring:
        print("ring %s" % ring.path, flush=True)
        for epoch in range(2):
            for images, labels in ring.epoch(epoch):
                assert images.shape[1:] == (16, 16, 3)
        ended = time.monotonic()
        if MODE == "raise":
            raise ValueError("the training step failed")
finally:
    if ended is not None:
        print("returned %.3f s after the block's end" % (time.monotonic() - ended), flush=True)
