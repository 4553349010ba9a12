package io.pinshard.torch;

/** Child-JVM main for {@link LibtorchTest}: prints the probe's verdict and what {@link TorchLoader#of} says. */
public final class LibtorchProbe {
    private LibtorchProbe() {
    }

    public static void main(String[] args) {
        System.out.println("status: " + Libtorch.status().describe());
        try {
            TorchLoader.of(null);
            System.out.println("of: accepted");
        } catch (IllegalStateException e) {
            System.out.println("of: " + e.getMessage());
        }
    }
}
