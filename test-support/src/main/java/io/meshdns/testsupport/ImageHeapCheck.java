package io.meshdns.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.InetAddress;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * What a native image would freeze into its heap, checked on a JVM.
 *
 * <p>Quarkus initialises classes at build time unless a class is listed for run-time initialisation, and
 * native-image then stores everything their static fields reach in the image. Two things break that (or
 * silently bake the build machine into the binary): a build-time class whose initialiser initialises a
 * run-time class, and a build-time static that reaches an instance of a run-time class or of a kind of
 * object that must never be frozen (random generators, addresses, threads, executors, sockets).
 *
 * <p>{@link #run} loads the given classes in a fresh class loader (nothing initialised yet), initialises each
 * one the way a build-time initialisation would, then asks the JVM which run-time classes got initialised as a
 * side effect and walks the object graph of every static field. The walk descends into application objects
 * field by field and into JDK collections, maps, optionals and arrays through their public API; other JDK
 * objects are only classified, not opened.
 */
public final class ImageHeapCheck {

    /** Kinds of objects that may never be in an image heap built on another machine. */
    public static final List<Class<?>> FORBIDDEN_TYPES = List.of(Random.class, SplittableRandom.class,
            InetAddress.class, java.net.InetSocketAddress.class, Thread.class, Executor.class,
            java.nio.channels.Channel.class, java.nio.channels.Selector.class, java.net.Socket.class,
            java.net.ServerSocket.class, java.net.DatagramSocket.class);

    private static final int MAX_OBJECTS = 2_000_000;

    /** What one run found. */
    public record Result(List<String> initialisedClasses, Map<String, String> failedToInitialise,
                         List<String> runtimeClassesInitialised, List<String> forbiddenObjects) {
        /** One line per finding, for an assertion message. */
        public String describe() {
            StringBuilder b = new StringBuilder();
            runtimeClassesInitialised.forEach(c -> b.append("\n  run-time class initialised at build time: ").append(c));
            forbiddenObjects.forEach(o -> b.append("\n  in the image heap: ").append(o));
            return b.toString();
        }
    }

    private ImageHeapCheck() {
    }

    /**
     * The entries of a class path string (a {@code java.class.path}-style list) as URLs, for {@link #run}.
     */
    public static URL[] classPath(String pathList) {
        List<URL> urls = new ArrayList<>();
        for (String entry : pathList.split(java.io.File.pathSeparator)) {
            if (entry.isBlank()) {
                continue;
            }
            try {
                urls.add(Path.of(entry).toUri().toURL());
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException(entry, e);
            }
        }
        return urls.toArray(URL[]::new);
    }

    /** Where dnsjava-native's build step lists what it classified, in every application that has it. */
    public static final String DNSJAVA_LISTING = "META-INF/meshdns/dnsjava-native-classification.txt";

    /**
     * The dnsjava classes the application's build marked for run-time initialisation, read from the listing
     * that dnsjava-native's build step wrote into it; fails if the listing is missing (the build step did not run).
     */
    public static Set<String> runtimeClassesListed(ClassLoader application) throws IOException {
        URL listing = application.getResource(DNSJAVA_LISTING);
        if (listing == null) {
            throw new AssertionError(DNSJAVA_LISTING + " is not in the application: dnsjava-native's build step did not run");
        }
        Set<String> classes = new TreeSet<>();
        try (var in = listing.openStream()) {
            for (String line : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).split("\n")) {
                if (line.startsWith("run-time ")) {
                    classes.add(line.split(" ")[1]);
                }
            }
        }
        return classes;
    }

    /** Binary names of the classes in a jar whose names start with {@code prefix}. */
    public static List<String> classesInJar(Path jar, String prefix) {
        try (java.util.jar.JarFile j = new java.util.jar.JarFile(jar.toFile())) {
            return j.stream().map(java.util.jar.JarEntry::getName)
                    .filter(n -> n.endsWith(".class") && !n.startsWith("META-INF/")
                            && !n.endsWith("module-info.class") && !n.endsWith("package-info.class"))
                    .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
                    .filter(n -> n.startsWith(prefix))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@link #run} over one module's own classes ({@code classesDir}, names starting with {@code prefix}) on the
     * test's class path (Surefire's {@code surefire.test.class.path}, else {@code java.class.path}).
     */
    public static Result runOnModule(Path classesDir, String prefix, Set<String> runtimeClasses) throws IOException {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return run(classPath(cp), classesUnder(classesDir, prefix), runtimeClasses, name -> false);
    }

    /** Binary names of the classes under a class-output directory whose names start with {@code prefix}. */
    public static List<String> classesUnder(Path classesDir, String prefix) {
        try (Stream<Path> files = Files.walk(classesDir)) {
            return files.filter(p -> p.toString().endsWith(".class"))
                    .map(p -> classesDir.relativize(p).toString().replace(java.io.File.separatorChar, '/'))
                    .filter(p -> !p.endsWith("module-info.class") && !p.endsWith("package-info.class"))
                    .map(p -> p.substring(0, p.length() - ".class".length()).replace('/', '.'))
                    .filter(n -> n.startsWith(prefix))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Initialises {@code buildTimeClasses} in a fresh loader over {@code classPath} (parent: the platform loader),
     * then checks that none of {@code runtimeClasses} was initialised and that no static field of an initialised
     * class reaches an instance of a run-time class or of {@link #FORBIDDEN_TYPES}.
     *
     * @param runtimeClasses binary names of the classes a native build initialises at run time
     * @param skip           classes not to initialise here (they fail without their framework, for instance); listed in
     *                       the result's failures with the reason "skipped"
     */
    public static Result run(URL[] classPath, Collection<String> buildTimeClasses, Set<String> runtimeClasses,
                             Predicate<String> skip) throws IOException {
        try (URLClassLoader loader = new URLClassLoader("image-heap-check", classPath, ClassLoader.getPlatformClassLoader())) {
            Method shouldBeInitialized = unsafeShouldBeInitialized();
            Object unsafe = theUnsafe();
            List<String> initialised = new ArrayList<>();
            Map<String, String> failed = new LinkedHashMap<>();
            List<Class<?>> classes = new ArrayList<>();
            for (String name : buildTimeClasses) {
                if (runtimeClasses.contains(name)) {
                    continue;
                }
                if (skip.test(name)) {
                    failed.put(name, "skipped");
                    continue;
                }
                try {
                    classes.add(Class.forName(name, true, loader));
                    initialised.add(name);
                } catch (Throwable e) {
                    failed.put(name, e.toString());
                }
            }
            List<String> runtimeInitialised = new ArrayList<>();
            for (String name : new TreeSet<>(runtimeClasses)) {
                Class<?> c;
                try {
                    c = Class.forName(name, false, loader);
                } catch (Throwable e) {
                    continue; // not loadable here (a missing optional dependency): nothing initialised it either
                }
                try {
                    if (!(Boolean) shouldBeInitialized.invoke(unsafe, c)) {
                        runtimeInitialised.add(name);
                    }
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException("cannot ask the JVM whether " + name + " is initialised", e);
                }
            }
            List<String> forbidden = walkStatics(classes, runtimeClasses);
            return new Result(initialised, failed, runtimeInitialised, forbidden);
        }
    }

    private static List<String> walkStatics(List<Class<?>> classes, Set<String> runtimeClasses) {
        List<String> found = new ArrayList<>();
        IdentityHashMap<Object, Boolean> seen = new IdentityHashMap<>();
        // The process's standard streams: native-image replaces the build's System.in/out/err wherever they
        // are in the image heap with the running image's own (a static "System.err as it was" is fine), so they
        // are neither reported nor opened (here they are the test runner's streams).
        seen.put(System.out, Boolean.TRUE);
        seen.put(System.err, Boolean.TRUE);
        seen.put(System.in, Boolean.TRUE);
        for (Class<?> c : classes) {
            Field[] fields;
            try {
                fields = c.getDeclaredFields();
            } catch (Throwable e) {
                continue; // a field type missing from the class path: such a field cannot hold a value either
            }
            for (Field f : fields) {
                if (!Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) {
                    continue;
                }
                Object value;
                try {
                    f.setAccessible(true);
                    value = f.get(null);
                } catch (Throwable e) {
                    continue;
                }
                walk(value, c.getName() + "." + f.getName(), seen, runtimeClasses, found);
            }
        }
        if (seen.size() >= MAX_OBJECTS) {
            found.add("(the walk stopped after " + MAX_OBJECTS + " objects: the rest was not checked)");
        }
        return found;
    }

    /** One object on the way from a static field: its path is only spelled out when something is found. */
    private record Step(Object value, Step parent, String name) {
        String path() {
            Deque<String> names = new ArrayDeque<>();
            for (Step s = this; s != null; s = s.parent) {
                names.push(s.name);
            }
            return String.join("", names);
        }
    }

    private static void walk(Object root, String rootPath, IdentityHashMap<Object, Boolean> seen,
                             Set<String> runtimeClasses, List<String> found) {
        Deque<Step> work = new ArrayDeque<>();
        push(work, root, null, rootPath);
        while (!work.isEmpty() && seen.size() < MAX_OBJECTS) {
            Step step = work.pop();
            Object o = step.value();
            if (seen.put(o, Boolean.TRUE) != null) {
                continue;
            }
            Class<?> type = o.getClass();
            Optional<String> why = forbiddenBecause(type, runtimeClasses);
            if (why.isPresent()) {
                found.add(step.path() + " -> " + type.getName() + " (" + why.get() + ")");
                continue;
            }
            if (o instanceof Class<?> || o instanceof ClassLoader || o instanceof String || o instanceof Number
                    || o instanceof Enum<?> && isJdk(type)) {
                continue;
            }
            if (type.isArray()) {
                if (!type.getComponentType().isPrimitive()) {
                    int n = Array.getLength(o);
                    for (int i = 0; i < n; i++) {
                        push(work, Array.get(o, i), step, "[" + i + "]");
                    }
                }
                continue;
            }
            if (isJdk(type)) {
                try {
                    if (o instanceof Map<?, ?> m) {
                        for (Map.Entry<?, ?> e : m.entrySet()) {
                            push(work, e.getKey(), step, "{key}");
                            push(work, e.getValue(), step, e.getKey() instanceof String k && k.length() < 64 ? "{" + k + "}" : "{value}");
                        }
                    } else if (o instanceof Iterable<?> it) {
                        int i = 0;
                        for (Object e : it) {
                            push(work, e, step, "[" + i++ + "]");
                        }
                    } else if (o instanceof Optional<?> opt) {
                        opt.ifPresent(v -> push(work, v, step, ".get()"));
                    } else if (o instanceof java.util.concurrent.atomic.AtomicReference<?> ref) {
                        push(work, ref.get(), step, ".get()");
                    }
                } catch (RuntimeException e) {
                    // a JDK object that cannot be iterated here: classified above, not opened
                }
                continue;
            }
            for (Class<?> k = type; k != null && !isJdk(k); k = k.getSuperclass()) {
                Field[] fields;
                try {
                    fields = k.getDeclaredFields();
                } catch (Throwable e) {
                    break;
                }
                for (Field f : fields) {
                    if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) {
                        continue;
                    }
                    try {
                        f.setAccessible(true);
                        push(work, f.get(o), step, "." + f.getName());
                    } catch (Throwable e) {
                        // inaccessible (a named module): skipped
                    }
                }
            }
        }
    }

    private static void push(Deque<Step> work, Object value, Step parent, String name) {
        if (value != null) {
            work.push(new Step(value, parent, name));
        }
    }

    private static Optional<String> forbiddenBecause(Class<?> type, Set<String> runtimeClasses) {
        for (Class<?> k = type; k != null; k = k.getSuperclass()) {
            if (runtimeClasses.contains(k.getName())) {
                return Optional.of("an instance of a run-time initialised class");
            }
        }
        for (Class<?> forbidden : FORBIDDEN_TYPES) {
            if (forbidden.isAssignableFrom(type)) {
                return Optional.of("a " + forbidden.getSimpleName());
            }
        }
        return Optional.empty();
    }

    private static boolean isJdk(Class<?> type) {
        String n = type.getName();
        return n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("jdk.") || n.startsWith("sun.")
                || n.startsWith("com.sun.");
    }

    private static Object theUnsafe() {
        try {
            Class<?> u = Class.forName("sun.misc.Unsafe");
            Field f = u.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("sun.misc.Unsafe is needed to observe class initialisation", e);
        }
    }

    @SuppressWarnings("removal")
    private static Method unsafeShouldBeInitialized() {
        try {
            return Class.forName("sun.misc.Unsafe").getMethod("shouldBeInitialized", Class.class);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this JDK has no sun.misc.Unsafe.shouldBeInitialized (run the test on JDK 17-21)", e);
        }
    }
}
