package io.pinshard.examples.torch;

import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.pytorch.BatchNorm2dImpl;
import org.bytedeco.pytorch.BatchNormOptions;
import org.bytedeco.pytorch.Conv2dImpl;
import org.bytedeco.pytorch.Conv2dOptions;
import org.bytedeco.pytorch.LinearImpl;
import org.bytedeco.pytorch.MaxPool2dImpl;
import org.bytedeco.pytorch.MaxPool2dOptions;
import org.bytedeco.pytorch.Module;
import org.bytedeco.pytorch.ReLUImpl;
import org.bytedeco.pytorch.Tensor;

/**
 * The small CNN of the Fashion-MNIST example, for {@code [N, 3, 28, 28]} float input (the loader's RGB batches;
 * Fashion-MNIST's grey pixels are repeated in the three channels):
 * three {@code conv3x3 -> BatchNorm -> ReLU -> maxpool 2} blocks (32, 64, 128 channels; 28 -> 14 -> 7 -> 3), then
 * {@code Linear(1152, 256) -> ReLU -> Linear(256, 10)}. scripts/train_fashion_mnist_torch.py builds the same network
 * in PyTorch. Every submodule is registered, so {@link #parameters()} hands them all to the optimizer and
 * {@link #train(boolean)} / {@link #eval()} switch the BatchNorm layers.
 */
public final class FashionMnistNet extends Module {
    private final Conv2dImpl conv1;
    private final BatchNorm2dImpl bn1;
    private final Conv2dImpl conv2;
    private final BatchNorm2dImpl bn2;
    private final Conv2dImpl conv3;
    private final BatchNorm2dImpl bn3;
    private final MaxPool2dImpl pool;
    private final ReLUImpl relu;
    private final LinearImpl fc1;
    private final LinearImpl fc2;

    /** Builds the network with libtorch's default initialisation (seeded by {@code torch.manual_seed}). */
    public FashionMnistNet() {
        conv1 = register_module("conv1", conv3x3(3, 32));
        bn1 = register_module("bn1", new BatchNorm2dImpl(new BatchNormOptions(32)));
        conv2 = register_module("conv2", conv3x3(32, 64));
        bn2 = register_module("bn2", new BatchNorm2dImpl(new BatchNormOptions(64)));
        conv3 = register_module("conv3", conv3x3(64, 128));
        bn3 = register_module("bn3", new BatchNorm2dImpl(new BatchNormOptions(128)));
        pool = register_module("pool", new MaxPool2dImpl(new MaxPool2dOptions(new LongPointer(2L, 2L))));
        relu = register_module("relu", new ReLUImpl());
        fc1 = register_module("fc1", new LinearImpl(128 * 3 * 3, 256));
        fc2 = register_module("fc2", new LinearImpl(256, 10));
    }

    /** 3x3 convolution, padding 1, no bias (the BatchNorm after it has one). */
    static Conv2dImpl conv3x3(long in, long out) {
        Conv2dOptions options = new Conv2dOptions(in, out, new LongPointer(3L, 3L));
        options.padding().put(new LongPointer(1L, 1L));
        options.bias().put(false);
        return new Conv2dImpl(options);
    }

    /** Class scores {@code [N, 10]} for images {@code [N, 3, 28, 28]}. */
    public Tensor forward(Tensor x) {
        x = pool.forward(relu.forward(bn1.forward(conv1.forward(x))));
        x = pool.forward(relu.forward(bn2.forward(conv2.forward(x))));
        x = pool.forward(relu.forward(bn3.forward(conv3.forward(x))));
        x = relu.forward(fc1.forward(x.flatten(1, -1)));
        return fc2.forward(x);
    }
}
