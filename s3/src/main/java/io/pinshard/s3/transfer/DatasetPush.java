package io.pinshard.s3.transfer;

import io.pinshard.format.Crc32c;
import io.pinshard.format.DatasetFiles;
import io.pinshard.format.DatasetManifest;
import io.pinshard.format.Json;
import io.pinshard.format.ShardFormatException;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.DatasetVerifier;
import io.pinshard.reader.Problem;
import io.pinshard.s3.S3Location;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.zip.CRC32C;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.Part;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Uploads a local dataset to {@code s3://bucket/prefix} so that it is never visible as complete before it is:
 *
 * <ol>
 *   <li>the local dataset is checked first ({@link PushOptions.LocalCheck}); nothing goes up from a broken one;</li>
 *   <li>a different dataset's manifest at the destination is refused, or with {@link PushOptions#force} deleted
 *       <em>before</em> any shard is replaced, so the prefix never pairs one dataset's manifest with another's
 *       shards;</li>
 *   <li>one listing of the prefix says which shards are absent or of another length (sent without asking
 *       further); the others are looked at one HEAD each (below): 2 requests per shard on a first push, 1 on a
 *       rerun;</li>
 *   <li>shards go up in parallel, each with its whole-file CRC32C in user metadata ({@link
 *       ObjectNames#CRC32C_METADATA}) and a Content-MD5 per request so the store checks every byte it receives;
 *       large ones in parts;</li>
 *   <li>what landed is checked after each upload, and for each shard skipped as already there: the stored length
 *       and our CRC32C metadata ({@link StoredObjectMismatch} on a difference: a store may accept a request and
 *       keep other bytes, as s3rver keeps aws-chunked bodies verbatim);</li>
 *   <li>the manifest goes up last, only after every shard is in place, and is read back and compared byte for
 *       byte (a manifest that did not land as sent is deleted again).</li>
 * </ol>
 *
 * Rerun after a kill, it skips every shard already there with the right size and CRC32C metadata (the metadata
 * comes with the object atomically, and a multipart object exists only once completed), and resumes an
 * interrupted multipart upload: the newest unfinished upload for the key is kept (others are aborted) and each of
 * its parts is reused when its size and ETag equal the local part's size and MD5, else sent again. Part ETags are
 * MD5s on AWS, MinIO and Ceph; on a store where they are not, the parts are simply sent again, never trusted.
 * Two pushes to one prefix at once are not supported.
 */
public final class DatasetPush {
    private final S3Client s3;
    private final PushOptions options;
    private final TransferProgress progress;

    /** A push through {@code s3} (not closed here), reporting to {@code progress}. */
    public DatasetPush(S3Client s3, PushOptions options, TransferProgress progress) {
        this.s3 = s3;
        this.options = options;
        this.progress = progress;
    }

    /**
     * Pushes the dataset in {@code directory} to {@code to}.
     *
     * @throws TransferException         naming the object and the cause when the store refuses or fails, or the
     *                                   destination holds another dataset
     * @throws ShardFormatException      when the local dataset is not one, or is broken
     */
    public PushResult push(Path directory, S3Location to) {
        checkLocal(directory);
        byte[] manifestBytes = readManifestBytes(directory);
        // Read once: the manifest the shards are uploaded by is the one whose bytes go up last.
        DatasetManifest manifest = Json.parseManifest(manifestBytes, directory.toString());
        String manifestKey = to.key(DatasetManifest.FILE_NAME);
        byte[] remote = getIfPresent(to, DatasetManifest.FILE_NAME);
        boolean same = remote != null && Arrays.equals(remote, manifestBytes);
        if (remote != null && !same) {
            if (!options.force()) {
                throw new TransferException(to.uri(DatasetManifest.FILE_NAME) + " already holds a "
                    + "different dataset (" + describe(remote) + "): nothing uploaded; --force replaces it (its "
                    + "manifest is deleted first, so the prefix is never one dataset's manifest over another's shards)");
            }
            call(to, DatasetManifest.FILE_NAME, () -> s3.deleteObject(b -> b.bucket(to.bucket()).key(manifestKey)));
        }
        // One listing (a request per 1,000 keys) tells which shards are absent or of another length without a
        // HEAD each: a first push of 100,000 shards would otherwise spend 100,000 HEADs learning that nothing is
        // there. A listed object of the right length is still confirmed by a HEAD (its CRC32C metadata).
        Map<String, Long> listed = listKeys(to);
        AtomicInteger resumedParts = new AtomicInteger();
        ShardTransfer.Tally tally = ShardTransfer.run(manifest, options.threads(), "pinshard-push", "push to " + to,
            progress, new ShardTransfer.Direction() {
                @Override
                public boolean inPlace(int position, DatasetManifest.ShardEntry entry) {
                    Long size = listed.get(to.key(entry.file()));
                    return size != null && size == entry.bytes() && alreadyThere(to, entry);
                }

                @Override
                public void send(int position, DatasetManifest.ShardEntry entry) {
                    uploadShard(directory.resolve(entry.file()), to, entry, resumedParts);
                }
            });
        if (!same) {
            putManifest(to, manifestBytes);
            checkManifestLanded(to, manifestBytes);
        }
        // The listing from before the shards went up: a push adds only listed names, so what it held besides
        // them is what is stale now (two pushes to one prefix at once are not supported).
        List<String> stale = staleKeys(to, manifest, listed);
        List<String> deleted = new ArrayList<>();
        if (options.deleteStale()) {
            for (String key : stale) {
                if (key.endsWith(".pinshard")) {
                    call(to, key, () -> s3.deleteObject(b -> b.bucket(to.bucket()).key(key)));
                    deleted.add(key);
                }
            }
            stale = stale.stream().filter(k -> !deleted.contains(k)).toList();
        }
        return new PushResult(tally.sent.get(), tally.skipped.get(), tally.sentBytes.get(),
            tally.skippedBytes.get(), resumedParts.get(), !same, stale, deleted);
    }

    private void checkLocal(Path directory) {
        if (options.check() == PushOptions.LocalCheck.STRUCTURE) {
            Dataset.open(directory).close();
            return;
        }
        DatasetVerifier verifier = new DatasetVerifier(options.check() == PushOptions.LocalCheck.DECODE,
            DatasetFiles.allowLinksOutsideByDefault(), Math.max(1, Runtime.getRuntime().availableProcessors()));
        List<Problem> problems = verifier.verify(directory);
        if (!problems.isEmpty()) {
            StringBuilder message = new StringBuilder(directory + " does not verify (" + problems.size()
                + " problem(s)); nothing uploaded:");
            problems.stream().limit(5).forEach(p -> message.append("\n  ").append(p));
            throw new TransferException(message.toString());
        }
    }

    private static byte[] readManifestBytes(Path directory) {
        try {
            return Files.readAllBytes(directory.resolve(DatasetManifest.FILE_NAME));
        } catch (IOException e) {
            throw new TransferException("cannot read " + directory.resolve(DatasetManifest.FILE_NAME) + ": " + e, e);
        }
    }

    private void uploadShard(Path file, S3Location to, DatasetManifest.ShardEntry entry, AtomicInteger resumedParts) {
        if (entry.bytes() >= options.multipartThreshold()) {
            uploadInParts(file, to, entry, resumedParts, true);
        } else {
            uploadWhole(file, to, entry);
        }
    }

    /** Whether the object is there with the shard's size and, in our metadata, its CRC32C. */
    private boolean alreadyThere(S3Location to, DatasetManifest.ShardEntry entry) {
        return landed(head(to, entry.file()), entry);
    }

    private static boolean landed(HeadObjectResponse head, DatasetManifest.ShardEntry entry) {
        return head != null && head.contentLength() == entry.bytes()
            && entry.crc32c().equals(head.metadata().get(ObjectNames.CRC32C_METADATA));
    }

    /**
     * Checks the object just uploaded by the rule a skipped one passes ({@link #landed}). Not the ETag as well: it
     * is the body's MD5 only for single-part uploads without SSE-KMS or SSE-C on AWS, and not on every store, so a
     * mismatch would fail good uploads; stores that check the Content-MD5 sent refuse a damaged body themselves.
     */
    private void checkLanded(S3Location to, DatasetManifest.ShardEntry entry, HeadObjectResponse head) {
        if (landed(head, entry)) {
            return;
        }
        String what = head == null ? "not there after its upload"
            : head.contentLength() != entry.bytes()
            ? "the store keeps " + head.contentLength() + " bytes, " + entry.bytes() + " were sent"
            : "the store keeps CRC32C metadata " + head.metadata().getOrDefault(ObjectNames.CRC32C_METADATA, "(none)")
                + ", " + entry.crc32c() + " was sent";
        byte[] start = head == null || head.contentLength() == entry.bytes() || head.contentLength() == 0 ? null
            : storedStart(to, entry.file());
        throw new StoredObjectMismatch(to, entry.file(), what, start, "the manifest was not written");
    }

    /** The first bytes the store keeps for {@code name}, to tell what it kept instead; null if they cannot be read. */
    private byte[] storedStart(S3Location to, String name) {
        try {
            return s3.getObjectAsBytes(b -> b.bucket(to.bucket()).key(to.key(name)).range("bytes=0-127"))
                .asByteArray();
        } catch (SdkException e) {
            return null; // only a diagnosis: the mismatch is what fails the push
        }
    }

    private void checkManifestLanded(S3Location to, byte[] manifestBytes) {
        byte[] stored = getIfPresent(to, DatasetManifest.FILE_NAME);
        if (Arrays.equals(stored, manifestBytes)) {
            return;
        }
        // A manifest over the shards that is not this one would hide or misdescribe them: take it down again.
        call(to, DatasetManifest.FILE_NAME, () -> s3.deleteObject(b -> b.bucket(to.bucket())
            .key(to.key(DatasetManifest.FILE_NAME))));
        String what = stored == null ? "not there after its upload"
            : "the store keeps " + stored.length + " bytes, not the " + manifestBytes.length + " sent"
                + (stored.length == manifestBytes.length ? " (other bytes)" : "");
        throw new StoredObjectMismatch(to, DatasetManifest.FILE_NAME, what, stored,
            "it was deleted again: the prefix is not a dataset");
    }

    private HeadObjectResponse head(S3Location to, String name) {
        return absentAsNull(to, name, () -> s3.headObject(b -> b.bucket(to.bucket()).key(to.key(name))));
    }

    private void uploadWhole(Path file, S3Location to, DatasetManifest.ShardEntry entry) {
        FileRegion region = new FileRegion(file, 0, entry.bytes());
        CRC32C crc = new CRC32C();
        byte[] md5 = region.digest(crc);
        checkCrc(to, entry, crc);
        String key = to.key(entry.file());
        call(to, entry.file(), () -> s3.putObject(b -> b.bucket(to.bucket()).key(key).contentLength(entry.bytes())
                .contentMD5(FileRegion.base64(md5)).contentType("application/octet-stream")
                .metadata(Map.of(ObjectNames.CRC32C_METADATA, entry.crc32c())),
            body(region)));
        checkLanded(to, entry, head(to, entry.file()));
    }

    private void uploadInParts(Path file, S3Location to, DatasetManifest.ShardEntry entry, AtomicInteger resumedParts,
                               boolean mayResume) {
        String key = to.key(entry.file());
        long partSize = options.partSizeFor(entry.bytes());
        int parts = (int) ((entry.bytes() + partSize - 1) / partSize);
        Resume resume = mayResume ? findUpload(to, entry.file()) : null;
        String uploadId = resume != null ? resume.uploadId : call(to, entry.file(), () -> s3.createMultipartUpload(
            b -> b.bucket(to.bucket()).key(key).contentType("application/octet-stream")
                .metadata(Map.of(ObjectNames.CRC32C_METADATA, entry.crc32c())))).uploadId();
        Map<Integer, Part> existing = resume != null ? resume.parts : Map.of();
        List<CompletedPart> done = new ArrayList<>(parts);
        CRC32C crc = new CRC32C();
        int reused = 0;
        for (int p = 1; p <= parts; p++) {
            if (Thread.currentThread().isInterrupted()) {
                throw new TransferException(to.uri(entry.file()) + ": interrupted after " + (p - 1)
                    + " of " + parts + " parts (the upload is kept for a resumed push)");
            }
            long offset = (p - 1) * partSize;
            FileRegion region = new FileRegion(file, offset, Math.min(partSize, entry.bytes() - offset));
            byte[] md5 = region.digest(crc);
            Part there = existing.get(p);
            if (there != null && there.size() != null && there.size() == region.length()
                && FileRegion.hex(md5).equalsIgnoreCase(unquote(there.eTag()))) {
                done.add(CompletedPart.builder().partNumber(p).eTag(there.eTag()).build());
                progress.bytes(region.length());
                reused++;
                continue;
            }
            int number = p;
            String eTag = call(to, entry.file(), () -> s3.uploadPart(b -> b.bucket(to.bucket()).key(key)
                .uploadId(uploadId).partNumber(number).contentLength(region.length())
                .contentMD5(FileRegion.base64(md5)), body(region))).eTag();
            done.add(CompletedPart.builder().partNumber(p).eTag(eTag).build());
        }
        if (!Crc32c.hex((int) crc.getValue()).equals(entry.crc32c())) {
            call(to, entry.file(), () -> s3.abortMultipartUpload(b -> b.bucket(to.bucket()).key(key).uploadId(uploadId)));
            checkCrc(to, entry, crc);
        }
        call(to, entry.file(), () -> s3.completeMultipartUpload(b -> b.bucket(to.bucket()).key(key).uploadId(uploadId)
            .multipartUpload(m -> m.parts(done))));
        resumedParts.addAndGet(reused);
        HeadObjectResponse head = head(to, entry.file());
        if (resume != null && !landed(head, entry)) {
            // The reused upload was begun for other bytes under this name (an older dataset's push): its metadata
            // does not name this shard's CRC32C. Send the shard again as a new upload.
            uploadInParts(file, to, entry, resumedParts, false);
            return;
        }
        checkLanded(to, entry, head);
    }

    /** The newest unfinished multipart upload of the key and its parts, aborting any older ones; null if none. */
    private Resume findUpload(S3Location to, String name) {
        String key = to.key(name);
        List<MultipartUpload> uploads;
        try {
            uploads = new ArrayList<>(s3.listMultipartUploads(b -> b.bucket(to.bucket()).prefix(key)).uploads()
                .stream().filter(u -> key.equals(u.key())).toList());
        } catch (S3Exception e) {
            if (e.statusCode() == 501) {
                return null; // a store without ListMultipartUploads: start afresh
            }
            throw failed(to, name, e);
        } catch (SdkException e) {
            throw failed(to, name, e);
        }
        if (uploads.isEmpty()) {
            return null;
        }
        uploads.sort(Comparator.comparing(MultipartUpload::initiated,
            Comparator.nullsFirst(Comparator.naturalOrder())).reversed());
        for (MultipartUpload older : uploads.subList(1, uploads.size())) {
            call(to, name, () -> s3.abortMultipartUpload(b -> b.bucket(to.bucket()).key(key)
                .uploadId(older.uploadId())));
        }
        String uploadId = uploads.get(0).uploadId();
        Map<Integer, Part> parts = new HashMap<>();
        call(to, name, () -> {
            s3.listPartsPaginator(b -> b.bucket(to.bucket()).key(key).uploadId(uploadId)).parts()
                .forEach(part -> parts.put(part.partNumber(), part));
            return null;
        });
        return new Resume(uploadId, parts);
    }

    private void putManifest(S3Location to, byte[] manifestBytes) {
        byte[] md5 = FileRegion.md5().digest(manifestBytes);
        call(to, DatasetManifest.FILE_NAME, () -> s3.putObject(b -> b.bucket(to.bucket())
                .key(to.key(DatasetManifest.FILE_NAME)).contentType("application/json")
                .contentMD5(FileRegion.base64(md5)),
            RequestBody.fromBytes(manifestBytes)));
    }

    /** Keys directly under the prefix (not in sub-folders) and their lengths, in key order. */
    private Map<String, Long> listKeys(S3Location to) {
        Map<String, Long> keys = new LinkedHashMap<>();
        call(to, "", () -> {
            s3.listObjectsV2Paginator(b -> b.bucket(to.bucket()).prefix(to.listPrefix()).delimiter("/")).contents()
                .forEach(o -> keys.put(o.key(), o.size()));
            return null;
        });
        return keys;
    }

    /** Of the {@code listed} keys, those that are neither the manifest nor a listed shard. */
    private static List<String> staleKeys(S3Location to, DatasetManifest manifest, Map<String, Long> listed) {
        Set<String> expected = new HashSet<>();
        expected.add(to.key(DatasetManifest.FILE_NAME));
        manifest.shards().forEach(s -> expected.add(to.key(s.file())));
        return listed.keySet().stream().filter(k -> !expected.contains(k)).toList();
    }

    private byte[] getIfPresent(S3Location to, String name) {
        return absentAsNull(to, name,
            () -> s3.getObjectAsBytes(b -> b.bucket(to.bucket()).key(to.key(name))).asByteArray());
    }

    /** The request's answer, or null when the object is not there (404). */
    private static <T> T absentAsNull(S3Location to, String name, Supplier<T> request) {
        try {
            return request.get();
        } catch (NoSuchKeyException e) {
            return null;
        } catch (S3Exception e) {
            // A HEAD's 404 has no body to say which; a GET's says NoSuchBucket when the bucket is what is missing.
            boolean noBucket = e.awsErrorDetails() != null && "NoSuchBucket".equals(e.awsErrorDetails().errorCode());
            if (e.statusCode() == 404 && !noBucket) {
                return null;
            }
            throw failed(to, name, e);
        } catch (SdkException e) {
            throw failed(to, name, e);
        }
    }

    private static String describe(byte[] manifest) {
        try {
            DatasetManifest other = Json.MAPPER.readValue(manifest, DatasetManifest.class);
            return other.records() + " records in " + (other.shards() == null ? 0 : other.shards().size()) + " shards";
        } catch (IOException | RuntimeException e) {
            return "a manifest that does not parse";
        }
    }

    private static void checkCrc(S3Location to, DatasetManifest.ShardEntry entry, CRC32C crc) {
        String actual = Crc32c.hex((int) crc.getValue());
        if (!actual.equals(entry.crc32c())) {
            throw new TransferException(entry.file() + ": file CRC32C is " + actual + ", the manifest says "
                + entry.crc32c() + " (changed since it was written?): not uploaded to " + to.uri(entry.file()));
        }
    }

    private RequestBody body(FileRegion region) {
        AtomicLong counted = new AtomicLong();
        return RequestBody.fromContentProvider(() -> new Counting(region.open(), progress, counted), region.length(),
            "application/octet-stream");
    }

    private static String unquote(String eTag) {
        return eTag == null ? "" : eTag.replace("\"", "");
    }

    private static <T> T call(S3Location to, String name, Supplier<T> request) {
        try {
            return request.get();
        } catch (SdkException e) {
            throw failed(to, name, e);
        }
    }

    static TransferException failed(S3Location to, String name, SdkException e) {
        String where = name.isEmpty() ? to.toString() : to.uri(name);
        return new TransferException(where + ": " + e.getMessage(), e);
    }

    private record Resume(String uploadId, Map<Integer, Part> parts) {
    }

    /**
     * Counts bytes the SDK reads from a body into the progress, each byte once: with chunked encoding off the SDK
     * reads a body twice over http (to hash it for the signature, then to send it), and a retry reads it again.
     */
    private static final class Counting extends FilterInputStream {
        private final TransferProgress progress;
        private final AtomicLong counted;
        private long position;

        Counting(InputStream in, TransferProgress progress, AtomicLong counted) {
            super(in);
            this.progress = progress;
            this.counted = counted;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                advance(1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                advance(n);
            }
            return n;
        }

        private void advance(int n) {
            position += n;
            long before = counted.getAndAccumulate(position, Math::max);
            if (position > before) {
                progress.bytes(position - before);
            }
        }
    }
}
