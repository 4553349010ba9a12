package io.pinshard.testkit;

import java.net.URI;
import java.util.Properties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;

/**
 * A real S3 server (s3proxy over jclouds' in-memory store) on 127.0.0.1 and a free port, for tests. It checks
 * AWS signatures, so a client with the wrong key fails as it would against a real store.
 */
public final class S3TestServer implements S3Endpoint, AutoCloseable {
    public static final String ACCESS_KEY = "pinshard-test-key";
    public static final String SECRET_KEY = "pinshard-test-secret";

    private final BlobStoreContext context;
    private final S3Proxy proxy;

    private S3TestServer(BlobStoreContext context, S3Proxy proxy) {
        this.context = context;
        this.proxy = proxy;
    }

    /** Starts a server and waits until it accepts requests. */
    public static S3TestServer start() throws Exception {
        return start(java.util.function.UnaryOperator.identity());
    }

    /**
     * As above, serving {@code front} of the in-memory store (e.g. a {@link HeldBlobStore} that holds transfers);
     * {@link #blobStore()} is still the store itself.
     */
    public static S3TestServer start(java.util.function.UnaryOperator<BlobStore> front) throws Exception {
        BlobStoreContext context = ContextBuilder.newBuilder("transient")
            .credentials("identity", "credential")
            .overrides(new Properties())
            .build(BlobStoreContext.class);
        S3Proxy proxy = S3Proxy.builder()
            .blobStore(front.apply(context.getBlobStore()))
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .build();
        proxy.start();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!"STARTED".equals(proxy.getState())) {
            if (System.nanoTime() > deadline) {
                proxy.stop();
                context.close();
                throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
            }
            Thread.sleep(10);
        }
        return new S3TestServer(context, proxy);
    }

    @Override
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    @Override
    public String accessKey() {
        return ACCESS_KEY;
    }

    @Override
    public String secretKey() {
        return SECRET_KEY;
    }

    /** This server's account at {@code endpoint}: a test server started by {@link #main} in another JVM. */
    public static S3Endpoint at(URI endpoint) {
        return S3Endpoint.of(endpoint, ACCESS_KEY, SECRET_KEY);
    }

    /** Makes the buckets {@code names} (empty), straight in the store. */
    public void createBuckets(String... names) {
        for (String name : names) {
            blobStore().createContainerInLocation(null, name);
        }
    }

    /**
     * Runs a server in a JVM of its own (a benchmark's store off the loader's cores): writes its endpoint to
     * {@code args[0]} once it accepts requests, and stops when its standard input ends.
     */
    public static void main(String[] args) throws Exception {
        try (S3TestServer server = start()) {
            java.nio.file.Path file = java.nio.file.Path.of(args[0]);
            java.nio.file.Path part = file.resolveSibling(file.getFileName() + ".part");
            java.nio.file.Files.writeString(part, server.endpoint().toString());
            java.nio.file.Files.move(part, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            while (System.in.read() >= 0) {
                // serve until the parent closes the pipe (or dies)
            }
        }
    }

    /** The store behind the server, to inspect or change objects without going through S3. */
    public BlobStore blobStore() {
        return context.getBlobStore();
    }

    @Override
    public void close() throws Exception {
        try {
            proxy.stop();
        } finally {
            context.close();
        }
    }
}
