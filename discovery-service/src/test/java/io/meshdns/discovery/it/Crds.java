package io.meshdns.discovery.it;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/** The Istio ServiceEntry CRD, registered in a test server before discovery's generic informer starts. */
final class Crds {
    private Crds() {
    }

    static void registerServiceEntry(KubernetesClient client) {
        JSONSchemaProps anything = new JSONSchemaPropsBuilder().withType("object").withXKubernetesPreserveUnknownFields(true).build();
        CustomResourceDefinition crd = new CustomResourceDefinitionBuilder()
                .withNewMetadata().withName("serviceentries.networking.istio.io").endMetadata()
                .withNewSpec().withGroup("networking.istio.io").withScope("Namespaced")
                .withNewNames().withKind("ServiceEntry").withPlural("serviceentries").withSingular("serviceentry").withListKind("ServiceEntryList").endNames()
                .addNewVersion().withName("v1").withServed(true).withStorage(true).withNewSchema().withOpenAPIV3Schema(anything).endSchema().endVersion()
                .addNewVersion().withName("v1beta1").withServed(true).withStorage(false).withNewSchema().withOpenAPIV3Schema(anything).endSchema().endVersion()
                .endSpec().build();
        client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
    }
}
