// The pod annotations (and the one label) the injection webhook reads and
// writes. They are the whole interface between a pod's author and the webhook.

/** "true" asks for injection. Its label twin lets the API server call the webhook for such pods only (objectSelector). */
export const INJECT = 'sidecar-init.io/inject';
/** The container whose command is wrapped (default: the first container). */
export const CONTAINER = 'sidecar-init.io/container';
/** sidecar-init's flags, split like a shell splits words, or a JSON array of strings. */
export const ARGS = 'sidecar-init.io/args';
/** The command to wrap when the container has no `command` (the image's ENTRYPOINT, which the webhook cannot see). */
export const COMMAND = 'sidecar-init.io/command';
/** How sidecar-init gets into the pod: "copy" (an init container copies it into an emptyDir) or "image-volume"; the webhook's --install-mode by default. */
export const INSTALL = 'sidecar-init.io/install';
/** Written by the webhook: the pod was injected; a pod carrying it is left alone. */
export const STATUS = 'sidecar-init.io/status';
/** Written by the webhook: the externals it added for proxies found in the pod, NAME=PRESET. */
export const EXTERNALS = 'sidecar-init.io/externals';
/** Written by the webhook: the proxies that are native sidecars, which need no external. */
export const NATIVE_SIDECARS = 'sidecar-init.io/native-sidecars';

export const INJECTED = 'injected';

/** Where the install init container puts the executable, in an emptyDir of this name, or where the image volume of this name is mounted. */
export const VOLUME_NAME = 'sidecar-init';
export const INIT_CONTAINER_NAME = 'sidecar-init';
export const INSTALL_DIR = '/opt/sidecar-init';
export const EXECUTABLE = `${INSTALL_DIR}/sidecar-init`;
