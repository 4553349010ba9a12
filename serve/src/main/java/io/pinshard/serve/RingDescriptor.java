package io.pinshard.serve;

import static org.agrona.BitUtil.CACHE_LINE_LENGTH;

import io.pinshard.loader.options.PixelFormat;
import io.pinshard.memory.DType;
import java.nio.charset.StandardCharsets;
import org.agrona.BitUtil;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Byte layout of the shared ring file that {@code pinshard serve} writes and a client in another process (the
 * Python client in {@code python/pinshard}) maps: a control block, a header per slot, then the batch slots the
 * loader's workers fill in place. Little-endian; all offsets absolute from the start of the file and built as
 * running sums. The normative text, with the memory-ordering contract, is {@code docs/RING.md}.
 *
 * <pre>
 *  0          128        256          512        640        768                               slotsOffset (page)
 *  +----------+----------+------------+----------+----------+-----------+-----+--------+------+--------------+----+
 *  | header   | server   | message    | client   | pixels   | slot hdr 0| ... | fields | pad  | slot 0 data  | ...|
 *  | (once)   | block    | (UTF-8)    | block    | (once)   | 128 B each|     | block  | to   | images,      |    |
 *  |          |          |            |          |          |           |     | 4096 B | page | labels, ids, |    |
 *  +----------+----------+------------+----------+----------+-----------+-----+--------+------+--------------+----+
 *   server    server      server       client     server     server writes     server          loader workers write
 *   writes    writes      writes       writes     writes     RELEASED: client  (once)          (while the server holds it)
 *
 *  Header (written before the file is renamed into place; read-only afterwards)
 *   0 MAGIC "PINSRING" | 8 VERSION i32 | 12 HEADER_LENGTH i32 | 16 FILE_LENGTH i64 | 24 SLOT_COUNT i32
 *  28 CAPACITY i32 | 32 HEIGHT i32 | 36 WIDTH i32 | 40 CHANNELS i32 | 44 FLAGS i32 | 48 SLOTS_OFFSET i64
 *  56 SLOT_STRIDE i64 | 64 BATCHES_PER_EPOCH i64 | 72 SAMPLES_PER_EPOCH i64 | 80 RECORDS i64 | 88 SEED i64
 *  96 RANK i32 | 100 WORLD_SIZE i32 | 104 SERVER_PID i64 | 112 SERVER_START_MILLIS i64 | 120 CLASS_COUNT i32
 *  124 FIELD_COUNT i32
 *
 *  Fields block (at slotHeaderOffset(SLOT_COUNT), written once with the header): FIELDS_JSON_LENGTH i32, then that
 *  many bytes of UTF-8 JSON, one object per field a batch carries (RingFields), offsets relative to a slot's data:
 *  [{"name", "type", "length", "boxes", "stride", "lengths", "values"}]; length 0 and no bytes when FIELD_COUNT is 0.
 *
 *  Pixels block (640, written once with the header): DTYPE_CODE i32 | DTYPE_BITS i32 (DLPack: uint8 1/8, float32
 *  2/32, float16 2/16, bfloat16 4/16) | LAYOUT i32 (0 NHWC, 1 NCHW) | 656 MEAN 3 x f64 | 680 STD 3 x f64
 *
 *  Server block (128)          Client block (512)           Slot header s (768 + 128 s)
 *   +0 STATUS i32               +0 CLIENT_PID i64             +0 SEQUENCE i64 (release; 0 = never used)
 *   +8 HEARTBEAT i64            +8 SESSION i64 (release)      +8 STREAM i64 (the command it answers)
 *  +16 ATTACHED_SESSION i64    +16 CLIENT_HEARTBEAT i64      +16 INDEX i64 (batch number in its epoch)
 *  +24 ACK_COMMAND i64         +24 CLIENT_VERSION i32        +24 EPOCH i32 | +28 SIZE i32
 *  +32 ACK_RESULT i32          +28 COMMAND_KIND i32          +32 IMAGES_OFFSET | +40 LABELS_OFFSET
 *  +36 STREAM_EPOCH i32        +32 COMMAND_EPOCH i32         +48 IDS_OFFSET (i64 file offsets)
 *  +40 STREAM_FIRST_SEQ i64    +40 COMMAND_START_BATCH i64   +64 RELEASED i64 (client writes; own line)
 *  +48 STREAM_START_BATCH i64  +48 COMMAND i64 (release)
 *  +56 STREAM_BATCHES i64
 *  +64 PUBLISHED i64 (release)
 *  +72 RECLAIMED i64
 * </pre>
 * The flyweights {@link RingHeader}, {@link RingServerBlock}, {@link RingClientBlock} and {@link RingSlotHeader}
 * read and write these fields, with the {@code *Release} stores and {@code *Volatile} loads the ordering contract
 * asks for; {@code python/pinshard/_layout.py} is generated from this class's constants (RingLayoutPython, checked by
 * RingLayoutPythonTest). Multi-byte fields are in the host's order, which must be little-endian:
 * {@link RingFile} refuses to create a ring on any other.
 *
 * <p>Fields written by different processes never share a cache line: the server block, the message, the client
 * block and each slot header are 128-byte blocks (two lines, for adjacent-line prefetch), and a slot's RELEASED
 * sits on the second line of its header.
 */
public final class RingDescriptor {
    /** "PINSRING" in ASCII, the first eight bytes of every ring file. */
    public static final byte[] MAGIC = "PINSRING".getBytes(StandardCharsets.US_ASCII);
    /**
     * The ring version this server writes and the only one it reads (2: CLASS_COUNT, issue 24; 3: fields; 4: the
     * pixels block, issue 41).
     */
    public static final int VERSION = 4;

    /** Spacing of blocks written by different parties: two cache lines. */
    public static final int BLOCK_LENGTH = 2 * CACHE_LINE_LENGTH;
    /** Alignment of the slot data (a page): images start on a page, like the loader's own slots. */
    public static final int PAGE = 4096;
    /** Most slots a ring holds (the loader's prefetch bound). */
    public static final int MAX_SLOTS = 1024;
    /** The largest ring file version 1 allows: one Java mapping (2 GiB). */
    public static final long MAX_FILE_LENGTH = Integer.MAX_VALUE;

    // Header
    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = MAGIC_OFFSET + 8;
    public static final int HEADER_LENGTH_OFFSET = VERSION_OFFSET + Integer.BYTES;
    public static final int FILE_LENGTH_OFFSET = HEADER_LENGTH_OFFSET + Integer.BYTES;
    public static final int SLOT_COUNT_OFFSET = FILE_LENGTH_OFFSET + Long.BYTES;
    public static final int CAPACITY_OFFSET = SLOT_COUNT_OFFSET + Integer.BYTES;
    public static final int HEIGHT_OFFSET = CAPACITY_OFFSET + Integer.BYTES;
    public static final int WIDTH_OFFSET = HEIGHT_OFFSET + Integer.BYTES;
    public static final int CHANNELS_OFFSET = WIDTH_OFFSET + Integer.BYTES;
    public static final int FLAGS_OFFSET = CHANNELS_OFFSET + Integer.BYTES;
    public static final int SLOTS_OFFSET_OFFSET = FLAGS_OFFSET + Integer.BYTES;
    public static final int SLOT_STRIDE_OFFSET = SLOTS_OFFSET_OFFSET + Long.BYTES;
    public static final int BATCHES_PER_EPOCH_OFFSET = SLOT_STRIDE_OFFSET + Long.BYTES;
    public static final int SAMPLES_PER_EPOCH_OFFSET = BATCHES_PER_EPOCH_OFFSET + Long.BYTES;
    public static final int RECORDS_OFFSET = SAMPLES_PER_EPOCH_OFFSET + Long.BYTES;
    public static final int SEED_OFFSET = RECORDS_OFFSET + Long.BYTES;
    public static final int RANK_OFFSET = SEED_OFFSET + Long.BYTES;
    public static final int WORLD_SIZE_OFFSET = RANK_OFFSET + Integer.BYTES;
    public static final int SERVER_PID_OFFSET = WORLD_SIZE_OFFSET + Integer.BYTES;
    public static final int SERVER_START_MILLIS_OFFSET = SERVER_PID_OFFSET + Long.BYTES;
    /** Classes in the dataset's manifest: a label is -1 (none) or in 0..CLASS_COUNT-1; 0 = no class list. */
    public static final int CLASS_COUNT_OFFSET = SERVER_START_MILLIS_OFFSET + Long.BYTES;
    /** Record fields each batch carries beside the pixels, described in the fields block; 0 = none. */
    public static final int FIELD_COUNT_OFFSET = CLASS_COUNT_OFFSET + Integer.BYTES;
    public static final int HEADER_END = FIELD_COUNT_OFFSET + Integer.BYTES;
    /** Most fields a ring describes (a dataset's schema holds at most 255). */
    public static final int MAX_FIELDS = 255;

    // Fields block: after the slot headers, before the page-aligned slot data
    public static final int FIELDS_BLOCK_LENGTH = 4096;
    public static final int FIELDS_JSON_LENGTH_OFFSET = 0;
    public static final int FIELDS_JSON_OFFSET = FIELDS_JSON_LENGTH_OFFSET + Integer.BYTES;
    public static final int FIELDS_JSON_MAX_BYTES = FIELDS_BLOCK_LENGTH - FIELDS_JSON_OFFSET;

    /** FLAGS bit 0: eval mode (resize + centre crop) rather than train. */
    public static final int FLAG_EVAL = 1;

    // Server block
    public static final int SERVER_BLOCK_OFFSET = BLOCK_LENGTH;
    public static final int STATUS_OFFSET = SERVER_BLOCK_OFFSET;
    public static final int HEARTBEAT_OFFSET = STATUS_OFFSET + Long.BYTES;
    public static final int ATTACHED_SESSION_OFFSET = HEARTBEAT_OFFSET + Long.BYTES;
    public static final int ACK_COMMAND_OFFSET = ATTACHED_SESSION_OFFSET + Long.BYTES;
    public static final int ACK_RESULT_OFFSET = ACK_COMMAND_OFFSET + Long.BYTES;
    public static final int STREAM_EPOCH_OFFSET = ACK_RESULT_OFFSET + Integer.BYTES;
    public static final int STREAM_FIRST_SEQUENCE_OFFSET = STREAM_EPOCH_OFFSET + Integer.BYTES;
    public static final int STREAM_START_BATCH_OFFSET = STREAM_FIRST_SEQUENCE_OFFSET + Long.BYTES;
    public static final int STREAM_BATCHES_OFFSET = STREAM_START_BATCH_OFFSET + Long.BYTES;
    public static final int PUBLISHED_OFFSET = STREAM_BATCHES_OFFSET + Long.BYTES;
    public static final int RECLAIMED_OFFSET = PUBLISHED_OFFSET + Long.BYTES;

    // Message: i32 length, then that many UTF-8 bytes
    public static final int MESSAGE_OFFSET = SERVER_BLOCK_OFFSET + BLOCK_LENGTH;
    public static final int MESSAGE_BLOCK_LENGTH = 2 * BLOCK_LENGTH;
    public static final int MESSAGE_MAX_BYTES = MESSAGE_BLOCK_LENGTH - Integer.BYTES;
    public static final int MESSAGE_TEXT_OFFSET = MESSAGE_OFFSET + Integer.BYTES;

    // Client block
    public static final int CLIENT_BLOCK_OFFSET = MESSAGE_OFFSET + MESSAGE_BLOCK_LENGTH;
    public static final int CLIENT_PID_OFFSET = CLIENT_BLOCK_OFFSET;
    public static final int SESSION_OFFSET = CLIENT_PID_OFFSET + Long.BYTES;
    public static final int CLIENT_HEARTBEAT_OFFSET = SESSION_OFFSET + Long.BYTES;
    public static final int CLIENT_VERSION_OFFSET = CLIENT_HEARTBEAT_OFFSET + Long.BYTES;
    public static final int COMMAND_KIND_OFFSET = CLIENT_VERSION_OFFSET + Integer.BYTES;
    public static final int COMMAND_EPOCH_OFFSET = COMMAND_KIND_OFFSET + Integer.BYTES;
    public static final int COMMAND_START_BATCH_OFFSET = COMMAND_EPOCH_OFFSET + Long.BYTES;
    public static final int COMMAND_OFFSET = COMMAND_START_BATCH_OFFSET + Long.BYTES;

    // Pixels block: what a slot's images are (element type, layout, normalisation); written once with the header
    public static final int PIXELS_BLOCK_OFFSET = CLIENT_BLOCK_OFFSET + BLOCK_LENGTH;
    /** Element type as DLPack spells it: type code (DTYPE_CODE_*) and bits. */
    public static final int DTYPE_CODE_OFFSET = PIXELS_BLOCK_OFFSET;
    public static final int DTYPE_BITS_OFFSET = DTYPE_CODE_OFFSET + Integer.BYTES;
    /** LAYOUT_NHWC or LAYOUT_NCHW. */
    public static final int LAYOUT_OFFSET = DTYPE_BITS_OFFSET + Integer.BYTES;
    /** Three f64 each, R G B, in torchvision's units (of a [0, 1] image); 0 and 1 without normalisation. */
    public static final int MEAN_OFFSET = LAYOUT_OFFSET + 2 * Integer.BYTES;
    public static final int STD_OFFSET = MEAN_OFFSET + 3 * Double.BYTES;
    public static final int PIXELS_END = STD_OFFSET + 3 * Double.BYTES;
    public static final int LAYOUT_NHWC = 0;
    public static final int LAYOUT_NCHW = 1;
    public static final int DTYPE_CODE_UINT = DType.UINT8.dlpackCode();
    public static final int DTYPE_CODE_FLOAT = DType.FLOAT32.dlpackCode();
    public static final int DTYPE_CODE_BFLOAT = DType.BFLOAT16.dlpackCode();

    // Slot headers
    public static final int SLOT_HEADERS_OFFSET = PIXELS_BLOCK_OFFSET + BLOCK_LENGTH;
    public static final int SLOT_HEADER_LENGTH = BLOCK_LENGTH;
    public static final int SLOT_SEQUENCE_OFFSET = 0;
    public static final int SLOT_STREAM_OFFSET = SLOT_SEQUENCE_OFFSET + Long.BYTES;
    public static final int SLOT_INDEX_OFFSET = SLOT_STREAM_OFFSET + Long.BYTES;
    public static final int SLOT_EPOCH_OFFSET = SLOT_INDEX_OFFSET + Long.BYTES;
    public static final int SLOT_SIZE_OFFSET = SLOT_EPOCH_OFFSET + Integer.BYTES;
    public static final int SLOT_IMAGES_OFFSET = SLOT_SIZE_OFFSET + Integer.BYTES;
    public static final int SLOT_LABELS_OFFSET = SLOT_IMAGES_OFFSET + Long.BYTES;
    public static final int SLOT_IDS_OFFSET = SLOT_LABELS_OFFSET + Long.BYTES;
    public static final int SLOT_RELEASED_OFFSET = CACHE_LINE_LENGTH;

    /** STATUS values. */
    public static final int STATUS_STARTING = 0;
    public static final int STATUS_READY = 1;
    public static final int STATUS_STOPPED = 2;
    public static final int STATUS_FAILED = 3;

    /** COMMAND_KIND values: start an epoch from its first batch, or from COMMAND_START_BATCH (a saved state). */
    public static final int COMMAND_EPOCH = 1;
    public static final int COMMAND_RESUME = 2;

    /** ACK_RESULT values. */
    public static final int RESULT_OK = 0;
    public static final int RESULT_REFUSED = 1;

    private RingDescriptor() {
    }

    /** Offset of slot {@code slot}'s header. */
    public static int slotHeaderOffset(int slot) {
        return SLOT_HEADERS_OFFSET + slot * SLOT_HEADER_LENGTH;
    }

    /** Offset of the fields block in a ring of {@code slots} slots: right after the slot headers. */
    public static int fieldsBlockOffset(int slots) {
        return slotHeaderOffset(slots);
    }

    /** Offset of slot 0's data in a ring of {@code slots} slots: past the slot headers and the fields block, on a page. */
    public static long slotsOffset(int slots) {
        checkSlots(slots);
        return BitUtil.align((long) fieldsBlockOffset(slots) + FIELDS_BLOCK_LENGTH, PAGE);
    }

    /** Distance between slots holding {@code slotBytes} each: whole pages. */
    public static long slotStride(long slotBytes) {
        if (slotBytes <= 0) {
            throw new IllegalArgumentException("a ring slot holds at least 1 byte: " + slotBytes);
        }
        return BitUtil.align(slotBytes, PAGE);
    }

    /** Offset of slot {@code slot}'s data. */
    public static long slotOffset(long slotsOffset, long stride, int slot) {
        return slotsOffset + slot * stride;
    }

    /** Length of a ring file of {@code slots} slots of {@code slotBytes} each. */
    public static long fileLength(int slots, long slotBytes) {
        long length = slotsOffset(slots) + slots * slotStride(slotBytes);
        if (length > MAX_FILE_LENGTH) {
            throw new IllegalArgumentException("a ring of " + slots + " slots of " + slotBytes + " bytes needs "
                + length + " bytes; version " + VERSION + " rings hold at most " + MAX_FILE_LENGTH
                + " (lower --prefetch or --batch)");
        }
        return length;
    }

    public static void checkSlots(int slots) {
        if (slots < 1 || slots > MAX_SLOTS) {
            throw new IllegalArgumentException("a ring has 1.." + MAX_SLOTS + " slots: " + slots);
        }
    }

    /**
     * Checks a mapped ring's header against the file it came from: magic, version, and a geometry whose every
     * slot lies inside the file. {@code what} names the file in the message.
     *
     * @throws RingFormatException naming the file and the first field that is wrong
     */
    public static void checkHeader(AtomicBuffer buffer, long actualLength, String what) {
        RingHeader header = new RingHeader().wrap(buffer, 0);
        if (actualLength < HEADER_END || !header.hasMagic()) {
            throw new RingFormatException(what + " is not a pinshard ring (no \"PINSRING\" magic)");
        }
        int version = header.version();
        if (version != VERSION) {
            throw new RingFormatException(what + " is a version " + version + " ring; this pinshard reads version "
                + VERSION + (version > VERSION ? ": upgrade pinshard" : ": restart the server with this pinshard"));
        }
        long fileLength = header.fileLength();
        int slots = header.slotCount();
        if (fileLength != actualLength) {
            throw new RingFormatException(what + " says it is " + fileLength + " bytes long but is " + actualLength);
        }
        if (slots < 1 || slots > MAX_SLOTS) {
            throw new RingFormatException(what + " has " + slots + " slots (1.." + MAX_SLOTS + ")");
        }
        long slotsOffset = header.slotsOffset();
        long stride = header.slotStride();
        if (slotsOffset != slotsOffset(slots) || header.headerLength() != slotsOffset || stride <= 0
            || stride % PAGE != 0 || stride > (fileLength - slotsOffset) / slots
            || slotsOffset + slots * stride != fileLength) {
            throw new RingFormatException(what + " has an inconsistent slot geometry: " + slots + " slots of stride "
                + stride + " from " + slotsOffset + " in " + fileLength + " bytes");
        }
        if (header.classCount() < 0) {
            throw new RingFormatException(what + " has " + header.classCount() + " classes");
        }
        int fields = header.fieldCount();
        int jsonLength = buffer.getInt(fieldsBlockOffset(slots) + FIELDS_JSON_LENGTH_OFFSET);
        if (fields < 0 || fields > MAX_FIELDS || jsonLength < 0 || jsonLength > FIELDS_JSON_MAX_BYTES
            || (fields == 0) != (jsonLength == 0)) {
            throw new RingFormatException(what + " has an inconsistent fields block: FIELD_COUNT " + fields
                + ", " + jsonLength + " bytes of description (0.." + FIELDS_JSON_MAX_BYTES + ")");
        }
        if (header.pixels() == null) {
            throw new RingFormatException(what + " has an unknown pixel format: DTYPE " + header.dtypeCode() + "/"
                + header.dtypeBits() + " bits, LAYOUT " + header.layout() + ", mean " + header.mean(0) + ", "
                + header.mean(1) + ", " + header.mean(2) + ", std " + header.std(0) + ", " + header.std(1) + ", "
                + header.std(2));
        }
        int capacity = header.capacity();
        if (capacity < 1 || header.height() < 1 || header.width() < 1 || header.channels() != 3
            || capacity * header.imageBytes() > stride) {
            throw new RingFormatException(what + " has batches of " + capacity + " x " + header.height() + " x "
                + header.width() + " x " + header.channels() + " that do not fit its " + stride + "-byte slots");
        }
        RingFields.read(header, what); // each field's lengths and values inside a slot
    }

    /**
     * Checks slot {@code slot}'s published offsets: images, labels and ids of {@code size} samples all inside the
     * slot's data. A reader calls this, on a header {@link #checkHeader} passed, before it makes views of the slot.
     */
    public static void checkSlotOffsets(AtomicBuffer buffer, int slot, String what) {
        checkSlotOffsets(new RingHeader().wrap(buffer, 0), new RingSlotHeader().wrapSlot(buffer, slot), what);
    }

    static void checkSlotOffsets(RingHeader ring, RingSlotHeader header, String what) {
        int slot = header.slot();
        long start = ring.slotOffset(slot);
        long end = start + ring.slotStride();
        int size = header.size();
        int capacity = ring.capacity();
        if (size < 1 || size > capacity) {
            throw new RingFormatException(what + ": slot " + slot + " holds " + size + " samples (1.." + capacity + ")");
        }
        long imageBytes = ring.imageBytes();
        int element = (int) (imageBytes / ((long) ring.height() * ring.width() * ring.channels()));
        checkArray(what, slot, "images", header.imagesOffset(), size * imageBytes, element, start, end);
        checkArray(what, slot, "labels", header.labelsOffset(), (long) size * Integer.BYTES, Integer.BYTES, start,
            end);
        checkArray(what, slot, "sample ids", header.idsOffset(), (long) size * Long.BYTES, Long.BYTES, start, end);
    }

    /**
     * Checks published slot {@code slot} as a reader must before it hands the batch out: its offsets
     * ({@link #checkSlotOffsets}), its SEQUENCE not past PUBLISHED, and every label -1 or below CLASS_COUNT.
     */
    public static void checkSlot(AtomicBuffer buffer, int slot, String what) {
        RingHeader ring = new RingHeader().wrap(buffer, 0);
        RingSlotHeader header = new RingSlotHeader().wrapSlot(buffer, slot);
        long sequence = header.sequence();
        long published = new RingServerBlock().wrap(buffer, 0).publishedVolatile();
        if (sequence < 0 || sequence > published) {
            throw new RingFormatException(what + ": slot " + slot + "'s SEQUENCE " + sequence + " is past PUBLISHED "
                + published + ": the slot header was overwritten");
        }
        checkSlotOffsets(ring, header, what);
        int classes = ring.classCount();
        long labels = header.labelsOffset();
        for (int i = 0; i < header.size(); i++) {
            int label = buffer.getInt((int) labels + i * Integer.BYTES);
            if (label < -1 || classes > 0 && label >= classes) {
                throw new RingFormatException(what + ": slot " + slot + " holds label " + label + ", outside -1.."
                    + (classes - 1) + " (CLASS_COUNT " + classes + "): the slot was overwritten");
            }
        }
    }

    private static void checkArray(String what, int slot, String array, long offset, long length, int alignment,
                                   long start, long end) {
        if (offset < start || offset > end - length || offset % alignment != 0) {
            throw new RingFormatException(what + ": slot " + slot + "'s " + array + " (" + length + " bytes at "
                + offset + ") lie outside the slot [" + start + ", " + end + ")");
        }
    }
}
