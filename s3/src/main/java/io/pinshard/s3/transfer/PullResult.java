package io.pinshard.s3.transfer;

/**
 * What a pull did.
 *
 * @param downloaded      shards downloaded, verified and renamed into place by this run
 * @param skipped         shards already in place that passed the same checks
 * @param downloadedBytes bytes of the downloaded shards
 * @param skippedBytes    bytes of the skipped shards
 * @param manifestWritten whether this run put the manifest in place (false: the same one was there)
 */
public record PullResult(int downloaded, int skipped, long downloadedBytes, long skippedBytes,
                         boolean manifestWritten) {
}
