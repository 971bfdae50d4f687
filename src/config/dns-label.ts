import { quote } from './result.ts';

// Process names become log fields, and later status paths and Kubernetes-style
// references, so they follow the rule for Kubernetes container names: an
// RFC 1123 DNS label.

/** Also the `pattern` of `name` in the JSON Schema. */
export const DNS_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
const DNS_LABEL = new RegExp(DNS_LABEL_PATTERN);
export const DNS_LABEL_MAX_LENGTH = 63;

/** A message saying what is wrong with the name, or undefined when it is fine. */
export function validateName(name: string): string | undefined {
  if (!DNS_LABEL.test(name)) {
    return (
      `${quote(name)} is not a valid name; use lower-case letters, digits and "-", ` +
      'starting and ending with a letter or digit (a DNS label, like a Kubernetes container name)'
    );
  }
  if (name.length > DNS_LABEL_MAX_LENGTH) {
    return `${quote(name)} is ${name.length} characters long; a name has at most ${DNS_LABEL_MAX_LENGTH} (a DNS label)`;
  }
  return undefined;
}
