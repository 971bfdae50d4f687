import type { StatusAddress } from '../plan/plan.ts';
import { fail, ok, type Result } from '../support/result.ts';
import { quote } from '../support/message-text.ts';
import { checkWholeNumber, PORT_RANGE } from './schema-fields.ts';

// --status-addr, statusAddr and SIDECAR_INIT_STATUS_ADDR: HOST:PORT, [IPv6]:PORT,
// or :PORT for every interface (what a pod's probes and scraper need: they
// come from the node, not from inside the container). Every interface is `::`,
// which the status server binds for IPv6 and IPv4 alike (or 0.0.0.0 alone on a
// kernel without IPv6), so a dual-stack pod is probed on either family.

const ALL_INTERFACES = '::';
/** Port 0 lets the system choose (the log names the port). */
const STATUS_PORT_RANGE = { ...PORT_RANGE, min: 0 };
const EXAMPLE = 'use HOST:PORT, e.g. 0.0.0.0:9797, 127.0.0.1:9797, [::]:9797 or :9797';

export function parseStatusAddress(text: string): Result<StatusAddress> {
  const colon = text.lastIndexOf(':');
  if (colon < 0) return fail(`${quote(text)} has no port; ${EXAMPLE}`);
  let host = text.slice(0, colon);
  const portText = text.slice(colon + 1);
  if (/[\s/]/.test(host)) return fail(`${quote(text)} does not start with a host name or address; ${EXAMPLE}`);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  else if (host.includes(':')) return fail(`${quote(text)}: an IPv6 address goes in brackets; ${EXAMPLE}`);
  if (/[[\]]/.test(host)) return fail(`${quote(text)} does not start with a host name or address; ${EXAMPLE}`);
  if (!/^\d{1,5}$/.test(portText) || !checkWholeNumber(Number(portText), STATUS_PORT_RANGE).ok) {
    return fail(`${quote(text)}: the port must be a number from ${STATUS_PORT_RANGE.min} to ${STATUS_PORT_RANGE.max}; ${EXAMPLE}`);
  }
  return ok({ host: host === '' ? ALL_INTERFACES : host, port: Number(portText) });
}
