package io.pinshard.loader.work;

import io.pinshard.format.Codec;
import io.pinshard.format.Crc32c;
import io.pinshard.format.FieldSchema;
import io.pinshard.format.FieldType;
import io.pinshard.format.ShardFormatException;
import io.pinshard.format.ShardFormatException.Kind;
import io.pinshard.jpeg.OpenCvJpegDecoder;
import io.pinshard.jpeg.RegionDecoder;
import io.pinshard.loader.augment.BoxTransform;
import io.pinshard.loader.augment.CropBox;
import io.pinshard.loader.augment.CropResizer;
import io.pinshard.loader.augment.Yuv420Rows;
import io.pinshard.loader.options.AugmentOptions;
import io.pinshard.loader.options.FieldSelection;
import io.pinshard.loader.options.LoaderMode;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.ring.Batch;
import io.pinshard.loader.sample.SplitMix;
import io.pinshard.reader.CrcCheck;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordDecoder;
import io.pinshard.reader.RecordView;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One worker's per-sample work: check, decode and crop one record into its place in a batch slot. Decoding,
 * with its CRC and LZ4 checks, is {@link RecordDecoder}'s: lz4 and jpeg payloads are copied out of the mapping
 * (a guarded copy) before native code reads them. jpeg goes through libjpeg-turbo's own API where this JVM has
 * it ({@link RecordDecoder#turbo()}): only the crop box's region, at the smallest of 1/8, 2/8, 4/8 and 8/8 that
 * keeps the box at least the output size; else (or for CMYK streams) OpenCV decodes the whole image, at 1/2, 1/4 or 1/8 scale when
 * the crop box allows.
 * Raw payloads are cropped straight from the mapping by the vector kernel (which reads with guarded copies
 * only); when OpenCV has to do the crop, the box's rows are copied first. yuv420 payloads are cropped the same way,
 * each box row converted to RGB as it is read ({@link Yuv420Rows}). Scratch is sized from the dataset's
 * largest records at open, which every read is re-checked against.
 *
 * <p>The caller holds the dataset's read guard ({@link Dataset#acquire()}) around {@link #process}.
 */
public final class SampleProcessor implements AutoCloseable {
    private final AugmentOptions options;
    private final CrcCheck crcCheck;
    private final Crc32c crc = new Crc32c();
    private final CropBox box = new CropBox();
    private final SplitMix random = new SplitMix();
    private final CropResizer resizer;
    private final RecordDecoder decoder;
    /** Per selected field: its position in the dataset's schema. */
    private final int[] datasetFields;
    /** The selected field of boxes, or -1. */
    private final int boxesField;
    private final BoxTransform boxTransform;
    private final Yuv420Rows yuv = new Yuv420Rows();
    /** One converted yuv420 box row on its way to OpenCV's scratch (grown to the widest box). */
    private byte[] yuvRow = new byte[0];
    private final UnsafeBuffer boxRow = new UnsafeBuffer(0, 0);

    /**
     * @param options     what a record becomes: crop, randomness, pixels, fields
     * @param crcCheck    which payloads are checked before decoding (the loader's policy)
     * @param sharedSlots whether the destination slots are memory other processes share (a serve ring): the crop
     *                    kernel then writes them with guarded stores
     * @param dataset     sizes the scratch from its largest records
     */
    public SampleProcessor(AugmentOptions options, CrcCheck crcCheck, boolean sharedSlots, Dataset dataset) {
        this(options, crcCheck, sharedSlots, dataset, 0);
    }

    /**
     * @param firstBatch the loader's batch size: the vector kernel's warm-up waits for that many crops (its first
     *                   batch) before it takes a core ({@link CropResizer#CropResizer(int, Resampler, boolean,
     *                   io.pinshard.loader.options.PixelFormat, int)})
     */
    public SampleProcessor(AugmentOptions options, CrcCheck crcCheck, boolean sharedSlots, Dataset dataset,
                           int firstBatch) {
        this.options = options;
        this.crcCheck = crcCheck;
        this.resizer = new CropResizer(options.crop(), options.resampler(), sharedSlots, options.pixels(), firstBatch);
        long payload = Math.max(dataset.maxPayloadBytes(Codec.LZ4), dataset.maxPayloadBytes(Codec.JPEG));
        // lz4 decodes whole records into scratch; raw rows are copied there when OpenCV crops them; libjpeg-turbo
        // decodes a jpeg box's region there (RGB: at most the whole image; grey records grow it once).
        long decoded = Math.max(Math.max(dataset.maxDecodedBytes(Codec.LZ4), dataset.maxDecodedBytes(Codec.RAW)),
            Math.max(dataset.maxDecodedBytes(Codec.JPEG), dataset.maxDecodedBytes(Codec.YUV420)));
        this.decoder = new RecordDecoder(crcCheck, payload, decoded);
        FieldSelection fields = options.fields();
        this.datasetFields = new int[fields.count()];
        for (int f = 0; f < fields.count(); f++) {
            String name = fields.names().get(f);
            datasetFields[f] = dataset.fieldIndex(name);
            if (datasetFields[f] < 0) {
                throw new IllegalArgumentException(dataset.location() + " has no field " + name + "; its fields: "
                    + dataset.fields().stream().map(FieldSchema::describe).toList());
            }
        }
        this.boxesField = fields.boxesIndex();
        if (boxesField >= 0) {
            FieldSchema schema = dataset.fields().get(datasetFields[boxesField]);
            if (schema.type() != FieldType.FLOAT32 || (schema.isFixed() && schema.length() % BoxTransform.BOX_FLOATS != 0)) {
                throw new IllegalArgumentException("the boxes field must be float32 with 4 floats per box (x0, y0, "
                    + "x1, y1): " + dataset.location() + "'s " + schema.describe());
            }
        }
        this.boxTransform = new BoxTransform(fields.boxMinVisible());
    }

    /** The processor a loader with {@code options} gives each worker: its augment group, CRC policy and slot memory. */
    public static SampleProcessor of(LoaderOptions options, Dataset dataset) {
        return new SampleProcessor(options.augment(), options.policy().crcCheck(),
            options.ring().allocator().sharedWithOtherProcesses(), dataset, options.sampling().batchSize());
    }

    /**
     * Copies the selected fields of {@code record} into sample {@code inBatch} of {@code batch}; the boxes field goes
     * through the crop and flip {@link #process} just gave the pixels (so call it after that, with the same record).
     *
     * @throws ShardFormatException naming the record when a value is not what its schema says
     * @throws IllegalStateException naming the record and field when a value is longer than the slot's room
     */
    public void copyFields(RecordView record, Batch batch, int inBatch) {
        for (int f = 0; f < datasetFields.length; f++) {
            int field = datasetFields[f];
            int length = record.fieldLength(field);
            if (length > batch.fieldCapacity()) {
                throw new IllegalStateException(record.corrupt(Kind.BAD_FIELDS, "field "
                    + options.fields().names().get(f) + " holds " + length + " bytes, more than the loader's "
                    + batch.fieldCapacity() + " per sample").getMessage()
                    + "; give LoaderOptions.Builder.fieldBytes (--field-bytes) at least " + length);
            }
            long to = batch.slotFieldAddress(f, inBatch);
            record.copyField(field, to);
            if (f == boxesField) {
                if (length % BoxTransform.BOX_BYTES != 0) {
                    throw record.corrupt(Kind.BAD_FIELDS, "boxes field " + options.fields().boxes() + " holds "
                        + length + " bytes, not whole boxes of 4 float32");
                }
                length = BoxTransform.BOX_BYTES
                    * boxTransform.transform(to, length / BoxTransform.BOX_BYTES, box, options.crop(), to, 0);
            }
            batch.putFieldLength(f, inBatch, length);
        }
    }

    /** The crop box and flip this record gets for {@code sampleSeed}; the box is in stored-image pixels. */
    public CropBox boxFor(RecordView record, long sampleSeed) {
        if (options.mode() == LoaderMode.TRAIN) {
            return box.randomResized(record.height(), record.width(), options, random.seed(sampleSeed));
        }
        return box.centre(record.height(), record.width(), options.evalCropFraction());
    }

    /**
     * Writes {@code crop x crop x 3} pixels of {@code record} to {@code destination}.
     *
     * @return payload bytes read
     * @throws ShardFormatException naming the record when it is corrupt, or when its shard changed under the mapping
     */
    public int process(RecordView record, long sampleSeed, long destination) {
        CropBox crop = boxFor(record, sampleSeed);
        int channels = record.channels();
        long step = (long) record.width() * channels;
        Codec codec = record.codec();
        try {
            switch (codec) {
                case RAW -> cropRaw(record, crop, step, channels, destination);
                case LZ4 -> {
                    long pixels = decoder.decompressLz4(record, decoder.readPayload(record));
                    resizer.resizeInto(pixels, step, channels, crop, destination);
                }
                case JPEG -> decodeJpegInto(record, crop, destination);
                case YUV420 -> cropYuv420(record, crop, destination);
                default -> throw new IllegalStateException("unreachable: validated codec " + codec);
            }
            RecordView.surfaceFaults(); // a fault in the vector kernel's guarded reads surfaces here, not later
        } catch (InternalError fault) {
            throw RecordView.changedWhileMapped(record.shard().dataset(), record.shard().name(), record.recordInShard(),
                fault);
        }
        return record.payloadLength();
    }

    private void cropRaw(RecordView record, CropBox crop, long step, int channels, long destination) {
        if (crcCheck.checks(Codec.RAW) && !record.payloadIntact(crc)) {
            throw record.corrupt(Kind.CHECKSUM_MISMATCH, "payload CRC32C does not match the index");
        }
        if (resizer.resizeWithKernel(record.payloadAddress(), step, channels, crop, destination)) {
            return;
        }
        // OpenCV is native code: give it a copy of the box's rows, addressed as if it were the whole image.
        int first = (int) (crop.y * step);
        int length = (int) (crop.height * step);
        long rows = decoder.decodeScratch(length);
        record.copyPayload(first, length, rows);
        resizer.resizeWithOpenCv(rows - first, step, channels, crop, destination);
    }

    /**
     * yuv420 planes cropped straight from the mapping, each box row converted to RGB as the kernel reads it; when
     * OpenCV has to do the crop, the box's rows are converted into scratch first (the box only, never the image).
     */
    private void cropYuv420(RecordView record, CropBox crop, long destination) {
        if (crcCheck.checks(Codec.YUV420) && !record.payloadIntact(crc)) {
            throw record.corrupt(Kind.CHECKSUM_MISMATCH, "payload CRC32C does not match the index");
        }
        Yuv420Rows image = yuv.wrap(record.payloadAddress(), record.payloadLength(), record.height(), record.width());
        if (resizer.resizeWithKernel(image, crop, destination)) {
            return;
        }
        int step = crop.width * 3;
        long rows = decoder.decodeScratch(step * crop.height);
        for (int y = 0; y < crop.height; y++) {
            image.rgbRow(crop.y + y, crop.x, crop.width, yuvRow(step), 0);
            boxRow.wrap(rows + (long) y * step, step);
            boxRow.putBytes(0, yuvRow, 0, step);
        }
        // Addressed as if the scratch were the whole image, rows step bytes apart, so the box lands on its start.
        resizer.resizeWithOpenCv(rows - (long) crop.y * step - crop.x * 3L, step, 3, crop, destination);
    }

    private byte[] yuvRow(int bytes) {
        if (yuvRow.length < bytes) {
            yuvRow = new byte[bytes];
        }
        return yuvRow;
    }

    private void decodeJpegInto(RecordView record, CropBox crop, long destination) {
        long payload = decoder.readPayload(record);
        RegionDecoder turbo = decoder.turbo();
        if (turbo != null && decodeRegionInto(turbo, record, payload, crop, destination)) {
            return;
        }
        OpenCvJpegDecoder jpeg = decoder.jpeg();
        int factor = reduction(crop, options.crop(), options.reducedJpegDecode());
        String problem = jpeg.decode(payload, record.payloadLength(), record.height(), record.width(), factor);
        if (problem != null) {
            throw record.corrupt(Kind.UNDECODABLE_PAYLOAD, problem);
        }
        if (factor > 1) {
            scaleBox(crop, record.height(), record.width(), jpeg.rows(), jpeg.cols());
        }
        resizer.resizeInto(jpeg.dataAddress(), jpeg.step(), 3, crop, destination);
    }

    /**
     * libjpeg-turbo decodes only the box's rows and (to the iMCU grid) columns, at the smallest power-of-two
     * M/8 scale that keeps the box at least the output size, into scratch; the box moves into that region's coordinates and
     * the bilinear kernel takes it from there. False, with the box untouched, for streams it leaves to OpenCV.
     */
    private boolean decodeRegionInto(RegionDecoder turbo, RecordView record, long payload, CropBox crop,
        long destination) {
        int height = record.height();
        int width = record.width();
        int scale = scaleEighths(crop, options.crop(), options.reducedJpegDecode());
        int rows = RegionDecoder.scaledSide(height, scale);
        int cols = RegionDecoder.scaledSide(width, scale);
        int x = crop.x;
        int y = crop.y;
        int boxWidth = crop.width;
        int boxHeight = crop.height;
        if (scale < 8) {
            scaleBox(crop, height, width, rows, cols);
        }
        long stride = (long) cols * 3;
        long capacity = stride * crop.height;
        long region = decoder.decodeScratch((int) capacity);
        RegionDecoder.Status status = turbo.decode(payload, record.payloadLength(), scale, crop.x, crop.y, crop.width,
            crop.height, RegionDecoder.Format.RGB, region, stride, capacity);
        switch (status) {
            case OK -> {
                if (turbo.scaledWidth() != cols || turbo.scaledHeight() != rows) {
                    throw record.corrupt(Kind.UNDECODABLE_PAYLOAD, "jpeg decodes to " + turbo.imageHeight() + "x"
                        + turbo.imageWidth() + ", the index says " + height + "x" + width);
                }
                crop.x -= turbo.regionX();
                crop.y = 0;
                resizer.resizeInto(region, stride, 3, crop, destination);
                return true;
            }
            case UNSUPPORTED -> {
                crop.set(x, y, boxWidth, boxHeight, crop.flip);
                return false;
            }
            default -> throw record.corrupt(Kind.UNDECODABLE_PAYLOAD, "jpeg payload cannot be decoded: "
                + turbo.problem());
        }
    }

    /**
     * The smallest of the scales 1/8, 2/8, 4/8 and 8/8 at which the box is still at least {@code crop} wide and
     * high: 8 (full size) when not {@code allowed}. Only these: libjpeg-turbo has SIMD inverse DCTs for them,
     * while 3/8, 5/8, 6/8 and 7/8 run its plain C IDCTs, for luma and for the 2x chroma sizes (7x7 and 14x14
     * at 7/8) alike, which made a 7/8 or 6/8 decode slower than the 8/8 one whose extra pixels it saves
     * (loader 6-20 % faster on 320-px photo shards, crop 224, without them; docs/loader.md).
     */
    static int scaleEighths(CropBox box, int crop, boolean allowed) {
        if (!allowed) {
            return 8;
        }
        int scale = 1;
        while (scale < 8 && ((long) box.width * scale < 8L * crop || (long) box.height * scale < 8L * crop)) {
            scale *= 2;
        }
        return scale;
    }

    /** The largest power-of-two reduction (1, 2, 4, 8) that still leaves the box at least {@code crop} wide and high. */
    static int reduction(CropBox box, int crop, boolean allowed) {
        if (!allowed) {
            return 1;
        }
        int factor = 8;
        while (factor > 1 && (box.width / factor < crop || box.height / factor < crop)) {
            factor >>= 1;
        }
        return factor;
    }

    /** Maps a box from full-size pixels to those of a reduced decode, rounding both edges to the nearest pixel. */
    static void scaleBox(CropBox crop, int height, int width, int rows, int cols) {
        int left = (int) Math.round((double) crop.x * cols / width);
        int right = (int) Math.round((double) (crop.x + crop.width) * cols / width);
        int top = (int) Math.round((double) crop.y * rows / height);
        int bottom = (int) Math.round((double) (crop.y + crop.height) * rows / height);
        crop.x = Math.min(left, cols - 1);
        crop.y = Math.min(top, rows - 1);
        crop.width = Math.max(1, Math.min(right, cols) - crop.x);
        crop.height = Math.max(1, Math.min(bottom, rows) - crop.y);
    }

    @Override
    public void close() {
        resizer.close();
        decoder.close();
    }
}
