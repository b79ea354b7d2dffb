package io.meshdns.exposure.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Every exposure-service setting (prefix meshdns.exposure). Validated at start by {@link ExposureSettings}. */
@ConfigMapping(prefix = "meshdns.exposure")
public interface ExposureConfig {

    /** TXT registry owner id (ExternalDNS --txt-owner-id). */
    @WithDefault("default")
    String ownerId();

    /** sync | upsert-only | create-only. Required: there is deliberately no default. */
    String policy();

    /** ExternalDNS --domain-filter. */
    Optional<List<String>> domainFilters();

    /** ExternalDNS --exclude-domains. */
    Optional<List<String>> excludeDomains();

    /** ExternalDNS --regex-domain-filter; replaces domain-filters/exclude-domains when set. */
    Optional<String> regexDomainFilter();

    /** ExternalDNS --regex-domain-exclusion. */
    Optional<String> regexDomainExclusion();

    @WithDefault("false")
    boolean dryRun();

    /** Periodic full reconcile (ExternalDNS --interval). */
    @WithDefault("1m")
    Duration interval();

    /** Quiet time after a Kubernetes event before an event-driven reconcile runs. */
    @WithDefault("1s")
    Duration debounce();

    /** rfc2136 | builtin | webhook | pdns | coredns (see io.meshdns.exposure.provider.Providers). */
    @WithDefault("rfc2136")
    String provider();

    /** Ownership registry (ExternalDNS --registry): txt (see io.meshdns.exposure.registry.RegistryFactory). */
    @WithDefault("txt")
    String registry();

    /** Domain for meshdns.io/expose: a Service is published at name.namespace.default-domain. */
    Optional<String> defaultDomain();

    @WithDefault("false")
    boolean publishClusterIp();

    /**
     * ExternalDNS --annotation-prefix: read ExternalDNS's annotations under this prefix (ending in '/') instead of
     * external-dns.kubernetes.io/ and external-dns.alpha.kubernetes.io/. meshdns.io/ annotations are not affected.
     */
    Optional<String> annotationPrefix();

    /** ExternalDNS --default-targets: targets of an A/AAAA/CNAME endpoint that has none (a DNSEndpoint entry without targets). */
    Optional<List<String>> defaultTargets();

    /** ExternalDNS --force-default-targets: the default targets replace the targets of every A/AAAA/CNAME endpoint. */
    @WithDefault("false")
    boolean forceDefaultTargets();

    /**
     * ExternalDNS --fqdn-template ({{.Name}}, {{.Namespace}}, {{.Kind}}, {{.Labels.key}}, {{.Annotations.key}}, index; comma =
     * several names): the names of a Service, Ingress, Istio Gateway or VirtualService that has none of its own.
     */
    Optional<String> fqdnTemplate();

    /** ExternalDNS --combine-fqdn-annotation: the template's names are added to the object's own names. */
    @WithDefault("false")
    boolean combineFqdnAnnotation();

    /** ExternalDNS --txt-prefix (may contain %{record_type}). */
    Optional<String> txtPrefix();

    /** ExternalDNS --txt-suffix (may contain %{record_type}). */
    Optional<String> txtSuffix();

    /**
     * ExternalDNS --txt-encrypt-enabled: ownership claims written AES-256-GCM-encrypted (ExternalDNS's format);
     * requires {@link #txtEncryptAesKey()}.
     */
    @WithDefault("false")
    boolean txtEncryptEnabled();

    /**
     * ExternalDNS --txt-encrypt-aes-key: 32 bytes, as text or base64. Set without txt-encrypt-enabled, encrypted claims
     * are still read (and new ones written plain).
     */
    Optional<String> txtEncryptAesKey();

    /**
     * ExternalDNS --events-emit: RecordReady, RecordDeleted, RecordError; an Event on the source object per record
     * written, deleted or refused. Unset: none (as ExternalDNS).
     */
    Optional<List<String>> eventsEmit();

    /** TTL written when a record has none configured; unset = what ExternalDNS's provider of the same kind writes. */
    Optional<Long> defaultTtl();

    /**
     * Owner migration: old owner ids whose RRsets we take over, but only RRsets that are desired and
     * inside the domain filters; nothing else of an old owner is ever changed or deleted.
     */
    Optional<List<String>> adoptOwners();

    /** YAML/JSON manifests (Services, Nodes, EndpointSlices, Ingresses, DNSEndpoints) read instead of a cluster. */
    Optional<List<String>> manifestDirs();

    /** One pass, print the plan, exit with a status (0 ok, 1 a target failed, 3 objects with problems). */
    @WithDefault("false")
    boolean once();

    /** service, ingress, crd (ExternalDNS --source). */
    @WithDefault("service,ingress,crd")
    List<String> sources();

    LeaderElection leaderElection();

    interface LeaderElection {
        @WithDefault("true")
        boolean enabled();

        @WithDefault("meshdns-exposure")
        String leaseName();

        /** Defaults to the pod's namespace (POD_NAMESPACE), else "default". */
        Optional<String> leaseNamespace();

        @WithDefault("15s")
        Duration leaseDuration();

        @WithDefault("10s")
        Duration renewDeadline();

        @WithDefault("2s")
        Duration retryPeriod();
    }
}
