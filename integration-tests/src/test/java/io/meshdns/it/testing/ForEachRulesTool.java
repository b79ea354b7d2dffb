package io.meshdns.it.testing;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A node-local test run once for each tool that can install the NOTRACK rules
 * ({@code meshdns.dns.node-local.rules}): the method takes the tool's name as its one argument.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0}")
@ValueSource(strings = {"iptables", "nftables"})
public @interface ForEachRulesTool {
}
