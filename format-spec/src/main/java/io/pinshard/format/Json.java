package io.pinshard.format;

import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.pinshard.format.ShardFormatException.Kind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * The one JSON configuration of the project: deterministic output (sorted map keys), strict input, and output safe
 * to print: every character {@link Printable#isUnsafe} names (controls, DEL, C1, bidi overrides) is written as
 * <code>&#92;uNNNN</code>, so a manifest, shard metadata or a {@code --json} line holding a hostile name or field
 * value parses to the same value but carries no escape sequence to a terminal.
 */
public final class Json {
    public static final ObjectMapper MAPPER = JsonMapper.builder(new JsonFactoryBuilder()
            .characterEscapes(new PrintableEscapes()).build())
        .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
        .enable(SerializationFeature.INDENT_OUTPUT)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        // Strict types: "12" or 12.5 is not a record count, 1.0 is not the version string "1.0".
        .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
        .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
        .withCoercionConfig(LogicalType.Textual, config -> config
            .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
            .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
            .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
        .build();

    private static final ObjectMapper COMPACT = MAPPER.copy().disable(SerializationFeature.INDENT_OUTPUT);

    /** Reads exactly one JSON value (what a json record field holds): anything after it is an error. */
    public static final ObjectReader ONE_VALUE = MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private Json() {
    }

    /** JSON's own escapes, plus <code>&#92;uNNNN</code> for DEL and every non-ASCII character that is unsafe to print. */
    private static final class PrintableEscapes extends CharacterEscapes {
        private static final long serialVersionUID = 1L;
        private final int[] ascii;

        PrintableEscapes() {
            ascii = standardAsciiEscapesForJSON();
            ascii[0x7F] = ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return ch <= Character.MAX_VALUE && Printable.isUnsafe((char) ch)
                ? new SerializedString(String.format("\\" + "u%04X", ch)) : null;
        }
    }

    /** Pretty-printed UTF-8 JSON with a trailing newline, byte-for-byte stable for equal input. */
    public static byte[] pretty(Object value) {
        try {
            return (MAPPER.writeValueAsString(value) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write JSON: " + e.getMessage(), e);
        }
    }

    /** One-line UTF-8 JSON, as stored in a shard's metadata section. */
    public static byte[] compact(Object value) {
        try {
            // Through a String: Jackson's UTF-8 writer escapes every character beyond the BMP (emoji) as a pair of
            // \\u escapes once PrintableEscapes is set; its character writer keeps them as text.
            return COMPACT.writeValueAsString(value).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write JSON: " + e.getMessage(), e);
        }
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(byte[] bytes) throws IOException {
        return MAPPER.readValue(bytes, Map.class);
    }

    /** Reads and sanity-checks a dataset manifest; links out of {@code dir} as {@link DatasetFiles} says. */
    public static DatasetManifest readManifest(Path dir) {
        return readManifest(dir, DatasetFiles.allowLinksOutsideByDefault());
    }

    /**
     * Reads and sanity-checks a dataset manifest, which must be a regular file ({@link
     * DatasetFiles#checkManifest}).
     */
    public static DatasetManifest readManifest(Path dir, boolean allowLinksOutside) {
        Path file = DatasetFiles.checkManifest(dir, allowLinksOutside);
        DatasetManifest manifest;
        try {
            manifest = MAPPER.readValue(file.toFile(), DatasetManifest.class);
        } catch (IOException e) {
            throw new ShardFormatException(Kind.BAD_MANIFEST, dir.toString(), null, -1,
                "cannot parse " + file + ": " + e.getMessage(), e);
        }
        ManifestRules.check(dir, manifest);
        return manifest;
    }

    /**
     * Parses and sanity-checks a manifest fetched from elsewhere (object storage), as {@link #readManifest(Path)}
     * checks one read from a directory.
     *
     * @param dataset how errors name the dataset, e.g. {@code s3://bucket/prefix}
     */
    public static DatasetManifest parseManifest(byte[] bytes, String dataset) {
        DatasetManifest manifest;
        try {
            manifest = MAPPER.readValue(bytes, DatasetManifest.class);
        } catch (IOException e) {
            throw new ShardFormatException(Kind.BAD_MANIFEST, dataset, null, -1,
                "cannot parse " + DatasetManifest.FILE_NAME + ": " + e.getMessage(), e);
        }
        ManifestRules.check(dataset, manifest);
        return manifest;
    }
}
