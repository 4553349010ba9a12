package io.pinshard.s3.transfer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsRequest;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ListPartsRequest;
import software.amazon.awssdk.services.s3.model.ListPartsResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * A real client to the test server that records, in order, each object that became visible (a PUT, a completed
 * multipart upload) and each part sent, and after {@code failAfter} writes (PUTs and parts) fails every further one
 * as a dropped connection would: the fault a kill mid-push leaves behind. With {@link #keepShort} it plays a store
 * that accepts a PUT and keeps less than it was sent.
 */
final class RecordingS3Client implements S3Client {
    private final S3Client real;
    private final int failAfter;
    private final AtomicInteger writes = new AtomicInteger();
    final List<String> visible = new CopyOnWriteArrayList<>();
    final List<String> parts = new CopyOnWriteArrayList<>();
    private volatile Predicate<String> keptShort = key -> false;

    RecordingS3Client(S3Client real, int failAfter) {
        this.real = real;
        this.failAfter = failAfter;
    }

    RecordingS3Client(S3Client real) {
        this(real, Integer.MAX_VALUE);
    }

    private void write(String what) {
        if (writes.incrementAndGet() > failAfter) {
            throw SdkClientException.create("injected fault: connection dropped before " + what);
        }
    }

    /** PUTs of keys ending with {@code suffix} reach the store without their last 100 bytes (and Content-MD5). */
    RecordingS3Client keepShort(String suffix) {
        keptShort = key -> key.endsWith(suffix);
        return this;
    }

    @Override
    public PutObjectResponse putObject(PutObjectRequest request, RequestBody body) {
        write(request.key());
        if (keptShort.test(request.key())) {
            byte[] bytes;
            try (InputStream in = body.contentStreamProvider().newStream()) {
                bytes = in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            body = RequestBody.fromBytes(Arrays.copyOf(bytes, Math.max(0, bytes.length - 100)));
            request = request.toBuilder().contentLength(null).contentMD5(null).build();
        }
        PutObjectResponse response = real.putObject(request, body);
        visible.add(request.key());
        return response;
    }

    @Override
    public UploadPartResponse uploadPart(UploadPartRequest request, RequestBody body) {
        write(request.key() + " part " + request.partNumber());
        UploadPartResponse response = real.uploadPart(request, body);
        parts.add(request.key() + "#" + request.partNumber());
        return response;
    }

    @Override
    public CompleteMultipartUploadResponse completeMultipartUpload(CompleteMultipartUploadRequest request) {
        CompleteMultipartUploadResponse response = real.completeMultipartUpload(request);
        visible.add(request.key());
        return response;
    }

    @Override
    public CreateMultipartUploadResponse createMultipartUpload(CreateMultipartUploadRequest request) {
        return real.createMultipartUpload(request);
    }

    @Override
    public AbortMultipartUploadResponse abortMultipartUpload(AbortMultipartUploadRequest request) {
        return real.abortMultipartUpload(request);
    }

    @Override
    public ListMultipartUploadsResponse listMultipartUploads(ListMultipartUploadsRequest request) {
        return real.listMultipartUploads(request);
    }

    @Override
    public ListPartsResponse listParts(ListPartsRequest request) {
        return real.listParts(request);
    }

    @Override
    public HeadObjectResponse headObject(HeadObjectRequest request) {
        return real.headObject(request);
    }

    @Override
    public <T> T getObject(GetObjectRequest request, ResponseTransformer<GetObjectResponse, T> transformer) {
        return real.getObject(request, transformer);
    }

    @Override
    public ListObjectsV2Response listObjectsV2(ListObjectsV2Request request) {
        return real.listObjectsV2(request);
    }

    @Override
    public DeleteObjectResponse deleteObject(DeleteObjectRequest request) {
        return real.deleteObject(request);
    }

    @Override
    public String serviceName() {
        return real.serviceName();
    }

    @Override
    public void close() {
        real.close();
    }
}
