package io.pinshard.examples.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.torch.Libtorch;
import org.bytedeco.pytorch.Adam;
import org.bytedeco.pytorch.AdamOptions;
import org.bytedeco.pytorch.OptimizerOptions;
import org.junit.jupiter.api.Test;

/** The example's cosine schedule: its arithmetic, and that setting it through the cached options reaches Adam. */
class CosineLearningRateTest {
    @Test
    void fallsFromTheBaseRateAlongACosineTowardsZero() {
        assertEquals(1e-3, FashionMnistTraining.cosineLearningRate(1e-3, 0, 2340), 1e-15);
        assertEquals(0.5e-3, FashionMnistTraining.cosineLearningRate(1e-3, 1170, 2340), 1e-15);
        assertEquals(1e-3 * 0.5 * (1 + Math.cos(Math.PI * 585 / 2340)),
            FashionMnistTraining.cosineLearningRate(1e-3, 585, 2340), 1e-15);
        assertEquals(0, FashionMnistTraining.cosineLearningRate(1e-3, 2340, 2340), 1e-15);
    }

    @Test
    void theRateSetOnTheGroupsOptionsIsTheOneAdamUses() {
        assumeTrue(Libtorch.isAvailable(), Libtorch.status().describe());
        try (FashionMnistNet net = new FashionMnistNet();
             Adam adam = new Adam(net.parameters(), new AdamOptions(1e-3))) {
            OptimizerOptions options = adam.param_groups().get(0).options();
            options.set_lr(2.5e-4);
            assertEquals(2.5e-4, adam.param_groups().get(0).options().get_lr(), 0);
            assertEquals(2.5e-4, adam.param_groups().get(0).options().get_lr(), 0, "a second look, a new peer");
        }
    }
}
