/**
 * Micrometer meters over an open {@link io.pinshard.loader.Loader} (LoaderMeterBinder; micrometer-core is an
 * optional dependency). The top of the loader: it may import the API package and Micrometer; nothing imports it.
 */
package io.pinshard.loader.metrics;
