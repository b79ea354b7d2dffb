package io.meshdns.dns.discovery;

import io.meshdns.model.CatalogDelta;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.CatalogSnapshot;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.EndpointAddress;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import io.meshdns.model.PortSpec;
import io.meshdns.model.ServiceType;
import io.meshdns.model.WatchEvent;
import io.quarkus.runtime.annotations.RegisterForReflection;

/** The record-model types the discovery client reads with Jackson (snapshot file, HTTP, event bus); Quarkus cannot see them (no Quarkus in record-model), so a native image needs them registered. */
@RegisterForReflection(targets = {
        CatalogSnapshot.class, CatalogDelta.class, WatchEvent.class, ClusterStatus.class, ObjectRef.class,
        EndpointAddress.class, PortSpec.class, Kind.class, ServiceType.class, CatalogEntry.class,
        CatalogEntry.Namespace.class, CatalogEntry.Service.class, CatalogEntry.EndpointSlice.class,
        CatalogEntry.Pod.class, CatalogEntry.ServiceEntry.class, CatalogEntry.ServiceImport.class})
final class NativeReflection {
    private NativeReflection() {
    }
}
