import { GatewayError } from '../errors.js';

/**
 * JSON-RPC 2.0 protocol errors (the codes the JSON-RPC spec reserves). They
 * extend GatewayError so the HTTP layer maps them in its one place, like the
 * spec-7 errors.
 */

/** 400 / -32700: the body is not JSON. */
export class ParseError extends GatewayError {
  readonly httpStatus = 400;
  readonly jsonRpcCode = -32700;
  readonly title = 'Parse error';
}

/** 400 / -32600: JSON, but not a JSON-RPC message the gateway accepts. */
export class InvalidRequestError extends GatewayError {
  readonly httpStatus = 400;
  readonly jsonRpcCode = -32600;
  readonly title = 'Invalid Request';
}

/**
 * 200 / -32601: a well-formed request for a method the gateway does not
 * serve. The HTTP exchange itself succeeded, so the error travels inside the
 * SSE stream like any other response, which is what MCP clients expect (the
 * official SDK server does the same). A 404 would be wrong here: on
 * Streamable HTTP a 404 tells the client its session is gone.
 */
export class MethodNotFoundError extends GatewayError {
  readonly httpStatus = 200;
  readonly jsonRpcCode = -32601;
  readonly title = 'Method not found';

  constructor(method: string) {
    super(`Method not found: ${method}`);
  }
}

/**
 * 404 / -32600: the Mcp-Session-Id names no live session of this agent.
 * Unknown, expired, ended and another agent's sessions look the same, so a
 * session id reveals nothing about sessions the caller does not own.
 * Streamable HTTP clients react to the 404 by initializing again.
 */
export class SessionNotFoundError extends GatewayError {
  readonly httpStatus = 404;
  readonly jsonRpcCode = -32600;
  readonly title = 'Session not found';

  constructor() {
    super('Session not found: initialize a new session');
  }
}
