package io.meshdns.model.startup;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One unusable configuration value, found in whatever a failed start threw: SmallRye's own conversion
 * and "required" errors ({@code SRCFG00039}, {@code SRCFG00014}) and our validators' messages, which
 * all begin with, or contain, the {@code meshdns.*} key. {@link #line()} is the one line an operator
 * sees first: {@code meshdns: invalid configuration: <key>=<value>: <why>}.
 */
public record ConfigProblem(String key, String value, String why) {
    /** SmallRye's conversion failure: key, raw value, then the converter's own message. */
    private static final Pattern CONVERSION = Pattern.compile(
            "(?:SRCFG\\d+: )?The config property (\\S+) with the config value \"(.*?)\" threw an Exception whilst being converted\\s*(.*)",
            Pattern.DOTALL);
    private static final Pattern REQUIRED = Pattern.compile(
            "(?:SRCFG\\d+: )?The config property (\\S+) is required but it could not be found in any config source");
    /**
     * SmallRye's verdict on a key under one of our mapped prefixes that no mapping declares (a typo, or a key
     * of another version): {@code SRCFG00050: meshdns.dns.bogus in SysPropConfigSource does not map to any root}.
     */
    private static final Pattern UNKNOWN = Pattern.compile(
            "(?:SRCFG\\d+: )?((?:meshdns|quarkus)\\.\\S+) in (.+?) does not map to any root");
    /** Our validators name the key first ({@code meshdns.dns.port: 'abc' is not a number}) or after a prefix. */
    private static final Pattern OWN = Pattern.compile("((?:meshdns|quarkus)\\.[a-z0-9][a-z0-9.\\-\"]*[a-z0-9\"])(?::\\s*|\\s+)(.*)", Pattern.DOTALL);
    private static final Pattern SRCFG_CODE = Pattern.compile("^SRCFG\\d+:\\s*");

    public String line() {
        return "meshdns: invalid configuration: " + key + "=" + value + ": " + why;
    }

    /**
     * Every configuration problem named in {@code failure} or its causes, first the outermost. {@code valueOf}
     * reads a key's raw value (our validators do not repeat it in every message); unset values show as {@code <unset>}.
     */
    public static List<ConfigProblem> findAll(Throwable failure, Function<String, Optional<String>> valueOf) {
        List<ConfigProblem> found = new ArrayList<>();
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String message = t.getMessage();
            if (message == null) {
                continue;
            }
            boolean validator = isValidatorFailure(t);
            // One problem a line: SmallRye lists its problems so, and so do our validators that find several. A
            // validator's own message is kept whole, semicolons included.
            for (String part : message.split("\\R")) {
                parse(part.strip(), validator, valueOf).ifPresent(p -> {
                    if (found.stream().noneMatch(f -> f.key.equals(p.key))) {
                        found.add(p);
                    }
                });
            }
            if (!found.isEmpty()) {
                return found;
            }
        }
        return found;
    }

    public static Optional<ConfigProblem> find(Throwable failure, Function<String, Optional<String>> valueOf) {
        List<ConfigProblem> all = findAll(failure, valueOf);
        return all.isEmpty() ? Optional.empty() : Optional.of(all.get(0));
    }

    /** Only a validator's exception is read for a key in free text: another failure may merely mention one. */
    private static boolean isValidatorFailure(Throwable t) {
        String name = t.getClass().getName();
        return t instanceof IllegalArgumentException || name.endsWith("ConfigException") || name.contains("Configuration");
    }

    static Optional<ConfigProblem> parse(String text, boolean validator, Function<String, Optional<String>> valueOf) {
        String s = text.replaceFirst("^[\\w.$]+(?:Exception|Error):\\s*", "");
        Matcher m = CONVERSION.matcher(s);
        if (m.find()) {
            return Optional.of(new ConfigProblem(m.group(1), m.group(2), clean(m.group(3))));
        }
        m = REQUIRED.matcher(s);
        if (m.find()) {
            return Optional.of(new ConfigProblem(m.group(1), "<unset>", "required, and not set"));
        }
        m = UNKNOWN.matcher(s);
        if (m.find()) {
            return Optional.of(new ConfigProblem(m.group(1), valueOf.apply(m.group(1)).orElse("<unset>"),
                    "no such setting (set in " + source(m.group(2)) + "): check its spelling against --help"));
        }
        m = OWN.matcher(s);
        if (validator && m.find()) {
            String key = m.group(1);
            String why = clean(m.group(2));
            if (why.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new ConfigProblem(key, valueOf.apply(key).orElse("<unset>"), why));
        }
        return Optional.empty();
    }

    /** SmallRye names a config source by its class and, for files, its URL: the operator needs only which one. */
    private static String source(String configSource) {
        String s = configSource.strip();
        if (s.startsWith("SysPropConfigSource")) {
            return "a system property";
        }
        if (s.startsWith("EnvConfigSource")) {
            return "the environment";
        }
        int file = s.indexOf("file:");
        if (file >= 0) {
            return s.substring(file + 5).replaceAll("[\\])].*$", "");
        }
        int jar = s.indexOf("jar:");
        return jar >= 0 ? "the application's built-in properties" : s;
    }

    private static String clean(String why) {
        String s = SRCFG_CODE.matcher(why.strip()).replaceFirst("");
        int newline = s.indexOf('\n');
        return (newline < 0 ? s : s.substring(0, newline)).strip();
    }

    /**
     * A key's value as the operator set it: a system property, then the environment variable Quarkus maps
     * it from ({@code meshdns.dns.port} → {@code MESHDNS_DNS_PORT}). Config files are read by the caller.
     */
    public static Optional<String> fromCommandLineOrEnvironment(String key) {
        String property = System.getProperty(key);
        if (property != null) {
            return Optional.of(property);
        }
        return Optional.ofNullable(System.getenv(key.toUpperCase(java.util.Locale.ROOT).replaceAll("[^A-Z0-9]", "_")));
    }
}
