package io.pinshard.jmh;

import io.pinshard.cuda.runtime.CudaAvailability;
import io.pinshard.cuda.device.DeviceBackend;
import io.pinshard.cuda.device.DeviceBackends;
import io.pinshard.cuda.pipeline.DeviceBatch;
import io.pinshard.cuda.pipeline.DeviceBatchPipeline;
import io.pinshard.cuda.pipeline.DeviceBatchStream;
import io.pinshard.loader.LoaderBatchSource;
import io.pinshard.cuda.pipeline.PipelineOptions;
import io.pinshard.format.Codec;
import io.pinshard.jmh.inputs.BenchmarkInputs;
import io.pinshard.reader.Dataset;
import io.pinshard.datawait.DataWaitMonitor;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import java.io.IOException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Loader batches handed to a device backend, one batch per operation, until the device copy is ready:
 * {@code host} (copies into off-heap "device" buffers, runs anywhere) and {@code cuda} (page-locked host
 * batches, cudaMemcpyAsync to the GPU). Without a CUDA device the {@code cuda} variant stops in its setup
 * with the reason, and the table has no row for it.
 */
@BenchmarkMode(Mode.Throughput)
@State(Scope.Thread)
public class HandOffBenchmark extends PinshardBenchmark {
    @Param({"host", "cuda"})
    public String backend;

    @Param("2")
    public int workers;

    @Param("256")
    public int batch;

    @Param("224")
    public int crop;

    @Param("512")
    public int records;

    private DeviceBackend device;
    private Dataset dataset;
    private Loader loader;
    private DeviceBatchPipeline pipeline;
    private LoaderBatchSource source;
    private DeviceBatchStream stream;
    private Epoch epoch;
    private int epochNumber;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        ForkFlags.requirePresent();
        if (backend.equals("cuda") && !CudaAvailability.status().available()) {
            throw new IllegalStateException("SKIPPED: no GPU copy benchmark here - " + CudaAvailability.status().describe());
        }
        device = DeviceBackends.open(backend);
        dataset = Dataset.open(BenchmarkInputs.prepareDefault().dataset(Codec.RAW, records, System.err));
        loader = Loader.open(dataset, LoaderOptions.builder().batchSize(batch).crop(crop).workers(workers)
            .order(SampleOrder.RANDOM).seed(1).dropLast(true).allocator(device.hostAllocator()).build());
        pipeline = new DeviceBatchPipeline(device, new PipelineOptions(batch, crop, crop, 4, null));
        source = new LoaderBatchSource(loader, null);
        // No trainer here: the device data-wait warning would only be noise.
        stream = new DeviceBatchStream(source, pipeline, Math.min(pipeline.options().ringSize() - 1, loader.slots() - 1),
            new DataWaitMonitor("device batches", "", 1e9, 50, 0));
        epoch = loader.epoch(epochNumber);
        source.epoch(epoch);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (stream != null) {
            pipeline.awaitCopies();
            stream.close();
            epoch.close();
            pipeline.close();
            loader.close();
            dataset.close();
        }
        if (device != null) {
            device.close();
        }
    }

    @Benchmark
    @ImagesPerOp(param = "batch")
    public void handOffOneBatch(Blackhole blackhole) {
        DeviceBatch next = stream.next();
        if (next == null) { // end of epoch: every loader batch back, then the next epoch on the same stream
            pipeline.awaitCopies();
            epoch.close();
            epoch = loader.epoch(++epochNumber);
            source.epoch(epoch);
            stream.restart(source);
            next = stream.next();
        }
        next.awaitReady();
        blackhole.consume(next);
        next.close();
    }
}
