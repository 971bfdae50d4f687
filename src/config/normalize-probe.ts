import { normalizeCommand } from './normalize-command.ts';
import { normalizeHeaders } from './normalize-headers.ts';
import { parseHttpUrl } from './parse-http-url.ts';
import { parseFilePath, parseLogPattern, parseProbe } from './parse-probe.ts';
import type { ProbeSpec } from './plan.ts';
import { at, valueOrReport, type Origin, type Report } from './problem.ts';
import type { RawProbe } from './probe-schema.ts';
import type { Salvaged } from './salvage.ts';
import { checkWholeNumber, HTTP_STATUS_RANGE, PORT_RANGE } from './whole-number.ts';

type ProbeObject = Exclude<Salvaged<RawProbe>, string>;

/** A probe in either form; reports and returns undefined when unusable. */
export function normalizeProbe(raw: Salvaged<RawProbe>, origin: Origin, report: Report): ProbeSpec | undefined {
  if (typeof raw === 'string') return valueOrReport(parseProbe(raw), origin, report);
  return normalizeProbeObject(raw, origin, report);
}

function normalizeProbeObject(raw: ProbeObject, origin: Origin, report: Report): ProbeSpec | undefined {
  const { tcp, http, exec, log, file } = raw;
  // Exactly one kind: the schema reported none or several.
  const kinds = [tcp, http, exec, log, file].filter((kind) => kind !== undefined);
  if (kinds.length !== 1) return undefined;
  if (tcp !== undefined) {
    const portOrigin = at(origin, 'tcp', 'port');
    const port = tcp.port === undefined ? undefined : valueOrReport(checkWholeNumber(tcp.port, PORT_RANGE), portOrigin, report);
    if (tcp.host === '') report(at(origin, 'tcp', 'host'), 'is empty; give a host name or address, e.g. 127.0.0.1');
    if (tcp.host === undefined || tcp.host === '' || port === undefined) return undefined;
    return { kind: 'tcp', host: tcp.host.replace(/^\[(.*)\]$/s, '$1'), port };
  }
  if (http !== undefined) return normalizeHttpProbe(http, at(origin, 'http'), report);
  if (exec !== undefined) {
    const command = normalizeCommand(exec, at(origin, 'exec'), report);
    return command === undefined ? undefined : { kind: 'exec', command };
  }
  if (log !== undefined) {
    const pattern = valueOrReport(parseLogPattern(log), at(origin, 'log'), report);
    return pattern === undefined ? undefined : { kind: 'log', pattern };
  }
  const path = valueOrReport(parseFilePath(file ?? ''), at(origin, 'file'), report);
  return path === undefined ? undefined : { kind: 'file', path };
}

function normalizeHttpProbe(raw: NonNullable<ProbeObject['http']>, origin: Origin, report: Report): ProbeSpec | undefined {
  const url = raw.url === undefined ? undefined : valueOrReport(parseHttpUrl(raw.url, 'probe'), at(origin, 'url'), report);
  const headers = normalizeHeaders(raw.headers ?? {}, at(origin, 'headers'), report);
  const statuses = raw.expectStatus?.map((status, index) =>
    valueOrReport(checkWholeNumber(status, HTTP_STATUS_RANGE), at(origin, 'expectStatus', index), report),
  );
  if (url === undefined || headers === undefined || statuses?.includes(undefined)) return undefined;
  return { kind: 'http', url, headers, expectStatus: statuses as number[] | undefined };
}
