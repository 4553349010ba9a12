package io.pinshard.jmh.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.pinshard.format.Json;
import io.pinshard.jmh.ImagesPerOp;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Turns JMH's JSON results into the Markdown table the README quotes: score, images/s (from
 * {@link ImagesPerOp}), heap bytes per operation and per image ({@code gc.alloc.rate.norm} from
 * {@code -prof gc}) and the speed-up over the seed's "before" (the naive full-size loader).
 * Usage: {@code ResultsTable RESULTS.json OUT.md MODE COMMAND [INPUTS_DESCRIPTION_FILE]}.
 */
public final class ResultsTable {
    static final String BEFORE_BENCHMARK = "NaiveLoaderBenchmark.loadOneSample";
    static final String BEFORE_PARAM = "input=full-size-jpeg";

    /** One benchmark result, reduced to what the table shows. */
    record Row(String benchmark, String params, double score, double error, String unit, double imagesPerOp,
               boolean loaderComparable, double allocNormBytes) {
        /** Images per second, or NaN when the benchmark does not handle images. */
        double imagesPerSecond() {
            if (!(imagesPerOp > 0)) {
                return Double.NaN;
            }
            return opsPerSecond(score, unit) * imagesPerOp;
        }

        String shortName() {
            String[] parts = benchmark.split("\\.");
            return parts[parts.length - 2] + "." + parts[parts.length - 1];
        }
    }

    private ResultsTable() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 4) {
            System.err.println("usage: ResultsTable RESULTS.json OUT.md MODE COMMAND [INPUTS_DESCRIPTION_FILE]");
            System.exit(2);
        }
        List<Row> rows = read(Path.of(args[0]));
        String inputs = args.length > 4 && Files.exists(Path.of(args[4])) ? Files.readString(Path.of(args[4])).trim() : "";
        String markdown = render(rows, args[2], args[3], inputs, machine(Path.of(args[0])));
        Files.writeString(Path.of(args[1]), markdown);
        System.out.print(markdown);
    }

    static List<Row> read(Path json) throws IOException {
        JsonNode root = Json.MAPPER.readTree(json.toFile());
        List<Row> rows = new ArrayList<>();
        for (JsonNode result : root) {
            String benchmark = result.path("benchmark").asText();
            StringJoiner params = new StringJoiner(" ");
            JsonNode paramNode = result.path("params");
            for (Iterator<Map.Entry<String, JsonNode>> it = paramNode.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> p = it.next();
                params.add(p.getKey() + "=" + p.getValue().asText());
            }
            JsonNode primary = result.path("primaryMetric");
            JsonNode alloc = result.path("secondaryMetrics").path("gc.alloc.rate.norm");
            rows.add(new Row(benchmark, params.toString(), primary.path("score").asDouble(),
                primary.path("scoreError").asDouble(Double.NaN), primary.path("scoreUnit").asText(),
                imagesPerOp(benchmark, paramNode), annotation(benchmark) == null || annotation(benchmark).loaderComparable(),
                alloc.isMissingNode() ? Double.NaN : alloc.path("score").asDouble()));
        }
        return rows;
    }

    /** From the benchmark method's {@link ImagesPerOp}; 0 when it has none or its class is not on the class path. */
    static double imagesPerOp(String benchmark, JsonNode params) {
        ImagesPerOp annotation = annotation(benchmark);
        if (annotation == null) {
            return 0;
        }
        return annotation.param().isEmpty() ? annotation.value() : params.path(annotation.param()).asDouble();
    }

    static ImagesPerOp annotation(String benchmark) {
        int dot = benchmark.lastIndexOf('.');
        try {
            for (Method method : Class.forName(benchmark.substring(0, dot)).getMethods()) {
                if (method.getName().equals(benchmark.substring(dot + 1)) && method.isAnnotationPresent(ImagesPerOp.class)) {
                    return method.getAnnotation(ImagesPerOp.class);
                }
            }
        } catch (ClassNotFoundException e) {
            return null;
        }
        return null;
    }

    static double opsPerSecond(double score, String unit) {
        return switch (unit) {
            case "ops/s" -> score;
            case "ops/ms" -> score * 1e3;
            case "ops/us" -> score * 1e6;
            case "s/op" -> 1 / score;
            case "ms/op" -> 1e3 / score;
            case "us/op" -> 1e6 / score;
            case "ns/op" -> 1e9 / score;
            default -> Double.NaN;
        };
    }

    static String render(List<Row> rows, String mode, String command, String inputs, String machine) {
        double before = rows.stream()
            .filter(r -> r.shortName().equals(BEFORE_BENCHMARK) && List.of(r.params().split(" ")).contains(BEFORE_PARAM))
            .mapToDouble(Row::imagesPerSecond).findFirst().orElse(Double.NaN);
        StringBuilder md = new StringBuilder();
        md.append("# pinshard benchmarks (").append(mode).append(")\n\n");
        md.append("- Generated: ").append(Instant.now()).append('\n');
        md.append("- Command: `").append(command).append("`\n");
        md.append("- Machine: ").append(machine).append('\n');
        if (!inputs.isEmpty()) {
            md.append("- Inputs: ").append(inputs).append('\n');
        }
        md.append("- Heap columns are JMH `-prof gc` `gc.alloc.rate.norm`: bytes allocated on the JVM heap per ")
            .append("operation (an operation is one image, one batch, one open or one record access) and per image.\n");
        md.append("- \"x before\" divides images/s by the seed's \"before\" (naive loader on full-size JPEGs, one thread).\n\n");
        md.append("| Benchmark | Parameters | Score | Unit | Images/s | x before | Heap B/op | Heap B/image |\n");
        md.append("|---|---|---:|---|---:|---:|---:|---:|\n");
        for (Row row : rows) {
            double images = row.imagesPerSecond();
            md.append("| ").append(row.shortName())
                .append(" | ").append(row.params())
                .append(" | ").append(number(row.score())).append(Double.isNaN(row.error()) ? "" : " ± " + number(row.error()))
                .append(" | ").append(row.unit())
                .append(" | ").append(Double.isNaN(images) ? "-" : number(images))
                .append(" | ").append(Double.isNaN(images) || Double.isNaN(before) || !row.loaderComparable() ? "-"
                    : String.format(Locale.ROOT, images / before >= 100 ? "%,.0fx" : "%.1fx", images / before))
                .append(" | ").append(Double.isNaN(row.allocNormBytes()) ? "-" : number(row.allocNormBytes()))
                .append(" | ").append(Double.isNaN(images) || Double.isNaN(row.allocNormBytes()) ? "-"
                    : number(row.allocNormBytes() / row.imagesPerOp()))
                .append(" |\n");
        }
        return md.toString();
    }

    static String number(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "-";
        }
        double abs = Math.abs(value);
        if (abs >= 100) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (abs >= 1) {
            return String.format(Locale.ROOT, "%.2f", value);
        }
        return abs < 0.001 ? "≈0" : String.format(Locale.ROOT, "%.3f", value);
    }

    /** CPU model, cores, memory, OS and the benchmark JVM. */
    static String machine(Path json) throws IOException {
        String cpu = "unknown CPU";
        Path cpuinfo = Path.of("/proc/cpuinfo");
        if (Files.isReadable(cpuinfo)) {
            cpu = Files.readAllLines(cpuinfo).stream().filter(l -> l.startsWith("model name"))
                .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse(cpu);
        }
        String memory = "";
        Path meminfo = Path.of("/proc/meminfo");
        if (Files.isReadable(meminfo)) {
            memory = Files.readAllLines(meminfo).stream().filter(l -> l.startsWith("MemTotal"))
                .map(l -> String.format(Locale.ROOT, ", %.0f GiB RAM",
                    Long.parseLong(l.replaceAll("\\D", "")) / 1024.0 / 1024.0)).findFirst().orElse("");
        }
        JsonNode first = Json.MAPPER.readTree(json.toFile()).path(0);
        return cpu + ", " + Runtime.getRuntime().availableProcessors() + " cores available" + memory + ", "
            + System.getProperty("os.name") + " " + System.getProperty("os.version") + ", JDK "
            + first.path("jdkVersion").asText("?") + " (" + first.path("vmName").asText("?") + "), JMH "
            + first.path("jmhVersion").asText("?");
    }
}
