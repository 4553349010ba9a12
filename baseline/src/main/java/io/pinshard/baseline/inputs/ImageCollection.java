package io.pinshard.baseline.inputs;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A folder of images in the ImageFolder layout (first-level folder = class, classes sorted by name):
 * the real photographs from {@code scripts/fetch-photos.sh} when available, else generated images that
 * say they are synthetic.
 *
 * @param root        the folder
 * @param classes     class names, sorted
 * @param images      the images, sorted by path
 * @param synthetic   true when the images were generated, not photographed
 * @param description one line for reports: where the images came from
 */
public record ImageCollection(Path root, List<String> classes, List<SourceImage> images, boolean synthetic,
                              String description) {
    /** Where the fetch script puts photos unless {@code PINSHARD_PHOTOS} says otherwise. */
    public static Path defaultPhotoCache() {
        String env = System.getenv("PINSHARD_PHOTOS");
        return env != null && !env.isBlank() ? Path.of(env) : defaultCacheRoot().resolve("photos");
    }

    /**
     * pinshard's cache folder, the one rule the launcher ({@code ./pinshard}, its class-data archives) and the JVM
     * share: {@code -Dpinshard.cache}, else {@code $XDG_CACHE_HOME/pinshard} (when absolute), else
     * {@code $HOME/.cache/pinshard} (the environment's HOME, as the launcher reads it, not the passwd entry Java's
     * user.home is: with HOME set elsewhere, in a container or under {@code sudo -E}, the two had split), else
     * user.home's. The demo, S3 shards, the photos, the native libraries JavaCPP unpacks and the benchmarks' inputs
     * live there; deleting it costs only their rebuilding.
     */
    public static Path defaultCacheRoot() {
        String property = System.getProperty("pinshard.cache");
        if (property != null && !property.isBlank()) {
            return Path.of(property);
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        if (xdg != null && xdg.startsWith("/")) {
            return Path.of(xdg, "pinshard");
        }
        String home = System.getenv("HOME");
        return Path.of(home != null && home.startsWith("/") ? home : System.getProperty("user.home"), ".cache",
            "pinshard");
    }

    /**
     * Real photos from the cache (running the fetch script when the cache is empty and the script is
     * found), else {@code syntheticCount} generated images of the seed's 3000x2000 size written under
     * {@code syntheticDir}. Says on {@code log} which one it is.
     */
    public static ImageCollection realOrSynthetic(Path syntheticDir, int syntheticCount, PrintStream log) throws IOException {
        Path photos = defaultPhotoCache();
        if (!Files.isRegularFile(photos.resolve(".complete"))) {
            runFetchScript(photos, log);
        }
        if (Files.isRegularFile(photos.resolve(".complete"))) {
            ImageCollection collection = scan(photos, false, "real photographs (Debian wallpapers) in " + photos);
            if (!collection.images().isEmpty()) {
                log.println("inputs: " + collection.images().size() + " " + collection.description());
                return collection;
            }
        }
        return synthetic(syntheticDir, syntheticCount, log);
    }

    /** Generated images (written once under {@code dir}, reused after). */
    public static ImageCollection synthetic(Path dir, int count, PrintStream log) throws IOException {
        Path done = dir.resolve(".complete-" + count);
        if (!Files.isRegularFile(done)) {
            log.println("inputs: SYNTHETIC images - no real photographs available; generating " + count + " images of "
                + SyntheticImages.WIDTH + "x" + SyntheticImages.HEIGHT + " in " + dir);
            SyntheticImages.write(dir, count, Math.min(count, 4), SyntheticImages.WIDTH, SyntheticImages.HEIGHT);
            Files.createFile(done);
        }
        ImageCollection collection = scan(dir, true, "SYNTHETIC generated images (" + SyntheticImages.WIDTH + "x"
            + SyntheticImages.HEIGHT + ", blurred shapes + noise; no real photographs were available) in " + dir);
        log.println("inputs: " + collection.images().size() + " " + collection.description());
        return collection;
    }

    /** Lists an ImageFolder tree; files directly in {@code root} get class "." (label 0 when no folders). */
    public static ImageCollection scan(Path root, boolean synthetic, String description) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(Files::isRegularFile).filter(ImageCollection::isImageName).sorted().toList();
        }
        List<String> classes = files.stream().map(f -> className(root, f)).distinct().sorted().toList();
        List<SourceImage> images = new ArrayList<>(files.size());
        for (Path file : files) {
            images.add(new SourceImage(file, classes.indexOf(className(root, file))));
        }
        return new ImageCollection(root, classes, List.copyOf(images), synthetic, description);
    }

    private static String className(Path root, Path file) {
        Path relative = root.relativize(file);
        return relative.getNameCount() > 1 ? relative.getName(0).toString() : ".";
    }

    static boolean isImageName(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return name.endsWith(".jpg") || name.endsWith(".jpeg") || name.endsWith(".png") || name.endsWith(".webp")
            || name.endsWith(".bmp") || name.endsWith(".tif") || name.endsWith(".tiff");
    }

    private static void runFetchScript(Path photos, PrintStream log) {
        Path script = findRepoFile("scripts/fetch-photos.sh");
        if (script == null) {
            log.println("inputs: no photo cache at " + photos + " and scripts/fetch-photos.sh not found");
            return;
        }
        log.println("inputs: fetching real photographs with " + script + " ...");
        try {
            Process process = new ProcessBuilder("bash", script.toString(), photos.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!process.waitFor(180, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                log.println("inputs: fetch-photos.sh took over 180 s; giving up on real photographs");
            } else if (process.exitValue() != 0) {
                log.println("inputs: fetch-photos.sh failed (exit " + process.exitValue() + ")");
            }
        } catch (IOException e) {
            log.println("inputs: cannot run fetch-photos.sh: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A file of the pinshard checkout: under {@code -Dpinshard.repo}, else the working directory or a parent. */
    static Path findRepoFile(String relative) {
        String repo = System.getProperty("pinshard.repo");
        if (repo != null && Files.exists(Path.of(repo, relative))) {
            return Path.of(repo, relative);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve(relative))) {
                return dir.resolve(relative);
            }
        }
        return null;
    }
}
