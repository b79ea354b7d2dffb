package io.meshdns.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * One Kubernetes object as the catalog keeps it: only the fields DNS needs, already validated.
 * Translation from fabric8 objects happens in discovery-service; turning entries into DNS records
 * happens in dns-service, where the node's policy lives.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = CatalogEntry.Namespace.class, name = "Namespace"),
        @JsonSubTypes.Type(value = CatalogEntry.Service.class, name = "Service"),
        @JsonSubTypes.Type(value = CatalogEntry.EndpointSlice.class, name = "EndpointSlice"),
        @JsonSubTypes.Type(value = CatalogEntry.Pod.class, name = "Pod"),
        @JsonSubTypes.Type(value = CatalogEntry.ServiceEntry.class, name = "ServiceEntry"),
        @JsonSubTypes.Type(value = CatalogEntry.ServiceImport.class, name = "ServiceImport"),
})
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

    /** A core/v1 Service. {@code clusterIps} is empty for headless and ExternalName services. */
    record Service(String cluster, String namespace, String name, ServiceType serviceType,
                   java.util.List<String> clusterIps, String externalName,
                   java.util.List<PortSpec> ports, java.util.List<String> loadBalancerIngress) implements CatalogEntry {
        public Service {
            clusterIps = clusterIps == null ? java.util.List.of() : java.util.List.copyOf(clusterIps);
            ports = ports == null ? java.util.List.of() : java.util.List.copyOf(ports);
            loadBalancerIngress = loadBalancerIngress == null ? java.util.List.of() : java.util.List.copyOf(loadBalancerIngress);
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
                         java.util.List<EndpointAddress> endpoints, java.util.List<PortSpec> ports) implements CatalogEntry {
        public EndpointSlice {
            endpoints = endpoints == null ? java.util.List.of() : java.util.List.copyOf(endpoints);
            ports = ports == null ? java.util.List.of() : java.util.List.copyOf(ports);
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
     * An Istio ServiceEntry. {@code addresses} are the entry's own; {@code allocatedVips} maps each
     * host without addresses to the VIPs discovery allocated for it (stable, identical on every node).
     * {@code endpointAddresses} are the IP endpoints of a {@code resolution: DNS} or STATIC entry.
     */
    record ServiceEntry(String cluster, String namespace, String name, java.util.List<String> hosts,
                        java.util.List<String> addresses, String resolution, java.util.List<String> endpointAddresses,
                        java.util.List<PortSpec> ports,
                        java.util.Map<String, java.util.List<String>> allocatedVips) implements CatalogEntry {
        public ServiceEntry {
            hosts = hosts == null ? java.util.List.of() : java.util.List.copyOf(hosts);
            addresses = addresses == null ? java.util.List.of() : java.util.List.copyOf(addresses);
            endpointAddresses = endpointAddresses == null ? java.util.List.of() : java.util.List.copyOf(endpointAddresses);
            ports = ports == null ? java.util.List.of() : java.util.List.copyOf(ports);
            allocatedVips = allocatedVips == null ? java.util.Map.of() : java.util.Map.copyOf(allocatedVips);
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
