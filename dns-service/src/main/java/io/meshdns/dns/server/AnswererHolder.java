package io.meshdns.dns.server;

import io.meshdns.dns.answer.Answerer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** The one {@link Answerer}, configured from {@link ServerSettings}. */
@ApplicationScoped
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
