package io.meshdns.collect;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a top-level interface: javac writes {@code <Interface>Implementations} beside it, whose {@code all()} is one
 * instance of every concrete class of the same compilation that implements the interface (see
 * {@link CollectedProcessor}). Adding an implementation is then the implementation's file alone: no list to edit,
 * and nothing found at run time.
 *
 * <p>A module that uses it names the processor in its compiler configuration ({@code annotationProcessors}); an
 * implementation needs a no-argument constructor the package can call.
 */
@Retention(RetentionPolicy.SOURCE)
@Target(ElementType.TYPE)
public @interface Collected {
}
