#!/usr/bin/env python3
"""Independent pinshard 1.x reader, written from format-spec/SPEC.md alone.

Plain Python 3, standard library only (own CRC32C table, own LZ4 block decoder, struct for the
little-endian fields). It validates each shard as SPEC.md section 14 prescribes, then checks every
byte the way `pinshard verify` does (section 12: all checksums and zero runs), and prints the records.

    read_shard.py [--json] PATH...

PATH is a shard file or a dataset directory (one holding manifest.json). Without --json it prints a
readable listing; with --json one JSON object per line: a record
{"file", "record", "key", "label", "class", "codec", "height", "width", "channels", "payloadOffset",
"payloadLength", "pixelsCrc32c"} (pixelsCrc32c: CRC32C of the decoded raw/lz4/yuv420 pixels, yuv420 as
RGB, as 8 hex digits, null for jpeg, whose frame size is checked instead) plus, for a format 1.1 shard with fields (section 17),
"fields": {name: value} (utf8 a string, json the parsed value or null when empty, bytes as hex, numbers as
a list), or an error {"file", "error"}.
Exit status: 0 all intact, 1 something is corrupt, 2 usage error.
"""

import json
import os
import re
import struct
import sys

MAGIC = b"PINSHARD"
END_MAGIC = b"DRAHSNIP"
HEADER_LENGTH = 64
FOOTER_LENGTH = 64
ENTRY_LENGTH = 40
MIN_SHARD = HEADER_LENGTH + FOOTER_LENGTH
MAX_SHARD = 2**31 - 2**20
MAX_SIDE = 65535
MAX_DECODED = 2**31 - 65
MIN_ALIGNMENT = 64
MAX_ALIGNMENT = 2**20
CODECS = {0: "raw", 1: "lz4", 2: "jpeg", 3: "yuv420"}
# Field types (SPEC.md section 17): id -> (name, element bytes, struct code or None for byte strings)
FIELD_TYPES = {1: ("utf8", 1, None), 2: ("bytes", 1, None), 3: ("json", 1, None),
               4: ("int32", 4, "i"), 5: ("int64", 8, "q"), 6: ("float32", 4, "f")}
FIELD_TYPE_IDS = {name: type_id for type_id, (name, _, _) in FIELD_TYPES.items()}
FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}")
FIELDS_MAGIC = b"PSFIELDS"
FIELDS_HEADER = 24
COLUMN_ENTRY = 24


class Corrupt(Exception):
    """The input breaks the format; the message says where and how."""


def _crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc32c_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    table = _CRC_TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283


def align(value, alignment):
    return (value + alignment - 1) & ~(alignment - 1)


def u16(data, at):
    return struct.unpack_from("<H", data, at)[0]


def u32(data, at):
    return struct.unpack_from("<I", data, at)[0]


def i32(data, at):
    return struct.unpack_from("<i", data, at)[0]


def u64(data, at):
    return struct.unpack_from("<Q", data, at)[0]


def lz4_length(src, i, n, length, what):
    """An LZ4 length nibble of 15 continues in bytes until one is not 255; returns (length, next index)."""
    if length == 15:
        while True:
            if i >= n:
                raise Corrupt("lz4 %s length runs past the block" % what)
            extra = src[i]
            i += 1
            length += extra
            if extra != 255:
                break
    return length, i


def lz4_block_decompress(src, size):
    """Bounds-checked LZ4 block decoder: the block must decode to exactly `size` bytes and end exactly."""
    dst = bytearray()
    i, n = 0, len(src)
    while True:
        if i >= n:
            raise Corrupt("lz4 block ends where a sequence token was expected")
        token = src[i]
        i += 1
        literals, i = lz4_length(src, i, n, token >> 4, "literal")
        if literals > n - i or len(dst) + literals > size:
            raise Corrupt("lz4 literals run past the block or the image")
        dst += src[i:i + literals]
        i += literals
        if i == n:
            break  # the last sequence holds literals only
        if n - i < 2:
            raise Corrupt("lz4 match offset runs past the block")
        offset = src[i] | (src[i + 1] << 8)
        i += 2
        if offset == 0 or offset > len(dst):
            raise Corrupt("lz4 match offset %d points before the output" % offset)
        match, i = lz4_length(src, i, n, token & 15, "match")
        match += 4
        if len(dst) + match > size:
            raise Corrupt("lz4 match runs past the image")
        start = len(dst) - offset
        if offset >= match:
            dst += dst[start:start + match]
        else:
            for k in range(match):
                dst.append(dst[start + k])
    if len(dst) != size:
        raise Corrupt("lz4 block decompresses to %d bytes, the index says %d" % (len(dst), size))
    return bytes(dst)


def yuv420_length(height, width):
    """Section 6: a Y plane of height x width, then Cb and Cr planes of ceil(height/2) x ceil(width/2)."""
    return height * width + 2 * ((height + 1) // 2) * ((width + 1) // 2)


def yuv420_to_rgb(payload, height, width):
    """Section 6: BT.601 full range (JFIF) in 16-bit fixed point, chroma replicated over its 2x2 block."""
    chroma_width = (width + 1) // 2
    cb_at = height * width
    cr_at = cb_at + ((height + 1) // 2) * chroma_width
    red = [(91881 * (c - 128) + 32768) >> 16 for c in range(256)]
    blue = [(116130 * (c - 128) + 32768) >> 16 for c in range(256)]
    out = bytearray(height * width * 3)
    clamp = bytes(min(255, max(0, v)) for v in range(-512, 768))  # clamp[v + 512]
    at = 0
    for y in range(height):
        row = y * width
        chroma_row = (y // 2) * chroma_width
        for x in range(width):
            lum = payload[row + x]
            cb = payload[cb_at + chroma_row + x // 2] - 128
            cr = payload[cr_at + chroma_row + x // 2] - 128
            out[at] = clamp[lum + red[cr + 128] + 512]
            out[at + 1] = clamp[lum + ((-22554 * cb - 46802 * cr + 32768) >> 16) + 512]
            out[at + 2] = clamp[lum + blue[cb + 128] + 512]
            at += 3
    return bytes(out)


def jpeg_frame(data):
    """(height, width, components) from the first SOF marker of a complete JPEG stream."""
    if len(data) < 4 or data[0:2] != b"\xff\xd8" or data[-2:] != b"\xff\xd9":
        raise Corrupt("jpeg payload does not run from SOI to EOI")
    i = 2
    while i < len(data):
        if data[i] != 0xFF:
            raise Corrupt("jpeg marker expected at payload byte %d" % i)
        while i < len(data) and data[i] == 0xFF:
            i += 1
        if i >= len(data):
            break
        marker = data[i]
        i += 1
        if marker == 0x01 or 0xD0 <= marker <= 0xD7:
            continue
        if marker in (0xD9, 0xDA):
            break
        if i + 2 > len(data):
            break
        length = (data[i] << 8) | data[i + 1]
        if length < 2 or i + length > len(data):
            raise Corrupt("jpeg segment length runs past the payload")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if length < 8:
                raise Corrupt("jpeg frame header is too short")
            height = (data[i + 3] << 8) | data[i + 4]
            width = (data[i + 5] << 8) | data[i + 6]
            return height, width, data[i + 7]
        i += length
    raise Corrupt("jpeg payload has no frame header before its scan")


def check_zero(data, start, end, what):
    if start < end and any(data[start:end]):
        raise Corrupt("%s [%d, %d) is not all zero" % (what, start, end))


def read_schema(fields):
    """Validates a field schema (SPEC.md section 17.1) and returns [(name, type id, length)]."""
    if not isinstance(fields, list) or len(fields) > 255:
        raise Corrupt("fields schema is not a list of at most 255 fields")
    schema, names = [], set()
    for field in fields:
        if not isinstance(field, dict):
            raise Corrupt("fields schema entry is not an object")
        name, type_name, length = field.get("name"), field.get("type"), field.get("length", 0)
        if not isinstance(name, str) or not FIELD_NAME.fullmatch(name) or name in names:
            raise Corrupt("field name %r is not a valid unique name" % (name,))
        if type_name not in FIELD_TYPE_IDS:
            raise Corrupt("field %s has unknown type %r" % (name, type_name))
        type_id = FIELD_TYPE_IDS[type_name]
        if not isinstance(length, int) or isinstance(length, bool) or not 0 <= length <= 65535 \
                or (FIELD_TYPES[type_id][2] is None and length != 0):
            raise Corrupt("field %s of type %s cannot have length %r" % (name, type_name, length))
        names.add(name)
        schema.append((name, type_id, length))
    return schema


def read_fields(data, meta, key_table, keys_len, count, keys_end):
    """Validates the fields section (SPEC.md section 17.4, verify included) and returns each record's values."""
    schema = read_schema(meta["fields"])
    section = meta.get("fieldsSection")
    if not isinstance(section, dict):
        raise Corrupt("metadata lists fields but no fieldsSection")
    offset, length, crc = section.get("offset"), section.get("length"), section.get("crc32c")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (offset, length)) \
            or not isinstance(crc, str) or not re.fullmatch(r"[0-9a-f]{8}", crc):
        raise Corrupt("fieldsSection offset, length or crc32c is malformed")
    if offset % 8 or offset + length != keys_len:
        raise Corrupt("fields section [%d, +%d) is not 8-aligned at the end of the key table" % (offset, length))
    if keys_end > offset:
        raise Corrupt("a key reaches into the fields section")
    check_zero(data, key_table + keys_end, key_table + offset, "padding before the fields section")
    base = key_table + offset
    if "%08x" % crc32c(data[base:base + length]) != crc:
        raise Corrupt("fields section CRC32C mismatch")
    directory_end = FIELDS_HEADER + COLUMN_ENTRY * len(schema)
    if length < directory_end or data[base:base + 8] != FIELDS_MAGIC:
        raise Corrupt("fields section has no valid header")
    if u32(data, base + 8) != len(schema) or u32(data, base + 12) != 0 or u64(data, base + 16) != count:
        raise Corrupt("fields section header disagrees with the schema or the record count")
    values = [dict() for _ in range(count)]
    position = directory_end
    for f, (name, type_id, fixed) in enumerate(schema):
        entry = base + FIELDS_HEADER + COLUMN_ENTRY * f
        type_name, width, code = FIELD_TYPES[type_id]
        column, column_length = u64(data, entry + 8), u64(data, entry + 16)
        if data[entry] != type_id or any(data[entry + 1:entry + 4]) or u32(data, entry + 4) != fixed:
            raise Corrupt("field %s: column directory entry disagrees with the schema" % name)
        if column % 8 or column < position or column + column_length > length:
            raise Corrupt("field %s: column lies outside the section or overlaps the previous one" % name)
        check_zero(data, base + position, base + column, "padding before field %s" % name)
        start = base + column
        if fixed:
            if column_length != count * fixed * width:
                raise Corrupt("field %s: fixed column holds %d bytes, not %d" % (name, column_length, count * fixed * width))
            spans = [(start + n * fixed * width, start + (n + 1) * fixed * width) for n in range(count)]
        else:
            if column_length < 8 * (count + 1):
                raise Corrupt("field %s: column is too short for its offsets" % name)
            offsets = [u64(data, start + 8 * n) for n in range(count + 1)]
            value_bytes = column_length - 8 * (count + 1)
            if offsets[0] != 0 or offsets[-1] != value_bytes or any(
                    b < a or b % width for a, b in zip(offsets, offsets[1:])):
                raise Corrupt("field %s: offsets are not a non-decreasing run of whole elements from 0 to %d"
                              % (name, value_bytes))
            first = start + 8 * (count + 1)
            spans = [(first + a, first + b) for a, b in zip(offsets, offsets[1:])]
        for n, (a, b) in enumerate(spans):
            raw = bytes(data[a:b])
            if code is not None:
                value = list(struct.unpack("<%d%s" % ((b - a) // width, code), raw))
            elif type_name == "bytes":
                value = raw.hex()
            else:
                try:
                    value = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise Corrupt("record %d: field %s is not UTF-8" % (n, name))
                if type_name == "json":
                    try:
                        value = json.loads(value) if value else None
                    except ValueError as e:
                        raise Corrupt("record %d: field %s is not JSON: %s" % (n, name, e))
            values[n][name] = value
        position = column + column_length
    return values


def read_shard(data, classes=None, fields=None):
    """Validates one shard (SPEC.md sections 12, 14 and 17) and returns its records as dicts; `fields` is the
    manifest's schema the shard's must equal (None: the shard's own)."""
    size = len(data)
    # File (14, steps 1-2)
    if size > MAX_SHARD:
        raise Corrupt("file holds %d bytes, more than the format's limit" % size)
    if size < MIN_SHARD:
        if size >= 8 and data[0:8] != MAGIC:
            raise Corrupt("not a pinshard shard (bad magic)")
        raise Corrupt("truncated: %d bytes, fewer than the %d of an empty shard" % (size, MIN_SHARD))
    # Header (step 3)
    if data[0:8] != MAGIC:
        raise Corrupt("not a pinshard shard (bad magic)")
    major, minor = u16(data, 8), u16(data, 10)
    if major != 1:
        raise Corrupt("unsupported format version %d.%d" % (major, minor))
    if crc32c(data[0:60]) != u32(data, 60):
        raise Corrupt("header CRC32C mismatch")
    if u32(data, 12) != HEADER_LENGTH:
        raise Corrupt("header length is not 64")
    alignment = u32(data, 16)
    if alignment & (alignment - 1) or not MIN_ALIGNMENT <= alignment <= MAX_ALIGNMENT:
        raise Corrupt("alignment %d is not a power of two in [64, 2^20]" % alignment)
    if u32(data, 20) != 0:
        raise Corrupt("header flags are not zero")
    check_zero(data, 28, 60, "reserved header bytes")
    shard_number = u32(data, 24)
    # Footer (steps 4-8)
    f = size - FOOTER_LENGTH
    if data[f + 56:f + 64] != END_MAGIC:
        raise Corrupt("truncated or unfinished: the file does not end with the footer magic")
    if crc32c(data[f:f + 44]) != u32(data, f + 44):
        raise Corrupt("footer CRC32C mismatch")
    check_zero(data, f + 48, f + 56, "reserved footer bytes")
    count, index, keys_len, meta_len, file_len = (u64(data, f), u64(data, f + 8), u32(data, f + 16),
                                                 u32(data, f + 20), u64(data, f + 24))
    if file_len != size:
        raise Corrupt("footer records a file of %d bytes, the file holds %d%s"
                      % (file_len, size, " (truncated)" if file_len > size else ""))
    if count > (f - HEADER_LENGTH) // ENTRY_LENGTH:
        raise Corrupt("record count %d cannot fit in the file" % count)
    if not HEADER_LENGTH <= index <= f or index % 8:
        raise Corrupt("index offset %d is not an 8-aligned offset between header and footer" % index)
    key_table = index + ENTRY_LENGTH * count
    metadata = key_table + keys_len
    if align(metadata + meta_len, 8) != f:
        raise Corrupt("index, key table and metadata do not end at the footer")
    # Step 9 and the other section checksums (12)
    if crc32c(data[index:key_table]) != u32(data, f + 32):
        raise Corrupt("index CRC32C mismatch")
    if crc32c(data[key_table:metadata]) != u32(data, f + 36):
        raise Corrupt("key table CRC32C mismatch")
    if crc32c(data[metadata:metadata + meta_len]) != u32(data, f + 40):
        raise Corrupt("metadata CRC32C mismatch")
    check_zero(data, metadata + meta_len, f, "padding before the footer")
    try:
        meta = json.loads(data[metadata:metadata + meta_len].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise Corrupt("metadata is not JSON: %s" % e)
    if not isinstance(meta, dict):
        raise Corrupt("metadata is not a JSON object")
    if classes is None:
        classes = meta.get("classes") or []
    if fields is not None and read_schema(fields) != read_schema(meta.get("fields") or []):
        raise Corrupt("shard metadata fields differ from the manifest's")
    # Entries (step 10), payload checksums and zero runs (12)
    records_start = align(HEADER_LENGTH, alignment)
    previous_end = records_start
    gap_start = HEADER_LENGTH
    keys_end = 0
    records = []
    for r in range(count):
        e = index + ENTRY_LENGTH * r
        where = "record %d: " % r
        offset, length, crc = u64(data, e), u32(data, e + 8), u32(data, e + 12)
        height, width, label = u32(data, e + 16), u32(data, e + 20), i32(data, e + 24)
        key_offset, key_length, codec, channels = u32(data, e + 28), u16(data, e + 32), data[e + 34], data[e + 35]
        if not records_start <= offset < index or length > index - offset:
            raise Corrupt(where + "payload lies outside the records region")
        if offset % alignment:
            raise Corrupt(where + "payload offset %d is not aligned to %d" % (offset, alignment))
        if offset < previous_end:
            raise Corrupt(where + "payload overlaps the previous one")
        if codec not in CODECS:
            raise Corrupt(where + "unknown codec id %d" % codec)
        if not (1 <= height <= MAX_SIDE and 1 <= width <= MAX_SIDE):
            raise Corrupt(where + "image size %dx%d is out of range" % (height, width))
        if channels not in (1, 3, 4) or (codec == 2 and channels == 4):
            raise Corrupt(where + "channel count %d is not allowed for %s" % (channels, CODECS[codec]))
        decoded = height * width * channels
        if decoded > MAX_DECODED:
            raise Corrupt(where + "decoded size is too large")
        if length == 0:
            raise Corrupt(where + "payload is empty")
        if codec == 0 and length != decoded:
            raise Corrupt(where + "raw payload length %d is not %d" % (length, decoded))
        if codec == 1 and length > decoded + decoded // 255 + 16:
            raise Corrupt(where + "lz4 payload is longer than any block of %d bytes" % decoded)
        if codec == 1 and decoded > 255 * length:
            raise Corrupt(where + "lz4 payload of %d bytes cannot decode to %d bytes" % (length, decoded))
        if codec == 3 and channels != 3:
            raise Corrupt(where + "yuv420 records decode to 3 channels, not %d" % channels)
        if codec == 3 and length != yuv420_length(height, width):
            raise Corrupt(where + "yuv420 payload length %d is not %d" % (length, yuv420_length(height, width)))
        if label < -1:
            raise Corrupt(where + "label %d is negative" % label)
        if classes and label >= len(classes):
            raise Corrupt(where + "label %d has no class name" % label)
        if key_offset + key_length > keys_len:
            raise Corrupt(where + "key lies outside the key table")
        if u32(data, e + 36) != 0:
            raise Corrupt(where + "reserved index entry bytes are not zero")
        keys_end = max(keys_end, key_offset + key_length)
        previous_end = offset + length
        check_zero(data, gap_start, offset, where + "padding before the payload")
        gap_start = previous_end
        payload = data[offset:offset + length]
        if crc32c(payload) != crc:
            raise Corrupt(where + "payload CRC32C mismatch")
        pixels_crc = None
        if codec == 0:
            pixels_crc = crc32c(payload)
        elif codec == 1:
            pixels_crc = crc32c(lz4_block_decompress(payload, decoded))
        elif codec == 3:
            pixels_crc = crc32c(yuv420_to_rgb(payload, height, width))
        else:
            frame = jpeg_frame(payload)
            if frame[0:2] != (height, width) or frame[2] not in (1, 3, 4):
                raise Corrupt(where + "jpeg frame is %dx%d with %d components, the index says %dx%dx%d"
                              % (frame + (height, width, channels)))
        key_at = key_table + key_offset
        records.append({
            "record": r,
            "key": data[key_at:key_at + key_length].decode("utf-8", errors="replace"),
            "label": label,
            "class": classes[label] if 0 <= label < len(classes) else None,
            "codec": CODECS[codec],
            "height": height,
            "width": width,
            "channels": channels,
            "payloadOffset": offset,
            "payloadLength": length,
            "pixelsCrc32c": None if pixels_crc is None else "%08x" % pixels_crc,
        })
    check_zero(data, gap_start, index, "padding before the index")
    if meta.get("fields") is not None:
        for record, values in zip(records, read_fields(data, meta, key_table, keys_len, count, keys_end)):
            record["fields"] = values
    return shard_number, records


def read_manifest(directory):
    """Validates manifest.json (SPEC.md section 14, "Manifest") and returns it."""
    try:
        with open(os.path.join(directory, "manifest.json"), "rb") as f:
            manifest = json.loads(f.read().decode("utf-8"))
    except FileNotFoundError:
        raise Corrupt("no manifest.json: not a pinshard dataset")
    except (UnicodeDecodeError, ValueError) as e:
        raise Corrupt("manifest.json is not JSON: %s" % e)
    if not isinstance(manifest, dict) or manifest.get("format") != "pinshard-dataset":
        raise Corrupt("manifest format is not \"pinshard-dataset\"")
    version = manifest.get("formatVersion")
    if not isinstance(version, str) or not re.fullmatch(r"[0-9]{1,9}\.[0-9]{1,9}", version):
        raise Corrupt("manifest formatVersion is missing or malformed")
    if int(version.split(".")[0]) != 1:
        raise Corrupt("unsupported format version %s" % version)
    shards, classes = manifest.get("shards"), manifest.get("classes")
    if not isinstance(shards, list) or not isinstance(classes, list):
        raise Corrupt("manifest shards or classes list is missing")
    names = set()
    total_records = total_bytes = 0
    for shard in shards:
        name = shard.get("file") if isinstance(shard, dict) else None
        if not isinstance(name, str) or not name or "/" in name or "\\" in name or name in (".", "..") \
                or name in names:
            raise Corrupt("manifest shard file name %r is not a unique plain file name" % (name,))
        names.add(name)
        records, size, crc = shard.get("records"), shard.get("bytes"), shard.get("crc32c")
        if not isinstance(records, int) or not isinstance(size, int) or not MIN_SHARD <= size <= MAX_SHARD \
                or not 0 <= records <= size // ENTRY_LENGTH or not isinstance(crc, str) \
                or not re.fullmatch(r"[0-9a-f]{8}", crc):
            raise Corrupt("manifest entry of %s has invalid records, bytes or crc32c" % name)
        total_records += records
        total_bytes += size
    if manifest.get("records") != total_records or manifest.get("bytes") != total_bytes:
        raise Corrupt("manifest totals differ from the sums over its shards")
    return manifest


def read_path(path):
    """Yields (file, record dict) for every record under `path`; raises Corrupt naming the file."""
    if not os.path.isdir(path):
        with open(path, "rb") as f:
            data = f.read()
        try:
            _, records = read_shard(data)
        except Corrupt as e:
            raise Corrupt("%s: %s" % (path, e))
        for record in records:
            yield path, record
        return
    try:
        manifest = read_manifest(path)
    except Corrupt as e:
        raise Corrupt("%s: %s" % (path, e))
    first = 0
    for position, entry in enumerate(manifest["shards"]):
        file = os.path.join(path, entry["file"])
        try:
            with open(file, "rb") as f:
                data = f.read()
            if len(data) != entry["bytes"]:
                raise Corrupt("file holds %d bytes, the manifest says %d" % (len(data), entry["bytes"]))
            if "%08x" % crc32c(data) != entry["crc32c"]:
                raise Corrupt("whole-file CRC32C differs from the manifest")
            shard_number, records = read_shard(data, manifest["classes"], manifest.get("fields") or [])
            if shard_number != position:
                raise Corrupt("header shard number %d, manifest position %d" % (shard_number, position))
            if len(records) != entry["records"]:
                raise Corrupt("holds %d records, the manifest says %d" % (len(records), entry["records"]))

        except (Corrupt, OSError) as e:
            raise Corrupt("%s: %s" % (file, e))
        for record in records:
            record["datasetRecord"] = first + record["record"]
            yield file, record
        first += len(records)


def main(argv):
    args = argv[1:]
    as_json = "--json" in args
    paths = [a for a in args if a != "--json"]
    if not paths or any(a.startswith("-") for a in paths):
        sys.stderr.write(__doc__)
        return 2
    status = 0
    for path in paths:
        try:
            for file, record in list(read_path(path)):
                if as_json:
                    print(json.dumps(dict(file=file, **record), sort_keys=True))
                else:
                    print("%s #%d %-5s %dx%dx%d label %d%s key %s" % (
                        file, record["record"], record["codec"], record["height"], record["width"],
                        record["channels"], record["label"],
                        " (%s)" % record["class"] if record["class"] is not None else "", record["key"])
                          + ("" if "fields" not in record else " fields " + json.dumps(record["fields"], sort_keys=True)))
        except (Corrupt, OSError) as e:
            status = 1
            if as_json:
                print(json.dumps({"file": path, "error": str(e)}, sort_keys=True))
            else:
                print("CORRUPT %s" % e)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
