package io.meshdns.collect;

import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.NestingKind;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.ElementFilter;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Writes, for each interface marked {@link Collected}, the class {@code <Interface>Implementations} in the interface's
 * package: {@code static List<Interface> all()}, a new instance of every concrete class of the same compilation that
 * implements the interface (directly or through a superclass or another interface), made by its no-argument
 * constructor, in the order of their qualified names. The list is plain code written at compile time, so the tables
 * that read it work the same from unit tests, on the JVM and in a native image, with no reflection, class path scan
 * or service file.
 *
 * <p>It sees what javac compiles together. Maven compiles a module whole (any change recompiles every source), so the
 * list is complete there. A compile that holds only the implementation files (an IDE's or dev mode's partial
 * recompile without the interface) writes nothing and keeps the last list; one that holds the interface without some
 * implementations writes a short list: the tables that read one check that it covers every kind, so that fails at
 * once, and a full build of the module writes it whole again. A module's test sources never write one (the interface
 * is not in that compilation), so a test class implementing the interface is not collected.
 *
 * <p>Errors stop the compile, on the element at fault: {@code @Collected} on anything but a top-level interface, an
 * implementation that is an inner (non-static) class, or one without a no-argument constructor other than private.
 */
@SupportedAnnotationTypes("io.meshdns.collect.Collected")
public final class CollectedProcessor extends AbstractProcessor {
    /** The suffix of the written class's name: {@code KindRecords} gives {@code KindRecordsImplementations}. */
    public static final String SUFFIX = "Implementations";

    @Override
    public SourceVersion getSupportedSourceVersion() {
        return SourceVersion.latestSupported();
    }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
        for (Element marked : round.getElementsAnnotatedWith(Collected.class)) {
            if (marked.getKind() != ElementKind.INTERFACE || ((TypeElement) marked).getNestingKind() != NestingKind.TOP_LEVEL) {
                error(marked, "@Collected marks a top-level interface; " + marked + " is not one");
                continue;
            }
            TypeElement collected = (TypeElement) marked;
            List<TypeElement> implementations = new ArrayList<>();
            for (TypeElement type : typesIn(round.getRootElements())) {
                if (implementsCollected(type, collected)) implementations.add(type);
            }
            implementations.sort(Comparator.comparing(t -> t.getQualifiedName().toString()));
            boolean constructible = true;
            for (TypeElement type : implementations) constructible &= constructible(type, collected);
            if (constructible) write(collected, implementations);
        }
        return true;
    }

    /** Every class and interface of the compilation, member types included. */
    private static List<TypeElement> typesIn(Collection<? extends Element> roots) {
        List<TypeElement> out = new ArrayList<>();
        for (TypeElement type : ElementFilter.typesIn(roots)) {
            out.add(type);
            out.addAll(typesIn(type.getEnclosedElements()));
        }
        return out;
    }

    private boolean implementsCollected(TypeElement type, TypeElement collected) {
        boolean concrete = (type.getKind() == ElementKind.CLASS || type.getKind() == ElementKind.RECORD)
                && !type.getModifiers().contains(Modifier.ABSTRACT);
        var types = processingEnv.getTypeUtils();
        return concrete && types.isAssignable(types.erasure(type.asType()), types.erasure(collected.asType()));
    }

    /** Whether the written list can say {@code new Type()}; an error on the type when not. */
    private boolean constructible(TypeElement type, TypeElement collected) {
        String why = null;
        if (type.getNestingKind() == NestingKind.MEMBER && !type.getModifiers().contains(Modifier.STATIC)) {
            why = "is an inner class; make it static";
        } else if (type.getModifiers().contains(Modifier.PRIVATE)) {
            why = "is private";
        } else {
            boolean noArgument = false;
            for (ExecutableElement c : ElementFilter.constructorsIn(type.getEnclosedElements())) {
                noArgument |= c.getParameters().isEmpty() && !c.getModifiers().contains(Modifier.PRIVATE);
            }
            if (!noArgument) why = "has no no-argument constructor other than private";
        }
        if (why == null) return true;
        error(type, type.getQualifiedName() + " implements @Collected " + collected.getSimpleName() + " but " + why
                + ": " + collected.getSimpleName() + SUFFIX + ".all() makes one of each with new " + type.getSimpleName() + "()");
        return false;
    }

    private void write(TypeElement collected, List<TypeElement> implementations) {
        String pkg = processingEnv.getElementUtils().getPackageOf(collected).getQualifiedName().toString();
        String name = collected.getSimpleName() + SUFFIX;
        String element = collected.getSimpleName() + wildcards(collected.getTypeParameters().size());
        StringBuilder src = new StringBuilder();
        if (!pkg.isEmpty()) src.append("package ").append(pkg).append(";\n\n");
        src.append("/**\n")
                .append(" * Every class implementing {@link ").append(collected.getSimpleName())
                .append("} in this module, as javac found them (").append(CollectedProcessor.class.getName())
                .append("): written at\n * compile time, not edited.\n */\n")
                .append("@javax.annotation.processing.Generated(\"").append(CollectedProcessor.class.getName()).append("\")\n")
                .append("final class ").append(name).append(" {\n")
                .append("    private ").append(name).append("() {\n    }\n\n")
                .append("    /** A new instance of each, in the order of their qualified names. */\n")
                .append("    static java.util.List<").append(element).append("> all() {\n")
                .append("        return java.util.List.of(");
        for (int i = 0; i < implementations.size(); i++) {
            src.append(i == 0 ? "\n" : ",\n").append("                new ")
                    .append(implementations.get(i).getQualifiedName()).append("()");
        }
        src.append(");\n    }\n}\n");
        Element[] origins = new Element[implementations.size() + 1];
        origins[0] = collected;
        for (int i = 0; i < implementations.size(); i++) origins[i + 1] = implementations.get(i);
        try {
            JavaFileObject file = processingEnv.getFiler().createSourceFile(pkg.isEmpty() ? name : pkg + "." + name, origins);
            try (Writer out = file.openWriter()) {
                out.write(src.toString());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + name, e);
        }
    }

    private static String wildcards(int typeParameters) {
        if (typeParameters == 0) return "";
        return "<" + String.join(", ", java.util.Collections.nCopies(typeParameters, "?")) + ">";
    }

    private void error(Element at, String message) {
        processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR, message, at);
    }
}
