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
 * `http://u:p@host:8080/live?token=t#x` → `http://***@host:8080/live?***#***`
 * (fragment only when there is no query: everything from the first "?" or "#"
 * goes). Cut by its characters, not parsed: a config error must show the text
 * the user wrote, which may not parse at all, and a URL parser's idea of where
 * the userinfo ends differs from a careless writer's (a "/" in a password).
 * So it errs on the side of hiding: everything between "//" and the last "@"
 * before the query goes, even an "@" that a parser would read as part of the path.
 */
export function redactUrl(text: string): string {
  const cut = text.search(/[?#]/);
  const head = cut === -1 ? text : text.slice(0, cut);
  const tail = cut === -1 ? '' : `${text[cut]}${REDACTED}`;
  const at = head.lastIndexOf('@');
  if (at === -1) return `${head}${tail}`;
  // WHATWG URLs read "\\" as "//" in http URLs.
  const slashes = head.search(/[/\\]{2}/);
  const start = slashes !== -1 && slashes < at ? slashes + 2 : 0;
  return `${head.slice(0, start)}${REDACTED}${head.slice(at)}${tail}`;
}
