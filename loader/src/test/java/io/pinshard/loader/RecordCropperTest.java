package io.pinshard.loader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.pinshard.format.Codec;
import io.pinshard.loader.options.LoaderMode;
import io.pinshard.loader.options.LoaderOptions;
import io.pinshard.loader.options.SampleOrder;
import io.pinshard.loader.ring.Batch;
import io.pinshard.memory.HostMemoryAllocator;
import io.pinshard.memory.NativeRegion;
import io.pinshard.reader.Dataset;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecordCropperTest {
    @TempDir
    Path temp;

    @Test
    void cropsEachRecordAsTheLoadersBatchesHoldItInThatEpoch() throws Exception {
        for (Codec codec : new Codec[] {Codec.RAW, Codec.JPEG}) {
            try (Dataset dataset = Dataset.open(TestDatasets.write(temp.resolve(codec.label()), 21, codec, 3, 16 << 10))) {
                for (LoaderMode mode : LoaderMode.values()) {
                    LoaderOptions options = TestDatasets.small().order(SampleOrder.RANDOM).mode(mode).build();
                    assertSameCrops(dataset, options, 3);
                }
            }
        }
    }

    private static void assertSameCrops(Dataset dataset, LoaderOptions options, int epochNumber) {
        try (Loader loader = Loader.open(dataset, options); Epoch epoch = loader.epoch(epochNumber);
             RecordCropper cropper = new RecordCropper(dataset, options);
             NativeRegion alone = HostMemoryAllocator.INSTANCE.allocate(cropper.cropBytes(), 64)) {
            byte[] expected = new byte[(int) cropper.cropBytes()];
            byte[] actual = new byte[expected.length];
            while (epoch.hasNext()) {
                try (Batch batch = epoch.next()) {
                    for (int i = 0; i < batch.size(); i++) {
                        new UnsafeBuffer(batch.imageAddress(i), expected.length).getBytes(0, expected);
                        cropper.crop(batch.sampleId(i), epochNumber, alone.address());
                        new UnsafeBuffer(alone.address(), actual.length).getBytes(0, actual);
                        assertArrayEquals(expected, actual, options.augment().mode() + " record " + batch.sampleId(i));
                    }
                }
            }
        }
    }
}
