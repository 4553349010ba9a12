package io.pinshard.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP proxy on 127.0.0.1 in front of an {@link S3TestServer} that breaks responses on purpose: connection
 * resets in the middle of a body, 500 and 503 (with {@code Retry-After}) answers, responses that start late, bodies
 * cut short, and bodies trickled at a set rate. Requests are forwarded byte for byte (so AWS signatures still
 * verify) except for {@code Connection: close}: one request per connection keeps the cutting simple. Faults apply to
 * GETs whose path contains a rule's text, as many times as the rule says; {@link #applied} counts them.
 */
public final class FaultProxy implements AutoCloseable {
    public enum Fault {
        /** Half the body, then a TCP reset. */
        RESET_MID_BODY,
        /** 500 InternalError, nothing forwarded. */
        STATUS_500,
        /** 503 SlowDown with Retry-After: 1, nothing forwarded. */
        STATUS_503_RETRY_AFTER,
        /** The response starts {@link #SLOW_MILLIS} late. */
        SLOW_RESPONSE,
        /** Half the body, then an orderly close: fewer bytes than Content-Length. */
        TRUNCATED_BODY,
        /** The body at {@link #TRICKLE_BYTES_PER_SECOND}. */
        TRICKLE
    }

    public static final long SLOW_MILLIS = 2_500;
    public static final int TRICKLE_BYTES_PER_SECOND = 16 << 10;

    private record Rule(String pathContains, Fault fault, AtomicInteger remaining) {
    }

    private final ServerSocket server;
    private final InetSocketAddress upstream;
    private final List<Rule> rules = new CopyOnWriteArrayList<>();
    private final Map<Fault, AtomicInteger> applied = new ConcurrentHashMap<>();
    private final AtomicInteger requests = new AtomicInteger();
    private volatile int throttleBytesPerSecond;
    private final Thread acceptor;

    public FaultProxy(URI upstream) throws IOException {
        this.upstream = new InetSocketAddress(upstream.getHost(), upstream.getPort());
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::accept, "fault-proxy");
        this.acceptor.setDaemon(true);
        this.acceptor.start();
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** Breaks the next {@code times} GETs whose path contains {@code pathContains} with {@code fault}. */
    public FaultProxy inject(String pathContains, Fault fault, int times) {
        rules.add(new Rule(pathContains, fault, new AtomicInteger(times)));
        return this;
    }

    /** Every body sent at most this fast (0: full speed); for tests that want downloads to last. */
    public void throttle(int bytesPerSecond) {
        this.throttleBytesPerSecond = bytesPerSecond;
    }

    public void clear() {
        rules.clear();
    }

    public int applied(Fault fault) {
        AtomicInteger count = applied.get(fault);
        return count == null ? 0 : count.get();
    }

    public int requests() {
        return requests.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Thread handler = new Thread(() -> handle(client), "fault-proxy-connection");
                handler.setDaemon(true);
                handler.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void handle(Socket client) {
        try (client) {
            InputStream in = client.getInputStream();
            byte[] head = readHead(in);
            if (head == null) {
                return;
            }
            requests.incrementAndGet();
            String headText = new String(head, StandardCharsets.ISO_8859_1);
            String requestLine = headText.substring(0, headText.indexOf("\r\n"));
            byte[] body = in.readNBytes(contentLength(headText));
            Fault fault = requestLine.startsWith("GET ") ? take(requestLine.split(" ")[1]) : null;
            OutputStream out = client.getOutputStream();
            if (fault == Fault.STATUS_500 || fault == Fault.STATUS_503_RETRY_AFTER) {
                boolean slowDown = fault == Fault.STATUS_503_RETRY_AFTER;
                byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>"
                    + (slowDown ? "SlowDown" : "InternalError") + "</Code><Message>injected by the test proxy"
                    + "</Message></Error>").getBytes(StandardCharsets.UTF_8);
                out.write(((slowDown ? "HTTP/1.1 503 Slow Down\r\nRetry-After: 1\r\n" : "HTTP/1.1 500 Internal Server Error\r\n")
                    + "Content-Type: application/xml\r\nContent-Length: " + xml.length + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
                out.write(xml);
                out.flush();
                return;
            }
            byte[] response = forward(withConnectionClose(headText), body);
            int split = indexOf(response, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)) + 4;
            if (fault == Fault.SLOW_RESPONSE) {
                Thread.sleep(SLOW_MILLIS);
            }
            out.write(response, 0, split);
            int bodyLength = response.length - split;
            if (fault == Fault.RESET_MID_BODY || fault == Fault.TRUNCATED_BODY) {
                out.write(response, split, bodyLength / 2);
                out.flush();
                if (fault == Fault.RESET_MID_BODY) {
                    client.setSoLinger(true, 0); // close() now sends RST
                }
                return;
            }
            int rate = fault == Fault.TRICKLE ? TRICKLE_BYTES_PER_SECOND : throttleBytesPerSecond;
            if (rate > 0) {
                int chunk = Math.max(1, rate / 20);
                for (int at = split; at < response.length; at += chunk) {
                    out.write(response, at, Math.min(chunk, response.length - at));
                    out.flush();
                    Thread.sleep(50);
                }
            } else {
                out.write(response, split, bodyLength);
            }
            out.flush();
        } catch (IOException | InterruptedException e) {
            // the client went away (an aborted download): nothing to do
        }
    }

    private Fault take(String path) {
        for (Rule rule : rules) {
            if (path.contains(rule.pathContains()) && rule.remaining().getAndDecrement() > 0) {
                applied.computeIfAbsent(rule.fault(), f -> new AtomicInteger()).incrementAndGet();
                return rule.fault();
            }
        }
        return null;
    }

    private byte[] forward(String head, byte[] body) throws IOException {
        try (Socket up = new Socket()) {
            up.connect(upstream, 5_000);
            OutputStream out = up.getOutputStream();
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            return up.getInputStream().readAllBytes(); // the server closes after its answer: Connection: close
        }
    }

    private static String withConnectionClose(String head) {
        StringBuilder rewritten = new StringBuilder();
        for (String line : head.split("\r\n")) {
            if (!line.isEmpty() && !line.toLowerCase(java.util.Locale.ROOT).startsWith("connection:")) {
                rewritten.append(line).append("\r\n");
            }
        }
        return rewritten.append("Connection: close\r\n\r\n").toString();
    }

    private static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                return Integer.parseInt(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return 0;
    }

    private static byte[] readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        for (int b; (b = in.read()) >= 0; ) {
            head.write(b);
            matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
            if (matched == 4) {
                return head.toByteArray();
            }
        }
        return null;
    }

    private static int indexOf(byte[] data, byte[] pattern) {
        outer:
        for (int i = 0; i + pattern.length <= data.length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (data[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new IllegalStateException("no end of headers in the server's response");
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
