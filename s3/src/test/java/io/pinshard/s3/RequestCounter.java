package io.pinshard.s3;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Counts the HTTP requests a client sends, by S3 operation (GetObject, HeadObject, ListObjectsV2, PutObject, ...):
 * every attempt counts, a retry too, since each is a request the store is billed for and must answer.
 */
public final class RequestCounter implements ExecutionInterceptor {
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        counts.computeIfAbsent(operation, k -> new LongAdder()).increment();
    }

    /** Requests of {@code operation} so far. */
    public long count(String operation) {
        LongAdder adder = counts.get(operation);
        return adder == null ? 0 : adder.sum();
    }

    /** Requests of every operation so far. */
    public long total() {
        return counts.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** Every operation's count, by name. */
    public Map<String, Long> snapshot() {
        Map<String, Long> copy = new TreeMap<>();
        counts.forEach((k, v) -> copy.put(k, v.sum()));
        return copy;
    }

    public void reset() {
        counts.clear();
    }
}
