/**
 * Prepares the datasets the benchmarks read (generated images and photographs converted to raw and jpeg shards),
 * once per machine, in the benchmark cache. Imports writer (and its convert), format-spec and baseline.inputs.
 */
package io.pinshard.jmh.inputs;
