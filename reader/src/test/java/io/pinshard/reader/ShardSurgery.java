package io.pinshard.reader;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

import io.pinshard.format.Crc32c;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.IndexEntryDescriptor;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFooterDescriptor;
import io.pinshard.format.ShardHeaderDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Edits a shard's bytes and re-seals every checksum (header, index, footer, manifest) so that tests
 * reach the structural checks behind them, as a careful attacker would.
 */
final class ShardSurgery {
    final Path dataset;
    final Path shard;
    final UnsafeBuffer bytes;

    ShardSurgery(Path dataset, String shardFile) throws IOException {
        this.dataset = dataset;
        this.shard = dataset.resolve(shardFile);
        this.bytes = new UnsafeBuffer(Files.readAllBytes(shard));
    }

    int footer() {
        return bytes.capacity() - ShardFooterDescriptor.LENGTH;
    }

    long indexOffset() {
        return bytes.getLong(footer() + ShardFooterDescriptor.INDEX_OFFSET_OFFSET, LITTLE_ENDIAN);
    }

    int entry(int record) {
        return (int) (indexOffset() + (long) record * IndexEntryDescriptor.LENGTH);
    }

    /** Recomputes header, index and footer checksums, writes the shard and fixes the manifest entry. */
    void seal() throws IOException {
        Crc32c crc = new Crc32c();
        bytes.putInt(ShardHeaderDescriptor.CRC_OFFSET, crc.compute(bytes, 0, ShardHeaderDescriptor.CRC_OFFSET), LITTLE_ENDIAN);
        long count = bytes.getLong(footer() + ShardFooterDescriptor.RECORD_COUNT_OFFSET, LITTLE_ENDIAN);
        long indexLength = count * IndexEntryDescriptor.LENGTH;
        if (indexOffset() >= 0 && indexOffset() + indexLength <= footer()) {
            bytes.putInt(footer() + ShardFooterDescriptor.INDEX_CRC_OFFSET,
                crc.compute(bytes, (int) indexOffset(), (int) indexLength), LITTLE_ENDIAN);
        }
        bytes.putInt(footer() + ShardFooterDescriptor.FOOTER_CRC_OFFSET,
            crc.compute(bytes, footer(), ShardFooterDescriptor.FOOTER_CRC_OFFSET), LITTLE_ENDIAN);
        writeAndFixManifest(bytes.byteArray());
    }

    /** Writes raw bytes as the shard (no resealing) and makes the manifest agree with them. */
    void writeAndFixManifest(byte[] content) throws IOException {
        Files.write(shard, content);
        Crc32c crc = new Crc32c();
        crc.reset();
        crc.update(content, 0, content.length);
        DatasetManifest manifest = Json.MAPPER.readValue( // unchecked: earlier surgery may have broken the rules
            dataset.resolve(DatasetManifest.FILE_NAME).toFile(), DatasetManifest.class);
        List<DatasetManifest.ShardEntry> shards = new ArrayList<>();
        long total = 0;
        for (DatasetManifest.ShardEntry entry : manifest.shards()) {
            if (entry.file().equals(shard.getFileName().toString())) {
                entry = new DatasetManifest.ShardEntry(entry.file(), entry.records(), content.length, Crc32c.hex(crc.value()));
            }
            total += entry.bytes();
            shards.add(entry);
        }
        DatasetManifest fixed = new DatasetManifest(manifest.format(), manifest.formatVersion(), manifest.records(),
            total, manifest.classes(), manifest.fields(), shards, manifest.metadata(), manifest.rejected());
        Files.write(dataset.resolve(DatasetManifest.FILE_NAME), Json.pretty(fixed));
    }
}
