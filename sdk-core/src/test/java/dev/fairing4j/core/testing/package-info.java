/**
 * Shared test fixtures, shipped in sdk-core's test-jar so every module tests against the same
 * real parts instead of hand-made fakes.
 *
 * <ul>
 *   <li>{@link dev.fairing4j.core.testing.RegistryExtension}: a real Distribution registry
 *       process (plain HTTP, or TLS + htpasswd) with a request log read from its access log;
 *       {@link dev.fairing4j.core.testing.Skopeo} inspects what it holds independently of Jib.
 *   <li>{@link dev.fairing4j.core.testing.CrdSchemaValidator}: strict validation of rendered
 *       manifests against the Kubeflow v1.9.4 CRD schemas, the operator webhook's rules and core
 *       pod rules.
 *   <li>{@link dev.fairing4j.core.testing.KubernetesApiFixture}: fabric8's mock API server in
 *       CRUD mode behind a client-java {@code ApiClient} and a kubeconfig file.
 *   <li>{@link dev.fairing4j.core.testing.Tools} and {@link dev.fairing4j.core.testing.Tags}:
 *       find required programs (failing with an apt-get hint, never skipping) and tag tests that
 *       need what these machines lack.
 * </ul>
 *
 * <p>The test-jar brings no dependencies: a module declares, test-scoped, what the fixtures it
 * uses need: junit-jupiter and assertj always; jackson-databind for the registry and skopeo
 * helpers; jackson-databind and jackson-dataformat-yaml for the validator; client-java,
 * kubernetes-server-mock and kubernetes-client for the Kubernetes fixture.
 */
package dev.fairing4j.core.testing;
