package io.pinshard.writer.convert;

import io.pinshard.format.DatasetManifest;
import io.pinshard.writer.Durability;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Appends to {@link ConvertJournal#FILE_NAME}: one synced line per published shard, so the cost of a
 * shard is its own line whatever the dataset's size (rewriting the whole journal each time made a
 * conversion quadratic in shards). Opening it compacts: the journal is rewritten atomically with the
 * header and the lines of the shards a resumed run keeps, dropping a torn last line and the shards after
 * the resume point.
 */
final class ConvertJournalWriter implements AutoCloseable {
    private final FileChannel channel;

    private ConvertJournalWriter(FileChannel channel) {
        this.channel = channel;
    }

    /**
     * Starts the journal of a run: header (with the {@link InputRecord} digest of its inputs), then {@code kept} (the resumed shards) with the rejections
     * each was closed after ({@code rejected} holds at least the last kept shard's {@code rejectedBefore}).
     */
    static ConvertJournalWriter start(Path directory, String runFingerprint, String inputs,
                                      List<ConvertJournal.JournalShard> kept, List<DatasetManifest.Rejected> rejected)
        throws IOException {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        text.writeBytes(ConvertJournal.headerLine(runFingerprint, inputs));
        int rejectedBefore = 0;
        for (ConvertJournal.JournalShard shard : kept) {
            text.writeBytes(ConvertJournal.shardLine(shard, rejected.subList(rejectedBefore, shard.rejectedBefore())));
            rejectedBefore = shard.rejectedBefore();
        }
        Path file = directory.resolve(ConvertJournal.FILE_NAME);
        Durability.writeAtomically(file, text.toByteArray());
        return new ConvertJournalWriter(FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND));
    }

    /** Records a published shard; synced before it returns, as the shard file was before it was renamed. */
    void append(ConvertJournal.JournalShard shard, List<DatasetManifest.Rejected> newlyRejected) throws IOException {
        ByteBuffer line = ByteBuffer.wrap(ConvertJournal.shardLine(shard, newlyRejected));
        while (line.hasRemaining()) {
            channel.write(line);
        }
        channel.force(false);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
