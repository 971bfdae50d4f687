import { isRecord } from '../support/is-record.ts';
import type { JsonRecord } from './pod-fields.ts';

// admission.k8s.io/v1 AdmissionReview, as the API server sends it and wants
// it back. https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#request

export const REVIEW_API_VERSION = 'admission.k8s.io/v1';

export interface ReviewRequest {
  readonly uid: string;
  /** A CREATE of a pod (not a subresource): the only request the webhook patches. */
  readonly isPodCreate: boolean;
  readonly object: JsonRecord | undefined;
  readonly namespace: string | undefined;
}

export type ParsedReview = { readonly ok: true; readonly request: ReviewRequest } | { readonly ok: false; readonly message: string };

/** The request of a review, or what is wrong with it (answered with 400: the API server sent something else than a review). */
export function parseReview(body: string): ParsedReview {
  let review: unknown;
  try {
    review = JSON.parse(body);
  } catch (error) {
    return invalid(`the body is not JSON (${(error as Error).message})`);
  }
  if (!isRecord(review)) return invalid('the body is not a JSON object');
  if (review.kind !== 'AdmissionReview') return invalid(`kind is ${JSON.stringify(review.kind)}, not "AdmissionReview"`);
  if (review.apiVersion !== REVIEW_API_VERSION) {
    return invalid(
      `apiVersion is ${JSON.stringify(review.apiVersion)}; only ${REVIEW_API_VERSION} is served (set admissionReviewVersions: ["v1"])`,
    );
  }
  const request = review.request;
  if (!isRecord(request)) return invalid('the review has no request object');
  if (typeof request.uid !== 'string' || request.uid === '') return invalid('request.uid is missing');
  const resource = isRecord(request.resource) ? request.resource : {};
  const isPodCreate =
    request.operation === 'CREATE' && resource.group === '' && resource.resource === 'pods' && request.subResource === undefined;
  if (isPodCreate && !isRecord(request.object)) return invalid('request.object is missing for a pod CREATE');
  return {
    ok: true,
    request: {
      uid: request.uid,
      isPodCreate,
      object: isRecord(request.object) ? request.object : undefined,
      namespace: typeof request.namespace === 'string' ? request.namespace : undefined,
    },
  };
}

export interface ReviewResponse {
  readonly allowed: boolean;
  readonly patch?: readonly unknown[];
  readonly warnings?: readonly string[];
  readonly message?: string;
}

/** The AdmissionReview the API server expects back, with the request's uid. */
export function createResponse(uid: string, answer: ReviewResponse): string {
  const response: JsonRecord = { uid, allowed: answer.allowed };
  if (answer.patch !== undefined && answer.patch.length > 0) {
    response.patchType = 'JSONPatch';
    response.patch = Buffer.from(JSON.stringify(answer.patch)).toString('base64');
  }
  if (answer.warnings !== undefined && answer.warnings.length > 0) response.warnings = answer.warnings;
  // A denial's message is shown to whoever created the pod (kubectl, or the controller's FailedCreate event).
  if (!answer.allowed) response.status = { code: 403, reason: 'Forbidden', message: answer.message ?? 'denied' };
  return JSON.stringify({ apiVersion: REVIEW_API_VERSION, kind: 'AdmissionReview', response });
}

function invalid(message: string): ParsedReview {
  return { ok: false, message: `not an AdmissionReview: ${message}` };
}
