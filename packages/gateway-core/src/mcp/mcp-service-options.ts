import type { AgentService } from '../agents/agent-service.js';
import type { AuditEvent } from '../audit/trail.js';
import type { ToolSearchMode } from '../catalog/search/search-mode.js';
import type { ToolCallDeps } from '../pipeline/tool-call-deps.js';
import type { ServerInfo } from '../protocol/initialize.js';
import type { SessionStore, StreamStore } from '../store/ports.js';
import type { ListenStreams } from './listen-streams.js';
import type { ErrorDelivery } from './mcp-messages.js';
import type { WriteConfirmation } from './write-confirmation.js';

export interface McpServiceOptions {
  sessions: SessionStore;
  sessionIdleMs: number;
  /**
   * Open sessions one agent may hold (default 100). Opening one more ends the
   * agent's least recently used session, on every instance: a client that
   * keeps calling `initialize` costs the store at most this many sessions.
   */
  maxSessionsPerAgent?: number;
  /**
   * tools/call requests one agent may have in flight on this instance
   * (default 32; 0 = no limit). One more is refused as `too-many-calls`
   * before it reserves budget or reaches the downstream.
   */
  maxConcurrentCallsPerAgent?: number;
  agents: AgentService;
  toolCall: ToolCallDeps;
  serverInfo: ServerInfo;
  /** Told about every tools/call once, whichever step ended it; must not throw or wait. */
  audit: (event: AuditEvent) => void;
  /** Whether agent traffic may flow (contract 4.4); until then every request is refused as not ready. */
  isReady: () => Promise<boolean>;
  /** Told about errors outside the catalogue, whose message never reaches the caller. */
  onUnexpectedError?: (error: unknown) => void;
  /**
   * `mcp` (default): each error as the catalogue's `delivery` says — tool
   * errors as `isError` results, refusals as JSON-RPC errors in HTTP 200,
   * credentials, sessions and malformed requests with their HTTP status.
   * `http-status`: every error with its contract 7 HTTP status, for clients
   * that read the status line.
   */
  errorDelivery?: ErrorDelivery;
  /**
   * Where the answer of a tools/call whose client went away is kept, so the
   * client can resume its stream on any instance (`resume`). Without it,
   * streams cannot be resumed and a client that leaves cancels its call.
   */
  streams?: StreamStore;
  /** How long such an answer is kept, and how long a resume waits for it. Default 2 minutes. */
  resumeWindowMs?: number;
  /**
   * Signs stream ids, so a resume naming a made-up stream, or another
   * session's, is refused at once. Instances that resume each other's streams
   * share it. Default: a random key of this process's own.
   */
  streamIdKey?: Uint8Array;
  /** Resumes one agent may have waiting on this instance at once. Default 8. */
  maxResumesPerAgent?: number;
  /**
   * Resumes waiting on this instance at once, every agent's together: keep it below the connection limit. Default 512.
   */
  maxResumes?: number;
  /** The `subscriptions/listen` streams of this instance (MCP 2026-07-28); without it, that method is not served. */
  listens?: ListenStreams;
  clock?: () => Date;
  /**
   * Search mode (`Gw:Catalog:Search`): absent, every agent sees
   * the whole catalog and search_tools and call_tool are unknown.
   */
  toolSearch?: ToolSearchMode;
  /** Write confirmation (`confirmWrites`, a tool's `confirm`); absent, no call waits for the user. */
  writeConfirmation?: WriteConfirmation;
}
