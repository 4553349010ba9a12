package io.pinshard.torch;

import io.pinshard.fixtures.PoisoningAllocator;
import io.pinshard.reader.Dataset;
import io.pinshard.loader.Loader;
import java.nio.file.Path;
import java.util.Arrays;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * A child JVM for {@link KeptTensorTest}: keeps a tensor derived from batch 0's tensors, closes the batch (then
 * takes and closes the other slots' batches, which the workers fill meanwhile) or the adapter and the loader, then
 * uses the kept tensor. Prints {@code kept: OK} and exits 0 when it still holds batch 0's own values, as a copy
 * taken before the close; 1 with the reason otherwise; a crash ends the JVM with a signal.
 *
 * <p>Usage: {@code KeptTensorChild DATASET permute|narrow-normalized|contiguous|clone batch|loader|loader-first}
 * ({@code loader}: the adapter, then the loader; {@code loader-first}: the loader while the adapter and the batch
 * are still open, then the adapter, the order the try-with-resources of the docs avoids)
 */
public final class KeptTensorChild {
    private KeptTensorChild() {
    }

    /** {@code DIR KIND:CLOSED...}: the cases one after the other in this JVM; the first failure exits 1. */
    public static void main(String[] args) throws Exception {
        for (int i = 1; i < args.length; i++) {
            String[] kindAndClosed = args[i].split(":", 2);
            runCase(args[0], kindAndClosed[0], kindAndClosed[1]);
        }
    }

    private static void runCase(String directory, String kind, String closed) throws Exception {
        boolean afterLoaderClose = switch (closed) {
            case "batch" -> false;
            case "loader", "loader-first" -> true;
            default -> throw new IllegalArgumentException("batch, loader or loader-first: " + closed);
        };
        boolean loaderFirst = closed.equals("loader-first");
        // Freed slots are filled with 0x7F and kept mapped: a read after the free sees changed values every time
        // (with ordinary memory it may read plausible leftovers, or fault where the pages went back to the system).
        PoisoningAllocator allocator = new PoisoningAllocator();
        Dataset dataset = Dataset.open(Path.of(directory));
        Loader loader = Loader.open(dataset, TorchTestData.options().prefetch(3).allocator(allocator).build());
        TorchLoader batches = TorchLoader.of(loader);
        TorchEpoch epoch = batches.epoch(0);
        TorchBatch first = epoch.next();
        Tensor kept = switch (kind) {
            case "permute" -> first.images().permute(0, 3, 1, 2); // a view of the slot's pixels
            case "narrow-normalized" -> first.normalized().narrow(0, 1, 2); // a view of the slot's float tensor
            case "contiguous" -> first.images().contiguous(); // already contiguous: the slot tensor itself
            case "clone" -> first.images().narrow(0, 2, 3); // cloned after the close
            default -> throw new IllegalArgumentException(kind);
        };
        float[] before = values(kept);
        if (loaderFirst) {
            loader.close();
            dataset.close();
        } else if (afterLoaderClose) {
            epoch.close();
            batches.close();
            loader.close();
            dataset.close();
        } else {
            first.close();
            for (int i = 0; i < 2; i++) { // the other two slots: the workers fill them, and would fill slot 0 next
                epoch.next().close();
            }
            Thread.sleep(200); // time for the workers to overwrite slot 0 if they were allowed to
        }
        float[] after = values(kept);
        if (!Arrays.equals(before, after)) {
            System.out.println("kept: the " + kind + " tensor changed after the close: " + differences(before, after)
                + " of " + before.length + " values differ");
            System.exit(1);
        }
        if (loaderFirst) {
            epoch.close();
            batches.close();
        }
        kept.close();
        if (afterLoaderClose) {
            if (allocator.liveRegions() != 0) {
                System.out.println("kept: " + allocator.liveRegions() + " regions left after the kept tensor was freed");
                System.exit(1);
            }
        } else {
            int seen = 3;
            for (TorchBatch b : epoch) { // slot 0 is back: the epoch runs to its end
                try (b) {
                    b.normalized();
                    seen++;
                }
            }
            epoch.close();
            batches.close();
            loader.close();
            dataset.close();
            if (seen != 6 || allocator.liveRegions() != 0) {
                System.out.println("kept: " + seen + " batches, " + allocator.liveRegions() + " regions left");
                System.exit(1);
            }
        }
        System.out.println("kept: OK (" + kind + ", after the " + closed + " closed; " + before.length + " values)");
    }

    /** The tensor's values through a copy libtorch makes (clone for "clone", contiguous() of a view otherwise). */
    private static float[] values(Tensor tensor) {
        try (Tensor copy = tensor.clone(); Tensor asFloat = copy.to(torch.ScalarType.Float).contiguous()) {
            float[] out = new float[(int) asFloat.numel()];
            asFloat.data_ptr_float().get(out);
            return out;
        }
    }

    private static int differences(float[] a, float[] b) {
        int n = 0;
        for (int i = 0; i < a.length; i++) {
            n += Float.compare(a[i], b[i]) != 0 ? 1 : 0;
        }
        return n;
    }
}
