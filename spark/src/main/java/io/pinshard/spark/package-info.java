/**
 * A Spark DataSource V2 for pinshard datasets: a table that reads shards as rows (one partition per shard) and
 * writes them from a DataFrame of images through the real writer, plus PinshardSparkConvert. Imports writer, reader
 * and format-spec; Spark is provided by the cluster.
 */
package io.pinshard.spark;
