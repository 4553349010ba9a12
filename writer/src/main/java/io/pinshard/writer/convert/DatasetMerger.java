package io.pinshard.writer.convert;

import io.pinshard.format.DatasetManifest;
import io.pinshard.format.DatasetWriteLock;
import io.pinshard.format.Json;
import io.pinshard.format.ManifestRules;
import io.pinshard.writer.Durability;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Combines the part directories of a {@code --part i/N} conversion into one dataset without
 * rewriting a shard byte. Part shards are already named {@code part-I-of-N-shard-S.pinshard}, so
 * each file is hard-linked (copied where linking is impossible, e.g. across file systems) under its
 * own name; the header's shard number stays the part-local number it was written with, and the
 * manifest's shard order (part 0's shards, then part 1's, ...) is the dataset's record order, which
 * equals the record order of a single run. The parts' {@link InputRecord}s are concatenated (the union of what they
 * were made from). The merged manifest is written last and atomically.
 */
public final class DatasetMerger {
    /** What a refused second writer is told holds the directory. */
    public static final String WRITER = "pinshard merge";

    private DatasetMerger() {
    }

    /**
     * Merges {@code parts} (in any order) into {@code output}.
     *
     * @throws IllegalArgumentException when the parts are not the complete set of one conversion, or {@code output}
     *                                  holds a dataset already
     * @throws io.pinshard.format.DatasetBusyException when another writer holds {@code output}
     */
    public static DatasetManifest merge(List<Path> parts, Path output) throws IOException {
        DatasetManifest[] byIndex = null;
        Path[] partDirs = null;
        DatasetManifest first = null;
        for (Path part : parts) {
            DatasetManifest manifest = Json.readManifest(part);
            Map<?, ?> convert = convertMetadata(part, manifest);
            PartSpec spec = PartSpec.parse(String.valueOf(convert.get("part")));
            if (first == null) {
                first = manifest;
                byIndex = new DatasetManifest[spec.count()];
                partDirs = new Path[spec.count()];
            }
            Map<?, ?> firstConvert = convertMetadata(part, first);
            if (spec.count() != byIndex.length
                || !Objects.equals(convert.get("inputFingerprint"), firstConvert.get("inputFingerprint"))
                || !Objects.equals(convert.get("shardBytes"), firstConvert.get("shardBytes"))
                || !Objects.equals(manifest.metadata().get("preprocessing"), first.metadata().get("preprocessing"))
                || !manifest.classes().equals(first.classes())
                || !manifest.fieldSchema().equals(first.fieldSchema())) {
                throw new IllegalArgumentException(part + " is part " + spec + " of a different conversion (other inputs,"
                    + " options or part count) than " + parts.get(0));
            }
            if (byIndex[spec.index()] != null) {
                throw new IllegalArgumentException("part " + spec + " is given twice (" + part + ")");
            }
            byIndex[spec.index()] = manifest;
            partDirs[spec.index()] = part;
        }
        if (byIndex == null) {
            throw new IllegalArgumentException("no part directories given");
        }
        for (int i = 0; i < byIndex.length; i++) {
            if (byIndex[i] == null) {
                throw new IllegalArgumentException("part " + i + "/" + byIndex.length + " is missing");
            }
        }
        // Held from before the output is first looked at until the manifest is in place.
        try (DatasetWriteLock lock = DatasetWriteLock.hold(output, WRITER)) {
            if (Files.exists(output.resolve(DatasetManifest.FILE_NAME))) {
                throw new IllegalArgumentException(output + " already holds a dataset");
            }
            return link(byIndex, partDirs, first, output);
        }
    }

    /** Links every part's shards into {@code output} and writes the merged manifest last. */
    private static DatasetManifest link(DatasetManifest[] byIndex, Path[] partDirs, DatasetManifest first, Path output)
        throws IOException {
        // Each part's manifest is read once and each shard costs a size check and a link: O(1) per shard.
        List<DatasetManifest.ShardEntry> shards = new ArrayList<>();
        List<DatasetManifest.Rejected> rejected = new ArrayList<>();
        long records = 0;
        long bytes = 0;
        for (int i = 0; i < byIndex.length; i++) {
            for (DatasetManifest.ShardEntry shard : byIndex[i].shards()) {
                if (shard.file().equals(DatasetWriteLock.FILE_NAME)) { // a hand-made part: it would replace the lock
                    throw new IllegalArgumentException(partDirs[i] + " lists a shard named " + shard.file()
                        + ", which a merge cannot write");
                }
                Path source = partDirs[i].resolve(shard.file());
                ManifestRules.checkShardSize(partDirs[i].toString(), shard, Files.size(source));
                linkOrCopy(source, output.resolve(shard.file()));
                shards.add(shard);
                records += shard.records();
                bytes += shard.bytes();
            }
            rejected.addAll(byIndex[i].rejected() == null ? List.of() : byIndex[i].rejected());
        }
        Map<String, Object> metadata = new LinkedHashMap<>(first.metadata());
        Map<String, Object> convert = new LinkedHashMap<>();
        convertMetadata(partDirs[0], first).forEach((k, v) -> convert.put(String.valueOf(k), v));
        convert.put("part", null);
        convert.put("mergedParts", byIndex.length);
        convert.put("inputs", convert.get("totalInputs"));
        convert.remove("runFingerprint");
        metadata.put("convert", convert);
        DatasetManifest merged = new DatasetManifest(DatasetManifest.FORMAT,
            DatasetManifest.formatVersionFor(first.fieldSchema()), records, bytes, first.classes(), first.fields(), shards,
            metadata, rejected);
        InputRecord.concatenate(List.of(partDirs), output); // what each part was made from, in part order
        Durability.syncDirectory(output);
        Durability.writeAtomically(output.resolve(DatasetManifest.FILE_NAME), Json.pretty(merged));
        return merged;
    }

    private static Map<?, ?> convertMetadata(Path part, DatasetManifest manifest) {
        Object convert = manifest.metadata() == null ? null : manifest.metadata().get("convert");
        if (!(convert instanceof Map<?, ?> map) || map.get("part") == null) {
            throw new IllegalArgumentException(part + " is not a part of a 'pinshard convert --part i/N' run");
        }
        return map;
    }

    private static void linkOrCopy(Path source, Path target) throws IOException {
        Files.deleteIfExists(target); // left by an interrupted merge; the part's file is the truth
        try {
            Files.createLink(target, source);
        } catch (FileSystemException | UnsupportedOperationException e) {
            Path temporary = target.resolveSibling(target.getFileName() + ".tmp");
            Files.copy(source, temporary, StandardCopyOption.REPLACE_EXISTING);
            Durability.syncFile(temporary);
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
        }
    }
}
