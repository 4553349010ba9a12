"""Checks of what a user hands pinshard's Python API, made in Python before any JVM starts (a wrong argument once
cost a server start, seconds, and came back as the server's words): PinshardDataset's arguments, a state to
resume from, and that `torch` is PyTorch. Standard library only. The order's names come from Java's SampleOrder
through the generated _layout.py; limits only the server knows (the largest batch or crop) stay the server's to
check: they are not copied here."""

import importlib
import json
import numbers
import os
from typing import Any, Optional, Sequence

from ._layout import SAMPLE_ORDERS


def require_torch() -> None:
    """Imports torch, or says which package provides it; refuses a `torch` that is not PyTorch (run from this
    checkout's root, its Java module folder torch/ imports as an empty namespace package where PyTorch is missing)."""
    try:
        torch = importlib.import_module("torch")
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError("pinshard.torch needs PyTorch, which this python (%s) cannot import: `pip install "
                                  "torch`, or on Debian/Ubuntu `sudo apt-get install python3-torch` and a venv made "
                                  "with --system-site-packages" % _python()) from e
    if getattr(torch, "__file__", None) is None:
        where = ", ".join(getattr(torch, "__path__", [])) or "?"
        raise ModuleNotFoundError("pinshard.torch needs PyTorch, but `torch` here is the folder %s (an empty namespace "
                                  "package: run from another directory, e.g. not the pinshard checkout's root, whose "
                                  "torch/ is a Java module), and this python (%s) has no PyTorch" % (where, _python()))


def _python() -> str:
    import sys
    return sys.executable


def _positive_int(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError("%s must be a whole number >= 1, not %r" % (name, value))


def check_dataset_arguments(path: str, batch_size: Any, crop: Any, order: Any, fields: Optional[Sequence[str]],
                            mean: Any, std: Any) -> None:
    """PinshardDataset's arguments that Python can judge: batch_size and crop whole numbers >= 1, order a string,
    mean and std together, and fields the dataset has (from its manifest.json, for a local dataset that has one)."""
    _positive_int("batch_size", batch_size)
    _positive_int("crop", crop)
    if not isinstance(order, str):
        raise ValueError("order must be a string such as \"random\", not %r" % (order,))
    if order.lower().replace("_", "-") not in SAMPLE_ORDERS:  # as SampleOrder.parse: labels or constant names
        raise ValueError("order must be %s, not %r" % (" or ".join(map(repr, SAMPLE_ORDERS)), order))
    if (mean is None) != (std is None):
        raise ValueError("mean and std go together (torchvision's Normalize(mean, std)): got only %s"
                         % ("mean" if std is None else "std"))
    if fields:
        if isinstance(fields, str):
            raise ValueError("fields is a list of field names, e.g. [%r], not the string %r" % (fields, fields))
        known = _manifest_fields(path)
        if known is not None:
            missing = [f for f in fields if f not in known]
            if missing:
                raise ValueError("dataset %s has no field%s %s; its fields: %s" % (
                    path, "s" if len(missing) > 1 else "", ", ".join(map(repr, missing)),
                    ", ".join(map(repr, known)) or "none (convert --fields adds them)"))


def _manifest_fields(path: str) -> Optional[Sequence[str]]:
    """The field names of a local dataset's manifest.json, or None when there is none to read (s3://, missing)."""
    if "://" in path:
        return None
    try:
        with open(os.path.join(path, "manifest.json"), encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        return None
    return [str(field.get("name")) for field in manifest.get("fields", []) if isinstance(field, dict)]


def check_state(state: Any, kind: str) -> None:
    """A state to resume from is the dict `state_dict()` returned."""
    if not isinstance(state, dict):
        raise TypeError("%s.load_state_dict needs the dict state_dict() returned, not %r" % (kind, state))
