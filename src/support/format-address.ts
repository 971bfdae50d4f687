// HOST:PORT as a user writes it and a URL needs it: an IPv6 host in brackets.

/** HOST:PORT, an IPv6 address in brackets. */
export function formatAddress(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
