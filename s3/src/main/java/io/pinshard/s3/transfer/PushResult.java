package io.pinshard.s3.transfer;

import java.util.List;

/**
 * What a push did.
 *
 * @param uploaded        shards uploaded by this run (whole, or the parts a resumed upload lacked)
 * @param skipped         shards already at the destination with the right size and CRC32C
 * @param uploadedBytes   bytes of the shards this run uploaded
 * @param skippedBytes    bytes of the skipped shards
 * @param resumedParts    parts of interrupted multipart uploads that were reused, not sent again
 * @param manifestWritten whether this run wrote the manifest (false: the same manifest was there already)
 * @param stale           keys directly under the prefix that the manifest does not list (after any deletion)
 * @param deleted         stale {@code *.pinshard} keys deleted with {@link PushOptions#deleteStale}
 */
public record PushResult(int uploaded, int skipped, long uploadedBytes, long skippedBytes, int resumedParts,
                         boolean manifestWritten, List<String> stale, List<String> deleted) {
}
