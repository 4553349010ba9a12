"""`PinshardDataset`: a torch `IterableDataset` over a pinshard dataset, with training-ready batches.

    from pinshard.torch import PinshardDataset
    ds = PinshardDataset("/data/train", batch_size=256, crop=224,
                         mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225))
    for epoch in range(epochs):
        ds.set_epoch(epoch)
        for images, labels in torch.utils.data.DataLoader(ds, batch_size=None):   # or `in ds`
            loss = criterion(model(images), labels)       # float32 [N, 3, 224, 224], int64 [N]
"""

import os
import time
from typing import Any, Dict, Generator, Iterator, Optional, Sequence, Tuple, Union

from ._checks import check_dataset_arguments, require_torch

require_torch()  # before `import torch`: says which package provides it, and refuses a checkout's torch/ folder
import torch  # noqa: E402
import torch.utils.data  # noqa: E402

from . import _jitter, _jitter_cuda, _pages, _steplog
from ._device_copy import DeviceCopies
from ._mixing import MixedDataset, mixing_schedule
from ._pixels import _FLOAT_DTYPES, _Triple, _dtype_error, _triple, normalisation, to_training
from ._position import EpochPosition, resume_point
from ._training_batch import FieldsBatch, TrainingBatch, rank_and_world
from .client import Batch, Epoch, Ring, RingError
from .server import Server, dataset_location

__all__ = ["PinshardDataset", "TrainingBatch", "FieldsBatch", "MixedDataset", "mixing_schedule", "to_training",
           "normalisation", "rank_and_world"]

# The first batch's tensor is made and touched while the server starts (see _pages.TouchedTensor); False: made at the copy.
PREFAULT_FIRST_BATCH = True
_CPU_JITTER_CHUNK = 4  # samples per jitter pass on a CPU: 4 x 3 x 224 x 224 float32 (2.4 MB) stays in cache
# What `pinshard serve --dtype` writes: a CPU dataset of one of these gets its batches finished by the server.
_SERVER_DTYPES = (torch.uint8, torch.float32, torch.float16, torch.bfloat16)


class PinshardDataset(EpochPosition, torch.utils.data.IterableDataset[Union[TrainingBatch, FieldsBatch]]):
    """Batches of a pinshard dataset from one `pinshard serve` of its own, started on the first `iter()` (or
    `len()`), stopped by `close()` or when this process ends (the server watches its owner pid).

    Yields `(images, labels)`: images `dtype` in `layout`, normalised when float (see `to_training`), labels int64,
    both tensors of their own on `device` that stay valid (the ring slot goes back to the server at once; on the CPU
    a batch's memory serves a later batch once nothing references it: `_pages.RecycledTensors`). On the CPU the
    server writes the finished values (`pinshard serve --dtype/--layout/--mean/--std`: its crop kernel converts each
    row as it writes it), so this process only copies them out of the ring; `copy=False` yields the ring's own
    zero-copy views instead, valid until the next batch. float64, and device="cuda" (uint8 crosses PCIe, the GPU
    converts), convert here with `to_training`, as does a pass on uint8 pixels (see `_trainer_converts`).
    `timings` holds the start-up's steps (ms; see `pinshard.server.Server`) and `first_batch_ms`: the first
    `iter()`, server start included, to its first batch in hand.
    Each batch is a `TrainingBatch(images, labels)` NamedTuple; with `fields=["caption", ...]` (record fields of the
    dataset, docs/fields.md) a `FieldsBatch(images, labels, fields)`: `fields[name]` is a list of `str` for text, a
    tensor `[N, length]` for a fixed-length numeric field, a list of 1-D tensors for a variable one; `boxes="name"`
    moves that float32 field's boxes through each sample's crop and flip (a list of `[k, 4]` tensors); `field_bytes`
    is the room per sample (1024 by default).

    `order` is "random", "sequential" or "quasi-random" (shard-local windows, several shuffled together: a dataset
    larger than RAM streams through the page cache); `server_options` passes any other `pinshard serve` option by
    name, e.g. `{"window": 2048, "interleave": 4}` for quasi-random's window and how many windows are mixed.

    Use it directly or through `DataLoader(ds, batch_size=None)` with `num_workers=0`: the server already decodes
    and crops in `workers` JVM threads, and worker processes would each start a server and deliver the epoch again
    (refused).

    Epochs: `set_epoch(e)` picks the next epoch's number (its shuffle); without it each completed pass moves on to
    the next epoch, and a pass left with `break` is continued by the next `iter()`. `state_dict()` says where the
    iteration stands (the loader's LoaderState: epoch, batchesConsumed, seed, worldSize, rank) and
    `load_state_dict()` resumes there, with the batches that were left, as torchdata's `StatefulDataLoader` calls
    them; any rank's state resumes any rank of the same world size (the ring resumes on the same world size only;
    elastic resume to another size is the Java `Loader`'s).

    Ranks: `rank`/`world_size` default to torch.distributed's when it is initialised at the first iteration, else
    torchrun's RANK/WORLD_SIZE; the server gives each rank its disjoint share of every epoch. One server per rank,
    not per node: the ring has exactly one client (an flock), each rank's sharding lives in its own loader, and a
    rank's crash or restart touches its server only; the cost is one JVM per rank, so `workers` defaults to this
    machine's CPUs / LOCAL_WORLD_SIZE. With device="cuda" the device is cuda:LOCAL_RANK (torchrun's) unless
    given, the ring is registered with CUDA (pin_memory) and conversion runs on the GPU after a non-blocking copy
    (not tested: no GPU on the machine this was written on).

    Colour jitter: `jitter={"brightness": b, "contrast": c, "saturation": s, "hue": h}` and `grayscale=p`, torchvision's
    ColorJitter and RandomGrayscale with a draw per sample from (seed, epoch, record), Java's rule (see _jitter.py),
    between the conversion and the normalisation (on the GPU with device="cuda").

    The data-wait guard, always on: a `logging` warning ("data-wait", and the sweep to run) when the loop waits more
    than `data_wait_threshold` of step time over `data_wait_window` steps; with `step_log=` (or PINSHARD_STEP_LOG) a
    JSON line per step for `pinshard report` under the name `job` (see _steplog.py).

    Several datasets mixed with weights: `MixedDataset` below (per batch; each source runs its own server).
    """

    def __init__(self, path: Union[str, "os.PathLike[str]"], batch_size: int = 256, crop: int = 224, *,
                 dtype: torch.dtype = torch.float32, layout: str = "NCHW", mean: Optional[_Triple] = None,
                 std: Optional[_Triple] = None, device: Union[str, torch.device] = "cpu",
                 workers: Optional[int] = None, prefetch: Optional[int] = None, order: str = "random",
                 seed: int = 0, eval: bool = False, drop_last: bool = False, scale: Optional[Sequence[float]] = None,
                 ratio: Optional[Sequence[float]] = None, flip: Optional[float] = None, rank: Optional[int] = None,
                 world_size: Optional[int] = None, copy: bool = True, ready_timeout: float = 600.0,
                 server_options: Optional[Dict[str, Any]] = None, fields: Optional[Sequence[str]] = None,
                 boxes: Optional[str] = None, field_bytes: Optional[int] = None,
                 jitter: Optional[Dict[str, Any]] = None, grayscale: Optional[float] = None,
                 step_log: Optional[str] = None, job: Optional[str] = None, data_wait_threshold: float = 0.10,
                 data_wait_window: int = 50):
        super().__init__()
        self._jitter = _jitter.parse(jitter, grayscale)  # ValueError naming the parameter, before anything starts
        if self._jitter is not None and dtype not in _FLOAT_DTYPES:
            raise ValueError("jitter/grayscale need a float dtype: uint8 batches are the ring's pixels")
        self._step_log = None if step_log is None else os.fspath(step_log)
        self._host_values: Optional[_jitter_cuda.HostValues] = None  # _host_normalisation's
        self._scale_shift: Optional[Tuple[torch.Tensor, torch.Tensor]] = None  # on the device, made once
        self._guard = _steplog.StepLog(job, self._device(device), os.fspath(path), data_wait_threshold,
                                       data_wait_window)
        check_dataset_arguments(dataset_location(path), batch_size, crop, order, fields, mean, std)
        if layout not in ("NCHW", "NHWC"):
            raise ValueError("layout must be \"NCHW\" or \"NHWC\", not %r" % (layout,))
        if dtype != torch.uint8 and dtype not in _FLOAT_DTYPES:
            raise ValueError(_dtype_error(dtype))
        if dtype == torch.uint8 and (mean is not None or std is not None):
            raise ValueError("mean/std need a float dtype: uint8 batches are pixels")
        self.path = dataset_location(path)
        self.batch_size, self.crop, self.dtype, self.layout = batch_size, crop, dtype, layout
        self.mean, self.std, self.copy, self.seed = mean, std, copy, seed
        self.device = self._device(device)
        self._device_copies = DeviceCopies(self.device)  # device="cuda": its copy stream
        normalisation(mean, std, layout)  # checks std now, not at the first batch
        if not copy and self._trainer_converts():
            raise ValueError("copy=False hands out the ring's own views: for a CPU dataset of dtype uint8, float32, "
                             "float16 or bfloat16 (the server writes those), not %s on %s" % (dtype, self.device))
        options: Dict[str, Any] = dict(batch=batch_size, crop=crop, order=order, seed=seed)
        if not self._trainer_converts():
            options.update(dtype=str(dtype).rsplit(".", 1)[-1], layout=layout)
            if mean is not None:
                options["mean"] = _triple(mean)
            if std is not None:
                options["std"] = _triple(std)
        if workers is None:
            cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
            workers = max(1, cpus // max(1, int(os.environ.get("LOCAL_WORLD_SIZE", "1"))))
        options["workers"] = workers
        self.fields = list(fields) if fields else []
        if boxes is not None and boxes not in self.fields:
            raise ValueError("boxes=%r must be one of fields=%r" % (boxes, self.fields))
        if self.fields:
            options["fields"] = ",".join(self.fields)
        for key, value in (("prefetch", prefetch), ("scale", scale), ("ratio", ratio), ("flip", flip),
                           ("boxes", boxes), ("field_bytes", field_bytes)):
            if value is not None:
                options[key] = value
        options.update(server_options or {})
        self._options = options
        self._eval, self._drop_last, self._ready_timeout = eval, drop_last, ready_timeout
        self._rank, self._world_size = rank, world_size
        self._server: Optional[Server] = None
        self._running: Optional[Generator[Union[TrainingBatch, FieldsBatch], None, None]] = None
        self._epoch, self._consumed = 0, 0
        self._first_batch_ms: Optional[float] = None
        self._first_copy_ms: Optional[float] = None  # the first batch's copy out of the ring (server-written values)
        self._first_buffer: Optional[_pages.TouchedTensor] = None
        self._copies = _pages.RecycledTensors()  # the later batches' memory, reused once the loop drops a batch

    def _trainer_converts(self) -> bool:
        """Whether this process makes the training tensors from uint8 NHWC ring batches (`to_training`), rather than
        asking the server for the finished values: on a GPU (uint8 crosses PCIe), for float64 (the server writes up to
        32 bits), and for any pass that needs the uint8 pixels in this process (colour jitter, grayscale: the server
        cannot apply them yet, so with them the ring stays uint8)."""
        return self.device.type != "cpu" or self.dtype not in _SERVER_DTYPES or self._needs_uint8_pixels()

    def _needs_uint8_pixels(self) -> bool:
        """A trainer-side pass over uint8 pixels (colour jitter, grayscale) is asked for: the switch that keeps the
        ring uint8 NHWC for it."""
        return self._jitter is not None

    @property
    def timings(self) -> Dict[str, float]:
        """Start-up steps in ms: the server's (`start_ms`, `jvm_ms`, `dataset_open_ms`, `loader_open_ms`,
        `ring_ready_ms`, `first_batch_ms`: see `pinshard.server.Server.timings`), `first_iter_ms`, from the first
        `iter()` (which starts the server) to its first batch in hand, and `first_copy_ms`, that batch's copy out of
        the ring (part of first_iter_ms; a CPU dataset whose server writes the values). Empty before the server
        starts."""
        out = dict(self._server.timings) if self._server is not None else {}
        if self._first_batch_ms is not None:
            out["first_iter_ms"] = self._first_batch_ms
        if self._first_copy_ms is not None:
            out["first_copy_ms"] = self._first_copy_ms
        return out

    @staticmethod
    def _device(device: Union[str, torch.device]) -> torch.device:
        device = torch.device(device)
        if device.type == "cuda" and device.index is None and "LOCAL_RANK" in os.environ:
            device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
        return device

    # ---- the server ----

    @property
    def rank(self) -> int:
        return self._rank if self._rank is not None else rank_and_world()[0]

    @property
    def world_size(self) -> int:
        return self._world_size if self._world_size is not None else rank_and_world()[1]

    def _ring(self) -> Ring:
        if self._server is None:
            rank, world = (self._server_rank_world())
            self._rank, self._world_size = rank, world  # fixed for the server's life
            if PREFAULT_FIRST_BATCH and self._first_batch_ms is None and self.copy and not self._trainer_converts():
                shape = ((self.batch_size, 3, self.crop, self.crop) if self.layout == "NCHW"
                         else (self.batch_size, self.crop, self.crop, 3))
                self._first_buffer = _pages.TouchedTensor(shape, self.dtype)
            try:
                self._server = Server(self.path, pin_memory=self.device.type == "cuda", eval=self._eval,
                                      ready_timeout=self._ready_timeout, drop_last=self._drop_last,
                                      rank=rank, world=world, **self._options)
            except BaseException:
                self._first_buffer = None
                raise
            self._check_pixels(self._server.ring)
        ring = self._server.ring
        assert ring is not None  # Server attaches its Ring (attach=True)
        return ring

    def _check_pixels(self, ring: Any) -> None:
        """The ring holds the pixels this dataset asked for (a server that wrote others would be read wrongly)."""
        if self._trainer_converts():
            wanted: Tuple[Any, ...] = (torch.uint8, "NHWC", (0.0,) * 3, (1.0,) * 3)
        else:
            plain = self.dtype == torch.uint8
            wanted = (self.dtype, self.layout, (0.0,) * 3 if plain or self.mean is None else _triple(self.mean),
                      (1.0,) * 3 if plain or self.std is None else _triple(self.std))
        found = (ring.dtype, ring.layout, tuple(ring.mean), tuple(ring.std))
        if found != wanted:
            self.close()
            raise RingError("the server wrote %s %s mean %s std %s; this dataset asked for %s %s mean %s std %s"
                            % (found + wanted))

    def _server_rank_world(self) -> Tuple[int, int]:
        rank, world = rank_and_world()
        return (self._rank if self._rank is not None else rank,
                self._world_size if self._world_size is not None else world)

    def close(self) -> None:
        """Stops the server (the next iteration starts another) and flushes the step log."""
        guard = getattr(self, "_guard", None)
        if guard is not None:
            guard.close()
        server, self._server = self._server, None
        self._first_buffer, self._copies = None, _pages.RecycledTensors()  # the batches' memory goes with the loop's
        running, self._running = getattr(self, "_running", None), None
        if running is not None:
            running.close()
        if server is not None:
            server.stop()

    def __enter__(self) -> "PinshardDataset":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __getstate__(self) -> Dict[str, Any]:
        state = self.__dict__.copy()
        state["_server"] = state["_running"] = None  # a copy (a spawned process) starts its own
        state["_first_buffer"] = None  # a thread's tensor: the copy makes its own
        state["_copies"] = _pages.RecycledTensors()  # batches' memory: the copy makes its own
        state["_scale_shift"] = None  # CUDA objects: made again where the copy runs
        state["_device_copies"] = DeviceCopies(self.device)
        return state

    # ---- epochs ----

    def __len__(self) -> int:
        """Batches per epoch for this rank (starts the server if it is not running)."""
        return int(self._ring().batches_per_epoch)

    def state_dict(self) -> Dict[str, int]:
        """Where the iteration stands: the next iteration continues after the last batch yielded."""
        return {"epoch": self._epoch, "batchesConsumed": self._consumed, "seed": self.seed,
                "worldSize": self.world_size, "rank": self.rank}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """Resumes at `state` (from `state_dict()`, any rank's) on the next iteration."""
        self._epoch, self._consumed = resume_point(state, self.seed, self.world_size)

    def __iter__(self) -> Iterator[Union[TrainingBatch, FieldsBatch]]:
        info = torch.utils.data.get_worker_info()  # type: ignore[no-untyped-call]  # unannotated in torch
        if info is not None and info.num_workers > 1:
            raise RuntimeError("PinshardDataset runs its own server: use DataLoader(..., num_workers=0) (%d workers "
                               "would each start one and deliver the epoch %d times)"
                               % (info.num_workers, info.num_workers))
        if self._running is not None:
            self._running.close()  # a loop left with `break`: its held slot goes back before the next epoch starts
        started = time.monotonic() if self._first_batch_ms is None else None
        ring = self._ring()
        if self._consumed >= ring.batches_per_epoch:  # a state saved after an epoch's last batch
            self._epoch, self._consumed = self._epoch + 1, 0
        if self._consumed:
            batches = ring.resume({"epoch": self._epoch, "batchesConsumed": self._consumed, "seed": self.seed,
                                   "worldSize": self.world_size, "rank": self.rank}, auto_release=False)
        else:
            batches = ring.epoch(self._epoch, auto_release=False)
        self._running = self._batches(batches, started)
        return self._running

    def _convert(self, images: torch.Tensor, batch: Any, scale: torch.Tensor, shift: torch.Tensor,
                 chunk: int) -> torch.Tensor:
        """to_training, with this dataset's jitter drawn from (seed, the batch's epoch, its records) when set."""
        if self._jitter is None:
            return to_training(images, self.dtype, self.layout, scale, shift)
        factors = _jitter.factors(self._jitter, self.seed, batch.epoch, batch.ids.numpy())
        if _jitter_cuda.usable(images, self.dtype):
            fused = _jitter_cuda.to_training(images, self.dtype, self.layout, self._host_normalisation(), factors)
            if fused is not None:
                return fused
        return _jitter.to_training(images, self.dtype, self.layout, scale, shift, factors, chunk)

    def _host_normalisation(self) -> _jitter_cuda.HostValues:
        """The fused kernel's normalisation constants, worked out once."""
        if self._host_values is None:
            self._host_values = _jitter_cuda.host_normalisation(self.mean, self.std, self.layout)
        return self._host_values

    def _batches(self, batches: Epoch,
                 started: Optional[float]) -> Generator[Union[TrainingBatch, FieldsBatch], None, None]:
        cuda = self.device.type == "cuda"
        finished = not self._trainer_converts()  # the server wrote the training values: copy them out, or view them
        if self._scale_shift is None:  # once: made on a GPU, it is a copy that waits for the queued steps
            self._scale_shift = normalisation(self.mean, self.std, self.layout, self.device)
        scale, shift = self._scale_shift
        # (batch, event): a batch whose non-blocking copy may still read its slot; the event a torch.cuda.Event (its
        # methods are unannotated in torch) or None
        pending: Optional[Tuple[Batch, Any]] = None
        guard = self._guard
        guard.open(self._step_log, self.rank)
        try:
            resumed = time.perf_counter()
            for batch in batches:
                if not self.copy:
                    images, labels = batch.images, batch.labels.long()
                    batch_to_release = None if pending is None else pending[0]
                    pending = (batch, None)
                elif cuda:
                    source, labels, event = self._device_copies.copy(batch)
                    labels = labels.long()
                    images = self._convert(source, batch, scale, shift, chunk=source.shape[0])
                    if pending is not None:
                        pending[1].synchronize()
                    batch_to_release, pending = (None if pending is None else pending[0]), (batch, event)
                elif finished:
                    copied = time.monotonic() if started is not None else None
                    first, self._first_buffer = self._first_buffer, None
                    target = first.take(batch.images) if first is not None else None
                    images = (self._copies.empty_like(batch.images) if target is None else target).copy_(batch.images)
                    if copied is not None:
                        self._first_copy_ms = (time.monotonic() - copied) * 1000.0
                    labels = batch.labels.long()
                    batch_to_release = batch
                else:
                    images = self._convert(batch.images, batch, scale, shift, chunk=_CPU_JITTER_CHUNK)
                    labels = batch.labels.long()
                    batch_to_release = batch
                fields = None
                if self.fields:
                    # text is already copied out; tensors view the slot, so they are copied unless copy=False
                    fields = {name: (value if not self.copy else
                                     value.clone() if isinstance(value, torch.Tensor) else
                                     [v.clone() if isinstance(v, torch.Tensor) else v for v in value])
                              for name, value in batch.fields.items()}
                if batch_to_release is not None:
                    batch_to_release.release()
                self._consumed += 1
                arrived = time.perf_counter()
                guard.arrived(arrived - resumed, arrived, batch.epoch, labels.shape[0])
                if started is not None:
                    self._first_batch_ms, started = (time.monotonic() - started) * 1000.0, None
                yield TrainingBatch(images, labels) if fields is None else FieldsBatch(images, labels, fields)
                resumed = time.perf_counter()
            self._epoch, self._consumed = self._epoch + 1, 0
        except RingError:
            self._running = None  # this generator: it is running, close() must not close it
            self.close()  # a failed server: the next iteration starts a fresh one
            raise
        finally:
            guard.flush()
            if pending is not None:
                if pending[1] is not None:
                    pending[1].synchronize()
                pending[0].release()
            batches.close()
