package io.pinshard.torch;

import static io.pinshard.torch.TorchTestData.CROP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.loader.Loader;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Conv2dImpl;
import org.bytedeco.pytorch.LinearImpl;
import org.bytedeco.pytorch.SGD;
import org.bytedeco.pytorch.SGDOptions;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;

/**
 * Real training steps (conv, linear, cross-entropy, backward, SGD) on the adapter's tensors: a step that runs
 * backward before closing its batch keeps nothing; a graph still alive when its batch closes keeps that batch's
 * tensors, and its backward computes what it would have computed before the close.
 */
class TrainingStepTest extends TorchDatasetTest {
    /** A tiny CNN: conv 3x3 (3 -> 4), ReLU, linear to the 3 classes. */
    private static final class Net implements AutoCloseable {
        final Conv2dImpl conv;
        final LinearImpl linear;
        final TensorVector parameters = new TensorVector();
        final SGD sgd;

        Net() {
            torch.manual_seed(1);
            try (LongPointer kernel = new LongPointer(3L, 3L)) {
                conv = new Conv2dImpl(3, 4, kernel);
            }
            linear = new LinearImpl(4L * (CROP - 2) * (CROP - 2), TorchTestData.CLASSES);
            for (TensorVector group : new TensorVector[] {conv.parameters(), linear.parameters()}) {
                for (long i = 0; i < group.size(); i++) {
                    parameters.push_back(group.get(i));
                }
            }
            sgd = new SGD(parameters, new SGDOptions(0.05));
        }

        Tensor loss(TorchBatch batch) {
            Tensor features = torch.flatten(torch.relu(conv.forward(batch.normalized())), 1, -1);
            return torch.cross_entropy(linear.forward(features), batch.labels());
        }

        @Override
        public void close() {
            sgd.close();
            parameters.close();
            linear.close();
            conv.close();
        }
    }

    @Test
    @SuppressWarnings("try") // the step's PointerScope is opened for its close only
    void stepsThatRunBackwardBeforeClosingKeepNothing() {
        try (Net net = new Net();
             Loader loader = Loader.open(dataset, TorchTestData.options().build());
             TorchLoader batches = TorchLoader.of(loader)) {
            long madeAfterFirstEpoch = 0;
            for (int e = 0; e < 3; e++) {
                try (TorchEpoch epoch = batches.epoch(e)) {
                    for (TorchBatch batch : epoch) {
                        try (batch; PointerScope step = new PointerScope()) {
                            Tensor loss = net.loss(batch);
                            net.sgd.zero_grad();
                            loss.backward();
                            net.sgd.step();
                            assertTrue(Float.isFinite(loss.item_float()), "loss " + loss.item_float());
                        }
                    }
                }
                if (e == 0) {
                    madeAfterFirstEpoch = batches.tensorsMade();
                }
            }
            assertEquals(0, batches.keptPastClose(), "a clean step keeps no view of the batch");
            assertEquals(madeAfterFirstEpoch, batches.tensorsMade(), "no tensor made after the first epoch");
        }
    }

    @Test
    @SuppressWarnings("try") // the step's PointerScope is opened for its close only
    void backwardAfterTheBatchWasClosedUsesThatBatch() {
        try (Net net = new Net();
             Loader loader = Loader.open(dataset, TorchTestData.options().build());
             TorchLoader batches = TorchLoader.of(loader);
             TorchEpoch epoch = batches.epoch(0);
             PointerScope step = new PointerScope()) {
            TorchBatch batch = epoch.next();
            Tensor reference = net.loss(batch);
            Tensor loss = net.loss(batch); // the same graph twice: one backward before the close, one after
            net.sgd.zero_grad();
            reference.backward();
            Tensor expected = net.conv.weight().grad().clone();
            batch.close(); // early: the graph still holds the normalized input and the labels
            assertEquals(2, batches.keptPastClose(), "labels and normalized left to the graph");
            assertEquals(0, batches.slotsHeldByViews(), "neither is slot memory: the slot went back at once");
            for (int i = 0; i < 3; i++) { // every slot refilled and normalized again, slot 0 included
                try (TorchBatch next = epoch.next()) {
                    next.normalized();
                    next.labels();
                }
            }
            net.sgd.zero_grad();
            loss.backward();
            assertTrue(torch.equal(expected, net.conv.weight().grad()), "the gradient of batch 0's own tensors");
        }
    }
}
