package io.pinshard.s3;

import io.pinshard.reader.ShardSource;
import io.pinshard.reader.ShardSourceContract;
import io.pinshard.testkit.S3ServerExtension;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** The reader's {@link ShardSourceContract} over {@link S3ShardSource}: a real S3 server on loopback, a fresh cache. */
@Tag("process")
class S3ShardSourceContractTest extends ShardSourceContract {
    private static final String BUCKET = "contract";
    @RegisterExtension
    static final S3ServerExtension server = new S3ServerExtension().withBuckets(BUCKET);
    private static S3Client s3;

    @BeforeAll
    static void client() {
        s3 = S3Clients.create(S3TestSettings.of(server).build());
    }

    @AfterAll
    static void closeClient() {
        s3.close();
    }

    @Override
    protected ShardSource open(Path written, String name) {
        return S3ShardSource.open(new S3Location(BUCKET, name), S3TestSettings.of(server).build(),
            temp.resolve("cache-" + name), Long.MAX_VALUE);
    }

    @Override
    protected void store(Path written, String name) throws Exception {
        S3TestData.upload(s3, written, BUCKET, name);
    }

    @Override
    protected void replaceShard(Path written, String name, String file, byte[] bytes) {
        s3.putObject(p -> p.bucket(BUCKET).key(new S3Location(BUCKET, name).key(file)), RequestBody.fromBytes(bytes));
    }
}
