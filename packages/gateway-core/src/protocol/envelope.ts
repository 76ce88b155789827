import {
  HeaderMismatchError,
  InvalidEnvelopeError,
  InvalidRequestError,
  UnsupportedProtocolVersionError,
} from '../errors.js';
import type { JsonRpcParams } from './jsonrpc.js';
import { PROTOCOL_VERSION_HEADER, SUPPORTED_PROTOCOL_VERSIONS } from './protocol-version.js';
import { copyResult } from './tool-result.js';

/**
 * MCP 2026-07-28 ("modern"): no session, no `initialize`. Every request
 * carries its revision (and the client's identity and capabilities) in
 * `params._meta`, mirrored into HTTP headers so that a load balancer can
 * route without reading the body; the server checks the two agree.
 */

/** The stateless revisions the gateway serves; a request naming another is refused with -32022. */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;
export type ModernProtocolVersion = (typeof MODERN_PROTOCOL_VERSIONS)[number];

/**
 * Every revision served, newest first: the stateless ones, then
 * the session era's (`server/discover`, -32022's `supported`).
 */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...SUPPORTED_PROTOCOL_VERSIONS,
];

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

export const METHOD_HEADER = 'mcp-method';
export const NAME_HEADER = 'mcp-name';
const VERSION_HEADER = PROTOCOL_VERSION_HEADER.toLowerCase();

/** The request headers by lower-case name, as Node keeps them. */
export type RequestHeaderRecord = Readonly<Record<string, string | string[] | undefined>>;

/** A request (or notification) of the stateless era, its headers checked against its body. */
export interface StatelessRequest {
  protocolVersion: ModernProtocolVersion;
}

/**
 * Which era a message belongs to: the session era, the stateless one, or neither (refused, with the revision's error).
 */
export type Era =
  | { kind: 'session' }
  | { kind: 'stateless'; request: StatelessRequest }
  | { kind: 'refused'; error: Error };

export interface EraInput {
  method: string;
  params?: JsonRpcParams | undefined;
  /** The `Mcp-Session-Id` header. */
  sessionId: string | undefined;
  headers: RequestHeaderRecord | undefined;
}

/** Methods whose `Mcp-Name` header mirrors a body field, and which field. */
const NAMED_BY: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/**
 * The era of one message. With the `_meta` envelope it is stateless, once
 * the revision is one served and the headers agree with the body; without
 * it, a `MCP-Protocol-Version` naming a stateless revision is a client that
 * forgot the envelope (invalid params, HTTP 400, as the conformance suite
 * expects of it). Anything else is the session era,
 * exactly as before this revision existed.
 */
export function eraOf(input: EraInput): Era {
  const meta = input.params?._meta;
  const hasEnvelope = isObject(meta) && Object.hasOwn(meta, META_PROTOCOL_VERSION);
  const headerVersion = headerOf(input.headers, VERSION_HEADER);
  if (!hasEnvelope) {
    if (headerVersion === undefined || !isModernVersion(headerVersion.trim())) return { kind: 'session' };
    return refused(
      new InvalidEnvelopeError(
        `${PROTOCOL_VERSION_HEADER} ${headerVersion} needs params._meta["${META_PROTOCOL_VERSION}"] in the body; ` +
          `without both, open a session with initialize`,
      ),
    );
  }
  try {
    return { kind: 'stateless', request: checkStatelessRequest(input, meta as Record<string, unknown>, headerVersion) };
  } catch (error) {
    return refused(error as Error);
  }
}

function checkStatelessRequest(
  input: EraInput,
  envelope: Record<string, unknown>,
  headerVersion: string | undefined,
): StatelessRequest {
  const envelopeVersion = envelope[META_PROTOCOL_VERSION];
  if (headerVersion === undefined) throw new HeaderMismatchError(`${PROTOCOL_VERSION_HEADER} header is required`);
  if (typeof envelopeVersion !== 'string' || headerVersion !== envelopeVersion) {
    throw new HeaderMismatchError(
      `${PROTOCOL_VERSION_HEADER} header value ${JSON.stringify(headerVersion)} does not match body value ` +
        `${JSON.stringify(envelopeVersion)}`,
    );
  }
  if (!(MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(envelopeVersion)) {
    throw new UnsupportedProtocolVersionError(envelopeVersion, SERVED_PROTOCOL_VERSIONS);
  }
  if (!isObject(envelope[META_CLIENT_CAPABILITIES]))
    throw new InvalidEnvelopeError(`params._meta["${META_CLIENT_CAPABILITIES}"] is required (an object)`);
  if (input.sessionId !== undefined) {
    throw new InvalidRequestError(
      `Mcp-Session-Id has no place in a ${envelopeVersion} request (that revision has no sessions): send it ` +
        `without the header, or without the _meta envelope inside a session`,
    );
  }
  checkMirrored(METHOD_HEADER, headerOf(input.headers, METHOD_HEADER), input.method, 'method');
  const nameField = NAMED_BY[input.method];
  if (nameField !== undefined)
    checkMirrored(
      NAME_HEADER,
      decodedHeader(NAME_HEADER, headerOf(input.headers, NAME_HEADER)),
      input.params?.[nameField],
      `params.${nameField}`,
    );
  return { protocolVersion: envelopeVersion as ModernProtocolVersion };
}

/** A header that mirrors a body field: present, and equal to it (header values are case-sensitive). */
function checkMirrored(name: string, value: string | undefined, bodyValue: unknown, field: string): void {
  // The header's display name only for a refusal: every stateless call passes here twice.
  if (value === undefined)
    throw new HeaderMismatchError(`${displayName(name)} header is required (it mirrors ${field})`);
  if (value !== bodyValue) {
    throw new HeaderMismatchError(
      `${displayName(name)} header value ${JSON.stringify(value)} does not match body value ` +
        `${JSON.stringify(bodyValue)} (${field})`,
    );
  }
}

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
/** RFC 9110 field value characters: visible ASCII, space and tab. */
const HEADER_SAFE = /^[\t\x20-\x7e]*$/;

/**
 * A header value as the revision encodes it: plain visible ASCII, or the
 * Base64 sentinel form (`=?base64?...?=`) of any UTF-8 text. Undefined when
 * absent; HeaderMismatch when malformed.
 */
export function decodedHeader(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!HEADER_SAFE.test(raw))
    throw new HeaderMismatchError(`${displayName(name)} header contains characters a header value may not`);
  const encoded = SENTINEL.exec(raw);
  if (encoded === null) {
    if (raw.startsWith('=?base64?') && raw.endsWith('?='))
      throw new HeaderMismatchError(`${displayName(name)} header is not valid Base64`);
    return raw;
  }
  const bytes = Buffer.from(encoded[1]!, 'base64');
  // Base64 that does not decode to what it says (bad padding, stray bits) or to UTF-8 is malformed, not a near match.
  const text = bytes.toString('utf8');
  if (bytes.toString('base64') !== encoded[1] || Buffer.from(text, 'utf8').compare(bytes) !== 0) {
    throw new HeaderMismatchError(`${displayName(name)} header is not valid Base64 of UTF-8 text`);
  }
  return text;
}

/** A result of the stateless era: `resultType` and the server's identity, as every such result carries. */
export function completeResult<T extends object>(
  result: T,
  serverInfo: { name: string; version: string },
): T & { resultType: string } {
  const meta = (result as { _meta?: unknown })._meta;
  // A result that says what it is (an InputRequiredResult's `input_required`) keeps it; any other is complete.
  const resultType = (result as { resultType?: unknown }).resultType;
  // Not a spread: a tools/call result keeps the JSON text its reply is written around (see copyResult).
  const complete = copyResult(result) as T & { resultType: string; _meta: Record<string, unknown> };
  complete.resultType = typeof resultType === 'string' ? resultType : 'complete';
  complete._meta = { ...(isObject(meta) ? meta : {}), [META_SERVER_INFO]: serverInfo };
  return complete;
}

/** Whether a version names a stateless revision the gateway serves (any other keeps the session era's answer to it). */
function isModernVersion(version: string): boolean {
  return (MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(version);
}

function headerOf(headers: RequestHeaderRecord | undefined, lowerName: string): string | undefined {
  const value = headers?.[lowerName];
  return Array.isArray(value) ? value.join(', ') : value;
}

function displayName(lowerName: string): string {
  return lowerName === VERSION_HEADER
    ? PROTOCOL_VERSION_HEADER
    : lowerName.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refused(error: Error): Era {
  return { kind: 'refused', error };
}
