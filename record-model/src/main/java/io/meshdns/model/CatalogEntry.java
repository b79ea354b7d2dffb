package io.meshdns.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * One Kubernetes object as the catalog keeps it: only the fields DNS needs, already validated.
 * Translation from fabric8 objects happens in discovery-service; turning entries into DNS records
 * happens in dns-service, where the node's policy lives. Each record is one {@link Kind}'s entry type, and its
 * simple name is its {@code type} on the wire ({@link WireFormat} registers them from {@link Kind}).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
public sealed interface CatalogEntry {

    String cluster();

    @JsonIgnore
    ObjectRef ref();

    /** A namespace known in a cluster. */
    record Namespace(String cluster, String name) implements CatalogEntry {
        public ObjectRef ref() {
            return new ObjectRef(cluster, Kind.NAMESPACE, "", name);
        }
    }

    /**
     * A core/v1 Service. {@code clusterIps} is empty for headless and ExternalName services.
     * {@code exportTo}: the annotation {@code networking.istio.io/exportTo}, split (empty: the mesh default).
     * {@code publishNotReady}: {@code spec.publishNotReadyAddresses} or the annotation
     * {@code service.alpha.kubernetes.io/tolerate-unready-endpoints: "true"} (Kubernetes DNS spec 2.1: every
     * endpoint then counts as ready).
     */
    record Service(String cluster, String namespace, String name, ServiceType serviceType,
                   java.util.List<String> clusterIps, String externalName,
                   java.util.List<PortSpec> ports, java.util.List<String> loadBalancerIngress,
                   java.util.List<String> exportTo, boolean publishNotReady) implements CatalogEntry {
        public Service {
            clusterIps = clusterIps == null ? java.util.List.of() : java.util.List.copyOf(clusterIps);
            ports = ports == null ? java.util.List.of() : java.util.List.copyOf(ports);
            loadBalancerIngress = loadBalancerIngress == null ? java.util.List.of() : java.util.List.copyOf(loadBalancerIngress);
            exportTo = exportTo == null ? java.util.List.of() : java.util.List.copyOf(exportTo);
        }

        public Service(String cluster, String namespace, String name, ServiceType serviceType,
                       java.util.List<String> clusterIps, String externalName,
                       java.util.List<PortSpec> ports, java.util.List<String> loadBalancerIngress) {
            this(cluster, namespace, name, serviceType, clusterIps, externalName, ports, loadBalancerIngress, null, false);
        }

        public ObjectRef ref() {
            return new ObjectRef(cluster, Kind.SERVICE, namespace, name);
        }

        @JsonIgnore
        public boolean headless() {
            return serviceType != ServiceType.EXTERNAL_NAME && clusterIps.isEmpty();
        }
    }

    /** A discovery.k8s.io/v1 EndpointSlice, keyed by its own name, pointing at {@code serviceName}. */
    record EndpointSlice(String cluster, String namespace, String name, String serviceName, String addressType,
                         java.util.List<EndpointAddress> endpoints, java.util.List<PortSpec> ports,
                         String lastChangeTriggerTime) implements CatalogEntry {
        public EndpointSlice {
            endpoints = endpoints == null ? java.util.List.of() : java.util.List.copyOf(endpoints);
            ports = ports == null ? java.util.List.of() : java.util.List.copyOf(ports);
        }

        public EndpointSlice(String cluster, String namespace, String name, String serviceName, String addressType,
                             java.util.List<EndpointAddress> endpoints, java.util.List<PortSpec> ports) {
            this(cluster, namespace, name, serviceName, addressType, endpoints, ports, null);
        }

        /**
         * When the change behind this version of the slice happened at the API server (the EndpointSlice controller's
         * {@code endpoints.kubernetes.io/last-change-trigger-time}: a pod turned ready, a Service changed), if known.
         */
        public java.util.Optional<java.time.Instant> triggeredAt() {
            if (lastChangeTriggerTime == null || lastChangeTriggerTime.isEmpty()) return java.util.Optional.empty();
            try {
                return java.util.Optional.of(java.time.OffsetDateTime.parse(lastChangeTriggerTime).toInstant());
            } catch (java.time.format.DateTimeParseException e) {
                return java.util.Optional.empty();
            }
        }

        public ObjectRef ref() {
            return new ObjectRef(cluster, Kind.ENDPOINT_SLICE, namespace, name);
        }
    }

    /** A core/v1 Pod, kept for pod records (verified mode) and for mapping a client IP to its namespace. */
    record Pod(String cluster, String namespace, String name, java.util.List<String> ips) implements CatalogEntry {
        public Pod {
            ips = ips == null ? java.util.List.of() : java.util.List.copyOf(ips);
        }

        public ObjectRef ref() {
            return new ObjectRef(cluster, Kind.POD, namespace, name);
        }
    }

    /**
     * An Istio ServiceEntry. {@code addresses} are the entry's own ({@code spec.addresses}); {@code allocatedVips}
     * maps each host without addresses to the VIPs to answer for it, chosen by discovery (Istio's from
     * {@code statusAddresses} or discovery's own allocation, per {@code meshdns.discovery.vip-source}; identical
     * on every node). {@code endpointAddresses} are the IP endpoints of a {@code resolution: DNS} or STATIC entry.
     * {@code statusAddresses}: what Istio's auto-allocation wrote to {@code status.addresses}, by host.
     * {@code exportTo}: {@code spec.exportTo} (empty: the mesh default). {@code autoAllocateOptOut}: the label
     * {@code networking.istio.io/enable-autoallocate-ip: "false"} (no VIP from Istio, none from us).
     * {@code created}: {@code metadata.creationTimestamp} as the API gave it (null from a manifest without one), for
     * Istio's precedence among entries naming one host.
     */
    record ServiceEntry(String cluster, String namespace, String name, java.util.List<String> hosts,
                        java.util.List<String> addresses, String resolution, java.util.List<String> endpointAddresses,
                        java.util.List<PortSpec> ports,
                        java.util.Map<String, java.util.List<String>> allocatedVips,
                        java.util.Map<String, java.util.List<String>> statusAddresses,
                        java.util.List<String> exportTo, boolean autoAllocateOptOut, String created) implements CatalogEntry {
        public ServiceEntry {
            hosts = hosts == null ? java.util.List.of() : java.util.List.copyOf(hosts);
            addresses = addresses == null ? java.util.List.of() : java.util.List.copyOf(addresses);
            endpointAddresses = endpointAddresses == null ? java.util.List.of() : java.util.List.copyOf(endpointAddresses);
            ports = ports == null ? java.util.List.of() : java.util.List.copyOf(ports);
            allocatedVips = allocatedVips == null ? java.util.Map.of() : java.util.Map.copyOf(allocatedVips);
            statusAddresses = statusAddresses == null ? java.util.Map.of() : java.util.Map.copyOf(statusAddresses);
            exportTo = exportTo == null ? java.util.List.of() : java.util.List.copyOf(exportTo);
        }

        public ServiceEntry(String cluster, String namespace, String name, java.util.List<String> hosts,
                            java.util.List<String> addresses, String resolution, java.util.List<String> endpointAddresses,
                            java.util.List<PortSpec> ports, java.util.Map<String, java.util.List<String>> allocatedVips) {
            this(cluster, namespace, name, hosts, addresses, resolution, endpointAddresses, ports, allocatedVips, null, null, false);
        }

        public ServiceEntry(String cluster, String namespace, String name, java.util.List<String> hosts,
                            java.util.List<String> addresses, String resolution, java.util.List<String> endpointAddresses,
                            java.util.List<PortSpec> ports, java.util.Map<String, java.util.List<String>> allocatedVips,
                            java.util.Map<String, java.util.List<String>> statusAddresses, java.util.List<String> exportTo,
                            boolean autoAllocateOptOut) {
            this(cluster, namespace, name, hosts, addresses, resolution, endpointAddresses, ports, allocatedVips, statusAddresses,
                    exportTo, autoAllocateOptOut, null);
        }

        /** {@code metadata.creationTimestamp} as an instant (the epoch when unknown, as Istio counts a missing one). */
        public java.time.Instant createdAt() {
            if (created == null || created.isEmpty()) return java.time.Instant.EPOCH;
            try {
                return java.time.OffsetDateTime.parse(created).toInstant();
            } catch (java.time.format.DateTimeParseException e) {
                return java.time.Instant.EPOCH;
            }
        }

        /** This entry with {@code vips} as the addresses to answer per host. */
        public ServiceEntry withAllocatedVips(java.util.Map<String, java.util.List<String>> vips) {
            return new ServiceEntry(cluster, namespace, name, hosts, addresses, resolution, endpointAddresses, ports, vips,
                    statusAddresses, exportTo, autoAllocateOptOut, created);
        }

        public ObjectRef ref() {
            return new ObjectRef(cluster, Kind.SERVICE_ENTRY, namespace, name);
        }
    }

    /** A multicluster.x-k8s.io ServiceImport (MCS API). {@code importType} is ClusterSetIP or Headless. */
    record ServiceImport(String cluster, String namespace, String name, String importType,
                         java.util.List<String> ips, java.util.List<PortSpec> ports) implements CatalogEntry {
        public ServiceImport {
            ips = ips == null ? java.util.List.of() : java.util.List.copyOf(ips);
            ports = ports == null ? java.util.List.of() : java.util.List.copyOf(ports);
        }

        public ObjectRef ref() {
            return new ObjectRef(cluster, Kind.SERVICE_IMPORT, namespace, name);
        }
    }
}
