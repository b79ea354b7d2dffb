package io.meshdns.collect;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The processor run by javac over small source sets, as a module's compile runs it. */
class CollectedProcessorTest {
    @TempDir
    Path dir;

    @Test
    void listsEveryConcreteImplementationInNameOrder() throws Exception {
        Result r = compile(Map.of(
                "p/Shape.java", "package p; @io.meshdns.collect.Collected public interface Shape<K extends Comparable<K>> { String name(); }",
                "p/Square.java", "package p; final class Square implements Shape<String> { public String name() { return \"square\"; } }",
                "p/Base.java", "package p; abstract class Base implements Shape<Integer> { }",
                "p/Circle.java", "package p; class Circle extends Base { public String name() { return \"circle\"; } "
                        + "static final class Dot implements Shape<String> { public String name() { return \"dot\"; } } }",
                "q/Oval.java", "package q; public record Oval() implements p.Shape<String> { public String name() { return \"oval\"; } }",
                "p/Unrelated.java", "package p; class Unrelated { }"));
        assertTrue(r.errors().isEmpty(), r.errors().toString());
        assertEquals(List.of("circle", "dot", "square", "oval"), names(r, "p.ShapeImplementations"));
    }

    @Test
    void anInterfaceWithoutImplementationsGetsAnEmptyList() throws Exception {
        Result r = compile(Map.of("p/Lonely.java", "package p; @io.meshdns.collect.Collected interface Lonely { String name(); }"));
        assertTrue(r.errors().isEmpty(), r.errors().toString());
        assertEquals(List.of(), names(r, "p.LonelyImplementations"));
    }

    @Test
    void anImplementationItCannotMakeStopsTheCompileNamingIt() throws Exception {
        Result r = compile(Map.of(
                "p/Shape.java", "package p; @io.meshdns.collect.Collected public interface Shape { }",
                "p/Sized.java", "package p; final class Sized implements Shape { Sized(int size) { } }",
                "p/Outer.java", "package p; class Outer { class Inner implements Shape { } }"));
        String all = String.join("\n", r.errors());
        assertTrue(all.contains("p.Sized implements @Collected Shape but has no no-argument constructor"), all);
        assertTrue(all.contains("p.Outer.Inner implements @Collected Shape but is an inner class"), all);
        assertFalse(Files.exists(dir.resolve("generated/p/ShapeImplementations.java")), "no list from a failed compile");
    }

    @Test
    void onlyATopLevelInterfaceIsCollected() throws Exception {
        Result r = compile(Map.of("p/Outer.java", "package p; class Outer { @io.meshdns.collect.Collected interface Nested { } }",
                "p/Plain.java", "package p; @io.meshdns.collect.Collected class Plain { }"));
        String all = String.join("\n", r.errors());
        assertTrue(all.contains("@Collected marks a top-level interface; p.Outer.Nested is not one"), all);
        assertTrue(all.contains("p.Plain is not one"), all);
    }

    /** A compile without the interface (a module's tests, a partial recompile) writes no list. */
    @Test
    void aCompileWithoutTheInterfaceWritesNothing() throws Exception {
        Result first = compile(Map.of("p/Shape.java", "package p; @io.meshdns.collect.Collected public interface Shape { }"));
        assertTrue(first.errors().isEmpty(), first.errors().toString());
        Path listed = dir.resolve("generated/p/ShapeImplementations.java");
        Files.delete(listed);
        Result second = compile(Map.of("t/Fake.java", "package t; class Fake implements p.Shape { }"));
        assertTrue(second.errors().isEmpty(), second.errors().toString());
        assertFalse(Files.exists(listed));
    }

    private record Result(List<String> errors, Path classes) {
    }

    private Result compile(Map<String, String> sources) throws IOException {
        Path src = dir.resolve("src");
        Path classes = dir.resolve("classes");
        Path generated = dir.resolve("generated");
        Files.createDirectories(classes);
        Files.createDirectories(generated);
        List<Path> files = new ArrayList<>();
        for (var e : sources.entrySet()) {
            Path f = src.resolve(e.getKey());
            Files.createDirectories(f.getParent());
            Files.writeString(f, e.getValue());
            files.add(f);
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager fm = javac.getStandardFileManager(diagnostics, null, null)) {
            List<String> options = List.of("-classpath", System.getProperty("java.class.path") + java.io.File.pathSeparator + classes,
                    "-processor", CollectedProcessor.class.getName(), "-d", classes.toString(), "-s", generated.toString());
            javac.getTask(null, fm, diagnostics, options, null, fm.getJavaFileObjectsFromPaths(files)).call();
        }
        List<String> errors = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR) errors.add(d.getMessage(null));
        }
        return new Result(errors, classes);
    }

    private static List<String> names(Result r, String listClass) throws Exception {
        try (URLClassLoader loader = new URLClassLoader(new URL[]{r.classes().toUri().toURL()}, CollectedProcessorTest.class.getClassLoader())) {
            Method all = loader.loadClass(listClass).getDeclaredMethod("all");
            all.setAccessible(true);
            List<String> names = new ArrayList<>();
            for (Object o : (List<?>) all.invoke(null)) {
                Method name = o.getClass().getMethod("name");
                name.setAccessible(true);
                names.add((String) name.invoke(o));
            }
            return names;
        }
    }
}
