/**
 * Turns JMH's JSON results into the tables of docs/benchmarks.md. Imports the jmh package and format-spec's JSON only.
 */
package io.pinshard.jmh.report;
