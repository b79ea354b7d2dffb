package io.meshdns.model.startup;

import java.util.ArrayList;
import java.util.List;

/**
 * A failed start that is not a configuration value (a tool that cannot run, a socket that cannot be
 * opened, a bug), told in the one line an operator sees: {@code meshdns: start failed: <what>: <why>}.
 * The framework wraps the real failure ("Failed to start quarkus", ExecutionException and the like);
 * {@link #line()} names the outermost failure that says more than its cause, and adds the root cause
 * when that message does not already say it.
 */
public record StartFailure(String what, String why) {

    public String line() {
        return "meshdns: start failed: " + what + ": " + why;
    }

    public static StartFailure of(Throwable failure) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = failure; t != null && !chain.contains(t); t = t.getCause()) {
            chain.add(t);
        }
        Throwable root = chain.get(chain.size() - 1);
        Throwable named = null;
        for (Throwable t : chain) {
            if (!isWrapper(t)) {
                named = t;
                break;
            }
        }
        if (named == null) {
            named = root;
        }
        String why = firstLine(named.getMessage());
        if (why == null) {
            // No message at all (a NullPointerException without helpful text): where it was thrown is the cause.
            StackTraceElement[] at = named.getStackTrace();
            why = at.length == 0 ? "(no message)" : "at " + at[0];
        }
        String rootWhy = firstLine(root.getMessage());
        if (root != named && rootWhy != null && !why.contains(rootWhy)) {
            why = why + " (" + root.getClass().getSimpleName() + ": " + rootWhy + ")";
        }
        return new StartFailure(named.getClass().getSimpleName(), why);
    }

    /** Adds nothing to its cause: no message, the cause's own text, or the framework's "failed to start" wrapper. */
    private static boolean isWrapper(Throwable t) {
        Throwable cause = t.getCause();
        if (cause == null) {
            return false;
        }
        String message = t.getMessage();
        return message == null || message.isBlank() || message.equals(cause.toString()) || message.equals(cause.getMessage())
                || message.startsWith("Failed to start") || t instanceof java.lang.reflect.InvocationTargetException
                || t instanceof java.util.concurrent.ExecutionException || t instanceof java.util.concurrent.CompletionException;
    }

    private static String firstLine(String message) {
        if (message == null || message.isBlank()) {
            return null;
        }
        String[] lines = message.strip().split("\\R");
        String first = lines[0].strip();
        // "Configuration validation failed:" and the like announce what the next line says: keep that line too.
        if (first.endsWith(":") && lines.length > 1) {
            return first + " " + lines[1].strip();
        }
        return first;
    }
}
