package io.pinshard.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pinshard.baseline.inputs.ImageCollection;
import io.pinshard.baseline.inputs.SyntheticImages;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The baseline's own pieces: generated collections in the ImageFolder layout, torchvision's crop boxes. */
class BaselineTest {
    @TempDir
    Path dir;

    @Test
    void collectionFollowsTheImageFolderLayout() throws IOException {
        SyntheticImages.write(dir.resolve("generated"), 5, 2, 800, 500);
        ImageCollection collection = ImageCollection.scan(dir.resolve("generated"), true, "SYNTHETIC test images");
        assertEquals(5, collection.images().size());
        assertEquals(List.of("synthetic-00", "synthetic-01"), collection.classes());
        assertEquals(1, collection.images().get(collection.images().size() - 1).label());
        assertTrue(collection.synthetic());
    }

    @Test
    void cropBoxesStayInsideTheImageWithTorchvisionsScaleAndRatio() {
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 10_000; i++) {
            int h = 1 + random.nextInt(600);
            int w = 1 + random.nextInt(600);
            int[] box = NaiveRandomResizedCrop.box(h, w, random);
            assertTrue(box[0] >= 0 && box[1] >= 0 && box[2] > 0 && box[3] > 0
                && box[0] + box[2] <= h && box[1] + box[3] <= w, h + "x" + w + " -> " + Arrays.toString(box));
        }
    }
}
