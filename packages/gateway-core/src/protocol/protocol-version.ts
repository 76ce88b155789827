import { InvalidRequestError } from '../errors.js';

/** Newest first. Dates compare correctly as strings. */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

/** Offered to a client asking for a version the gateway does not know: the newest, as MCP says a server SHOULD. */
export const FALLBACK_PROTOCOL_VERSION: ProtocolVersion = SUPPORTED_PROTOCOL_VERSIONS[0];

export const PROTOCOL_VERSION_HEADER = 'MCP-Protocol-Version';

export function isSupportedProtocolVersion(value: unknown): value is ProtocolVersion {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly unknown[]).includes(value);
}

/** The version to answer `initialize` with: the client's when supported. */
export function negotiateProtocolVersion(requested: unknown): ProtocolVersion {
  return isSupportedProtocolVersion(requested) ? requested : FALLBACK_PROTOCOL_VERSION;
}

/** Whether `version` has the features introduced in `minimum` (e.g. annotations in 2025-03-26). */
export function isAtLeast(version: ProtocolVersion, minimum: ProtocolVersion): boolean {
  return version >= minimum;
}

/**
 * The version a request after `initialize` speaks. Without the header it is
 * the version negotiated for the session (clients before 2025-06-18 do not
 * send it). Any supported version is accepted: MCP asks for 400 only when
 * the header names a version that is invalid or unsupported.
 */
export function protocolVersionForRequest(header: string | undefined, negotiated: ProtocolVersion): ProtocolVersion {
  if (header === undefined) return negotiated;
  const version = header.trim();
  if (!isSupportedProtocolVersion(version)) {
    throw new InvalidRequestError(
      `Unsupported ${PROTOCOL_VERSION_HEADER}: ${JSON.stringify(header)}; supported: ` +
        `${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
    );
  }
  return version;
}
