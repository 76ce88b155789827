import { InvalidRequestError } from '../errors.js';

/** Newest first. Dates compare correctly as strings. */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

/** The version of the gateway's contract (contract 9); offered to clients asking for one it does not know. */
export const FALLBACK_PROTOCOL_VERSION: ProtocolVersion = '2024-11-05';

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
 * send it). A header naming an unsupported version, or another version than
 * the session negotiated, is a 400: answering in a version the client did not
 * agree to would break it in subtler ways later.
 */
export function protocolVersionForRequest(header: string | undefined, negotiated: ProtocolVersion): ProtocolVersion {
  if (header === undefined) return negotiated;
  const version = header.trim();
  if (!isSupportedProtocolVersion(version)) {
    throw new InvalidRequestError(
      `Unsupported ${PROTOCOL_VERSION_HEADER}: ${JSON.stringify(header)}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
    );
  }
  if (version !== negotiated) {
    throw new InvalidRequestError(
      `${PROTOCOL_VERSION_HEADER} ${version} does not match the version negotiated for this session (${negotiated})`,
    );
  }
  return version;
}
