package io.pinshard.jmh;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * How many images one benchmark operation handles, so the results table can state images/s and
 * heap bytes per image next to JMH's per-operation figures.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface ImagesPerOp {
    /** A fixed count (ignored when {@link #param()} is set). */
    int value() default 1;

    /** Name of the {@code @Param} that holds the count (e.g. the batch size). */
    String param() default "";

    /** Whether images/s here means images delivered to a trainer, comparable with the seed's "before" (not for conversion). */
    boolean loaderComparable() default true;
}
