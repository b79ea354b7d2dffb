package io.meshdns.model.operator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostAllowlistTest {
    private final HostAllowlist list = HostAllowlist.of(List.of("discovery.example.com", ".mesh.example"), List.of("discovery-7d9f-abc"));

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', value = {
            "127.0.0.1:8080 | true",
            "10.96.0.12 | true",
            "[::1]:8080 | true",
            "[fd00::12] | true",
            "localhost:8080 | true",
            "LOCALHOST | true",
            "discovery-7d9f-abc:8080 | true",
            "meshdns-discovery.meshdns.svc:8080 | true",
            "meshdns-discovery.meshdns.svc.cluster.local. | true",
            "discovery.example.com | true",
            "a.mesh.example | true",
            "mesh.example | false",
            "rebind.attacker.example | false",
            "svc.attacker.example | false",
            "meshdns.svc.attacker.example | false",
            "localhost.attacker.example | false",
            "127.0.0.1.attacker.example | false",
            "999.0.0.1 | false",
            "'' | false",
    })
    void answersOnlyNamesNoAttackerControls(String host, boolean allowed) {
        assertEquals(allowed, list.allows(host), host);
    }

    @Test
    void aRequestWithoutHostIsAnsweredAndAStarAllowsAll() {
        assertTrue(list.allows(null));
        assertTrue(HostAllowlist.of(List.of("*"), List.of()).allows("anything.example"));
        assertFalse(HostAllowlist.of(List.of(), List.of()).allows("anything.example"));
    }

    @Test
    void aBadEntryNamesTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HostAllowlist.of(List.of("bad_name!"), List.of()));
        assertTrue(e.getMessage().startsWith("meshdns.http.allowed-hosts: "), e.getMessage());
    }
}
