"""Record fields in a ring slot (docs/fields.md, docs/RING.md "Fields"): the fields block's checked entries and
each batch's values. Functions of the ring view they read (`_ring.RingView` binds them as methods)."""

import json
import re
from typing import TYPE_CHECKING, Any, Dict, List

import numpy as np
import torch

from . import _layout as L
from ._ringdir import RingError

if TYPE_CHECKING:
    from ._ring import RingView

# Record field types (docs/fields.md) -> numpy dtype of their elements; None: byte strings. Generated from Java's
# FieldType into _layout.py, never copied by hand.
_FIELD_DTYPES = L.FIELD_DTYPES
_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}\Z")


def read_fields(ring: "RingView") -> List[Dict[str, Any]]:
    """The fields block (docs/RING.md, "Fields"): one checked entry per FIELD_COUNT, each inside every slot."""
    count = ring._int(L.FIELD_COUNT_OFFSET)
    block = L.fields_block_offset(ring.slots)
    at = block + L.FIELDS_JSON_LENGTH_OFFSET
    length = int(ring._u8[at:at + 4].view("<i4")[0])
    if not (0 <= count <= L.MAX_FIELDS and 0 <= length <= L.FIELDS_JSON_MAX_BYTES and (count == 0) == (length == 0)):
        raise RingError("%s has an inconsistent fields block: FIELD_COUNT %d, %d bytes of description"
                        % (ring.path, count, length))
    if count == 0:
        return []
    text = bytes(ring._u8[block + L.FIELDS_JSON_OFFSET:block + L.FIELDS_JSON_OFFSET + length])
    try:
        entries = json.loads(text.decode("utf-8"))
    except ValueError as error:
        raise RingError("%s's fields block is not a JSON list of fields: %s" % (ring.path, error))
    if not isinstance(entries, list) or len(entries) != count:
        raise RingError("%s has an inconsistent fields block: FIELD_COUNT %d, %s entries"
                        % (ring.path, count, len(entries) if isinstance(entries, list) else "no"))
    names = set()
    for e in entries:
        ok = (isinstance(e, dict) and isinstance(e.get("name"), str) and _FIELD_NAME.match(e["name"])
              and e["name"] not in names and e.get("type") in _FIELD_DTYPES
              and all(isinstance(e.get(k), int) and not isinstance(e.get(k), bool)
                      for k in ("length", "stride", "lengths", "values"))
              and isinstance(e.get("boxes"), bool))
        if ok:
            ok = (e["length"] >= 0 and e["stride"] >= 1 and e["stride"] % 8 == 0
                  and 0 <= e["lengths"] <= ring._stride - 4 * ring.capacity and e["lengths"] % 4 == 0
                  and 0 <= e["values"] <= ring._stride - ring.capacity * e["stride"] and e["values"] % 8 == 0
                  and (not e["boxes"] or e["type"] == "float32"))
        if not ok:
            raise RingError("%s's fields block has an impossible field (slots of %d bytes, %d samples): %r"
                            % (ring.path, ring._stride, ring.capacity, e))
        names.add(e["name"])
    return entries

def field_values(ring: "RingView", slot: int, start: int, size: int) -> Dict[str, Any]:
    """The batch's fields by name, each sample's length checked against the field's room and type."""
    out: Dict[str, Any] = {}
    for e in ring.field_layout:
        lengths = ring._u8[start + e["lengths"]:start + e["lengths"] + 4 * size].view("<i4")
        dtype = _FIELD_DTYPES[e["type"]]
        width = 1 if dtype is None else np.dtype(dtype).itemsize
        low, high = (int(lengths.min()), int(lengths.max())) if size else (0, 0)
        if low < 0 or high > e["stride"] or any(int(n) % width for n in lengths):
            raise RingError("%s: slot %d's field %s has a length outside 0..%d or not whole %d-byte elements: "
                            "the slot was overwritten" % (ring.path, slot, e["name"], e["stride"], width))
        values = start + e["values"]
        stride = e["stride"]
        if dtype is None:
            raw = [bytes(ring._u8[values + i * stride:values + i * stride + int(lengths[i])]) for i in range(size)]
            if e["type"] == "bytes":
                out[e["name"]] = raw
            else:
                out[e["name"]] = [b.decode("utf-8", "replace") for b in raw]
        elif e["length"] and low == high == e["length"] * width:
            matrix = ring._u8[values:values + size * stride].view(dtype).reshape(size, stride // width)
            out[e["name"]] = torch.from_numpy(matrix[:, :e["length"]])
        else:
            row = []
            for i in range(size):
                at = values + i * stride
                view = torch.from_numpy(ring._u8[at:at + int(lengths[i])].view(dtype))
                row.append(view.view(-1, 4) if e["boxes"] else view)
            out[e["name"]] = row
    return out
