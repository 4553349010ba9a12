package io.pinshard.cli;

import io.pinshard.format.Codec;
import io.pinshard.reader.Dataset;
import io.pinshard.reader.RecordView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The demo's "after" files: a jpeg dataset's payloads written out as one JPEG file per record, in an ImageFolder
 * tree ({@code c<label>/<record>.jpg}), so the file loader reads exactly the bytes the jpeg shards hold.
 */
final class DemoJpegFiles {
    private DemoJpegFiles() {
    }

    /** Writes every record of the jpeg dataset at {@code jpegDataset} under {@code folder}; returns the files. */
    static List<Path> export(Path jpegDataset, Path folder) throws IOException {
        List<Path> files = new ArrayList<>();
        try (Dataset dataset = Dataset.open(jpegDataset)) {
            RecordView view = new RecordView();
            byte[] bytes = new byte[0];
            for (long r = 0; r < dataset.size(); r++) {
                dataset.record(r, view);
                if (view.codec() != Codec.JPEG) {
                    throw new IllegalArgumentException(jpegDataset + " record " + r + " is " + view.codec().label()
                        + ", not jpeg");
                }
                if (bytes.length < view.payloadLength()) {
                    bytes = new byte[view.payloadLength()];
                }
                view.buffer().getBytes(view.payloadOffset(), bytes, 0, view.payloadLength());
                Path file = folder.resolve("c" + view.label()).resolve(String.format(Locale.ROOT, "%08d.jpg", r));
                Files.createDirectories(file.getParent());
                try (var out = Files.newOutputStream(file)) {
                    out.write(bytes, 0, view.payloadLength());
                }
                files.add(file);
            }
        }
        return files;
    }

    /** The label a file written by {@link #export} stands for. */
    static int label(Path folder, Path file) {
        return Integer.parseInt(folder.relativize(file).getName(0).toString().substring(1));
    }

    /** The class names of the dataset the files came from. */
    static List<String> classes(Path jpegDataset) {
        try (Dataset dataset = Dataset.open(jpegDataset)) {
            return dataset.classes();
        }
    }
}
