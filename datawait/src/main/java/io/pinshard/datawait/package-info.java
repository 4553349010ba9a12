/**
 * Data-wait monitoring: {@link io.pinshard.datawait.DataWaitMonitor} (the share of step time a trainer waits for
 * batches, and the warning when it is too high), {@link io.pinshard.datawait.DataWaitContext} (services that add
 * context to the warning, such as cuda-bridge's GPU utilisation) and the JFR {@link io.pinshard.datawait.DataWaitEvent}.
 * It imports nothing of pinshard's (SLF4J and the JDK only), so the loader and cuda-bridge both use it.
 */
package io.pinshard.datawait;
