package io.meshdns.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A packaged Quarkus app ({@code <module>/target/quarkus-app/quarkus-run.jar}, or any runnable jar) as a child
 * process of the test JVM: started in the repository root with JVM options and {@code -Dkey=value} properties, its
 * stdout and stderr kept line by line (and appended to a log file if asked), so a test can wait for a log line
 * (a port the process picked itself, {@code port=0}: nothing is guessed free and then raced for) or for the exit.
 * A JVM shutdown hook kills it if the test JVM ends before {@link #close()}.
 */
public final class QuarkusJarProcess implements AutoCloseable {
    /** Options for a quick start of a short-lived service on a small machine (C1 only, CDS, serial GC, small heap). */
    public static final List<String> FAST_START_JVM = List.of("-XX:TieredStopAtLevel=1", "-Xshare:auto", "-XX:+UseSerialGC", "-Xmx192m");

    private final String name;
    private final Process process;
    private final Duration stopGrace;
    private final List<String> lines = new ArrayList<>();
    private boolean outputEnded;
    private final Thread reader;
    private final Thread killer = new Thread(this::stopNow);

    private QuarkusJarProcess(String name, Process process, Duration stopGrace, Writer log) {
        this.name = name;
        this.process = process;
        this.stopGrace = stopGrace;
        reader = new Thread(() -> pump(log), name + "-output");
        reader.setDaemon(true);
        reader.start();
        Runtime.getRuntime().addShutdownHook(killer);
    }

    /** The repository root: system property {@code meshdns.root} (the poms set it), else the parent of the working directory. */
    public static Path repositoryRoot() {
        return Path.of(System.getProperty("meshdns.root", "..")).toAbsolutePath().normalize();
    }

    /**
     * A launch of {@code <root>/<module>/target/quarkus-app/quarkus-run.jar}; the name is the module's. With the
     * system property {@code meshdns.native=true} (the {@code native} profile sets it) it launches the module's native
     * executable ({@code target/*-runner}) instead, so the same tests run against the executables.
     */
    public static Launch module(String module) {
        Path target = repositoryRoot().resolve(module).resolve("target");
        if (Boolean.getBoolean("meshdns.native")) {
            return new Launch(module, nativeRunner(target), "mvn -B -Pnative -pl " + module + " -am package -DskipTests (needs GraalVM or Mandrel)");
        }
        return new Launch(module, target.resolve("quarkus-app/quarkus-run.jar"), "mvn -B -pl " + module + " -am package -DskipTests");
    }

    /** The native executable Quarkus writes into {@code target} ({@code <artifact>-<version>-runner}); a missing one as the path it would have. */
    static Path nativeRunner(Path target) {
        try (var files = Files.list(target)) {
            return files.filter(p -> p.getFileName().toString().endsWith("-runner") && Files.isExecutable(p)).findFirst()
                    .orElse(target.resolve("<artifact>-runner"));
        } catch (IOException e) {
            return target.resolve("<artifact>-runner");
        }
    }

    /** A launch of the given jar. */
    public static Launch jar(String name, Path jar) {
        return new Launch(name, jar, "package it first");
    }

    /** What to start; {@link #start()} may be called again for another process with the same settings. */
    public static final class Launch {
        private final String name;
        private final Path jar;
        private final String howToBuild;
        private final List<String> jvmOptions = new ArrayList<>();
        private final List<String> commandPrefix = new ArrayList<>();
        private final Map<String, String> properties = new LinkedHashMap<>();
        private final Map<String, String> env = new LinkedHashMap<>();
        private Path logFile;
        private Duration stopGrace = Duration.ofSeconds(10);
        private Path javaHome = Path.of(System.getProperty("java.home"));

        private Launch(String name, Path jar, String howToBuild) {
            this.name = name;
            this.jar = jar;
            this.howToBuild = howToBuild;
        }

        public Launch jvmOptions(List<String> options) {
            jvmOptions.addAll(options);
            return this;
        }

        public Launch jvmOptions(String... options) {
            return jvmOptions(List.of(options));
        }

        /**
         * Words put before {@code java} that exec it (so {@link QuarkusJarProcess#pid()} is still the JVM's):
         * {@code ip netns exec <name>} runs the service in a network namespace.
         */
        public Launch commandPrefix(String... words) {
            commandPrefix.addAll(List.of(words));
            return this;
        }

        /** A {@code -Dkey=value}; a later value for the same key replaces the earlier one. */
        public Launch property(String key, String value) {
            properties.put(key, value);
            return this;
        }

        public Launch properties(Map<String, String> keyValues) {
            keyValues.forEach(this::property);
            return this;
        }

        /** Properties written {@code key=value}, as on a command line after {@code -D}. */
        public Launch properties(List<String> keyEqualsValue) {
            for (String p : keyEqualsValue) {
                int eq = p.indexOf('=');
                if (eq < 0) property(p, "");
                else property(p.substring(0, eq), p.substring(eq + 1));
            }
            return this;
        }

        public Launch properties(String... keyEqualsValue) {
            return properties(List.of(keyEqualsValue));
        }

        public Launch env(String key, String value) {
            env.put(key, value);
            return this;
        }

        /** Run the jar on another JDK (default: the test's own {@code java.home}). */
        public Launch javaHome(Path home) {
            javaHome = home;
            return this;
        }

        /** Also append the command line and every output line to this file (kept across restarts). */
        public Launch logFile(Path file) {
            logFile = file;
            return this;
        }

        /** How long {@link QuarkusJarProcess#close()} waits after SIGTERM before SIGKILL (default 10 s). */
        public Launch stopGrace(Duration grace) {
            stopGrace = grace;
            return this;
        }

        public String name() {
            return name;
        }

        /** Forks the JVM in the repository root; fails at once, saying how to build it, if the jar is missing. */
        public QuarkusJarProcess start() throws IOException {
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException(jar + " is missing: " + howToBuild);
            }
            List<String> cmd = new ArrayList<>(commandPrefix);
            if (jar.getFileName().toString().endsWith("-runner")) {
                // A native executable: no JVM and no JVM flags; it takes -Dkey=value like the jar.
                cmd.add(jar.toString());
                properties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
            } else {
                cmd.add(javaHome.resolve("bin").resolve("java").toString());
                cmd.addAll(jvmOptions);
                properties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
                cmd.add("-jar");
                cmd.add(jar.toString());
            }
            Writer log = null;
            if (logFile != null) {
                log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                log.write("---- start " + String.join(" ", cmd) + "\n");
                log.flush();
            }
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(repositoryRoot().toFile()).redirectErrorStream(true);
            pb.environment().putAll(env);
            try {
                return new QuarkusJarProcess(name, pb.start(), stopGrace, log);
            } catch (IOException e) {
                if (log != null) log.close();
                throw e;
            }
        }
    }

    private void pump(Writer log) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
                if (log != null) {
                    log.write(line);
                    log.write('\n');
                    log.flush();
                }
            }
        } catch (IOException ignored) {
            // the process ended (or the log file went away: the lines in memory are still kept up to then)
        } finally {
            if (log != null) {
                try {
                    log.close();
                } catch (IOException ignored) {
                    // nothing more to write
                }
            }
            synchronized (lines) {
                outputEnded = true;
                lines.notifyAll();
            }
        }
    }

    /**
     * Waits for the first output line (from the start, so asking twice gives the same line) in which {@code pattern}
     * is found, and returns its first group, or the whole line if the pattern has none. Fails with the output so
     * far if the process ends first or nothing matches within {@code timeout}.
     */
    public String awaitLine(Pattern pattern, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int scanned = 0;
        synchronized (lines) {
            while (true) {
                for (; scanned < lines.size(); scanned++) {
                    Matcher m = pattern.matcher(lines.get(scanned));
                    if (m.find()) return m.groupCount() > 0 ? m.group(1) : lines.get(scanned);
                }
                if (outputEnded) {
                    throw new IllegalStateException(name + " ended (" + exitDescription() + ") before printing /" + pattern + "/:\n" + output());
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException(name + " printed no /" + pattern + "/ within " + timeout + ":\n" + output());
                }
                TimeUnit.NANOSECONDS.timedWait(lines, left);
            }
        }
    }

    /** {@link #awaitLine} for a pattern whose first group is a port number. */
    public int awaitPort(Pattern pattern, Duration timeout) throws InterruptedException {
        return Integer.parseInt(awaitLine(pattern, timeout));
    }

    /**
     * Waits for the process to exit on its own and returns its exit code, once all it printed is in
     * {@link #output()}; kills it and fails with its output if it is still running after {@code timeout}.
     */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            close();
            throw new IllegalStateException(name + " did not exit within " + timeout + ":\n" + output());
        }
        reader.join(5_000);
        return process.exitValue();
    }

    /** Everything it printed so far, stdout and stderr interleaved. */
    public String output() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    public String name() {
        return name;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /** SIGKILL, no grace: no shutdown hook of the service runs, so whatever survives was on disk already. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        forgetShutdownHook();
    }

    /**
     * SIGTERM only, returning at once; what the process prints while it stops is still read (Process.destroy,
     * which {@link #close()} uses, also closes the pipes, so a service's shutdown logging is lost there).
     * Follow with {@link #awaitExit}.
     */
    public void terminate() {
        process.toHandle().destroy();
    }

    /** SIGTERM, then SIGKILL after the stop grace; returns once the process is gone. */
    @Override
    public void close() {
        stopNow();
        forgetShutdownHook();
    }

    private void stopNow() {
        process.destroy();
        try {
            if (!process.waitFor(stopGrace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private void forgetShutdownHook() {
        try {
            Runtime.getRuntime().removeShutdownHook(killer);
        } catch (IllegalStateException ignored) {
            // the JVM is already shutting down; the hook runs anyway
        }
    }

    private String exitDescription() throws InterruptedException {
        process.waitFor(1, TimeUnit.SECONDS); // the output closes a moment before the exit is reaped
        return process.isAlive() ? "output closed, still running" : "exit " + process.exitValue();
    }
}
