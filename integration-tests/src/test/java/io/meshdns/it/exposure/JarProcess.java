package io.meshdns.it.exposure;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;

/** A packaged service ({@code <module>/target/quarkus-app/quarkus-run.jar}) run as a real process; output kept for failures. */
final class JarProcess implements AutoCloseable {
    private final String module;
    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private JarProcess(String module, Process process) {
        this.module = module;
        this.process = process;
        Thread pump = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // process ended
            }
        }, module + "-output");
        pump.setDaemon(true);
        pump.start();
    }

    static JarProcess start(String module, Map<String, String> properties) throws IOException {
        Path root = Path.of(System.getProperty("meshdns.root", "..")).toAbsolutePath();
        Path jar = root.resolve(module).resolve("target/quarkus-app/quarkus-run.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " is missing: package " + module + " first");
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        properties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.add("-jar");
        cmd.add(jar.toString());
        return new JarProcess(module, new ProcessBuilder(cmd).redirectErrorStream(true).start());
    }

    /** Waits for a log line matching {@code regex} and returns its first group. */
    String awaitLog(String regex, Duration timeout) {
        Pattern p = Pattern.compile(regex);
        String[] found = new String[1];
        await().atMost(timeout).pollInterval(Duration.ofMillis(100)).until(() -> {
            if (!process.isAlive()) {
                throw new IllegalStateException(module + " exited " + process.exitValue() + ":\n" + output());
            }
            for (String line : lines) {
                Matcher m = p.matcher(line);
                if (m.find()) {
                    found[0] = m.groupCount() > 0 ? m.group(1) : line;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    String output() {
        return String.join("\n", lines);
    }

    /** SIGKILL: no shutdown hook runs, so whatever survives was on disk already. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(20, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
