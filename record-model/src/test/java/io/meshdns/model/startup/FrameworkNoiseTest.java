package io.meshdns.model.startup;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FrameworkNoiseTest {
    @Test
    void onlyTheRepeatedHttpConnectionGaugeIsNoise() {
        assertTrue(FrameworkNoise.isNoise("This Gauge has been already registered (MeterId{name='vertx.http.connections.current', "
                + "tags=[]}), the registration will be ignored. Note that subsequent logs will be logged at debug level."));
        assertFalse(FrameworkNoise.isNoise("This Gauge has been already registered (MeterId{name='meshdns.dns.tcp.connections', "
                + "tags=[]}), the registration will be ignored."), "our own gauges registered twice are a bug to see");
        assertFalse(FrameworkNoise.isNoise(null));
    }
}
