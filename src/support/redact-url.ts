// URLs reach log lines, failure reasons and config errors, and the URLs users
// write carry secrets where they fit: a token in the query
// (`/live?token=…`, `/quitquitquit?key=…`) or credentials in the userinfo
// (`http://user:password@…`). Every URL sidecar-init prints passes through
// here first; the full URL is never printed. The path stays: it says which
// endpoint failed, and a secret in a path cannot be told from a route.

/** What stands in for a removed userinfo, query or fragment. */
export const REDACTED = '***';

/**
 * The URL as written, with its userinfo, query and fragment replaced by ***:
 * `http://u:p@host:8080/live?token=t#x` → `http://***@host:8080/live?***`
 * (everything from the first "?" or "#" goes). The text is cut, not rebuilt
 * from a parse, because a config error must show what the user wrote. Where
 * the userinfo ends is the URL parser's answer when the text parses (the last
 * "@" before the path); when it does not (a config value being rejected, say a
 * "/" in a password), everything between "//" and the last "@" before the
 * query goes, erring on the side of hiding.
 */
export function redactUrl(text: string): string {
  const cut = text.search(/[?#]/);
  const head = cut === -1 ? text : text.slice(0, cut);
  const tail = cut === -1 ? '' : `${text[cut]}${REDACTED}`;
  // WHATWG URLs read "\\" as "//" in http URLs.
  const slashes = head.search(/[/\\]{2}/);
  const start = slashes === -1 ? 0 : slashes + 2;
  const parsed = parseUrl(text);
  let end = head.length;
  if (parsed !== undefined) {
    if (parsed.username === '' && parsed.password === '') return `${head}${tail}`;
    const path = head.slice(start).search(/[/\\]/);
    if (path !== -1) end = start + path;
  }
  const at = head.lastIndexOf('@', end - 1);
  if (at < start) return `${head}${tail}`;
  return `${head.slice(0, start)}${REDACTED}${head.slice(at)}${tail}`;
}

/** A scheme and "//", then everything up to the next blank or quote: a URL inside free text. */
const URL_IN_TEXT = /[A-Za-z][A-Za-z0-9+.-]*:[/\\]{2}[^\s"'`]*/g;

/**
 * Free text (a flag as typed, a command line) with every URL in it redacted
 * as redactUrl does: `db=http://u:p@h:1/?t=x` → `db=http://***@h:1/?***`.
 */
export function redactUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => redactUrl(url));
}

/** A URL, or undefined where it does not parse (URL.parse needs Node 22.1; engines says >=22). */
export function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
