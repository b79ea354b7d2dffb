package io.meshdns.model.startup;

import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What every service's main does around the framework's start: {@code --help} prints the main keys and
 * exits 0 without starting anything; a start that fails on a configuration value prints
 * {@link ConfigProblem#line()} as the first line on standard error (no stack trace unless
 * {@code MESHDNS_STACK_TRACE=1} or {@code -Dmeshdns.stack-trace=true}) and exits with
 * {@link #EXIT_INVALID_CONFIGURATION}; any other failure prints {@link StartFailure#line()} (the framework,
 * handed an exit handler, reports nothing itself) and exits with the framework's code.
 */
public final class ServiceStart {
    /** Like a usage error: nothing was started, the operator must change a value. */
    public static final int EXIT_INVALID_CONFIGURATION = 2;

    private ServiceStart() {
    }

    /**
     * @param help       the {@code --help} text, read only when {@code --help} is asked (a normal start reads no
     *                   resource for it, so a native image that lacked the file would still start)
     * @param valueOf    a key's raw value, for validators' messages that do not repeat it
     * @param start      starts the framework with the exit handler it is given and returns when it exits
     * @param frameworkExit the framework's own exit handler (it calls {@code System.exit})
     */
    public static void main(String[] args, java.util.function.Supplier<String> help, Function<String, Optional<String>> valueOf,
                            Consumer<BiConsumer<Integer, Throwable>> start, BiConsumer<Integer, Throwable> frameworkExit) {
        if (ServiceHelp.requested(args)) {
            System.out.print(help.get());
            System.out.flush();
            return;
        }
        StartupConsole.hold();
        start.accept((code, failure) -> {
            if (failure == null) {
                StartupConsole.release();
                frameworkExit.accept(code, null);
                return;
            }
            List<ConfigProblem> problems = ConfigProblem.findAll(failure, valueOf);
            if (problems.isEmpty()) {
                // Given an exit handler, the framework logs nothing of the failure itself: without this line the
                // process would exit 1 in silence.
                StartupConsole.release();
                PrintStream err = StartupConsole.err();
                err.println(StartFailure.of(failure).line());
                stackTraceOrHint(failure, err, "the start was abandoned");
                frameworkExit.accept(code, failure);
                return;
            }
            StartupConsole.discard();
            PrintStream err = StartupConsole.err();
            for (ConfigProblem p : problems) {
                err.println(p.line());
            }
            stackTraceOrHint(failure, err, "nothing was started");
            frameworkExit.accept(EXIT_INVALID_CONFIGURATION, null);
        });
    }

    /** Below the failure's lines: its stack trace where one was asked for, else what happened and how to ask. */
    private static void stackTraceOrHint(Throwable failure, PrintStream err, String outcome) {
        if (StartupConsole.stackTraceRequested()) {
            failure.printStackTrace(err);
        } else {
            err.println("meshdns: " + outcome + " (MESHDNS_STACK_TRACE=1 shows the stack trace)");
        }
        err.flush();
    }

    /** A key's raw value from the command line or environment first, then {@code configFiles}. */
    public static Function<String, Optional<String>> valueLookup(Function<String, Optional<String>> configFiles) {
        return key -> {
            Optional<String> direct = ConfigProblem.fromCommandLineOrEnvironment(key);
            if (direct.isPresent()) {
                return direct;
            }
            try {
                return configFiles.apply(key);
            } catch (RuntimeException | LinkageError e) {
                return Optional.empty();
            }
        };
    }

    /** Whether a log record of a failed start may be shown: not when it only repeats a configuration problem. */
    public static boolean showStartFailure(String message, Throwable thrown) {
        if (thrown == null || message == null || !message.startsWith("Failed to start") || StartupConsole.stackTraceRequested()) {
            return true;
        }
        return ConfigProblem.findAll(thrown, k -> Optional.empty()).isEmpty();
    }
}
