package io.pinshard.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The extension starts a real, signature-checking s3proxy on 127.0.0.1 with its buckets, and stops it again. */
@org.junit.jupiter.api.Tag("process")
class S3ServerExtensionTest {
    @RegisterExtension
    static final S3ServerExtension S3 = new S3ServerExtension().withBuckets("made-at-start");

    @Test
    void aRealServerListensOnLoopbackWithTheBucketsMade() throws Exception {
        URI endpoint = S3.endpoint();
        assertEquals("127.0.0.1", endpoint.getHost());
        assertTrue(S3.blobStore().containerExists("made-at-start"));
        // An unsigned request is refused by the server itself: it checks AWS signatures as a real store does.
        HttpResponse<String> answer = HttpClient.newHttpClient().send(
            HttpRequest.newBuilder(endpoint.resolve("/made-at-start")).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(403, answer.statusCode(), answer.body());
    }

    @Test
    void aServerPerTestStopsAfterItsTest() throws Exception {
        S3ServerExtension perTest = new S3ServerExtension();
        assertThrows(IllegalStateException.class, perTest::endpoint, "none before its test");
        perTest.beforeEach(null);
        int port = perTest.endpoint().getPort();
        assertTrue(accepts(port), "listening during the test");
        perTest.afterEach(null);
        assertFalse(accepts(port), "stopped after it");
        assertThrows(IllegalStateException.class, perTest::endpoint);
    }

    @Test
    void aClassWideServerOutlivesEachTestAndStopsAfterAll() throws Exception {
        S3ServerExtension classWide = new S3ServerExtension();
        classWide.beforeAll(null);
        classWide.beforeEach(null);
        int port = classWide.endpoint().getPort();
        classWide.afterEach(null);
        assertTrue(accepts(port), "still serving between tests");
        classWide.afterAll(null);
        assertFalse(accepts(port), "stopped after the class");
    }

    @Test
    void anEndpointByValueNeverPrintsItsSecret() {
        S3Endpoint known = S3TestServer.at(URI.create("http://127.0.0.1:9"));
        assertEquals(S3TestServer.SECRET_KEY, known.secretKey());
        assertFalse(known.toString().contains(S3TestServer.SECRET_KEY), known.toString());
    }

    private static boolean accepts(int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            return true;
        } catch (ConnectException refused) {
            return false;
        }
    }
}
