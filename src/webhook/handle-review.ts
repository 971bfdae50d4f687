import { createResponse, parseReview } from './admission-review.ts';
import { type InjectionOptions, planInjection } from './plan-injection.ts';

export interface ReviewOutcome {
  /** The HTTP status: 200 with a review, or 400 with a message for a body that is not one. */
  readonly status: number;
  readonly body: string;
  /** For the log: what was decided, and for which pod. */
  readonly decision: 'patched' | 'skipped' | 'denied' | 'not-a-pod-create' | 'malformed';
  readonly pod?: string;
  readonly detail?: string;
}

/** One POSTed AdmissionReview → the answer. Pure apart from the checker of command lines it is given. */
export function handleReview(body: string, options: InjectionOptions): ReviewOutcome {
  const parsed = parseReview(body);
  if (!parsed.ok) return { status: 400, body: `${parsed.message}\n`, decision: 'malformed', detail: parsed.message };
  const { request } = parsed;
  if (!request.isPodCreate || request.object === undefined) {
    return { status: 200, body: createResponse(request.uid, { allowed: true }), decision: 'not-a-pod-create' };
  }
  const pod = podName(request.object, request.namespace);
  const injection = planInjection(request.object, options);
  switch (injection.kind) {
    case 'skip':
      return {
        status: 200,
        body: createResponse(request.uid, { allowed: true, warnings: injection.warnings }),
        decision: 'skipped',
        pod,
        ...(injection.warnings.length > 0 ? { detail: injection.warnings.join('; ') } : {}),
      };
    case 'deny':
      return {
        status: 200,
        body: createResponse(request.uid, { allowed: false, message: injection.message }),
        decision: 'denied',
        pod,
        detail: injection.message,
      };
    case 'patch':
      return {
        status: 200,
        body: createResponse(request.uid, { allowed: true, patch: injection.patch, warnings: injection.warnings }),
        decision: 'patched',
        pod,
        detail: `container ${injection.container}, ${injection.install}${injection.externals.length > 0 ? `, externals ${injection.externals.join(',')}` : ''}`,
      };
    default:
      return injection satisfies never;
  }
}

/** namespace/name, or namespace/generateName… for a pod a controller creates (its name is given after admission). */
function podName(object: Record<string, unknown>, namespace: string | undefined): string {
  const metadata = (object.metadata ?? {}) as Record<string, unknown>;
  const name =
    typeof metadata.name === 'string' ? metadata.name : typeof metadata.generateName === 'string' ? `${metadata.generateName}…` : '?';
  return `${namespace ?? '?'}/${name}`;
}
