package io.pinshard.testkit;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.domain.Blob;
import org.jclouds.blobstore.domain.MultipartPart;
import org.jclouds.blobstore.domain.MultipartUpload;
import org.jclouds.blobstore.options.GetOptions;
import org.jclouds.blobstore.options.PutOptions;
import org.jclouds.io.Payload;

/**
 * A store in front of an {@link S3TestServer}'s that holds transfers midway, for tests that stop a push or a pull
 * while it transfers (a state, never a time): once {@link #hold} is armed, the first {@code passing} objects whose
 * name contains its text are read and written as usual, every request on any other such object waits until
 * {@link #release} (or the server closes). Other objects (a manifest, a listing) are never held.
 */
public final class HeldBlobStore extends org.jclouds.blobstore.util.ForwardingBlobStore {
    private final Set<String> passed = ConcurrentHashMap.newKeySet();
    private String nameContains;
    private int passing;
    private boolean held;
    private int waiting;

    public HeldBlobStore(BlobStore delegate) {
        super(delegate);
    }

    /** From now on lets {@code passing} objects whose name contains {@code text} through and holds the others. */
    public synchronized HeldBlobStore hold(String text, int passing) {
        this.nameContains = text;
        this.passing = passing;
        this.held = true;
        passed.clear();
        return this;
    }

    /** Lets every held request go on, and all later ones. */
    public synchronized void release() {
        held = false;
        notifyAll();
    }

    /** Requests waiting now. */
    public synchronized int waiting() {
        return waiting;
    }

    private synchronized void gate(String name) {
        if (!held || !name.contains(nameContains) || passed.contains(name)) {
            return;
        }
        if (passed.size() < passing) {
            passed.add(name);
            return;
        }
        waiting++;
        try {
            while (held) {
                wait();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("held request interrupted: " + name, e);
        } finally {
            waiting--;
        }
    }

    @Override
    public String putBlob(String container, Blob blob) {
        gate(blob.getMetadata().getName());
        return super.putBlob(container, blob);
    }

    @Override
    public String putBlob(String container, Blob blob, PutOptions options) {
        gate(blob.getMetadata().getName());
        return super.putBlob(container, blob, options);
    }

    @Override
    public Blob getBlob(String container, String name) {
        gate(name);
        return super.getBlob(container, name);
    }

    @Override
    public Blob getBlob(String container, String name, GetOptions options) {
        gate(name);
        return super.getBlob(container, name, options);
    }

    @Override
    public MultipartPart uploadMultipartPart(MultipartUpload upload, int part, Payload payload) {
        gate(upload.blobName());
        return super.uploadMultipartPart(upload, part, payload);
    }
}
