package io.meshdns.it.operator;

import io.meshdns.testsupport.dns.LoopbackPorts;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The runnable examples do what their READMEs show: each example's script is started as a user starts it, and
 * every {@code $ command} of the README's {@code console} blocks is run with the example's default ports
 * replaced by free ones; its output must be exactly the lines the README shows under it.
 */
class ExamplesTest {
    @TempDir
    Path state;

    @Test
    void slimeLazyload() throws Exception {
        int dns = LoopbackPorts.pick();
        runExample("examples/slime-lazyload", Map.of(
                "MESHDNS_PORT", String.valueOf(dns),
                "MESHDNS_HTTP_PORT", String.valueOf(LoopbackPorts.pick()),
                "MESHDNS_DISCOVERY_PORT", String.valueOf(LoopbackPorts.pick())),
                Map.of("-p 5354 ", "-p " + dns + " "), "lazyload example: ready");
    }

    @Test
    void nsmInterdomain() throws Exception {
        int dns1 = LoopbackPorts.pick();
        int dns2 = LoopbackPorts.pick();
        int http = freeRange(4);
        runExample("examples/nsm-interdomain", Map.of(
                "MESHDNS_DNS1_PORT", String.valueOf(dns1),
                "MESHDNS_DNS2_PORT", String.valueOf(dns2),
                "MESHDNS_HTTP_BASE", String.valueOf(http)),
                Map.of("-p 5355 ", "-p " + dns1 + " ", "-p 5356 ", "-p " + dns2 + " ", "server 127.0.0.1 5355", "server 127.0.0.1 " + dns1),
                "nsm example: ready");
    }

    /** The first of {@code n} consecutive free TCP ports (the NSM script numbers its four HTTP ports from one base). */
    private static int freeRange(int n) throws java.io.IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = LoopbackPorts.pick();
            boolean free = true;
            for (int i = 1; i < n && free; i++) {
                try (java.net.ServerSocket s = new java.net.ServerSocket(base + i, 1, java.net.InetAddress.getLoopbackAddress())) {
                    free = s.getLocalPort() == base + i;
                } catch (java.io.IOException e) {
                    free = false;
                }
            }
            if (free) return base;
        }
        throw new java.io.IOException("no " + n + " consecutive free ports");
    }

    /** Starts {@code <dir>/run}, waits for {@code ready}, checks the README's commands, stops the script. */
    private void runExample(String dir, Map<String, String> env, Map<String, String> rewrite, String ready) throws Exception {
        Path root = QuarkusJarProcess.repositoryRoot();
        List<Check> checks = checks(Files.readString(root.resolve(dir).resolve("README.md")));
        assertTrue(checks.size() >= 5, "the README's commands: " + checks);
        ProcessBuilder pb = new ProcessBuilder(root.resolve(dir).resolve("run").toString()).directory(root.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        pb.environment().put("MESHDNS_EXAMPLE_STATE", state.toString());
        Process script = pb.start();
        StringBuilder output = new StringBuilder();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(script.getInputStream(), StandardCharsets.UTF_8));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            boolean started = false;
            String line;
            while (System.nanoTime() < deadline && (line = out.readLine()) != null) {
                output.append(line).append('\n');
                if (line.startsWith(ready)) {
                    started = true;
                    break;
                }
            }
            assertTrue(started, dir + "/run did not get ready:\n" + output);
            Thread drain = new Thread(() -> out.lines().forEach(l -> output.append(l).append('\n')));
            drain.setDaemon(true);
            drain.start();
            for (Check c : checks) {
                String command = c.command;
                for (Map.Entry<String, String> r : rewrite.entrySet()) command = command.replace(r.getKey(), r.getValue());
                assertEquals(c.expected, shell(command, root), "README: $ " + c.command + "\n(ran: " + command + ")");
            }
        } finally {
            script.destroy(); // SIGTERM: the script's trap stops the services it started
            if (!script.waitFor(30, TimeUnit.SECONDS)) script.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static String shell(String command, Path root) throws Exception {
        Process p = new ProcessBuilder("bash", "-c", command).directory(root.toFile()).redirectErrorStream(true).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("timed out: " + command);
        }
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    }

    record Check(String command, String expected) {
    }

    /** Every {@code $ command} in a {@code console} block, with the lines up to the next command as its output. */
    static List<Check> checks(String readme) {
        List<Check> checks = new ArrayList<>();
        boolean inConsole = false;
        String command = null;
        StringBuilder expected = new StringBuilder();
        for (String line : readme.split("\n")) {
            if (line.startsWith("```")) {
                if (inConsole && command != null) checks.add(new Check(command, expected.toString().strip()));
                command = null;
                expected.setLength(0);
                inConsole = !inConsole && line.equals("```console");
                continue;
            }
            if (!inConsole) continue;
            if (line.startsWith("$ ")) {
                if (command != null) checks.add(new Check(command, expected.toString().strip()));
                command = line.substring(2);
                expected.setLength(0);
            } else {
                expected.append(line).append('\n');
            }
        }
        return checks;
    }
}
