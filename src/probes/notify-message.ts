// The sd_notify protocol's messages (https://www.freedesktop.org/software/systemd/man/latest/sd_notify.html):
// newline-separated KEY=VALUE assignments in one datagram. sidecar-init acts on
// READY=1, STATUS=..., WATCHDOG=1 and WATCHDOG=trigger; the rest (RELOADING,
// STOPPING, MAINPID, ERRNO, BARRIER, ...) are accepted and ignored, as a
// service manager that does not implement them would.

/** What one message asks for; undefined fields were not in it. */
export interface NotifyMessage {
  readonly ready: boolean;
  /** The last STATUS= of the message, printable and bounded (see printableStatus). */
  readonly status: string | undefined;
  /** WATCHDOG=1: the process is alive. */
  readonly watchdogPing: boolean;
  /** WATCHDOG=trigger: the process asks to be treated as hung. */
  readonly watchdogTrigger: boolean;
}

/** A STATUS= longer than this is cut: it goes into log lines and /status. */
export const MAX_STATUS_CHARS = 200;

export function parseNotifyMessage(data: Buffer): NotifyMessage {
  let ready = false;
  let status: string | undefined;
  let watchdogPing = false;
  let watchdogTrigger = false;
  for (const line of data.toString('utf8').split('\n')) {
    const equals = line.indexOf('=');
    if (equals <= 0) continue;
    const key = line.slice(0, equals);
    const value = line.slice(equals + 1);
    if (key === 'READY' && value === '1') ready = true;
    else if (key === 'STATUS') status = printableStatus(value);
    else if (key === 'WATCHDOG' && value === '1') watchdogPing = true;
    else if (key === 'WATCHDOG' && value === 'trigger') watchdogTrigger = true;
  }
  return { ready, status, watchdogPing, watchdogTrigger };
}

/**
 * A process's words as they may appear in a log line or a terminal: control
 * characters (C0, DEL, C1) and lone surrogates written as \uXXXX escapes, and
 * at most MAX_STATUS_CHARS characters, so a process cannot forge log lines,
 * move a terminal's cursor or fill the log.
 */
export function printableStatus(text: string): string {
  const cut = text.length > MAX_STATUS_CHARS ? `${text.slice(0, MAX_STATUS_CHARS)}…` : text;
  let printable = '';
  for (let index = 0; index < cut.length; index++) {
    const code = cut.charCodeAt(index);
    const high = code >= 0xd800 && code <= 0xdbff;
    const pairedHigh = high && isLowSurrogate(cut.charCodeAt(index + 1));
    if (pairedHigh) {
      printable += cut.slice(index, index + 2);
      index++;
    } else if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 || high || isLowSurrogate(code)) {
      printable += `\\u${code.toString(16).padStart(4, '0')}`;
    } else {
      printable += cut[index];
    }
  }
  return printable;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
