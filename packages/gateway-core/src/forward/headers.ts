import { ASSERTION_HEADER } from '@tollgate/contract';
import { ConfigError, type ConfigProblem } from '../errors.js';

/** RFC 9110 token: the characters a header name may have. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** CR, LF and NUL would end the header line and start another. */
const UNSAFE_VALUE = /[\r\n\0]/;

/**
 * Headers about the connection or the message framing, owned by the HTTP
 * client (RFC 9110 7.6.1 hop-by-hop, plus framing). Configuring one would
 * corrupt or smuggle requests, so it is refused; downstream responses have
 * them removed.
 */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const CLIENT_OWNED_HEADERS: ReadonlySet<string> = new Set([...HOP_BY_HOP_HEADERS, 'host', 'content-length']);

/**
 * Checks the headers sent on every forwarded request (this is how the
 * downstream's own authentication is supplied). Returns them with lower-case
 * names; a ConfigError lists every bad one at `downstream.headers.<Name>`.
 */
export function checkDownstreamHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const checked: Record<string, string> = {};
  const problems: ConfigProblem[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const path = `downstream.headers.${name}`;
    if (!HEADER_NAME.test(name)) problems.push({ path, message: 'not a valid header name' });
    else if (CLIENT_OWNED_HEADERS.has(name.toLowerCase()))
      problems.push({ path, message: 'is set by the HTTP client and cannot be configured' });
    else if (name.toLowerCase() === ASSERTION_HEADER.toLowerCase())
      problems.push({ path, message: "is the gateway's signed assertion and cannot be configured" });
    if (UNSAFE_VALUE.test(value)) problems.push({ path, message: 'must not contain CR, LF or NUL' });
    checked[name.toLowerCase()] = value;
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return checked;
}

/** Response headers without hop-by-hop ones, including those the Connection header names. */
export function endToEndHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string> {
  const connection = headers.connection;
  // No set built per answer: Connection names few headers (usually none, or keep-alive).
  const named =
    connection === undefined
      ? []
      : (Array.isArray(connection) ? connection.join(',') : connection)
          .split(',')
          .map((name) => name.trim().toLowerCase());
  const kept: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP_HEADERS.has(lower) || named.includes(lower)) continue;
    kept[lower] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}
