/**
 * The {@code pinshard} command line: one picocli command per subcommand, their shared option mixins, and the one place
 * that maps errors to exit statuses (PinshardCommand). The top floor: it may import every library module, and no
 * library module imports it.
 */
package io.pinshard.cli;
