package io.meshdns.model;

/**
 * The kinds of Kubernetes object the catalog keeps, each with its {@link CatalogEntry} record. The record's simple
 * name is the entry's {@code type} on the wire ({@link WireFormat} registers them from here), so a kind is this
 * constant and its record, and nothing lists the records a second time.
 */
public enum Kind {
    NAMESPACE(CatalogEntry.Namespace.class),
    SERVICE(CatalogEntry.Service.class),
    ENDPOINT_SLICE(CatalogEntry.EndpointSlice.class),
    POD(CatalogEntry.Pod.class),
    SERVICE_ENTRY(CatalogEntry.ServiceEntry.class),
    SERVICE_IMPORT(CatalogEntry.ServiceImport.class);

    private final Class<? extends CatalogEntry> entryType;

    Kind(Class<? extends CatalogEntry> entryType) {
        this.entryType = entryType;
    }

    /** The catalog entry record of this kind. */
    public Class<? extends CatalogEntry> entryType() {
        return entryType;
    }
}
