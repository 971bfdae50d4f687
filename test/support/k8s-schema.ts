import { MutatingWebhookConfiguration } from 'kubernetes-models/admissionregistration.k8s.io/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { ConfigMap, Namespace, Pod, Service } from 'kubernetes-models/v1';

// The Kubernetes API's own schema (its OpenAPI document, compiled by
// kubernetes-models) for the kinds sidecar-init's manifests use. It checks
// types, required fields and enums; what it cannot say (unique names, DNS
// labels, references between fields) is checked beside it, in the tests.

interface Model {
  validate(): void;
}

const MODELS: Readonly<Record<string, new (data: never) => Model>> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Pod': Pod,
  'v1/Service': Service,
  'v1/Namespace': Namespace,
  'batch/v1/Job': Job,
  'apps/v1/Deployment': Deployment,
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': MutatingWebhookConfiguration,
};

export const SCHEMA_KINDS = Object.keys(MODELS);

/** Throws the schema's message (field paths and what was wrong) when the document breaks the API schema of its kind. */
export function validateAgainstSchema(document: { readonly apiVersion?: unknown; readonly kind?: unknown }): void {
  const key = `${String(document.apiVersion)}/${String(document.kind)}`;
  const model = MODELS[key];
  if (model === undefined) throw new Error(`no API schema here for ${key}; known: ${SCHEMA_KINDS.join(', ')}`);
  new model(document as never).validate();
}

/** A pod as the API server would store it: the Pod schema. */
export function validatePod(pod: unknown): void {
  validateAgainstSchema({ apiVersion: 'v1', kind: 'Pod', ...(pod as object) });
}
