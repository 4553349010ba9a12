package io.pinshard.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.testkit.S3ServerExtension;
import io.pinshard.testkit.S3TestServer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

@org.junit.jupiter.api.Tag("process")
class S3ClientsTest {
    @RegisterExtension
    static final S3ServerExtension server = new S3ServerExtension();

    @Test
    void putGetAndListAgainstARealServerOnLoopback() {
        assertEquals("127.0.0.1", server.endpoint().getHost());
        try (S3Client s3 = S3Clients.create(S3TestSettings.of(server).build())) {
            s3.createBucket(b -> b.bucket("clients-test"));
            byte[] body = "shard bytes".getBytes(StandardCharsets.UTF_8);
            S3Location at = S3Location.parse("s3://clients-test/data/set");
            s3.putObject(p -> p.bucket(at.bucket()).key(at.key("manifest.json")), RequestBody.fromBytes(body));
            assertArrayEquals(body,
                s3.getObjectAsBytes(g -> g.bucket(at.bucket()).key(at.key("manifest.json"))).asByteArray());
            List<S3Object> listed = s3.listObjectsV2(l -> l.bucket(at.bucket()).prefix(at.listPrefix())).contents();
            assertEquals(List.of("data/set/manifest.json"), listed.stream().map(S3Object::key).toList());
        }
    }

    @Test
    void wrongSecretIsRefusedByTheServer() {
        S3Settings wrong = S3TestSettings.of(server).credentials(S3TestServer.ACCESS_KEY, "not-the-secret").maxAttempts(1).build();
        try (S3Client s3 = S3Clients.create(wrong)) {
            S3Exception refused = assertThrows(S3Exception.class, () -> s3.listBuckets());
            assertEquals(403, refused.statusCode());
        }
    }

    @Test
    void settingsNeverPrintTheSecret() {
        String printed = S3TestSettings.of(server).build().toString();
        assertFalse(printed.contains(S3TestServer.SECRET_KEY), printed);
        assertTrue(printed.contains(S3TestServer.ACCESS_KEY), printed);
    }

    @Test
    void locationsParseAndRefuseWhatTheyCannotName() {
        assertEquals(new S3Location("b", ""), S3Location.parse("s3://b"));
        assertEquals(new S3Location("b", ""), S3Location.parse("s3://b/"));
        assertEquals(new S3Location("b", "x/y"), S3Location.parse("s3://b/x/y/"));
        assertEquals("x/y/shard-00000.pshd", S3Location.parse("s3://b/x/y").key("shard-00000.pshd"));
        assertEquals("m.json", S3Location.parse("s3://b").key("m.json"));
        assertThrows(IllegalArgumentException.class, () -> S3Location.parse("s3:///x"));
        assertThrows(IllegalArgumentException.class, () -> S3Location.parse("s3://b/x//y"));
        assertThrows(IllegalArgumentException.class, () -> S3Location.parse("/local/path"));
        assertFalse(S3Location.isRemote("/data/s3://x"));
    }
}
