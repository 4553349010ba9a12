package io.pinshard.cuda;

import io.pinshard.cuda.augment.AugmentSpec;
import io.pinshard.cuda.augment.JitterParams;
import io.pinshard.cuda.device.CudaBackend;
import io.pinshard.cuda.device.DeviceBuffer;
import io.pinshard.cuda.nvjpeg.JpegShardPayloads;
import io.pinshard.cuda.nvjpeg.NvJpegAvailability;
import io.pinshard.cuda.nvjpeg.NvJpegBatch;
import io.pinshard.cuda.nvjpeg.NvJpegDecoder;
import io.pinshard.cuda.runtime.CudaAvailability;
import io.pinshard.cuda.runtime.CudaCheck;
import io.pinshard.cuda.runtime.CudaException;
import io.pinshard.cuda.runtime.HostRegistration;
import io.pinshard.memory.AddressPointer;
import io.pinshard.memory.DType;
import io.pinshard.memory.HostMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.agrona.BufferUtil;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.cudaDeviceProp;
import org.bytedeco.cuda.global.cudart;

/**
 * A tool for a GPU machine, run by {@code cuda-bridge/gpu-check.sh}: host-to-device bandwidth from pageable,
 * page-locked, registered and registered read-only mapped memory at batch sizes 64 and 256 (224x224x3 uint8), the
 * pinned peak, GPU augmentation time per batch, and with {@code --jpeg-shards DIR} nvJPEG's batched decode of jpeg
 * shards' payloads per backend (hardware JPEG engines, hybrid). {@code --probe} only reports whether CUDA is usable (exit 2 when
 * not). It measures the hardware and the kernel through this module's public API; the throughput of the device
 * pipeline fed by test batches is {@code DevicePipelineCheck}. Both live in the test jar, which the GPU bundle carries,
 * so the library jar ships no tool. Figures vary by machine.
 */
public final class GpuCheck {
    private static final int SIDE = 224;
    private static final int REPS = 20;

    private GpuCheck() {
    }

    public static void main(String[] args) throws IOException {
        CudaAvailability.Status status = CudaAvailability.status();
        System.out.println(status.describe());
        if (!status.available()) {
            System.exit(2);
        }
        if (args.length > 0 && args[0].equals("--probe")) {
            return;
        }
        try (CudaBackend backend = CudaBackend.open(0)) {
            cudaDeviceProp properties = new cudaDeviceProp();
            CudaCheck.runtime(cudart.cudaGetDeviceProperties(properties, 0), "cudaGetDeviceProperties");
            System.out.printf(Locale.ROOT, "device 0: %s, compute capability %d, %.1f GiB%n",
                properties.name().getString(), backend.computeCapability(), properties.totalGlobalMem() / (double) (1L << 30));
            boolean ok = section("H2D bandwidth", () -> bandwidth(backend));
            ok &= section("GPU augmentation", () -> augmentTime(backend));
            Path jpegShards = jpegShards(args);
            if (jpegShards != null) {
                ok &= section("nvJPEG decode", () -> nvjpegRate(backend, jpegShards));
            }
            System.out.println("\ndevice pipeline images/s: gpu-check.sh runs DevicePipelineCheck (test code) next,"
                + " then the loader on this machine's CPUs, alone and with the cuda backend (pinshard bench DATASET"
                + " [--device cuda --gpu-augment] on the bundle's photographs)");
            if (!ok) {
                System.exit(1);
            }
        }
    }

    /** {@code --jpeg-shards DIR}: a folder of jpeg-codec shards for the nvJPEG part (gpu-check.sh passes the bundle's). */
    private static Path jpegShards(String[] args) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--jpeg-shards")) {
                return Path.of(args[i + 1]);
            }
        }
        return null;
    }

    /**
     * nvJPEG batched decode of every JPEG payload of the shards, straight from their mappings, in batches of 256,
     * per backend: images/s and MB/s of JPEG in, over at least two seconds after one warm-up pass.
     */
    private static void nvjpegRate(CudaBackend backend, Path folder) throws IOException {
        NvJpegAvailability.Status status = NvJpegAvailability.status();
        System.out.println("\n" + status.describe());
        if (!status.available()) {
            throw new IllegalStateException(status.describe());
        }
        int batchSize = 256;
        try (JpegShardPayloads payloads = JpegShardPayloads.map(folder)) {
            if (payloads.count() == 0) {
                throw new IOException(folder + " holds no jpeg records (" + payloads.otherCodecs() + " of other codecs)");
            }
            System.out.printf(Locale.ROOT, "nvJPEG decode, batch %d, %d JPEGs of %s (%.1f KB each, up to %d x %d), "
                    + "from the mapped shards%n", batchSize, payloads.count(), folder, payloads.bytes() / 1e3 / payloads.count(),
                payloads.maxHeight(), payloads.maxWidth());
            System.out.printf(Locale.ROOT, "  %-11s %12s %10s %14s%n", "backend", "images/s", "MB/s in", "ms per batch");
            int threads = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
            try (NvJpegBatch batch = new NvJpegBatch(HostMemoryAllocator.INSTANCE, batchSize, payloads.maxHeight(),
                     payloads.maxWidth());
                 DeviceBuffer output = backend.allocateDevice(batchSize * batch.outputStride())) {
                for (NvJpegDecoder.Backend kind : new NvJpegDecoder.Backend[] {NvJpegDecoder.Backend.HARDWARE,
                    NvJpegDecoder.Backend.DEFAULT, NvJpegDecoder.Backend.GPU_HYBRID}) {
                    NvJpegDecoder decoder;
                    try {
                        decoder = NvJpegDecoder.open(kind, threads);
                    } catch (CudaException e) {
                        System.out.printf(Locale.ROOT, "  %-11s not available: %s%n", kind, e.getMessage());
                        continue;
                    }
                    try (decoder) {
                        long[] inBytes = new long[1];
                        decodeAll(backend, decoder, batch, output, payloads, batchSize, inBytes); // warm-up
                        inBytes[0] = 0;
                        long images = 0;
                        long start = System.nanoTime();
                        while (System.nanoTime() - start < 2_000_000_000L) {
                            images += decodeAll(backend, decoder, batch, output, payloads, batchSize, inBytes);
                        }
                        double seconds = (System.nanoTime() - start) / 1e9;
                        System.out.printf(Locale.ROOT, "  %-11s %12.0f %10.1f %14.2f%n", kind, images / seconds,
                            inBytes[0] / 1e6 / seconds, 1e3 * seconds / Math.ceil(images / (double) batchSize));
                    } catch (CudaException e) {
                        System.out.printf(Locale.ROOT, "  %-11s FAILED: %s%n", kind, e.getMessage());
                    }
                }
            }
            System.out.println("  CPU loader: gpu-check.sh's `pinshard bench` rows below (the bundle's jpeg photographs)");
        }
    }

    /**
     * Decodes full batches over the payloads, cycling through them (a few dozen photos still make batches of 256),
     * at least {@code 4 x batchSize} images; returns the images decoded and, through {@code inBytes[0]}, the JPEG
     * bytes read.
     */
    private static long decodeAll(CudaBackend backend, NvJpegDecoder decoder, NvJpegBatch batch, DeviceBuffer output,
                                  JpegShardPayloads payloads, int batchSize, long[] inBytes) {
        long images = Math.max(payloads.count(), 4L * batchSize);
        long decoded = 0;
        while (decoded < images) {
            batch.reset(output.address(), output.length());
            for (int k = 0; k < batchSize && decoded < images; k++, decoded++) {
                int i = (int) (decoded % payloads.count());
                batch.add(payloads.address(i), payloads.length(i), i, payloads.height(i), payloads.width(i));
                inBytes[0] += payloads.length(i);
            }
            decoder.decode(batch, backend.computeStream());
        }
        backend.synchronize();
        return decoded;
    }

    private interface Section {
        void run() throws IOException;
    }

    /** Runs one part of the table; a failure is printed with its cause and the other parts still run. */
    private static boolean section(String name, Section section) {
        try {
            section.run();
            return true;
        } catch (IOException | RuntimeException e) {
            System.out.println(name + ": FAILED: " + e);
            return false;
        }
    }

    private static void bandwidth(CudaBackend backend) throws IOException {
        long peakBytes = 256L << 20;
        NativeRegion peakHost = backend.hostAllocator().allocate(peakBytes, 4096);
        DeviceBuffer peakDevice = backend.allocateDevice(peakBytes);
        double peak = gbPerSecond(backend, peakDevice.address(), peakHost.address(), peakBytes, 5);
        peakHost.close();
        peakDevice.close();
        System.out.printf(Locale.ROOT, "%nH2D bandwidth, GB/s (pinned cudaMemcpy peak, 256 MiB: %.2f)%n", peak);
        System.out.printf(Locale.ROOT, "%-8s %-10s %10s %10s %12s %18s%n", "batch", "MB", "pageable", "pinned",
            "registered", "registered-mapped");
        for (int batch : new int[] {64, 256}) {
            long bytes = (long) batch * SIDE * SIDE * 3;
            DeviceBuffer device = backend.allocateDevice(bytes);
            ByteBuffer pageable = ByteBuffer.allocateDirect((int) bytes);
            double pageableRate = gbPerSecond(backend, device.address(), BufferUtil.address(pageable), bytes, REPS);
            BufferUtil.free(pageable);

            double pinnedRate;
            try (NativeRegion pinned = backend.hostAllocator().allocate(bytes, 4096)) {
                pinnedRate = gbPerSecond(backend, device.address(), pinned.address(), bytes, REPS);
            }
            double registeredRate;
            try (NativeRegion registered = HostRegistration.registering(HostMemoryAllocator.INSTANCE).allocate(bytes, 4096)) {
                registeredRate = gbPerSecond(backend, device.address(), registered.address(), bytes, REPS);
            }
            double mappedRate;
            try {
                mappedRate = mappedRate(backend, device.address(), bytes);
            } catch (RuntimeException e) {
                System.out.println("registered-mapped at batch " + batch + " FAILED: " + e);
                mappedRate = Double.NaN;
            }
            device.close();
            System.out.printf(Locale.ROOT, "%-8d %-10.1f %10.2f %10.2f %12.2f %18.2f%n", batch, bytes / 1e6,
                pageableRate, pinnedRate, registeredRate, mappedRate);
            System.out.printf(Locale.ROOT, "         pinned ring vs peak: %.0f %% (goal >= 90 %%)%n", 100 * pinnedRate / peak);
        }
    }

    /** A temporary file mapped read-only and registered with cudaHostRegisterReadOnly: the raw-shard case. */
    private static double mappedRate(CudaBackend backend, long device, long bytes) throws IOException {
        Path file = Files.createTempFile("pinshard-gpu-check", ".bin");
        try {
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                raf.setLength(bytes);
                MappedByteBuffer fill = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, bytes);
                for (int i = 0; i < bytes; i += 4096) {
                    fill.put(i, (byte) i);
                }
                fill.force();
                IoUtil.unmap(fill);
            }
            MappedByteBuffer mapping;
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
                mapping = raf.getChannel().map(FileChannel.MapMode.READ_ONLY, 0, bytes);
            }
            try (HostRegistration ignored = HostRegistration.register(BufferUtil.address(mapping), bytes, true)) {
                return gbPerSecond(backend, device, BufferUtil.address(mapping), bytes, REPS);
            } finally {
                IoUtil.unmap(mapping);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static double gbPerSecond(CudaBackend backend, long device, long host, long bytes, int reps) {
        for (int i = 0; i < 3; i++) {
            backend.copyToDevice(device, host, bytes);
        }
        backend.synchronize();
        long start = System.nanoTime();
        for (int i = 0; i < reps; i++) {
            backend.copyToDevice(device, host, bytes);
        }
        backend.synchronize();
        return (double) bytes * reps / (System.nanoTime() - start);
    }

    private static void augmentTime(CudaBackend backend) {
        int batch = 256;
        long pixels = (long) batch * SIDE * SIDE;
        DeviceBuffer source = backend.allocateDevice(pixels * 3);
        DeviceBuffer params = backend.allocateDevice((long) batch * JitterParams.BYTES_PER_SAMPLE);
        DeviceBuffer target = backend.allocateDevice(pixels * 3 * 4);
        NativeRegion hostParams = backend.hostAllocator().allocate((long) batch * JitterParams.BYTES_PER_SAMPLE, 64);
        AugmentSpec jitter = AugmentSpec.jitter(0.4f, 0.4f, 0.4f, 1);
        org.agrona.concurrent.UnsafeBuffer table = new org.agrona.concurrent.UnsafeBuffer(hostParams.address(),
            batch * JitterParams.BYTES_PER_SAMPLE);
        for (int i = 0; i < batch; i++) {
            JitterParams.write(jitter, 0, i, table, i);
        }
        backend.copyToDevice(params.address(), hostParams.address(), (long) batch * JitterParams.BYTES_PER_SAMPLE);
        // Pixel values do not change the kernel's work; a fixed pattern keeps runs comparable.
        CudaCheck.runtime(cudart.cudaMemset(new AddressPointer().at(source.address(), pixels * 3), 0x5A, pixels * 3),
            "cudaMemset");
        backend.synchronize();
        System.out.printf(Locale.ROOT, "%nGPU augmentation, batch %d x %d x %d (goal < 1 ms on an H100-class GPU)%n",
            batch, SIDE, SIDE);
        CUevent_st start = new CUevent_st();
        CUevent_st end = new CUevent_st();
        CudaCheck.runtime(cudart.cudaEventCreate(start), "cudaEventCreate");
        CudaCheck.runtime(cudart.cudaEventCreate(end), "cudaEventCreate");
        try {
            for (DType type : new DType[] {DType.FLOAT32, DType.FLOAT16, DType.BFLOAT16}) {
                AugmentSpec spec = jitter.withOutput(type);
                for (int i = 0; i < 3; i++) {
                    backend.augment(source.address(), params.address(), target.address(), batch, SIDE, SIDE, spec);
                }
                CudaCheck.runtime(cudart.cudaEventRecord(start, backend.computeStream()), "cudaEventRecord");
                for (int i = 0; i < REPS; i++) {
                    backend.augment(source.address(), params.address(), target.address(), batch, SIDE, SIDE, spec);
                }
                CudaCheck.runtime(cudart.cudaEventRecord(end, backend.computeStream()), "cudaEventRecord");
                CudaCheck.runtime(cudart.cudaEventSynchronize(end), "cudaEventSynchronize");
                float[] millis = new float[1];
                CudaCheck.runtime(cudart.cudaEventElapsedTime(millis, start, end), "cudaEventElapsedTime");
                double perBatch = millis[0] / REPS;
                double bytesMoved = pixels * 3 * 2 + pixels * 3 * type.bytes(); // read twice, write once
                System.out.printf(Locale.ROOT, "  %-9s %8.3f ms/batch  %8.1f GB/s effective%n", type, perBatch,
                    bytesMoved / (perBatch * 1e6));
            }
        } finally {
            cudart.cudaEventDestroy(start);
            cudart.cudaEventDestroy(end);
            CloseHelper.closeAll(source, params, target, hostParams);
        }
    }
}
