package io.pinshard.cli;

import io.pinshard.format.DatasetManifest;
import picocli.CommandLine;

final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        String version = VersionProvider.class.getPackage().getImplementationVersion();
        return new String[] {"pinshard " + (version != null ? version : "0.1.0-SNAPSHOT")
            + " (shard format " + DatasetManifest.FIELDS_FORMAT_VERSION + "; " + DatasetManifest.FORMAT_VERSION
            + " without record fields)"};
    }
}
