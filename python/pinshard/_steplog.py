"""The data-wait guard of `PinshardDataset`: per step, how long the loop waited for its batch and how long the step
took; a JSON-lines step log; a `logging` warning when data-wait passes a share of step time; TensorBoard scalars.

One line per step (the schema io.pinshard.datawait.StepLogWriter writes too, so `pinshard report` reads both):

    {"step": 12, "epoch": 0, "time": 1764820000.123, "data_wait_s": 0.000412, "step_s": 0.051230,
     "data_wait_fraction": 0.0080, "gpu_util": 97, "images": 256, "warmup": false, "rank": 0,
     "job": "train-20261204T031500", "dataset": "/data/train"}

`step` counts the batches this dataset object delivered (1 is the second: the first has no step before it);
`data_wait_s` is the time the loop spent in `__next__` for it; `step_s` runs from the previous batch's arrival to
this one's; `time` is Unix seconds at its arrival; `gpu_util` is NVML's busy percent of the batch's GPU (through
`torch.cuda.utilization`, else pynvml), sampled at most once a second, null without a GPU (said once, at INFO);
`warmup` marks the first window's steps, which the warning does not judge and `pinshard report` leaves out.
"""

import json
import logging
import os
import sys
import time
from typing import Any, Callable, Dict, Optional, TextIO

__all__ = ["StepLog", "default_job", "log_path"]

LOG = logging.getLogger("pinshard.torch")
ENVIRONMENT = "PINSHARD_STEP_LOG"
_FLUSH_EVERY_S = 1.0
_GPU_EVERY_S = 1.0


def default_job() -> str:
    """The script's name and its start time, e.g. "train-20261204T031500"."""
    script = os.path.splitext(os.path.basename(sys.argv[0] if sys.argv and sys.argv[0] else "python"))[0] or "python"
    return "%s-%s" % (script, time.strftime("%Y%m%dT%H%M%S"))


def log_path(step_log: Optional[str], job: str, rank: int) -> Optional[str]:
    """`step_log`, else $PINSHARD_STEP_LOG, else None; a folder (existing, or written with a trailing /) gets
    JOB-rankN.jsonl inside."""
    path = step_log if step_log is not None else os.environ.get(ENVIRONMENT) or None
    if path is None:
        return None
    path = os.fspath(path)
    if os.path.isdir(path) or path.endswith(os.sep):
        os.makedirs(path, exist_ok=True)
        return os.path.join(path, "%s-rank%d.jsonl" % (job.replace(os.sep, "_"), rank))
    return path


def _gpu_sampler(device: Any) -> Optional[Callable[[], Optional[int]]]:
    """A function giving the device's NVML busy percent, or None (and why, once, at INFO)."""
    import torch
    if getattr(device, "type", None) != "cuda" or not torch.cuda.is_available():
        LOG.info("pinshard step log: gpu_util is null (no CUDA device for this dataset)")
        return None
    index = device.index if device.index is not None else torch.cuda.current_device()
    try:
        torch.cuda.utilization(index)
        return lambda: int(torch.cuda.utilization(index))
    except Exception as through_torch:  # older torch, or NVML missing there
        try:
            import pynvml  # type: ignore
            pynvml.nvmlInit()
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            return lambda: int(pynvml.nvmlDeviceGetUtilizationRates(handle).gpu)
        except Exception as through_pynvml:
            LOG.info("pinshard step log: gpu_util is null (NVML: %s; pynvml: %s)", through_torch, through_pynvml)
            return None


class StepLog:
    """Records steps (`arrived`), writes the log, warns when data-wait passes `threshold` of step time over a
    window of `window` steps (the first window is warm-up, not judged), at most once per `warn_every_s`. Cheap per step: a few float operations, one formatted line
    into a buffered file (flushed about once a second), a GPU sample about once a second."""

    def __init__(self, job: Optional[str], device: Any, dataset: str, threshold: float = 0.10, window: int = 50,
                 warn_every_s: float = 600.0):
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold < 1:
            raise ValueError("data_wait_threshold=%r must be in (0, 1): a share of step time" % (threshold,))
        if isinstance(window, bool) or not isinstance(window, int) or window < 1:
            raise ValueError("data_wait_window=%r must be an int >= 1 (steps)" % (window,))
        if job is not None and (not isinstance(job, str) or not job):
            raise ValueError("job=%r must be a non-empty str (the name `pinshard report` groups steps by)" % (job,))
        self.path: Optional[str] = None
        self.job, self.rank, self.dataset = job or default_job(), 0, dataset
        self.threshold, self.window, self.warn_every_s = threshold, window, warn_every_s
        self._device = device
        self._file: Optional[TextIO] = None
        self._suffix = ""
        self._previous: Optional[float] = None
        self._step = 0
        self._window_wait = self._window_step = 0.0
        self._window_images = self._window_count = 0
        self._last_warning = -1e18
        self._flushed = 0.0
        self._gpu: Optional[Callable[[], Optional[int]]] = None
        self._gpu_checked = False
        self._gpu_at, self._gpu_value = -1e18, "null"
        self._tensorboard_dir: Optional[str] = None
        self._tensorboard: Any = None
        self._opened = False
        self.warnings = 0

    def open(self, step_log: Optional[str], rank: int) -> None:
        """Fixes the rank and the log's path (step_log or $PINSHARD_STEP_LOG) at the first iteration; TensorBoard
        scalars go to PATH-without-.jsonl.tensorboard/ when there is a log and torch.utils.tensorboard imports."""
        if self._opened:
            return
        self._opened = True
        self.rank, self.path = rank, log_path(step_log, self.job, rank)
        self._suffix = ', "rank": %d, "job": %s, "dataset": %s}\n' % (rank, json.dumps(self.job),
                                                                     json.dumps(self.dataset))
        if self.path is not None:
            self._tensorboard_dir = os.path.splitext(self.path)[0] + ".tensorboard"

    def __getstate__(self) -> Dict[str, Any]:
        state = self.__dict__.copy()  # a copy in another process opens its own file, NVML and TensorBoard
        state.update(_file=None, _gpu=None, _gpu_checked=False, _tensorboard=None)
        return state

    def arrived(self, wait_s: float, now: float, epoch: int, images: int) -> None:
        """A batch arrived at perf_counter time `now` after the loop waited `wait_s` for it."""
        previous, self._previous = self._previous, now
        if previous is None:
            return  # the first batch has no step before it
        self._step += 1
        step_s = max(now - previous, wait_s)
        warmup = self._step <= self.window  # the server's JIT, its first batches: logged, marked, not judged
        if self.path is not None:
            self._write(epoch, wait_s, step_s, images, now, warmup)
        if warmup:
            return
        self._window_wait += wait_s
        self._window_step += step_s
        self._window_images += images
        self._window_count += 1
        if self._window_count >= self.window:
            self._end_window()

    def _gpu_util(self, now: float) -> str:
        if not self._gpu_checked:
            self._gpu_checked = True
            self._gpu = _gpu_sampler(self._device)
        if self._gpu is not None and now - self._gpu_at >= _GPU_EVERY_S:
            self._gpu_at = now
            try:
                value = self._gpu()
                self._gpu_value = "null" if value is None or value < 0 else str(int(value))
            except Exception:
                self._gpu_value = "null"
        return self._gpu_value

    def _write(self, epoch: int, wait_s: float, step_s: float, images: int, now: float, warmup: bool) -> None:
        log = self._file
        if log is None:
            path = str(self.path)
            directory = os.path.dirname(path)
            if directory:
                os.makedirs(directory, exist_ok=True)
            log = self._file = open(path, "a", encoding="utf-8", buffering=1 << 16)
        log.write('{"step": %d, "epoch": %d, "time": %.3f, "data_wait_s": %.6f, "step_s": %.6f, '
                         '"data_wait_fraction": %.4f, "gpu_util": %s, "images": %d, "warmup": %s%s'
                         % (self._step, epoch, time.time(), wait_s, step_s, wait_s / step_s if step_s > 0 else 0.0,
                            self._gpu_util(now), images, "true" if warmup else "false", self._suffix))
        if now - self._flushed >= _FLUSH_EVERY_S:
            self._flushed = now
            log.flush()

    def _end_window(self) -> None:
        wait, step, count, images = self._window_wait, self._window_step, self._window_count, self._window_images
        self._window_wait = self._window_step = 0.0
        self._window_images = self._window_count = 0
        fraction = wait / step if step > 0 else 0.0
        self._tensorboard_scalars(fraction, step / count, images / step if step > 0 else 0.0)
        now = time.monotonic()
        if fraction > self.threshold and now - self._last_warning >= self.warn_every_s:
            self._last_warning = now
            self.warnings += 1
            compute_s = (step - wait) / count
            rate = images / count / compute_s if compute_s > 0 else 0.0
            gpu = self._gpu_value if self._gpu is not None else None
            LOG.warning(
                "pinshard data-wait: the loop waited %.1f%% of step time for batches over the last %d steps (mean "
                "wait %.2f ms per step of %.2f ms; threshold %.0f%%)%s. The GPU idles: find the workers that keep it "
                "fed with: pinshard bench %s --sweep --gpu-rate %.0f", 100 * fraction, count, 1e3 * wait / count,
                1e3 * step / count, 100 * self.threshold,
                "" if gpu is None else "; GPU utilisation %s %%" % gpu, self.dataset, rate)

    def _tensorboard_scalars(self, fraction: float, step_s: float, images_per_s: float) -> None:
        if self._tensorboard_dir is None:
            return
        if self._tensorboard is None:
            try:
                from torch.utils.tensorboard import SummaryWriter  # type: ignore[attr-defined]  # not re-exported
            except ImportError as e:
                LOG.info("pinshard step log: no TensorBoard scalars (%s)", e)
                self._tensorboard_dir = None
                return
            self._tensorboard = SummaryWriter(self._tensorboard_dir)  # type: ignore[no-untyped-call]  # unannotated
        self._tensorboard.add_scalar("pinshard/data_wait_fraction", fraction, self._step)
        self._tensorboard.add_scalar("pinshard/step_s", step_s, self._step)
        self._tensorboard.add_scalar("pinshard/images_per_s", images_per_s, self._step)
        if self._gpu is not None and self._gpu_value != "null":
            self._tensorboard.add_scalar("pinshard/gpu_util", float(self._gpu_value), self._step)

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._tensorboard is not None:
            self._tensorboard.close()
            self._tensorboard = None
