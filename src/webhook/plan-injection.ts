import { isRecord } from '../support/is-record.ts';
import type { Operation } from './json-patch.ts';
import {
  ARGS,
  COMMAND,
  CONTAINER,
  EXECUTABLE,
  EXTERNALS,
  INIT_CONTAINER_NAME,
  INJECT,
  INJECTED,
  INSTALL,
  INSTALL_DIR,
  NATIVE_SIDECARS,
  STATUS,
  VOLUME_NAME,
} from './annotations.ts';
import { type DetectedProxy, detectProxies } from './detect-proxies.ts';
import { INSTALL_MODES, type InstallMode, isInstallMode } from './install-mode.ts';
import { isStringArray, type JsonRecord, records, stringMap } from './pod-fields.ts';
import { commandLineOverLimit, externalsOverLimit, REVIEW_LIMITS, type ReviewLimits } from './review-limits.ts';
import { splitAnnotation } from './split-annotation.ts';
import { PRESETS } from '../plan/presets.ts';
import { describeSigtermExit } from '../plan/stop-exit-warning.ts';

// What the webhook does to one pod, decided without I/O: leave it alone (with
// a warning when the pod asked for something it cannot get), deny it (the
// pod's own annotations are wrong), or patch it: sidecar-init put into the
// pod (the install init container and its emptyDir, or an image volume of the
// volume image; see install-mode.ts), the wrapped command, externals for the proxies found, and
// a shared process namespace when an external needs one.

/** The command line the webhook would give a container: sidecar-init's flags, "--", the app. */
export interface InjectedCommand {
  readonly flags: readonly string[];
  readonly app: readonly string[];
}

export type ArgsVerdict =
  | { readonly ok: true }
  /** `operand`: the flags hold a word that is not an option, which sidecar-init would run as the app. */
  | { readonly ok: false; readonly message: string; readonly operand?: string };

/** How `sidecar-init validate` would judge a command line; the CLI layer provides it. */
export type CheckArgs = (command: InjectedCommand, env: Readonly<Record<string, string>>) => ArgsVerdict;

export interface InjectionOptions {
  /** The image whose entrypoint is sidecar-init and that runs `install DIR`. */
  readonly image: string;
  /** For pods without the install annotation; copy unless given. */
  readonly installMode?: InstallMode;
  /** The Dockerfile's `volume` target (the executable and its addon at its root), mounted in image-volume mode. */
  readonly volumeImage?: string;
  readonly checkArgs: CheckArgs;
  /** REVIEW_LIMITS unless given. */
  readonly limits?: ReviewLimits;
}

export type Injection =
  | { readonly kind: 'skip'; readonly warnings: readonly string[] }
  | { readonly kind: 'deny'; readonly message: string }
  | {
      readonly kind: 'patch';
      readonly patch: readonly Operation[];
      readonly container: string;
      readonly install: InstallMode;
      readonly externals: readonly string[];
      readonly warnings: readonly string[];
    };

/** The uid of the install step: distroless's nonroot; it only writes the emptyDir, which is world-writable. */
const INSTALL_UID = 65532;

export function planInjection(pod: JsonRecord, options: InjectionOptions): Injection {
  const metadata = isRecord(pod.metadata) ? pod.metadata : {};
  const annotations = stringMap(metadata.annotations);
  if (annotations[INJECT] !== 'true') {
    if (stringMap(metadata.labels)[INJECT] === 'true') {
      return skip(
        `the pod has the label ${INJECT}: "true" but not the annotation; add the annotation ${INJECT}: "true" to inject sidecar-init`,
      );
    }
    return skip();
  }
  if (annotations[STATUS] === INJECTED) return skip();
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const containers = records(spec.containers);
  const initContainers = records(spec.initContainers);
  const volumes = records(spec.volumes);
  if (containers === undefined || initContainers === undefined || volumes === undefined || containers.length === 0) {
    return skip('sidecar-init was not injected: the pod spec has no list of containers');
  }
  const limits = options.limits ?? REVIEW_LIMITS;
  for (const [field, list] of [
    ['containers', containers],
    ['initContainers', initContainers],
  ] as const) {
    if (list.length > limits.maxContainers) {
      return deny(`the pod has ${list.length} ${field}; the sidecar-init webhook reviews pods of at most ${limits.maxContainers}`);
    }
  }
  const taken = [...containers, ...initContainers].some((entry) => entry.name === INIT_CONTAINER_NAME);
  if (taken || volumes.some((volume) => volume.name === VOLUME_NAME)) {
    return skip(`sidecar-init was not injected: the pod already has a container or volume named ${INIT_CONTAINER_NAME}`);
  }

  const install = installOf(annotations, options);
  if (install.kind === 'deny') return install;

  const wanted = annotations[CONTAINER] ?? String(containers[0]?.name);
  const index = containers.findIndex((entry) => entry.name === wanted);
  const target = containers[index];
  if (target === undefined) {
    const names = containers.map((entry) => String(entry.name)).join(', ');
    return deny(`annotation ${CONTAINER} names container "${wanted}", but the pod's containers are ${names}`);
  }
  if (isStringArray(target.command) && target.command[0] === EXECUTABLE) return skip();
  const command = commandOf(target, annotations);
  if (command.kind === 'deny') return command;
  if (command.kind === 'missing') {
    // Kubernetes may cut a warning past 256 characters: the name of a container is at most 63.
    return skip(
      `sidecar-init not injected: container "${wanted}" has no command; add command: [...] (the image's ENTRYPOINT) or the annotation ${COMMAND}`,
    );
  }
  const flags = annotations[ARGS] === undefined ? { ok: true as const, value: [] } : splitAnnotation(ARGS, annotations[ARGS]);
  if (!flags.ok) return deny(flags.message);
  if (flags.value.includes('--')) return deny(`annotation ${ARGS} holds sidecar-init's flags only; the app is the container's command`);
  const tooLong = commandLineOverLimit(flags.value, command.argv, limits);
  if (tooLong !== undefined) return deny(`sidecar-init's command line for container "${wanted}" is too large to review: ${tooLong}`);

  const proxies = detectProxies(containers, initContainers).filter((proxy) => proxy.container !== wanted);
  const externals = proxies
    .filter((proxy) => !proxy.nativeSidecar && !namesPreset(flags.value, proxy.preset))
    .map((proxy) => `${proxy.container}=${proxy.preset}`);
  const allFlags = [...externals.flatMap((external) => ['--external', external]), ...flags.value];
  const tooMany = externalsOverLimit(allFlags, limits);
  if (tooMany !== undefined) return deny(`sidecar-init's command line for container "${wanted}" is too large to review: ${tooMany}`);
  const needsSharing = allFlags.some((flag) => flag === '--external' || flag.startsWith('--external='));
  // The API server refuses shareProcessNamespace beside hostPID; and in the
  // host's namespace an external's search would see every pod's processes.
  if (needsSharing && spec.hostPID === true) {
    return skip(
      `sidecar-init not injected: the pod has hostPID: true, and its externals need shareProcessNamespace, which the API server refuses with hostPID`,
    );
  }
  // Two mounts at one path are refused by the API server too.
  if ((records(target.volumeMounts) ?? []).some((mount) => isInstallDir(mount.mountPath))) {
    return skip(
      `sidecar-init not injected: container "${wanted}" already mounts something at ${INSTALL_DIR}, where sidecar-init is installed`,
    );
  }
  const verdict = options.checkArgs({ flags: allFlags, app: command.argv }, sidecarInitEnv(target));
  if (!verdict.ok && verdict.operand !== undefined) {
    return deny(
      `annotation ${ARGS} holds ${JSON.stringify(verdict.operand)}, which is not an option: sidecar-init would run it as the app, ` +
        `with the container's command as its arguments; put only sidecar-init's options there (the app is the container's command)`,
    );
  }
  if (!verdict.ok) return deny(`sidecar-init's command line for container "${wanted}" is not valid:\n${verdict.message}`);
  const argv = [...allFlags, '--', ...command.argv];
  const patch: Operation[] = [
    annotate(STATUS, INJECTED),
    ...(externals.length > 0 ? [annotate(EXTERNALS, externals.join(','))] : []),
    ...nativeSidecarNote(proxies),
    ...(install.mode === 'copy'
      ? [
          !Array.isArray(spec.initContainers)
            ? ({ op: 'add', path: '/spec/initContainers', value: [installContainer(options.image)] } as const)
            : ({ op: 'add', path: '/spec/initContainers/0', value: installContainer(options.image) } as const),
        ]
      : []),
    !Array.isArray(spec.volumes)
      ? { op: 'add', path: '/spec/volumes', value: [installVolume(install)] }
      : { op: 'add', path: '/spec/volumes/-', value: installVolume(install) },
    { op: 'add', path: `/spec/containers/${index}/command`, value: [EXECUTABLE, ...argv] },
    ...(target.args === undefined ? [] : [{ op: 'remove', path: `/spec/containers/${index}/args` } as const]),
    Array.isArray(target.volumeMounts)
      ? { op: 'add', path: `/spec/containers/${index}/volumeMounts/-`, value: installMount() }
      : { op: 'add', path: `/spec/containers/${index}/volumeMounts`, value: [installMount()] },
    ...(needsSharing && spec.shareProcessNamespace !== true
      ? [{ op: 'add', path: '/spec/shareProcessNamespace', value: true } as const]
      : []),
  ];
  const warnings = [
    ...(isStringArray(target.command) && annotations[COMMAND] !== undefined
      ? [`annotation ${COMMAND} is ignored: container "${wanted}" has its own command`]
      : []),
    ...stopExitWarnings(proxies, containers),
  ];
  return { kind: 'patch', patch, container: wanted, install: install.mode, externals, warnings };
}

type InstallOf =
  | { readonly kind: 'install'; readonly mode: 'copy' }
  | { readonly kind: 'install'; readonly mode: 'image-volume'; readonly volumeImage: string }
  | { readonly kind: 'deny'; readonly message: string };

/**
 * The pod's install annotation, else the webhook's mode. A value the webhook
 * does not know is denied rather than passed over: the pod asked for
 * something precise, and the other form would silently differ (an emptyDir
 * written at every start, or a feature the cluster may not serve).
 */
function installOf(annotations: Readonly<Record<string, string>>, options: InjectionOptions): InstallOf {
  const asked = annotations[INSTALL];
  if (asked !== undefined && !isInstallMode(asked)) {
    return {
      kind: 'deny',
      message: `annotation ${INSTALL} is ${JSON.stringify(asked.slice(0, 64))}; it is one of ${INSTALL_MODES.join(', ')}`,
    };
  }
  const mode = asked ?? options.installMode ?? 'copy';
  switch (mode) {
    case 'copy':
      return { kind: 'install', mode };
    case 'image-volume':
      if (options.volumeImage === undefined) {
        return {
          kind: 'deny',
          message:
            `the pod asks for image-volume, but this webhook was started without --volume-image; ` +
            `use ${INSTALL}: copy, or start the webhook with --volume-image (the image of the Dockerfile's volume target)`,
        };
      }
      return { kind: 'install', mode, volumeImage: options.volumeImage };
    default:
      return mode satisfies never;
  }
}

/**
 * A proxy sidecar-init will stop that exits non-zero on SIGTERM (cloud-sql-proxy: 143) fails the
 * pod, a Job's too, unless its container's command or args enable the quit endpoint or a zero exit.
 * A native sidecar is the kubelet's to stop, not sidecar-init's.
 */
function stopExitWarnings(proxies: readonly DetectedProxy[], containers: readonly JsonRecord[]): string[] {
  return proxies.flatMap((proxy) => {
    if (proxy.nativeSidecar) return [];
    const container = containers.find((entry) => entry.name === proxy.container);
    const args = [container?.command, container?.args].flatMap((list) => (isStringArray(list) ? list : []));
    const warning = describeSigtermExit(PRESETS[proxy.preset], args);
    return warning === undefined ? [] : [`container "${proxy.container}": ${warning}`];
  });
}

type CommandOf =
  | { readonly kind: 'found'; readonly argv: readonly string[] }
  | { readonly kind: 'missing' }
  | { readonly kind: 'deny'; readonly message: string };

/** The program and arguments the container runs: its command and args, or the annotation's command and the container's args. */
function commandOf(container: JsonRecord, annotations: Readonly<Record<string, string>>): CommandOf {
  const args = isStringArray(container.args) ? container.args : [];
  if (isStringArray(container.command) && container.command.length > 0) return { kind: 'found', argv: [...container.command, ...args] };
  const annotated = annotations[COMMAND];
  if (annotated === undefined) return { kind: 'missing' };
  const words = splitAnnotation(COMMAND, annotated);
  if (!words.ok) return { kind: 'deny', message: words.message };
  if (words.value.length === 0) return { kind: 'deny', message: `annotation ${COMMAND} is empty; give the program the image would run` };
  return { kind: 'found', argv: [...words.value, ...args] };
}

/** The mount path is the install folder, as the API server compares mount paths (a trailing "/" aside). */
function isInstallDir(path: unknown): boolean {
  return typeof path === 'string' && path.replace(/\/+$/, '') === INSTALL_DIR;
}

/** The user already named this preset in an --external of their own: the proxy is taken care of. */
function namesPreset(flags: readonly string[], preset: string): boolean {
  return flags.some((flag, i) => {
    const value = flag === '--external' ? flags[i + 1] : flag.startsWith('--external=') ? flag.slice('--external='.length) : undefined;
    return value?.endsWith(`=${preset}`) === true;
  });
}

/** SIDECAR_INIT_* variables given literally in the container's env: they change what sidecar-init accepts. */
function sidecarInitEnv(container: JsonRecord): Record<string, string> {
  const env = records(container.env) ?? [];
  return Object.fromEntries(
    env.flatMap((variable) =>
      typeof variable.name === 'string' && variable.name.startsWith('SIDECAR_INIT_') && typeof variable.value === 'string'
        ? [[variable.name, variable.value]]
        : [],
    ),
  );
}

function nativeSidecarNote(proxies: readonly DetectedProxy[]): Operation[] {
  const native = proxies.filter((proxy) => proxy.nativeSidecar);
  if (native.length === 0) return [];
  const names = native.map((proxy) => `${proxy.container} (${proxy.preset})`).join(', ');
  return [
    annotate(NATIVE_SIDECARS, `${names}: native sidecar, started before and stopped after the app by the kubelet; no external needed`),
  ];
}

/** The pod has annotations (it asked for injection in one); "~1" is the "/" of the key in a JSON Pointer (RFC 6901). */
function annotate(key: string, value: string): Operation {
  return { op: 'add', path: `/metadata/annotations/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, value };
}

function installContainer(image: string): JsonRecord {
  return {
    name: INIT_CONTAINER_NAME,
    image,
    args: ['install', INSTALL_DIR],
    volumeMounts: [{ name: VOLUME_NAME, mountPath: INSTALL_DIR }],
    resources: { requests: { cpu: '10m', memory: '32Mi' } },
    securityContext: {
      runAsNonRoot: true,
      runAsUser: INSTALL_UID,
      runAsGroup: INSTALL_UID,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    },
  };
}

/**
 * Copy: the emptyDir the init container fills. Image volume: the volume image
 * itself, which the kubelet mounts read-only (and not noexec): nothing is
 * written at pod start. IfNotPresent as the API server defaults a tagged
 * image's pull policy; a digest pins it.
 */
function installVolume(install: Exclude<InstallOf, { kind: 'deny' }>): JsonRecord {
  switch (install.mode) {
    case 'copy':
      return { name: VOLUME_NAME, emptyDir: {} };
    case 'image-volume':
      return { name: VOLUME_NAME, image: { reference: install.volumeImage, pullPolicy: 'IfNotPresent' } };
    default:
      return install satisfies never;
  }
}

function installMount(): JsonRecord {
  return { name: VOLUME_NAME, mountPath: INSTALL_DIR, readOnly: true };
}

function skip(...warnings: string[]): Injection {
  return { kind: 'skip', warnings };
}

function deny(message: string): Injection {
  return { kind: 'deny', message };
}
