/**
 * The Kubernetes manifests (k8s/): each overlay is rendered with `kubectl kustomize`, every object
 * is validated against the Kubernetes schemas (kubernetes-models, offline), and the policy points
 * the schemas cannot see are checked on the rendered objects: known container fields only, both
 * probes on the ops port, a restricted security context, secrets only by reference, the project's
 * images, resources, a PodDisruptionBudget, an autoscaler and a Service per Deployment, and only the
 * gateway reachable from outside the namespace. Decisions: docs/adr/0053.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { Service } from 'kubernetes-models/v1/Service';
import { parseAllDocuments } from 'yaml';
import { auditService } from '../services/audit/src/mod.ts';
import { authService } from '../services/auth/src/mod.ts';
import { brainService } from '../services/brain/src/mod.ts';
import { gatewayService } from '../services/gateway/src/mod.ts';
import { proxyService } from '../services/proxy/src/mod.ts';
import { triggerService } from '../services/trigger/src/mod.ts';

const K8S = join(import.meta.dirname, '..', 'k8s');
const OVERLAYS = ['development', 'production'];
const DEFINITIONS = [gatewayService, authService, brainService, proxyService, triggerService, auditService];
const SERVICES = DEFINITIONS.map((definition) => definition.name);

/** The models of every kind the manifests may hold; another kind fails the test. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
};

/** The container fields the manifests use; the schema validators accept any unknown one (a typo). */
const CONTAINER_KEYS = new Set([
  'name',
  'image',
  'imagePullPolicy',
  'command',
  'args',
  'env',
  'envFrom',
  'ports',
  'startupProbe',
  'livenessProbe',
  'readinessProbe',
  'lifecycle',
  'resources',
  'securityContext',
  'volumeMounts',
]);

/** The fields of a workload's spec and pod spec the manifests use (unknown ones pass the schemas too). */
const SPEC_KEYS: Record<string, Set<string>> = {
  Deployment: new Set(['replicas', 'revisionHistoryLimit', 'strategy', 'selector', 'template']),
  Job: new Set(['backoffLimit', 'activeDeadlineSeconds', 'ttlSecondsAfterFinished', 'template']),
  pod: new Set([
    'automountServiceAccountToken',
    'enableServiceLinks',
    'terminationGracePeriodSeconds',
    'restartPolicy',
    'securityContext',
    'topologySpreadConstraints',
    'containers',
    'volumes',
  ]),
};

function unknownKeys(object: object, known: Set<string> | undefined): string[] {
  return Object.keys(object).filter((key) => !known?.has(key));
}

/** An env var with such a name holds a secret (INTROSPECTION_CLIENT_ID is not one). */
const SECRET_NAME = /SECRET|PASSWORD|_KEY$|_KEYS$|KEY_|SEED|CLIENTS$|DATABASE_URL|CREDS/;

/** kit's Shutdown gives the closers 8 s (packages/kit/src/lifecycle/shutdown.ts). */
const DRAIN_SECONDS = 8;

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

function render(overlay: string): K8sObject[] {
  const result = spawnSync('kubectl', ['kustomize', join(K8S, 'overlays', overlay)], { encoding: 'utf8' });
  if (result.error)
    throw new Error(
      `kubectl kustomize could not run (${result.error.message}); install kubectl (k8s/README.md)`,
    );
  if (result.status !== 0) throw new Error(`kubectl kustomize failed: ${result.stderr}`);
  return parseAllDocuments(result.stdout).map((document) => document.toJS() as K8sObject);
}

const rendered = new Map(OVERLAYS.map((overlay) => [overlay, render(overlay)]));

function ofKind<T>(objects: K8sObject[], kind: string): (K8sObject & T)[] {
  return objects.filter((object) => object.kind === kind) as (K8sObject & T)[];
}

type WithPod = { spec: { template: { metadata: { labels: Record<string, string> }; spec: IPodSpec } } };

function workloads(objects: K8sObject[]): (K8sObject & WithPod)[] {
  return [...ofKind<WithPod>(objects, 'Deployment'), ...ofKind<WithPod>(objects, 'Job')];
}

describe.each(OVERLAYS)('k8s/overlays/%s', (overlay) => {
  const objects = rendered.get(overlay) ?? [];

  test('every object is of a known kind and validates against the Kubernetes schemas', () => {
    expect(objects.length).toBeGreaterThan(0);
    for (const object of objects) {
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      if (!Model)
        throw new Error(`${object.kind} ${object.metadata.name}: no model for ${object.apiVersion}`);
      expect(() => new Model(object as never).validate()).not.toThrow();
      expect(object.metadata.namespace).toBe(overlay === 'production' ? 'pag' : 'pag-dev');
    }
  });

  test('a Deployment, Service, PodDisruptionBudget and autoscaler per service, and the migration Job', () => {
    const names = (kind: string) => ofKind(objects, kind).map((object) => object.metadata.name);
    const expected = SERVICES.map((service) => `pag-${service}`).sort();
    for (const kind of ['Deployment', 'Service', 'PodDisruptionBudget', 'HorizontalPodAutoscaler'])
      expect(names(kind).sort()).toEqual(expected);
    expect(names('Job')).toEqual(['pag-migrate']);
    for (const hpa of ofKind<{ spec: { scaleTargetRef: { kind: string; name: string } } }>(
      objects,
      'HorizontalPodAutoscaler',
    ))
      expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: hpa.metadata.name });
    for (const pdb of ofKind<{ spec: { selector: { matchLabels: Record<string, string> } } }>(
      objects,
      'PodDisruptionBudget',
    ))
      expect(pdb.spec.selector.matchLabels['app.kubernetes.io/name']).toBe(
        pdb.metadata.name.replace('pag-', ''),
      );
  });

  test('workloads, pods and containers hold only known fields, the pag/* images, requests and limits', () => {
    for (const workload of workloads(objects)) {
      const name = `${workload.kind} ${workload.metadata.name}`;
      expect({ name, unknown: unknownKeys(workload.spec, SPEC_KEYS[workload.kind]) }).toEqual({
        name,
        unknown: [],
      });
      expect({ name, unknown: unknownKeys(workload.spec.template.spec, SPEC_KEYS.pod) }).toEqual({
        name,
        unknown: [],
      });
      for (const container of workload.spec.template.spec.containers) {
        const where = `${workload.metadata.name}/${container.name}`;
        expect({ where, unknown: unknownKeys(container, CONTAINER_KEYS) }).toEqual({ where, unknown: [] });
        expect(container.image).toMatch(/^pag\/[a-z]+:\d+\.\d+\.\d+$/);
        for (const part of ['requests', 'limits'] as const)
          expect(Object.keys(container.resources?.[part] ?? {}).sort()).toEqual(['cpu', 'memory']);
      }
    }
  });

  test('every Deployment probes /healthz and /readyz on its OPS_PORT and outlasts the drain', () => {
    for (const deployment of ofKind<WithPod>(objects, 'Deployment')) {
      const pod = deployment.spec.template.spec;
      const [container] = pod.containers as [IContainer];
      const opsPort = Number(container.env?.find((variable) => variable.name === 'OPS_PORT')?.value);
      expect(container.ports?.find((port) => port.name === 'ops')?.containerPort).toBe(opsPort);
      for (const [probe, path] of [
        [container.livenessProbe, '/healthz'],
        [container.readinessProbe, '/readyz'],
      ] as const) {
        expect(probe?.httpGet?.path).toBe(path);
        expect([opsPort, 'ops']).toContain(probe?.httpGet?.port);
      }
      const preStop = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(preStop + DRAIN_SECONDS);
      expect(deployment.spec.template.metadata.labels['app.kubernetes.io/name']).toBe(container.name);
    }
  });

  test("every Deployment sets only its service's config keys, each required one among them", () => {
    const configMaps = ofKind<{ data: Record<string, string> }>(objects, 'ConfigMap');
    for (const definition of DEFINITIONS) {
      const deployment = ofKind<WithPod>(objects, 'Deployment').find(
        (object) => object.metadata.name === `pag-${definition.name}`,
      );
      const [container] = (deployment?.spec.template.spec.containers ?? []) as [IContainer];
      const fromConfigMaps = (container.envFrom ?? []).flatMap((source) =>
        Object.keys(configMaps.find((map) => map.metadata.name === source.configMapRef?.name)?.data ?? {}),
      );
      const given = new Set([...fromConfigMaps, ...(container.env ?? []).map((variable) => variable.name)]);
      for (const variable of container.env ?? []) {
        const ref = variable.valueFrom?.configMapKeyRef;
        if (ref)
          expect(configMaps.find((map) => map.metadata.name === ref.name)?.data[ref.key]).toEqual(
            expect.any(String),
          );
      }
      const keys = definition.config.env;
      expect({
        service: definition.name,
        unknown: [...given].filter((key) => !Object.hasOwn(keys, key)),
      }).toEqual({
        service: definition.name,
        unknown: [],
      });
      const required = Object.entries(keys)
        .filter(([, schema]) => !schema.safeParse(undefined).success)
        .map(([key]) => key);
      expect({ service: definition.name, missing: required.filter((key) => !given.has(key)) }).toEqual({
        service: definition.name,
        missing: [],
      });
    }
  });

  test('every pod runs as UID 10001 on a read-only root, without privilege, capabilities or seccomp off', () => {
    for (const workload of workloads(objects)) {
      const pod = workload.spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
      expect(pod.securityContext?.seccompProfile?.type).toBe('RuntimeDefault');
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const container of pod.containers) {
        expect(container.securityContext).toMatchObject({
          runAsNonRoot: true,
          runAsUser: 10001,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
        expect(container.securityContext?.privileged).not.toBe(true);
        const emptyDirs = new Set(
          pod.volumes?.filter((volume) => volume.emptyDir).map((volume) => volume.name),
        );
        for (const mount of container.volumeMounts ?? []) expect(emptyDirs.has(mount.name)).toBe(true);
      }
    }
  });

  test('secrets come only from Secret references: no Secret object, no value in env or ConfigMap', () => {
    expect(ofKind(objects, 'Secret')).toEqual([]);
    for (const workload of workloads(objects)) {
      for (const container of workload.spec.template.spec.containers) {
        for (const variable of container.env ?? []) {
          if (!SECRET_NAME.test(variable.name)) continue;
          expect({ name: variable.name, value: variable.value }).toEqual({
            name: variable.name,
            value: undefined,
          });
          expect(variable.valueFrom?.secretKeyRef?.key).toBe(variable.name);
        }
        expect(
          (container.envFrom ?? []).filter((source) => source.secretRef || !source.configMapRef),
        ).toEqual([]);
      }
    }
    for (const configMap of ofKind<{ data: Record<string, string> }>(objects, 'ConfigMap'))
      expect(Object.keys(configMap.data).filter((key) => SECRET_NAME.test(key))).toEqual([]);
  });

  test('only the gateway takes traffic from outside the namespace; everything else is denied by default', () => {
    type Rule = {
      from?: { podSelector?: unknown; namespaceSelector?: { matchLabels?: Record<string, string> } }[];
    };
    type Policy = { spec: { podSelector: { matchLabels?: Record<string, string> }; ingress?: Rule[] } };
    const policies = ofKind<Policy>(objects, 'NetworkPolicy');
    const denyAll = policies.find((policy) => Object.keys(policy.spec.podSelector).length === 0);
    expect(denyAll?.spec.ingress).toBeUndefined();
    for (const policy of policies) {
      const app = policy.spec.podSelector.matchLabels?.['app.kubernetes.io/name'];
      for (const rule of policy.spec.ingress ?? []) {
        const fromAnywhere = !rule.from;
        const fromOtherNamespace = rule.from?.some(
          (peer) =>
            peer.namespaceSelector &&
            peer.namespaceSelector.matchLabels?.['kubernetes.io/metadata.name'] !== 'monitoring',
        );
        if (fromAnywhere || fromOtherNamespace) expect(app).toBe('gateway');
      }
    }
    const ingresses = ofKind<{
      spec: { rules: { http: { paths: { backend: { service: { name: string } } }[] } }[] };
    }>(objects, 'Ingress');
    const backends = ingresses.flatMap((ingress) =>
      ingress.spec.rules.flatMap((rule) => rule.http.paths.map((path) => path.backend.service.name)),
    );
    expect(new Set(backends)).toEqual(new Set(['pag-gateway']));
  });
});
