package io.meshdns.dns.snapshot;

import java.util.List;
import java.util.function.Consumer;

/** A test sink that hands every change on as the source's whole content (patches included). */
public record WholeContentSink(Consumer<List<ZoneContent>> content) implements RecordSource.Sink {
    @Override
    public void publish(List<ZoneContent> zones, MeshIndex mesh) {
        content.accept(zones);
    }

    @Override
    public void patch(List<ZonePatch> patches, SourceContent whole, MeshIndex mesh) {
        content.accept(whole.all());
    }
}
