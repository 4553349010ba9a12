package io.pinshard.torch;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pinshard.reader.Dataset;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** Base of the tests over {@link TorchTestData}'s dataset: skips, saying why, where libtorch cannot load. */
abstract class TorchDatasetTest {
    @TempDir
    static Path dir;
    static Dataset dataset;

    @BeforeAll
    static void open() throws Exception {
        assumeTrue(Libtorch.isAvailable(), Libtorch.status().describe());
        dataset = Dataset.open(TorchTestData.write(dir));
    }

    @AfterAll
    static void closeDataset() {
        if (dataset != null) {
            dataset.close();
            dataset = null;
        }
    }
}
