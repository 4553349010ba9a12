package io.pinshard.torch;

import static io.pinshard.torch.TorchTestData.BATCH;
import static io.pinshard.torch.TorchTestData.CROP;
import static io.pinshard.torch.TorchTestData.RECORDS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.cuda.augment.AugmentSpec;
import io.pinshard.cuda.device.CudaBackend;
import io.pinshard.cuda.device.DeviceBackend;
import io.pinshard.cuda.pipeline.DeviceBatch;
import io.pinshard.cuda.pipeline.DeviceBatchPipeline;
import io.pinshard.cuda.pipeline.DeviceBatchStream;
import io.pinshard.cuda.device.HostBackend;
import io.pinshard.cuda.pipeline.PipelineOptions;
import io.pinshard.cuda.pipeline.TensorDescriptor;
import io.pinshard.loader.ring.Batch;
import io.pinshard.loader.Epoch;
import io.pinshard.loader.Loader;
import io.pinshard.loader.LoaderBatchSource;
import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;

/**
 * Device batches as tensors: the descriptor mapping on the host backend (CPU tensors over the pipeline's memory, on
 * every machine) and on CUDA (skips saying what is missing: the CUDA build of libtorch, a GPU).
 */
class DeviceTensorsTest extends TorchDatasetTest {
    /** The loader's own epoch 0: image bytes and labels per batch. */
    private static List<byte[]> hostBatches() {
        List<byte[]> batches = new ArrayList<>();
        try (Loader loader = Loader.open(dataset, TorchTestData.options().build()); Epoch epoch = loader.epoch(0)) {
            for (Batch b : epoch) {
                try (b) {
                    byte[] bytes = new byte[(int) b.tensorBytes()];
                    new UnsafeBuffer(b.address(), bytes.length).getBytes(0, bytes);
                    batches.add(bytes);
                }
            }
        }
        return batches;
    }

    private static byte[] bytesOf(Tensor t) {
        try (Tensor host = t.to(torch.ScalarType.Byte).cpu().contiguous()) {
            byte[] out = new byte[(int) host.numel()];
            host.data_ptr_byte().get(out);
            return out;
        }
    }

    /** Runs epoch 0 through a pipeline on {@code backend} and checks every batch's tensors against the loader's. */
    @SuppressWarnings("try") // the step's PointerScope is opened for its close only
    private static void epochAsTensors(DeviceBackend backend, PipelineOptions pipelineOptions, boolean cuda) {
        List<byte[]> expected = hostBatches();
        try (Loader loader = Loader.open(dataset, TorchTestData.options().build());
             Epoch epoch = loader.epoch(0);
             DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, pipelineOptions);
             DeviceBatchStream stream = new DeviceBatchStream(new LoaderBatchSource(loader, epoch), pipeline, 2);
             DeviceTensors tensors = DeviceTensors.of(pipeline)) {
            int k = 0;
            int samples = 0;
            for (DeviceBatch next = stream.next(); next != null; next = stream.next()) {
                try (TorchDeviceBatch batch = tensors.wrap(next); PointerScope step = new PointerScope()) {
                    TensorDescriptor d = next.images();
                    int n = batch.size();
                    Tensor x = batch.images();
                    assertEquals(d.data(), x.data_ptr().address(), "images() is the pipeline slot's memory");
                    assertEquals(cuda, x.is_cuda());
                    assertArrayEquals(d.shapeArray(), x.sizes().vec().get());
                    assertArrayEquals(d.stridesArray(), x.strides().vec().get());
                    assertEquals(DeviceTensors.scalarType(d.dtype()).value, x.scalar_type().value);
                    if (pipelineOptions.augment() == null) {
                        assertArrayEquals(expected.get(k), bytesOf(x), "batch " + k);
                    }
                    Tensor y = batch.labels();
                    assertEquals(torch.ScalarType.Long.value, y.scalar_type().value);
                    assertArrayEquals(new long[] {n}, y.sizes().vec().get());
                    try (Tensor labels = y.cpu()) {
                        long[] actual = new long[n];
                        labels.data_ptr_long().get(actual);
                        for (int i = 0; i < n; i++) {
                            assertTrue(actual[i] >= 0 && actual[i] < TorchTestData.CLASSES, "label " + actual[i]);
                        }
                    }
                    samples += n;
                    k++;
                }
            }
            assertEquals(expected.size(), k);
            assertEquals(RECORDS, samples);
            assertEquals(0, tensors.poisoned());
        }
    }

    @Test
    void hostBackendBatchesAreCpuTensorsOverThePipelinesMemory() {
        try (HostBackend backend = new HostBackend()) {
            epochAsTensors(backend, new PipelineOptions(BATCH, CROP, CROP, 3, null), false);
        }
    }

    @Test
    void augmentedHostBatchesKeepTheDescriptorsDtypeShapeAndStrides() {
        try (HostBackend backend = new HostBackend()) {
            epochAsTensors(backend, new PipelineOptions(BATCH, CROP, CROP, 3, AugmentSpec.normaliseOnly()), false);
        }
    }

    @Test
    void aDeviceHandleOrViewKeptPastCloseThrows() {
        try (HostBackend backend = new HostBackend();
             Loader loader = Loader.open(dataset, TorchTestData.options().build());
             Epoch epoch = loader.epoch(0);
             DeviceBatchPipeline pipeline = new DeviceBatchPipeline(backend, new PipelineOptions(BATCH, CROP, CROP, 3, null));
             DeviceBatchStream stream = new DeviceBatchStream(new LoaderBatchSource(loader, epoch), pipeline, 2);
             DeviceTensors tensors = DeviceTensors.of(pipeline)) {
            TorchDeviceBatch batch = tensors.wrap(stream.next());
            Tensor x = batch.images();
            Tensor view = batch.labels().narrow(0, 0, 2);
            batch.close();
            assertThrows(NullPointerException.class, x::sum);
            RuntimeException e = assertThrows(RuntimeException.class, () -> view.sum().item_long());
            assertTrue(e.getMessage().contains("was used after the batch was closed"), e.getMessage());
            assertEquals(1, tensors.poisoned());
            assertThrows(IllegalStateException.class, batch::images);
            view.close();
            for (DeviceBatch next = stream.next(); next != null; next = stream.next()) {
                tensors.wrap(next).close();
            }
        }
    }

    @Test
    void cudaBatchesAreCudaTensorsOrderedAfterTheirReadyEvent() {
        assumeTrue(Libtorch.isCudaAvailable(), "CUDA device-batch path not run: " + Libtorch.status().cudaReason());
        try (CudaBackend backend = CudaBackend.open(0)) {
            epochAsTensors(backend, new PipelineOptions(BATCH, CROP, CROP, 3, null), true);
            epochAsTensors(backend, new PipelineOptions(BATCH, CROP, CROP, 3, AugmentSpec.normaliseOnly()), true);
        }
    }

    @Test
    void withoutCudaTheDevicePathSaysWhatIsMissing() {
        assumeFalse(Libtorch.isCudaAvailable(), "CUDA is available here: the CUDA test runs instead");
        IllegalStateException e = assertThrows(IllegalStateException.class, Libtorch::requireCuda);
        String reason = e.getMessage();
        assertTrue(reason.contains(Libtorch.GPU_ARTIFACT) || reason.contains("no GPU"), reason);
        System.out.println("torch device path: " + reason);
    }
}
