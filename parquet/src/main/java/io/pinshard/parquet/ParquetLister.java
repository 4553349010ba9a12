package io.pinshard.parquet;

import com.fasterxml.jackson.databind.JsonNode;
import io.pinshard.format.Json;
import io.pinshard.writer.convert.FieldSource;
import io.pinshard.writer.convert.FieldSpec;
import io.pinshard.writer.convert.InputItem;
import io.pinshard.writer.convert.InputListing;
import io.pinshard.writer.convert.LabelTable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Lists the rows of Parquet files in the Hugging Face datasets layout: an image column that is a struct
 * {@code {bytes: binary, path: string}} (or plain binary), an optional {@code label} column (integers, with the
 * class names of the file's {@code huggingface} metadata when it has them, -1 for none; or strings), and other columns that
 * {@code --fields} names. Read with parquet-java, row group by row group, without Hadoop ({@link ParquetCodecs}).
 * Image bytes are copied once into a spool file (a plain concatenation, deleted when the JVM exits), so that the
 * conversion's workers read each image as a byte range, as they read a tar member; field cells travel as their
 * values. A row without image bytes, or with a label outside the class names, is a rejected input naming the row.
 */
public final class ParquetLister {
    public static final String DEFAULT_IMAGE_COLUMN = "image";
    public static final String LABEL_COLUMN = "label";
    /**
     * The most footer metadata (schema, row groups, key-value metadata) a file may claim: 64 MiB. parquet-java reads
     * and parses the whole claim before it can judge it, so a file whose last 8 bytes claim a gigabyte costs a
     * gigabyte of heap and minutes; this limit is checked first, from those 8 bytes. A Hugging Face file's footer
     * is a few kilobytes (a few hundred row groups of a few columns); Apache Arrow's reader caps the same Thrift
     * structure at 100 MB by default.
     */
    public static final long MAX_FOOTER_BYTES = 64L << 20;
    /** A Parquet file's first and last 4 bytes (a footer encrypted in the "PARE" mode is not read). */
    private static final int MAGIC = 0x31524150; // "PAR1" little-endian
    /** The tail: the footer's length (int32 little-endian), then the magic. */
    private static final int TAIL_BYTES = 8;

    private ParquetLister() {
    }

    public static boolean isParquet(Path path) throws IOException {
        if (Files.isRegularFile(path)) {
            return path.getFileName().toString().endsWith(".parquet");
        }
        return Files.isDirectory(path) && !parquetFiles(path).isEmpty();
    }

    private static List<Path> parquetFiles(Path dir) throws IOException {
        try (var children = Files.list(dir)) {
            return children.filter(p -> p.getFileName().toString().endsWith(".parquet") && Files.isRegularFile(p))
                .sorted().toList();
        }
    }

    /**
     * Lists one {@code .parquet} file or every one of a directory in name order.
     *
     * @param labelled whether to take labels from the {@code label} column (when the files have one)
     * @param fields   columns to store as fields ({@link FieldSpec#forTable}: SOURCE is a column name)
     * @param spool    directory for the image spool file
     */
    public static InputListing list(Path path, boolean labelled, List<FieldSpec> fields, String imageColumn, Path spool)
        throws IOException {
        List<Path> files = Files.isDirectory(path) ? parquetFiles(path) : List.of(path);
        Path spoolFile = Files.createTempFile(spool, "pinshard-parquet-", ".spool");
        spoolFile.toFile().deleteOnExit();
        List<Row> rows = new ArrayList<>();
        List<String> classNames = null;
        try (FileChannel out = FileChannel.open(spoolFile, StandardOpenOption.WRITE)) {
            for (Path file : files) {
                List<String> names = read(file, labelled, fields, imageColumn, spoolFile, out, rows);
                if (names != null && classNames != null && !names.equals(classNames)) {
                    throw new IOException(file + " names other classes than the files before it: " + names);
                }
                classNames = names != null ? names : classNames;
            }
        }
        List<String> labels = new ArrayList<>();
        rows.forEach(row -> labels.add(row.label));
        LabelTable table = classNames == null ? new LabelTable(labels) : null;
        List<InputItem> items = new ArrayList<>(rows.size());
        for (Row row : rows) {
            if (row.item.problem() != null || row.label == null) {
                items.add(row.item);
            } else if (classNames != null) {
                long label = row.label.matches("\\d{1,9}") ? Long.parseLong(row.label) : Long.MAX_VALUE;
                items.add(label < classNames.size() ? row.item.withLabel((int) label) : InputItem.unusable(row.item.key(),
                    "label " + row.label + " is not a class number of the file's metadata, which names "
                    + classNames.size() + " classes"));
            } else {
                items.add(row.item.withLabel(table.label(row.label)));
            }
        }
        InputListing listing = new InputListing(path.toString(), classNames != null ? classNames : table.classes(), items, 0);
        return fields.isEmpty() ? listing : listing.withFields(FieldSpec.schema(fields), items);
    }

    /** One listed row: its input (label still text) and that text. */
    private record Row(InputItem item, String label) {
    }

    /** Reads one file's rows into {@code rows}; returns its ClassLabel names, or null when it has none. */
    private static List<String> read(Path file, boolean labelled, List<FieldSpec> fields, String imageColumn,
                                     Path spoolFile, FileChannel spool, List<Row> rows) throws IOException {
        ParquetReadOptions options = ParquetReadOptions.builder(new PlainParquetConfiguration())
            .withCodecFactory(new ParquetCodecs()).build();
        String name = file.getFileName().toString();
        long footerStart = checkFooter(file);
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file), options)) {
            checkColumnChunks(file, reader, footerStart);
            MessageType schema = reader.getFooter().getFileMetaData().getSchema();
            if (!schema.containsField(imageColumn)) {
                throw new Unusable(name + " has no column \"" + imageColumn + "\" (--image-column names it); columns: "
                    + schema.getFields().stream().map(Type::getName).toList());
            }
            for (FieldSpec spec : fields) {
                if (!schema.containsField(spec.source())) {
                    throw new Unusable(name + " has no column \"" + spec.source() + "\" for --fields");
                }
            }
            boolean hasLabel = labelled && schema.containsField(LABEL_COLUMN);
            List<String> names = hasLabel ? classNames(reader.getFooter().getFileMetaData().getKeyValueMetaData()) : null;
            long row = 0;
            PageReadStore pages;
            while ((pages = reader.readNextRowGroup()) != null) {
                RecordReader<Group> records = new ColumnIOFactory().getColumnIO(schema).getRecordReader(pages,
                    new GroupRecordConverter(schema));
                for (long i = 0; i < pages.getRowCount(); i++, row++) {
                    rows.add(row(records.read(), file, name, row, imageColumn, hasLabel, fields, spoolFile, spool));
                }
            }
            return names;
        } catch (Unusable e) {
            throw e;
        } catch (IOException | RuntimeException e) { // parquet-java's corrupt-file errors name no file
            throw new IOException(name + " cannot be read as Parquet: " + e.getMessage(), e);
        }
    }

    /**
     * Checks what a file's last 8 bytes claim before parquet-java acts on it: the magic, and a footer length that
     * fits between the leading magic and the tail and is at most {@link #MAX_FOOTER_BYTES}. Reads those 8 bytes
     * only; returns where the footer starts.
     *
     * @throws Unusable naming the file and what it claims
     */
    static long checkFooter(Path file) throws IOException {
        ByteBuffer tail = ByteBuffer.allocate(TAIL_BYTES).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        long size;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            size = channel.size();
            if (size < 4 + TAIL_BYTES) {
                throw new Unusable(file + " is not Parquet: " + size + " bytes, fewer than the 12 of an empty file");
            }
            while (tail.hasRemaining()) {
                if (channel.read(tail, size - TAIL_BYTES + tail.position()) < 0) {
                    throw new Unusable(file + " ended while its last 8 bytes were read (is it being written?)");
                }
            }
        }
        long footer = Integer.toUnsignedLong(tail.getInt(0));
        if (tail.getInt(4) != MAGIC) {
            throw new Unusable(file + " is not Parquet: it does not end in PAR1 (an encrypted footer is not read)");
        }
        long room = size - 4 - TAIL_BYTES;
        if (footer > room) {
            throw new Unusable(file + " is broken: its footer claims " + footer + " bytes of metadata, but the file holds "
                + room + " bytes besides its magic and length (truncated, or not written to its end)");
        }
        if (footer > MAX_FOOTER_BYTES) {
            throw new Unusable(file + " claims " + footer + " bytes of footer metadata, more than the "
                + (MAX_FOOTER_BYTES >> 20) + " MiB this reader accepts (a Hugging Face file's footer is a few kB):"
                + " refused before reading it; rewrite the file with fewer row groups if the claim is real");
        }
        return size - TAIL_BYTES - footer;
    }

    /** Refuses a footer whose column chunks lie outside the data between the leading magic and the footer. */
    private static void checkColumnChunks(Path file, ParquetFileReader reader, long footerStart) throws Unusable {
        List<BlockMetaData> groups = reader.getRowGroups();
        for (int g = 0; g < groups.size(); g++) {
            for (ColumnChunkMetaData chunk : groups.get(g).getColumns()) {
                long start = chunk.getStartingPos();
                long length = chunk.getTotalSize();
                if (start < 4 || length < 0 || length > footerStart - start) {
                    throw new Unusable(file + " is broken: row group " + g + " column " + chunk.getPath().toDotString()
                        + " claims bytes [" + start + ", " + start + " + " + length + ") outside the file's data [4, "
                        + footerStart + ")");
                }
            }
        }
    }

    /** A file this lister refuses for what it holds (its message names the file). */
    private static final class Unusable extends IOException {
        private static final long serialVersionUID = 1L;

        Unusable(String message) {
            super(message);
        }
    }

    private static Row row(Group group, Path source, String file, long row, String imageColumn, boolean hasLabel,
                           List<FieldSpec> fields, Path spoolFile, FileChannel spool) throws IOException {
        String rowKey = file + "#" + row;
        byte[] image = null;
        String path = null;
        if (group.getFieldRepetitionCount(imageColumn) > 0) {
            Type type = group.getType().getType(imageColumn);
            if (type.isPrimitive()) {
                image = group.getBinary(imageColumn, 0).getBytes();
            } else {
                Group struct = group.getGroup(imageColumn, 0);
                GroupType structType = struct.getType();
                if (structType.containsField("bytes") && struct.getFieldRepetitionCount("bytes") > 0) {
                    image = struct.getBinary("bytes", 0).getBytes();
                }
                if (structType.containsField("path") && struct.getFieldRepetitionCount("path") > 0) {
                    path = struct.getBinary("path", 0).toStringUsingUTF8();
                }
            }
        }
        String key = path == null || path.isEmpty() ? rowKey : file + "/" + path;
        String label = null;
        if (hasLabel && group.getFieldRepetitionCount(LABEL_COLUMN) > 0) {
            JsonNode value = cell(group, LABEL_COLUMN);
            label = value.isTextual() ? value.asText() : value.isIntegralNumber() && value.asLong() >= 0 ? value.asText() : null;
            boolean unlabelled = value.isIntegralNumber() && value.asLong() == -1; // datasets' "no label" (test splits)
            if (label == null && !unlabelled) {
                return new Row(InputItem.unusable(key, "label " + value + " is not a class name or a whole number >= 0"),
                    null);
            }
        }
        if (image == null || image.length == 0) {
            return new Row(InputItem.unusable(key, "row " + row + " of " + file + " has no image bytes (column "
                + imageColumn + ")"), label);
        }
        long offset = spool.position();
        ByteBuffer bytes = ByteBuffer.wrap(image);
        while (bytes.hasRemaining()) {
            spool.write(bytes);
        }
        List<FieldSource> sources = new ArrayList<>(fields.size());
        for (FieldSpec spec : fields) {
            sources.add(source(group, spec.source(), "column " + spec.source() + " of row " + row));
        }
        // What the dataset records it was made from: the row of the .parquet file, not the spool (new every run).
        InputItem item = InputItem.slice(key, -1, spoolFile, offset, image.length).copiedFrom(source, row, image.length);
        return new Row(fields.isEmpty() ? item : item.withFields(sources), label);
    }

    /** A field cell: binary as its bytes (text or not), anything else as its JSON value; null when absent. */
    private static FieldSource source(Group group, String column, String what) throws IOException {
        if (group.getFieldRepetitionCount(column) == 0) {
            return null;
        }
        Type type = group.getType().getType(column);
        if (type.isPrimitive() && type.asPrimitiveType().getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.BINARY
            && !type.isRepetition(Type.Repetition.REPEATED)) {
            return FieldSource.cell(what, group.getBinary(column, 0).getBytes(), false);
        }
        return FieldSource.cell(what, Json.MAPPER.writeValueAsBytes(cell(group, column)), true);
    }

    /** A column's value as JSON: numbers, booleans, text, lists (repeated or the LIST layout) and structs. */
    static JsonNode cell(Group group, String column) {
        Type type = group.getType().getType(column);
        int count = group.getFieldRepetitionCount(column);
        if (type.isRepetition(Type.Repetition.REPEATED)) {
            var array = Json.MAPPER.createArrayNode();
            for (int i = 0; i < count; i++) {
                array.add(value(group, column, i, type));
            }
            return array;
        }
        return count == 0 ? Json.MAPPER.nullNode() : value(group, column, 0, type);
    }

    private static JsonNode value(Group group, String column, int index, Type type) {
        var nodes = Json.MAPPER.getNodeFactory();
        if (!type.isPrimitive()) {
            Group inner = group.getGroup(column, index);
            GroupType innerType = inner.getType();
            if (type.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation
                && innerType.getFieldCount() == 1) {
                // LIST: a repeated group "list" of "element" (or a repeated primitive): flatten to an array.
                var array = Json.MAPPER.createArrayNode();
                String repeated = innerType.getFieldName(0);
                for (int i = 0; i < inner.getFieldRepetitionCount(repeated); i++) {
                    Type element = innerType.getType(0);
                    if (element.isPrimitive()) {
                        array.add(value(inner, repeated, i, element));
                    } else {
                        Group item = inner.getGroup(repeated, i);
                        array.add(item.getType().getFieldCount() == 1 ? cell(item, item.getType().getFieldName(0))
                            : struct(item));
                    }
                }
                return array;
            }
            return struct(inner);
        }
        return switch (type.asPrimitiveType().getPrimitiveTypeName()) {
            case INT32 -> nodes.numberNode(group.getInteger(column, index));
            case INT64 -> nodes.numberNode(group.getLong(column, index));
            case FLOAT -> nodes.numberNode(group.getFloat(column, index));
            case DOUBLE -> nodes.numberNode(group.getDouble(column, index));
            case BOOLEAN -> nodes.booleanNode(group.getBoolean(column, index));
            case BINARY -> nodes.textNode(group.getBinary(column, index).toStringUsingUTF8());
            default -> nodes.textNode(group.getValueToString(group.getType().getFieldIndex(column), index));
        };
    }

    private static JsonNode struct(Group group) {
        var object = Json.MAPPER.createObjectNode();
        for (Type field : group.getType().getFields()) {
            object.set(field.getName(), cell(group, field.getName()));
        }
        return object;
    }

    /** The label column's class names from the Hugging Face metadata (features.label.names), or null. */
    static List<String> classNames(Map<String, String> keyValues) {
        String hf = keyValues.get("huggingface");
        if (hf == null) {
            return null;
        }
        try {
            JsonNode names = Json.MAPPER.readTree(hf).path("info").path("features").path(LABEL_COLUMN).path("names");
            if (!names.isArray() || names.isEmpty()) {
                return null;
            }
            List<String> list = new ArrayList<>();
            names.forEach(n -> list.add(n.asText()));
            return list;
        } catch (IOException e) {
            return null; // metadata that does not parse names no classes; labels are then numbers
        }
    }

}
