package io.pinshard.reader;

import java.util.Map;
import java.util.ServiceLoader;

/**
 * Opens {@link ShardSource}s for one kind of remote location, found by {@link java.util.ServiceLoader} (module
 * {@code s3} registers one for {@code s3://}); the reader itself knows no remote store.
 */
public interface ShardSourceProvider {
    /** The location prefix this provider serves, e.g. {@code s3://}. */
    String scheme();

    /**
     * Opens {@code location}.
     *
     * @param options provider settings by name (for {@code s3://}: endpoint, region, pathStyle, cacheDir,
     *                cacheLimit); absent ones come from the provider's defaults and the environment
     */
    ShardSource open(String location, Map<String, String> options);

    /**
     * Opens {@code location} with the provider on the class path that serves its {@code scheme}.
     *
     * @throws IllegalArgumentException when none does
     */
    static ShardSource open(String location, String scheme, Map<String, String> options) {
        for (ShardSourceProvider provider : ServiceLoader.load(ShardSourceProvider.class)) {
            if (provider.scheme().equals(scheme)) {
                return provider.open(location, options);
            }
        }
        throw new IllegalArgumentException("cannot open " + location + ": no module on the class path serves "
            + scheme + " locations (" + scheme + " needs pinshard-s3, which the pinshard CLI includes)");
    }
}
