package io.pinshard.examples.torch;

import io.pinshard.writer.convert.ConvertException;
import io.pinshard.writer.convert.ConvertOptions;
import io.pinshard.writer.convert.ConvertProgress;
import io.pinshard.writer.convert.ConvertSummary;
import io.pinshard.writer.convert.Converter;
import io.pinshard.writer.convert.FolderLister;
import io.pinshard.writer.convert.OutputCodec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Fashion-MNIST for the tests: the PNG trees from {@code scripts/fetch-fashion-mnist.sh --png-only} (Debian's
 * dataset-fashion-mnist, cached), converted in-process with the script's settings (shorter side 28, raw, labels from
 * the folders) into the module's target/fashion-mnist (resumable: a second run finds them finished) unless the
 * script already made the datasets. {@link #reasonMissing()} says why not, for the skips.
 */
final class FashionMnistData {
    private static Path root;
    private static String missing;

    private FashionMnistData() {
    }

    /** The directory holding {@code train} and {@code test}, or null (then {@link #reasonMissing()}). */
    static synchronized Path datasets() {
        if (root == null && missing == null) {
            try {
                root = prepare(Path.of("target"));
            } catch (IOException | ConvertException | RuntimeException e) {
                missing = "Fashion-MNIST could not be prepared: " + e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                missing = "interrupted while fetching Fashion-MNIST";
            }
        }
        return root;
    }

    static synchronized String reasonMissing() {
        return missing;
    }

    private static Path prepare(Path scratch) throws IOException, ConvertException, InterruptedException {
        Path repo = Path.of("").toAbsolutePath();
        while (repo != null && !Files.exists(repo.resolve("scripts/fetch-fashion-mnist.sh"))) {
            repo = repo.getParent();
        }
        if (repo == null) {
            missing = "scripts/fetch-fashion-mnist.sh not found above " + Path.of("").toAbsolutePath();
            return null;
        }
        Process fetch = new ProcessBuilder("bash", repo.resolve("scripts/fetch-fashion-mnist.sh").toString(), "--png-only")
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String printed = new String(fetch.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!fetch.waitFor(180, TimeUnit.SECONDS)) {
            fetch.destroyForcibly();
            missing = "scripts/fetch-fashion-mnist.sh --png-only took over 180 s";
            return null;
        }
        if (fetch.exitValue() != 0) {
            missing = "scripts/fetch-fashion-mnist.sh --png-only failed (exit " + fetch.exitValue()
                + (fetch.exitValue() == 3 ? ": Debian's dataset-fashion-mnist cannot be downloaded here" : "") + ")";
            return null;
        }
        Path cache = Path.of(printed);
        if (Files.exists(cache.resolve(".complete"))) {
            return cache; // the script converted both splits already
        }
        Path out = scratch.resolve("fashion-mnist");
        ConvertOptions options = ConvertOptions.defaults().withShorterSide(28).withCodec(OutputCodec.RAW).withWorkers(2);
        for (String split : new String[] {"train", "test"}) {
            ConvertSummary summary = new Converter(options, ConvertProgress.NONE)
                .run(FolderLister.list(cache.resolve("png").resolve(split), true), null, out.resolve(split));
            if (summary.rejected() > 0) {
                throw new IllegalStateException(summary.rejected() + " Fashion-MNIST " + split + " images rejected");
            }
        }
        return out;
    }
}
