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
import org.bytedeco.pytorch.ScalarTypeOptional;
import org.bytedeco.pytorch.Tensor;

/**
 * ResNet-18 as torchvision builds it (He et al. 2015): a 7x7 stride-2 stem convolution, BatchNorm, ReLU and 3x3
 * stride-2 max-pool, four stages of two {@link BasicBlock}s (64, 128, 256, 512 channels; stages 2-4 halve the
 * resolution, their first block projecting the shortcut with a 1x1 convolution), global average pooling and one
 * linear layer. 11.7 M parameters for 1000 classes; about 1.8 GFLOP per 224 x 224 image forward.
 */
public final class ResNet18 extends Module {
    private static final long[] SPATIAL = {2, 3};
    private final Conv2dImpl stem;
    private final BatchNorm2dImpl stemBn;
    private final ReLUImpl relu;
    private final MaxPool2dImpl pool;
    private final BasicBlock[] blocks;
    private final LinearImpl fc;

    /** A ResNet-18 for {@code classes} classes, input {@code [N, 3, H, W]}. */
    public ResNet18(int classes) {
        stem = register_module("conv1", conv(3, 64, 7, 2, 3));
        stemBn = register_module("bn1", batchNorm(64));
        relu = register_module("relu", new ReLUImpl());
        MaxPool2dOptions poolOptions = new MaxPool2dOptions(new LongPointer(3L, 3L));
        poolOptions.stride().put(new long[] {2, 2}); // an array: put(i, v) would set element i
        poolOptions.padding().put(new long[] {1, 1});
        pool = register_module("maxpool", new MaxPool2dImpl(poolOptions));
        int[] widths = {64, 128, 256, 512};
        blocks = new BasicBlock[8];
        int in = 64;
        for (int stage = 0; stage < 4; stage++) {
            for (int b = 0; b < 2; b++) {
                int stride = stage > 0 && b == 0 ? 2 : 1;
                blocks[2 * stage + b] = register_module("layer" + (stage + 1) + "_" + b,
                    new BasicBlock(in, widths[stage], stride));
                in = widths[stage];
            }
        }
        fc = register_module("fc", new LinearImpl(512, classes));
    }

    /** Class scores {@code [N, classes]}. */
    public Tensor forward(Tensor x) {
        x = pool.forward(relu.forward(stemBn.forward(stem.forward(x))));
        for (BasicBlock block : blocks) {
            x = block.forward(x);
        }
        return fc.forward(x.mean(SPATIAL, false, new ScalarTypeOptional())); // global average pooling
    }

    static Conv2dImpl conv(long in, long out, long kernel, long stride, long padding) {
        Conv2dOptions options = new Conv2dOptions(in, out, new LongPointer(kernel, kernel));
        options.stride().put(new long[] {stride, stride});
        options.padding().put(new LongPointer(padding, padding));
        options.bias().put(false);
        return new Conv2dImpl(options);
    }

    static BatchNorm2dImpl batchNorm(long channels) {
        return new BatchNorm2dImpl(new BatchNormOptions(channels));
    }

    /** Two 3x3 convolutions with BatchNorm, plus the shortcut (projected when the shape changes), then ReLU. */
    static final class BasicBlock extends Module {
        private final Conv2dImpl conv1;
        private final BatchNorm2dImpl bn1;
        private final Conv2dImpl conv2;
        private final BatchNorm2dImpl bn2;
        private final ReLUImpl relu;
        private final Conv2dImpl projection;
        private final BatchNorm2dImpl projectionBn;

        BasicBlock(int in, int out, int stride) {
            conv1 = register_module("conv1", conv(in, out, 3, stride, 1));
            bn1 = register_module("bn1", batchNorm(out));
            conv2 = register_module("conv2", conv(out, out, 3, 1, 1));
            bn2 = register_module("bn2", batchNorm(out));
            relu = register_module("relu", new ReLUImpl());
            boolean project = stride != 1 || in != out;
            projection = project ? register_module("downsample_conv", conv(in, out, 1, stride, 0)) : null;
            projectionBn = project ? register_module("downsample_bn", batchNorm(out)) : null;
        }

        Tensor forward(Tensor x) {
            Tensor y = bn2.forward(conv2.forward(relu.forward(bn1.forward(conv1.forward(x)))));
            Tensor shortcut = projection == null ? x : projectionBn.forward(projection.forward(x));
            return relu.forward(y.add(shortcut));
        }
    }
}
