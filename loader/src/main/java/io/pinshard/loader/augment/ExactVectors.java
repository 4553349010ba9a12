package io.pinshard.loader.augment;

import jdk.incubator.vector.VectorSpecies;

/**
 * The one home of the kernels' way to give a Vector API value its exact class (VectorCropResizer's note says why):
 * {@code vectorClass(species).cast(value)}, a Class.cast C2 compiles to nothing once it sees the class, after which
 * every call on the value is bound without a type profile. Only loaded with {@code jdk.incubator.vector}.
 */
final class ExactVectors {
    private ExactVectors() {
    }

    /** The class of {@code species}' vectors, typed for Class.cast. */
    @SuppressWarnings("unchecked")
    static <V> Class<V> vectorClass(VectorSpecies<?> species) {
        return (Class<V>) species.vectorType();
    }
}
