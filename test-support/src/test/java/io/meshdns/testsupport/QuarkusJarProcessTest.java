package io.meshdns.testsupport;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The launcher against a real child JVM: a small runnable jar, compiled here, that behaves as -Dmode says. */
class QuarkusJarProcessTest {
    private static final Duration LONG = Duration.ofSeconds(60);

    @TempDir
    static Path tmp;
    static Path jar;

    @BeforeAll
    static void buildJar() throws IOException {
        Path src = Files.createDirectories(tmp.resolve("src")).resolve("Fake.java");
        Files.writeString(src, """
                public class Fake {
                    public static void main(String[] args) throws Exception {
                        switch (System.getProperty("mode")) {
                            case "listen" -> {
                                System.out.println("starting in " + System.getProperty("user.dir") + " with " + System.getenv("FAKE_GREETING"));
                                System.out.println("dns-service listening on 127.0.0.1 port " + System.getProperty("port"));
                                System.out.flush();
                                Thread.sleep(Long.MAX_VALUE);
                            }
                            case "fail" -> {
                                System.err.println("meshdns.dns.port: 70000 is not a port");
                                System.exit(3);
                            }
                            case "stubborn" -> {
                                // SIGTERM runs the shutdown hooks; this one never finishes, so only SIGKILL ends the JVM.
                                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                                    try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) { }
                                }));
                                System.out.println("up");
                                System.out.flush();
                                Thread.sleep(Long.MAX_VALUE);
                            }
                            default -> throw new IllegalArgumentException(System.getProperty("mode"));
                        }
                    }
                }
                """);
        Path classes = Files.createDirectories(tmp.resolve("classes"));
        assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(), src.toString()));
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "Fake");
        jar = tmp.resolve("fake.jar");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, manifest)) {
            j.putNextEntry(new JarEntry("Fake.class"));
            j.write(Files.readAllBytes(classes.resolve("Fake.class")));
            j.closeEntry();
        }
    }

    @Test
    void thePortComesFromTheLogLineAndPropertiesEnvironmentAndLogFileApply() throws Exception {
        Path log = tmp.resolve("listen.log");
        QuarkusJarProcess.Launch launch = QuarkusJarProcess.jar("fake", jar)
                .property("port", "1").properties("mode=listen", "port=4242")
                .env("FAKE_GREETING", "hello").logFile(log);
        try (QuarkusJarProcess p = launch.start()) {
            assertEquals(4242, p.awaitPort(LogLines.DNS_SERVICE_PORT, LONG), "the later value of a key wins");
            assertEquals(4242, p.awaitPort(LogLines.DNS_SERVICE_PORT, Duration.ZERO), "the same line again, at once");
            String first = p.awaitLine(Pattern.compile("^starting in .*"), LONG);
            assertTrue(first.contains(QuarkusJarProcess.repositoryRoot().toString()), "runs in the repository root: " + first);
            assertTrue(first.endsWith("with hello"), first);
            assertTrue(p.isAlive());
        }
        String logged = Files.readString(log);
        assertTrue(logged.startsWith("---- start ") && logged.contains("-Dport=4242") && logged.contains("port 4242"), logged);
    }

    @Test
    void aProcessThatExitsBeforeTheLineFailsTheWaitAtOnceWithItsOutput() throws Exception {
        try (QuarkusJarProcess p = QuarkusJarProcess.jar("fake", jar).property("mode", "fail").start()) {
            long t = System.nanoTime();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> p.awaitPort(LogLines.DNS_SERVICE_PORT, LONG));
            assertTrue(System.nanoTime() - t < LONG.toNanos() / 2, "did not wait for the timeout");
            assertTrue(e.getMessage().contains("exit 3") && e.getMessage().contains("meshdns.dns.port: 70000"), e.getMessage());
            assertEquals(3, p.awaitExit(LONG));
            assertTrue(p.output().contains("meshdns.dns.port: 70000 is not a port"), "stderr is in the output: " + p.output());
        }
    }

    @Test
    void aLineThatNeverComesFailsAfterTheTimeout() throws Exception {
        try (QuarkusJarProcess p = QuarkusJarProcess.jar("fake", jar).properties("mode=listen", "port=1").start()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> p.awaitLine(Pattern.compile("never"), Duration.ofMillis(300)));
            assertTrue(e.getMessage().contains("within PT0.3S"), e.getMessage());
        }
    }

    @Test
    void closeKillsAProcessThatIgnoresSigtermAfterTheGrace() throws Exception {
        QuarkusJarProcess p = QuarkusJarProcess.jar("fake", jar).property("mode", "stubborn").stopGrace(Duration.ofSeconds(1)).start();
        p.awaitLine(Pattern.compile("^up$"), LONG);
        long t = System.nanoTime();
        p.close();
        assertFalse(p.isAlive());
        assertTrue(System.nanoTime() - t >= Duration.ofSeconds(1).toNanos(), "SIGTERM got its grace first");
    }

    @Test
    void awaitExitKillsAProcessThatDoesNotExitAndSaysSo() throws Exception {
        QuarkusJarProcess p = QuarkusJarProcess.jar("fake", jar).properties("mode=listen", "port=1").stopGrace(Duration.ofSeconds(1)).start();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> p.awaitExit(Duration.ofMillis(200)));
        assertTrue(e.getMessage().contains("did not exit"), e.getMessage());
        assertFalse(p.isAlive());
    }

    @Test
    void aMissingJarFailsSayingHowToBuildIt() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> QuarkusJarProcess.module("no-such-module").start());
        assertTrue(e.getMessage().contains("mvn -B -pl no-such-module -am package"), e.getMessage());
    }
}
