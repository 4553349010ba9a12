package io.pinshard.cli;

import io.pinshard.reader.CrcCheck;
import picocli.CommandLine.Option;

/** {@code --crc auto|always|never}: which payloads get their CRC32C checked, for every command that reads them. */
final class CrcOption {
    @Option(names = "--crc", defaultValue = "auto", paramLabel = "MODE", description = "Payload CRC32C checks: auto "
        + "(jpeg and lz4), always or never (default ${DEFAULT-VALUE}).")
    String crc;

    CrcCheck mode() {
        return CrcCheck.fromLabel(crc);
    }
}
