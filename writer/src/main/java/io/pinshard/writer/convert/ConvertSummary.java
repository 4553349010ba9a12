package io.pinshard.writer.convert;

import io.pinshard.format.DatasetManifest;
import java.util.List;

/**
 * What a conversion did. {@code inputs == written + rejected} always.
 *
 * @param resumedInputs  inputs that an earlier, interrupted run had already finished
 * @param alreadyComplete the output was already a finished dataset of this very run; nothing was done
 * @param inputBytes     encoded bytes read in this run
 * @param outputBytes    shard bytes of the whole dataset
 */
public record ConvertSummary(long inputs, long written, long rejected, long ignored, long resumedInputs,
                             boolean alreadyComplete, long inputBytes, long outputBytes, int shards,
                             long wallNanos, List<DatasetManifest.Rejected> rejections) {
}
