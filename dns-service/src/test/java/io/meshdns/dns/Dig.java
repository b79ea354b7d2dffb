package io.meshdns.dns;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs Debian's {@code dig} against the server and parses the parts the tests assert. */
public final class Dig {
    private static final Pattern STATUS = Pattern.compile("status: ([A-Z]+)");
    private static final Pattern FLAGS = Pattern.compile(";; flags: ([a-z ]*);");

    public record Result(String status, List<String> flags, List<String> answer, List<String> authority,
                         List<String> additional, String raw) {
        public boolean hasFlag(String flag) {
            return flags.contains(flag);
        }

        /** The rdata column of every answer line ("registry.test.meshdns. 300 IN A 192.0.2.10" gives "192.0.2.10"). */
        public List<String> answerData() {
            return answer.stream().map(l -> l.split("\\s+", 5)[4]).toList();
        }
    }

    public static Result dig(String host, int port, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("dig", "@" + host, "-p", String.valueOf(port), "+tries=2", "+time=5"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("dig did not finish: " + cmd);
        }
        return parse(out);
    }

    static Result parse(String out) {
        Matcher s = STATUS.matcher(out);
        Matcher f = FLAGS.matcher(out);
        List<String> flags = f.find() ? List.of(f.group(1).trim().split("\\s+")) : List.of();
        return new Result(s.find() ? s.group(1) : "NO-RESPONSE", flags, section(out, "ANSWER"),
                section(out, "AUTHORITY"), section(out, "ADDITIONAL"), out);
    }

    private static List<String> section(String out, String name) {
        List<String> lines = new ArrayList<>();
        boolean in = false;
        for (String line : out.split("\n")) {
            if (line.startsWith(";; " + name + " SECTION:")) {
                in = true;
                continue;
            }
            if (in) {
                if (line.isBlank() || line.startsWith(";;")) {
                    break;
                }
                if (!line.startsWith(";")) {
                    lines.add(line.trim());
                }
            }
        }
        return lines;
    }

    private Dig() {
    }
}
