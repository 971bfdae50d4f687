import { describeCommand } from '../config/command.ts';
import { formatDuration } from '../config/duration.ts';
import { planOptionLines } from '../config/global-options.ts';
import type { Plan } from '../plan/plan.ts';
import { type HookView, type PlanView, planView, type ProcessView } from './plan-view.ts';

// `sidecar-init plan`: the same facts as --json, for a person at a terminal;
// the options' lines are their rows' (global-options.ts).

export function planText(plan: Plan): string {
  const view = planView(plan);
  const lines: string[] = [];
  lines.push('start (each wave once the one before is ready or done):');
  lines.push(...numbered(view.start));
  lines.push('stop (each wave once the one before is down):');
  lines.push(...numbered(view.stop));
  lines.push(...planOptionLines(plan));
  lines.push('');
  lines.push('processes (in start order):');
  for (const process of view.processes) lines.push(...processLines(process));
  return `${lines.join('\n')}\n`;
}

function processLines(process: ProcessView): string[] {
  const field = (label: string, value: string): string => `    ${`${label}:`.padEnd(11)} ${value}`;
  if (process.external !== null) return externalLines(process, process.external, field);
  const lines = [`  ${process.name} (${process.role})`, field('command', describeCommand(process.command))];
  if (process.user !== null)
    lines.push(field('user', `${process.user.uid === null ? '' : `uid ${process.user.uid}, `}gid ${process.user.gid}`));
  if (process.after.length > 0) lines.push(field('after', process.after.join(', ')));
  const { readiness, liveness, restart } = process;
  if (readiness !== null) {
    lines.push(
      field(
        'readiness',
        `${readiness.probe} every ${formatDuration(readiness.periodMs)}, timeout ${formatDuration(readiness.timeoutMs)}, ` +
          `deadline ${formatDuration(readiness.deadlineMs)}; once started every ${formatDuration(readiness.periodAfterStartMs)}`,
      ),
    );
  }
  if (liveness !== null) {
    lines.push(
      field(
        'liveness',
        `${liveness.probe} every ${formatDuration(liveness.periodMs)}, timeout ${formatDuration(liveness.timeoutMs)}, ` +
          `restarted after ${liveness.failureThreshold} failures in a row` +
          (liveness.initialDelayMs > 0 ? `, from ${formatDuration(liveness.initialDelayMs)} after start` : ''),
      ),
    );
  }
  const limit = restart.maxRestarts === null ? 'no limit' : `at most ${restart.maxRestarts}`;
  lines.push(
    field(
      'restart',
      restart.policy === 'never'
        ? 'never'
        : `${restart.policy}, backoff ${formatDuration(restart.initialBackoffMs)} doubling to ${formatDuration(restart.maxBackoffMs)}, ` +
            `reset after ${formatDuration(restart.resetAfterMs)}, ${limit}`,
    ),
  );
  if (process.fatal) lines.push(field('fatal', 'yes: its end ends the pod with exit 69'));
  if (process.role !== 'init') {
    const signal = process.stopSignal ?? (process.role === 'app' ? 'SIGTERM (on termination: the signal received)' : 'SIGTERM');
    const target = process.signalTarget === 'group' ? 'its process group' : 'the process alone';
    const grace = process.graceMs === null ? '' : `, waited for at most ${formatDuration(process.graceMs)}`;
    lines.push(field('stop', `${signal}, to ${target}${grace}`));
  }
  if (process.postStart !== null) lines.push(field('postStart', describeHookView(process.postStart)));
  if (process.preStop !== null) lines.push(field('preStop', describeHookView(process.preStop)));
  if (process.output !== 'inherit') lines.push(field('output', process.output));
  if (process.successCodes.length > 0) lines.push(field('success', `exit codes ${process.successCodes.join(', ')} count as 0`));
  return lines;
}

function numbered(waves: PlanView['start']): string[] {
  return waves.map((wave, index) => `  ${index + 1}. ${wave.join(', ')}`);
}

function describeHookView(hook: HookView): string {
  return `${hook.describe}, timeout ${formatDuration(hook.timeoutMs)}`;
}

/** A process of another container: never started, so no command, restart or signal target of its own. */
function externalLines(
  process: ProcessView,
  external: NonNullable<ProcessView['external']>,
  field: (label: string, value: string) => string,
): string[] {
  const lines = [`  ${process.name} (external${external.preset === null ? '' : `, preset ${external.preset}`})`];
  const optional = external.optional ? ' (optional: skipped if absent at its deadline)' : '';
  const host = external.allowHost ? ' (also among the host’s processes: allowHost)' : '';
  lines.push(field('finds', `${external.match}${optional}${host}`));
  if (process.after.length > 0) lines.push(field('after', process.after.join(', ')));
  const { readiness } = process;
  if (readiness !== null) {
    lines.push(
      field(
        'readiness',
        `${readiness.probe} every ${formatDuration(readiness.periodMs)}, deadline ${formatDuration(readiness.deadlineMs)}`,
      ),
    );
  }
  const kept = external.stopOnFailure ? '' : '; left running when sidecar-init exits non-zero';
  const waited =
    external.stop === 'none' ? '' : external.announced === null ? ', then waited for within the budget' : ', within the budget';
  const warning = external.stopWarning === null ? '' : `; ${external.stopWarning}`;
  lines.push(field('stop', `${external.stop}${waited}${kept}${warning}`));
  return lines;
}
