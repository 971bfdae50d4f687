// How the webhook puts sidecar-init into a pod. "copy": an init container
// copies the executable and its addon into an emptyDir at every pod start
// (any Kubernetes). "image-volume": the Dockerfile's volume image is mounted
// read-only as an image volume (KEP-4639: beta and on by default in 1.35, a
// feature gate in 1.33 and 1.34), so nothing is copied or written.

export const INSTALL_MODES = ['copy', 'image-volume'] as const;
export type InstallMode = (typeof INSTALL_MODES)[number];

export function isInstallMode(value: string): value is InstallMode {
  return (INSTALL_MODES as readonly string[]).includes(value);
}
