package io.pinshard.testkit;

import java.net.URI;
import java.util.List;
import org.jclouds.blobstore.BlobStore;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The lifecycle of an {@link S3TestServer} (s3proxy on 127.0.0.1) for a test class, the one copy of what the S3
 * tests each wrote in their {@code @BeforeAll}/{@code @AfterAll}:
 * <pre>{@code
 * @RegisterExtension
 * static final S3ServerExtension S3 = new S3ServerExtension().withBuckets("landing");
 * }</pre>
 * On a static field one server serves the whole class (started before the first test, stopped after the last); on
 * an instance field each test gets a fresh one. Buckets named with {@link #withBuckets} exist, empty, from the start.
 */
public final class S3ServerExtension
    implements S3Endpoint, BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
    private List<String> buckets = List.of();
    private S3TestServer server;
    private boolean perTest;

    /** Buckets made at every start. */
    public S3ServerExtension withBuckets(String... names) {
        buckets = List.of(names);
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        stop();
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        // JUnit calls an instance field's extension only per test: no beforeAll came, so the server is the test's.
        if (server == null) {
            perTest = true;
            start();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        if (perTest) {
            stop();
        }
    }

    private void start() throws Exception {
        server = S3TestServer.start();
        server.createBuckets(buckets.toArray(String[]::new));
    }

    private void stop() throws Exception {
        S3TestServer running = server;
        server = null;
        if (running != null) {
            running.close();
        }
    }

    /** The running server; outside a test's lifecycle there is none. */
    public S3TestServer server() {
        if (server == null) {
            throw new IllegalStateException("no S3 test server is running: register the extension with "
                + "@RegisterExtension and use it inside a test's lifecycle");
        }
        return server;
    }

    @Override
    public URI endpoint() {
        return server().endpoint();
    }

    @Override
    public String accessKey() {
        return S3TestServer.ACCESS_KEY;
    }

    @Override
    public String secretKey() {
        return S3TestServer.SECRET_KEY;
    }

    /** The store behind the server, to inspect or change objects without going through S3. */
    public BlobStore blobStore() {
        return server().blobStore();
    }
}
