package io.meshdns.testsupport;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Istio's networking.istio.io ServiceEntry CRD for a fabric8 mock API server. Discovery starts its ServiceEntry
 * informer only once the API serves the CRD, and looks again only every crd-retry interval, so register it before
 * discovery starts.
 */
public final class ServiceEntryCrd {
    public static final String NAME = "serviceentries.networking.istio.io";

    private ServiceEntryCrd() {
    }

    /** v1 (storage) and v1beta1, schema-less like the real CRD's x-kubernetes-preserve-unknown-fields. */
    public static void register(KubernetesClient client) {
        JSONSchemaProps anything = new JSONSchemaPropsBuilder().withType("object").withXKubernetesPreserveUnknownFields(true).build();
        CustomResourceDefinition crd = new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName(NAME).endMetadata()
                .withNewSpec().withGroup("networking.istio.io").withScope("Namespaced")
                .withNewNames().withKind("ServiceEntry").withPlural("serviceentries").withSingular("serviceentry").withListKind("ServiceEntryList").endNames()
                .addNewVersion().withName("v1").withServed(true).withStorage(true).withNewSchema().withOpenAPIV3Schema(anything).endSchema().endVersion()
                .addNewVersion().withName("v1beta1").withServed(true).withStorage(false).withNewSchema().withOpenAPIV3Schema(anything).endSchema().endVersion()
                .endSpec().build();
        client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
    }
}
