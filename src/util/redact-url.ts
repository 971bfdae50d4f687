// URLs reach log lines, failure reasons and config errors, and the URLs users
// write carry secrets where they fit: a token in the query
// (`/live?token=…`, `/quitquitquit?key=…`) or credentials in the userinfo
// (`http://user:password@…`). Every URL sidecar-init prints passes through
// here first; the full URL is never printed. The path stays: it says which
// endpoint failed, and a secret in a path cannot be told from a route.

/** What stands in for a removed userinfo, query or fragment. */
export const REDACTED = '***';

/**
 * The URL with its userinfo, query and fragment replaced by ***:
 * `http://u:p@host:8080/live?token=t#x` → `http://***@host:8080/live?***#***`.
 * Text that does not parse as a URL (a config value being rejected) is cut by
 * its characters instead, erring on the side of hiding too much: everything
 * from the first "?" or "#", and everything before the last "@" up to the "//".
 */
export function redactUrl(text: string): string {
  const url = parseUrl(text);
  if (url === undefined) return redactText(text);
  const userinfo = url.username !== '' || url.password !== '' ? `${REDACTED}@` : '';
  // `search` is '' for a bare "?", which carries nothing.
  const query = url.search === '' ? '' : `?${REDACTED}`;
  const fragment = url.hash === '' ? '' : `#${REDACTED}`;
  // host, not origin: origin is "null" for schemes other than http(s), ws(s) and ftp.
  const authority = url.host === '' && !text.includes('//') ? '' : `//${userinfo}${url.host}`;
  return `${url.protocol}${authority}${url.pathname}${query}${fragment}`;
}

function redactText(text: string): string {
  const cut = text.search(/[?#]/);
  let head = cut === -1 ? text : text.slice(0, cut);
  const tail = cut === -1 ? '' : `${text[cut]}${REDACTED}`;
  const at = head.lastIndexOf('@');
  if (at !== -1) {
    const slashes = head.indexOf('//');
    head = slashes !== -1 && slashes < at ? `${head.slice(0, slashes + 2)}${REDACTED}${head.slice(at)}` : `${REDACTED}${head.slice(at)}`;
  }
  return `${head}${tail}`;
}

/** URL.parse, which needs Node 22.1 (engines says >=22). */
function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
