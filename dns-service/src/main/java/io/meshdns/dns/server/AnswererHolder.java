package io.meshdns.dns.server;

import io.meshdns.dns.answer.Answerer;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/** The one {@link Answerer}, configured from {@link ServerSettings}. */
@Singleton // no client proxy: called on every query (a proxy looked the instance up on each call)
public class AnswererHolder {
    private final Answerer answerer;

    @Inject
    public AnswererHolder(ServerConfig config) {
        this.answerer = new Answerer(ServerSettings.from(config).maxUdpPayload());
    }

    public Answerer get() {
        return answerer;
    }
}
