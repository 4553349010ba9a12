package io.pinshard.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Node's s3rver 3.7.1 on 127.0.0.1 and a free port, over http or https (a self-signed certificate made with
 * openssl, and a truststore for the JVM side), keeping its objects as plain files under a directory of the test's.
 * It is the second S3 implementation the tests run against besides {@link S3TestServer}: it accepts aws-chunked
 * request bodies but stores them verbatim, framing and signatures included, and checks no Content-MD5.
 *
 * <p>Installed by {@code scripts/fetch-s3rver.sh} (npm) on first use. Where node or the install is missing,
 * {@link #unavailable()} says why and tests skip, unless {@code PINSHARD_REQUIRE_S3RVER=1} (set by {@code .ci/run})
 * makes that a failure.
 */
public final class S3rverTestServer implements S3Endpoint, AutoCloseable {
    /** s3rver's built-in account. */
    public static final String ACCESS_KEY = "S3RVER";
    public static final String SECRET_KEY = "S3RVER";
    public static final String TRUSTSTORE_PASSWORD = "pinshard-test";

    private static final Pattern LISTENING = Pattern.compile("S3rver listening on 127\\.0\\.0\\.1:(\\d+)");
    private static volatile Object installed; // the script's Path, or the reason it is missing (String)

    private final Process process;
    private final Path data;
    private final URI endpoint;
    private final Path truststore;

    private S3rverTestServer(Process process, Path data, URI endpoint, Path truststore) {
        this.process = process;
        this.data = data;
        this.endpoint = endpoint;
        this.truststore = truststore;
    }

    /**
     * Why s3rver cannot run here (no node, no npm registry), or empty when it can.
     *
     * @throws IllegalStateException with the reason when {@code PINSHARD_REQUIRE_S3RVER=1}
     */
    public static synchronized Optional<String> unavailable() {
        if (installed == null) {
            installed = install();
        }
        if (installed instanceof String reason) {
            if ("1".equals(System.getenv("PINSHARD_REQUIRE_S3RVER"))) {
                throw new IllegalStateException("PINSHARD_REQUIRE_S3RVER=1 but " + reason);
            }
            return Optional.of(reason);
        }
        return Optional.empty();
    }

    private static Object install() {
        Path fetch = repo().resolve("scripts/fetch-s3rver.sh");
        try {
            Process p = new ProcessBuilder(fetch.toString()).redirectErrorStream(false).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return "s3rver is not installed: " + fetch + " failed: " + err;
            }
            return Path.of(out);
        } catch (IOException e) {
            return "s3rver is not installed: cannot run " + fetch + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while installing s3rver";
        }
    }

    /** The checkout's root: {@code pinshard.repo}, else the first folder up from here holding the script. */
    private static Path repo() {
        String property = System.getProperty("pinshard.repo");
        if (property != null) {
            return Path.of(property).toAbsolutePath().normalize();
        }
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("scripts/fetch-s3rver.sh"))) {
                return p;
            }
        }
        throw new IllegalStateException("no scripts/fetch-s3rver.sh above " + Path.of("").toAbsolutePath());
    }

    /**
     * Starts a server keeping its objects under {@code directory} with {@code bucket} made, and waits until it
     * listens. Call {@link #unavailable()} first.
     */
    public static S3rverTestServer start(Path directory, boolean https, String bucket) throws IOException {
        if (!(installed instanceof Path script)) {
            throw new IllegalStateException("s3rver is not available: " + unavailable().orElse("?"));
        }
        Path data = Files.createDirectories(directory.resolve("data"));
        List<String> command = new ArrayList<>(List.of("node", script.toString(), "--directory", data.toString(),
            "--address", "127.0.0.1", "--port", "0", "--silent", "--configure-bucket", bucket));
        Path truststore = null;
        if (https) {
            Path tls = Files.createDirectories(directory.resolve("tls"));
            truststore = selfSignedCertificate(tls);
            command.addAll(List.of("--key", tls.resolve("key.pem").toString(),
                "--cert", tls.resolve("cert.pem").toString()));
        }
        Process process = new ProcessBuilder(command)
            .redirectError(directory.resolve("s3rver.stderr.log").toFile()).start();
        process.getOutputStream().close();
        // node outlives a test JVM that exits without close(): stop it then too.
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "s3rver-stop"));
        try {
            int port = awaitPort(process.getInputStream());
            URI endpoint = URI.create((https ? "https" : "http") + "://127.0.0.1:" + port);
            return new S3rverTestServer(process, data, endpoint, truststore);
        } catch (IOException | RuntimeException e) {
            process.destroyForcibly();
            throw new IOException(e.getMessage() + "; s3rver's stderr: "
                + Files.readString(directory.resolve("s3rver.stderr.log")), e);
        }
    }

    /** Reads s3rver's stdout to its "listening" line (at most 20 s), then drains the rest in the background. */
    private static int awaitPort(InputStream stdout) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(stdout, StandardCharsets.UTF_8));
        int[] port = {-1};
        Thread readLine = new Thread(() -> {
            try {
                for (String line; (line = reader.readLine()) != null; ) {
                    Matcher m = LISTENING.matcher(line);
                    if (port[0] < 0 && m.find()) {
                        synchronized (port) {
                            port[0] = Integer.parseInt(m.group(1));
                            port.notifyAll();
                        }
                    }
                }
            } catch (IOException closed) {
                // the server stopped
            }
        }, "s3rver-stdout");
        readLine.setDaemon(true);
        readLine.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        synchronized (port) {
            while (port[0] < 0 && readLine.isAlive() && System.nanoTime() < deadline) {
                try {
                    port.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while waiting for s3rver");
                }
            }
            if (port[0] < 0) {
                throw new IOException("s3rver did not print its port within 20 s");
            }
            return port[0];
        }
    }

    /** key.pem and cert.pem (CN and IP SAN 127.0.0.1, one day) in {@code tls}; returns a truststore holding it. */
    private static Path selfSignedCertificate(Path tls) throws IOException {
        Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
            "-keyout", tls.resolve("key.pem").toString(), "-out", tls.resolve("cert.pem").toString(), "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1")
            .redirectErrorStream(true).start();
        openssl.getOutputStream().close();
        String output = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!openssl.waitFor(60, TimeUnit.SECONDS) || openssl.exitValue() != 0) {
                throw new IOException("openssl req failed: " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while making a certificate");
        }
        Path truststore = tls.resolve("truststore.p12");
        try (InputStream pem = Files.newInputStream(tls.resolve("cert.pem"));
             OutputStream out = Files.newOutputStream(truststore)) {
            Certificate certificate = CertificateFactory.getInstance("X.509").generateCertificate(pem);
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setCertificateEntry("s3rver", certificate);
            store.store(out, TRUSTSTORE_PASSWORD.toCharArray());
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot write " + truststore + ": " + e, e);
        }
        return truststore;
    }

    @Override
    public URI endpoint() {
        return endpoint;
    }

    /** JVM options that make a client trust this server's certificate (empty over http). */
    public List<String> trustOptions() {
        return truststore == null ? List.of() : List.of("-Djavax.net.ssl.trustStore=" + truststore,
            "-Djavax.net.ssl.trustStorePassword=" + TRUSTSTORE_PASSWORD, "-Djavax.net.ssl.trustStoreType=PKCS12");
    }

    @Override
    public String accessKey() {
        return ACCESS_KEY;
    }

    @Override
    public String secretKey() {
        return SECRET_KEY;
    }

    /** The bytes s3rver keeps for {@code bucket}/{@code key}, read from its directory, not through S3. */
    public byte[] stored(String bucket, String key) throws IOException {
        return Files.readAllBytes(data.resolve(bucket).resolve(key + "._S3rver_object"));
    }

    /** Whether s3rver keeps an object {@code bucket}/{@code key}. */
    public boolean holds(String bucket, String key) {
        return Files.isRegularFile(data.resolve(bucket).resolve(key + "._S3rver_object"));
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
