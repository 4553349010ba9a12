package io.pinshard.torch;

import java.util.Iterator;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerScope;

/**
 * Keeps the adapter's own native objects out of the trainer's {@link PointerScope}s: a tensor the adapter makes
 * lazily, inside the trainer's step, would otherwise be attached to the step's scope and freed with its temporaries.
 */
final class Owned {
    private Owned() {
    }

    /**
     * Takes {@code pointer} (just made) back from the scope JavaCPP attached it to, the innermost one that accepts its
     * class, leaving its reference count as if no scope were open; the adapter closes it itself.
     */
    static <P extends Pointer> P keep(P pointer) {
        Iterator<PointerScope> scopes = PointerScope.getScopeIterator();
        while (scopes != null && scopes.hasNext()) {
            PointerScope scope = scopes.next();
            if (accepts(scope, pointer)) {
                pointer.retainReference(); // detach releases the reference attach took
                scope.detach(pointer);
                break;
            }
        }
        return pointer;
    }

    private static boolean accepts(PointerScope scope, Pointer pointer) {
        Class<? extends Pointer>[] classes = scope.forClasses();
        if (classes == null || classes.length == 0) {
            return true;
        }
        for (Class<? extends Pointer> c : classes) {
            if (c != null && c.isInstance(pointer)) {
                return true;
            }
        }
        return false;
    }
}
