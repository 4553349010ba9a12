package io.pinshard.examples.torch;

import io.pinshard.torch.TorchBatch;
import java.util.function.UnaryOperator;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Optimizer;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * What the examples do per batch: time the step from batch arrival to batch arrival, and run one cross-entropy
 * optimisation step on the batch's normalised images. One clock per run of consecutive steps.
 */
final class TrainingStep {
    private long previousArrival = -1;

    /**
     * Call as the batch arrives: the step time that ends now, i.e. since the previous batch arrived, or the
     * batch's own wait for the first batch of this clock (it has no step before it).
     */
    long stepNanos(long waitNanos) {
        long arrival = System.nanoTime();
        long step = previousArrival < 0 ? waitNanos : arrival - previousArrival;
        previousArrival = arrival;
        return step;
    }

    /**
     * zero_grad, forward, cross-entropy against the batch's labels, backward and step; returns the loss. Closes the
     * batch: the scope frees the step's temporaries (autograd graph included) before the batch gives its slot back,
     * as resources close in reverse order.
     */
    @SuppressWarnings("try") // the scope acts by being open
    static float run(Optimizer optimizer, UnaryOperator<Tensor> forward, TorchBatch batch) {
        try (batch; PointerScope step = new PointerScope()) {
            optimizer.zero_grad();
            Tensor loss = torch.cross_entropy(forward.apply(batch.normalized()), batch.labels());
            loss.backward();
            optimizer.step();
            return loss.item_float();
        }
    }
}
