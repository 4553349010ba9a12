/**
 * Parquet input for {@code pinshard convert}: {@code ParquetLister} reads files in the Hugging Face datasets layout
 * (an image column of {@code {bytes, path}} structs or binary, a label column, other columns as record fields) row
 * group by row group with parquet-java, and {@code ParquetCodecs} decompresses their pages in pure Java, so no Hadoop
 * runs. It imports the writer's convert package and format-spec, and parquet-java's classes.
 */
package io.pinshard.parquet;
