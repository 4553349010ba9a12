"""Writing a pinshard dataset from Python samples: `write(dataset_dir, samples)` for data that is not image files
on disk (arrays in memory, bytes from a database, a generator).

    import pinshard
    pinshard.write("data/train", ((image, label) for image, label in my_source), shorter_side=320)

Each sample is `(image, label)`: `image` a numpy uint8 array (H x W gray, H x W x 1 or H x W x 3 RGB), the bytes of
an encoded image (JPEG, PNG, WebP, BMP, TIFF, PPM/PGM) or a path to an image file; `label` an int, a class name
(str) or None (unlabelled). The samples stream, one at a time, into WebDataset tars in a temporary folder beside the
dataset (arrays as lossless PNG), then `pinshard convert` turns them into shards with everything the converter
does: the same resize, codec, checks, rejections with reasons, progress and summary. The temporary folder is
removed afterwards, whatever happens; it needs as much disk as the encoded samples.

The dataset records the SHA-256 of the samples (hashed as they stream into the tars): writing the same samples again
into it is harmless (convert finds it complete), other samples into an existing dataset are refused unless
`overwrite=True`, and a write whose every sample convert rejected raises WriteError with the first reasons instead of
leaving a dataset of 0 records.
"""

import hashlib
import io
import operator
import os
import re
import shutil
import struct
import subprocess
import tarfile
import sys
import tempfile
import threading
import zlib
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from . import _java
from ._ringdir import PathLike
from .server import dataset_location, pinshard_command

# Tars the samples are spread over: convert lists a folder of tars in name order, and a bounded part keeps any
# one file far from a filesystem's limits.
_PART_BYTES = 1 << 30
# File signatures of the encodings convert reads (ImageExtensions.IMAGE), to give each tar member its extension.
_INT32 = (-(1 << 31), (1 << 31) - 1)
# Rejections named in a WriteError when every sample was rejected.
_REASONS_SHOWN = 3
_SIGNATURES = ((b"\xff\xd8\xff", "jpg"), (b"\x89PNG\r\n\x1a\n", "png"), (b"BM", "bmp"), (b"II*\x00", "tif"),
               (b"MM\x00*", "tif"), (b"P6", "ppm"), (b"P5", "pgm"))


class WriteError(RuntimeError):
    """A sample that cannot be written (named by its index), or a conversion that failed (with convert's words)."""


class WriteResult(NamedTuple):
    """What `write` did: the samples handed to convert, and the summary lines convert printed."""
    dataset: str
    samples: int
    summary: List[str]


def _png(pixels: Any) -> bytes:
    """A lossless PNG of a uint8 array (gray or RGB), with the standard library's zlib only."""
    import numpy as np
    a = np.ascontiguousarray(pixels)
    if a.ndim == 3 and a.shape[2] == 1:
        a = a[:, :, 0]
    if a.dtype != np.uint8 or a.ndim not in (2, 3) or (a.ndim == 3 and a.shape[2] != 3) or 0 in a.shape:
        raise ValueError("an image array must be uint8 H x W, H x W x 1 or H x W x 3 (RGB), not %s %s"
                         % (a.dtype, tuple(a.shape)))
    height, width = a.shape[:2]
    colour = 2 if a.ndim == 3 else 0
    rows = np.empty((height, 1 + a.strides[0]), dtype=np.uint8)
    rows[:, 0] = 0  # filter type "none" on every row
    rows[:, 1:] = a.reshape(height, -1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows.tobytes(), 1))
            + chunk(b"IEND", b""))


def _encoded(image: Any) -> Tuple[bytes, str]:
    """The sample's image as (bytes, extension): encoded bytes as they are, a path's file, an array as PNG."""
    if isinstance(image, (str, os.PathLike)):
        with open(image, "rb") as f:
            image = f.read()
    if isinstance(image, (bytes, bytearray, memoryview)):
        data = bytes(image)
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return data, "webp"
        for signature, extension in _SIGNATURES:
            if data.startswith(signature):
                return data, extension
        raise ValueError("the image bytes are no JPEG, PNG, WebP, BMP, TIFF, PPM or PGM (they begin %r)" % data[:8])
    if hasattr(image, "__array__"):
        return _png(image), "png"
    raise ValueError("an image must be a numpy array, encoded image bytes or a path, not %s" % type(image).__name__)


def _label_text(label: Any) -> Optional[str]:
    if label is None:
        return None
    if isinstance(label, str):
        text = label.strip()
    else:
        try:
            if isinstance(label, bool):
                raise TypeError
            number = operator.index(label)  # int, numpy integers; not float or bool
        except TypeError:
            raise ValueError("a label must be an int, a class name (str) or None, not %s"
                             % type(label).__name__) from None
        if not _INT32[0] <= number <= _INT32[1]:
            # Records store int32 labels; a wider number would become a class name, not the number given.
            raise ValueError("the label %d is outside int32 (%d to %d)" % (number, _INT32[0], _INT32[1]))
        text = str(number)
    if not text or "\n" in text:
        raise ValueError("a label must be a non-empty single line, not %r" % label)
    return text


def _add(archive: tarfile.TarFile, name: str, data: bytes, digest: Any) -> None:
    digest.update(b"%s\0%d\0" % (name.encode("utf-8"), len(data)))
    digest.update(data)
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = 0  # the same samples make the same tars
    archive.addfile(info, io.BytesIO(data))


def _write_tars(folder: str, samples: Iterable[Tuple[Any, Any]],
                every_64: Callable[[], None] = lambda: None) -> Tuple[int, bool, str]:
    """Streams the samples into folder/part-NNNNNN.tar; returns (samples, whether any had a label, the SHA-256 of
    the members written: names, sizes and bytes). `every_64` is called before every 64th sample (the first
    included)."""
    count, labelled, unlabelled, part, archive = 0, 0, 0, 0, None
    digest = hashlib.sha256()
    try:
        for sample in samples:
            if count % 64 == 0:
                every_64()
            try:
                image, label = sample
                data, extension = _encoded(image)
                text = _label_text(label)
            except (TypeError, ValueError, OSError) as e:
                raise WriteError("pinshard.write: sample %d: %s" % (count, e)) from None
            if archive is None or archive.fileobj.tell() >= _PART_BYTES:
                if archive is not None:
                    archive.close()
                archive = tarfile.open(os.path.join(folder, "part-%06d.tar" % part), "w", format=tarfile.GNU_FORMAT)
                part += 1
            key = "%010d" % count
            _add(archive, key + "." + extension, data, digest)
            if text is None:
                unlabelled += 1
            else:
                labelled += 1
                _add(archive, key + ".cls", text.encode("utf-8"), digest)
            if labelled and unlabelled:
                raise WriteError("pinshard.write: sample %d: some samples have a label and some do not; give every "
                                 "sample a label, or None to all" % count)
            count += 1
    finally:
        if archive is not None:
            archive.close()
    if count == 0:
        raise WriteError("pinshard.write: no samples were given")
    return count, labelled > 0, digest.hexdigest()


class _StderrTail(threading.Thread):
    """Copies convert's stderr (its progress and messages) to this process's stderr as it comes, keeping the last
    lines for the error a failed conversion raises."""

    def __init__(self, stream: io.BufferedReader) -> None:
        super().__init__(daemon=True)
        self._stream = stream
        self._kept = b""
        self.start()

    def run(self) -> None:
        for chunk in _java.drop_incubator_notice(iter(lambda: self._stream.read1(65536), b"")):
            if hasattr(sys.stderr, "buffer"):
                sys.stderr.buffer.write(chunk)
            else:  # a replaced sys.stderr (a notebook, a test runner) takes text
                sys.stderr.write(chunk.decode("utf-8", "replace"))
            sys.stderr.flush()
            self._kept = (self._kept + chunk)[-8192:]

    def tail(self) -> str:
        lines = self._kept.decode("utf-8", "replace").replace("\r", "\n").splitlines()
        return "\n".join(line for line in lines[-10:] if line.strip())


def _option_arguments(options: Dict[str, Any]) -> List[str]:
    """convert's options from keyword arguments: shorter_side=256 is --shorter-side 256, upscale=True --upscale."""
    arguments = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            arguments.append(flag)
        elif value is not False and value is not None:
            arguments += [flag, str(value)]
    return arguments


class _OptionsCheck:
    """`pinshard convert ... --check-options` run beside the samples' writing: convert's own verdict on the options
    and the output, in the time the first samples take, so that a wrong keyword or value fails before a long
    generator has been drained, not after (its JVM start overlaps the samples instead of adding to them)."""

    def __init__(self, command: List[str], dataset: str) -> None:
        self._dataset = dataset
        self._process = subprocess.Popen(command + ["--check-options"], stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def raise_if_refused(self, wait: bool = False) -> None:
        """Raises WriteError with convert's words once the check has failed; with `wait`, waits for its verdict
        (reading its stderr meanwhile: a check that wrote more than a pipe holds would otherwise never end)."""
        if wait:
            errors = self._process.communicate()[1]
        elif self._process.poll() is None or self._process.returncode == 0:
            return
        else:
            assert self._process.stderr is not None  # stderr=PIPE
            errors = self._process.stderr.read()  # it has ended: what it wrote is all there
        code = self._process.returncode
        if code:
            message = b"".join(_java.drop_incubator_notice([errors]))
            raise WriteError("pinshard.write: pinshard convert refused the options or %s (exit %d), before the "
                             "conversion: %s" % (self._dataset, code, message.decode("utf-8", "replace").strip()))

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        assert self._process.stderr is not None  # stderr=PIPE
        self._process.stderr.close()


def _rejections(summary: List[str]) -> Optional[Tuple[int, List[str]]]:
    """(samples, first reasons) when convert's summary says it wrote no record, else None."""
    total, written = None, None
    for line in summary:
        table = re.match(r"images in: (\d+)\s+written: (\d+)\s", line)
        done = re.match(r"already complete: .*\((\d+) records, (\d+) rejected", line)
        if table:
            total, written = int(table.group(1)), int(table.group(2))
        elif done:
            total, written = int(done.group(1)) + int(done.group(2)), int(done.group(1))
    if written != 0:
        return None
    reasons: List[str] = []
    for line in summary:
        rejected = re.match(r"\s+rejected \S+?/(\d+)\.\w+: (.*)", line)
        if rejected and len(reasons) < _REASONS_SHOWN:
            reasons.append("sample %d: %s" % (int(rejected.group(1)), rejected.group(2)))
    return total or 0, reasons


def write(dataset: PathLike, samples: Iterable[Tuple[Any, Any]], *, progress: Optional[str] = None,
          overwrite: bool = False, command: Optional[Sequence[str]] = None, **options: Any) -> WriteResult:
    """Writes `samples` ((image, label) pairs, see the module's text) as the pinshard dataset `dataset` (a new or
    empty directory, or s3://BUCKET/PREFIX). Keyword options are convert's (`shorter_side=320`, `codec="jpeg"`,
    `shard_size="64MiB"`, `workers=4`, `strict=True`, ...: `pinshard convert --help`); `progress` is convert's
    --progress (bar, log or none; default: convert's choice), shown on this process's stderr. Into a directory that
    holds a dataset already, the same samples (and options) find it complete and change nothing; other samples or
    options are refused unless `overwrite=True`, which replaces it. Raises WriteError naming the sample when one
    cannot be encoded or its label is outside int32, naming `dataset` and `overwrite=True` when it holds another
    dataset, with the first reasons when convert rejected every sample (no dataset is left that this call created),
    or with convert's message when it refuses the options (checked beside the first samples, by
    `convert --check-options`) or the conversion fails."""
    location = dataset_location(dataset)
    remote = location.startswith("s3://")
    existed = not remote and any(os.path.exists(os.path.join(location, name))
                                 for name in ("manifest.json", "convert-journal.json"))
    created = not remote and not os.path.exists(location)
    parent = None if remote else os.path.dirname(os.path.abspath(location))
    if parent is not None:
        os.makedirs(parent, exist_ok=True)
    base = list(command) if command is not None else pinshard_command("convert")[:-1]
    folder = tempfile.mkdtemp(prefix=".pinshard-write-", dir=parent)
    convert = base + ["convert", folder, "-o", location, "--input-kind", "webdataset"]
    if progress is not None:
        convert += ["--progress", progress]
    convert += _option_arguments(dict(options, overwrite=overwrite))
    check = None
    try:
        check = _OptionsCheck(convert + ["--labels", "auto"], location)
        count, labelled, digest = _write_tars(folder, samples, check.raise_if_refused)
        check.raise_if_refused(wait=True)
        with subprocess.Popen(convert + ["--labels", "auto" if labelled else "none", "--inputs-digest", digest],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
            # stdout and stderr are PIPEs, read through io.BufferedReader (Popen's default bufsize)
            assert isinstance(process.stderr, io.BufferedReader) and process.stdout is not None
            errors = _StderrTail(process.stderr)
            out = process.stdout.read().decode("utf-8", "replace")
            code = process.wait()
            errors.join()
        said = (errors.tail() or out).strip()
        # convert exits 2 when every input was rejected (its summary, on stdout, names the reasons): this sample
        # numbering of them, before the exit status says "failed".
        rejected = _rejections(out.splitlines()) if code in (0, 2) else None
        if rejected is not None:
            if created:
                shutil.rmtree(location, ignore_errors=True)
            raise WriteError("pinshard.write: convert rejected every one of the %d sample(s), so %s holds no record%s: "
                             "%s" % (rejected[0], location, "" if created else " (a dataset of 0 records, which the "
                                     "loader refuses)", "; ".join(rejected[1]) or said))
        if code in (1, 2) and existed and not overwrite:
            raise WriteError("pinshard.write: %s already holds a dataset (or an unfinished write) of other samples or "
                             "options; pass overwrite=True to replace it, or write into another directory "
                             "(pinshard convert, exit %d: %s)" % (location, code, said))
        if code != 0:
            raise WriteError("pinshard.write: pinshard convert failed (exit %d) writing %s: %s"
                             % (code, location, said))
        return WriteResult(location, count, out.splitlines())
    finally:
        if check is not None:
            check.close()
        shutil.rmtree(folder, ignore_errors=True)
