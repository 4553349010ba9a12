package io.pinshard.cuda.runtime;

/** A CUDA, driver-API or NVRTC call returned an error status; the message names the call and the status. */
public final class CudaException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String call;
    private final int status;

    public CudaException(String call, int status, String description) {
        super(call + " failed: status " + status + (description == null || description.isEmpty() ? "" : " (" + description + ")"));
        this.call = call;
        this.status = status;
    }

    /** The API call that failed, e.g. {@code "cudaMemcpyAsync"}. */
    public String call() {
        return call;
    }

    /** The raw status code it returned. */
    public int status() {
        return status;
    }
}
