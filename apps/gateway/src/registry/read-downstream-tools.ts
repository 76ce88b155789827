import { fork } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { OpenApiSource } from '../config/downstreams-section.js';
import { fetchToolSchema, retryingRead, SchemaUnusableError, type RetryingReadOptions } from './fetch-tool-schema.js';
import { loadOpenApiTools, type OpenApiRequest, type OpenApiTools } from './load-openapi-tools.js';
import type { OpenApiWorkerReply } from './openapi-worker.js';

/** Where a downstream's tools are read: its `/gw/schema`, or its OpenAPI document when configured. */
export interface SchemaSource {
  name: string;
  baseUrl: string;
  /** Fits imported names to 64 characters with the prefix. */
  prefix?: string;
  openApi?: OpenApiSource;
}

/** One read of a downstream's tools, as the catalog loads them. */
export interface DownstreamTools {
  /** Tool definitions as `/gw/schema` serves them. */
  schema: unknown;
  /** Operations of an OpenAPI document that were not imported, one line each, with why. */
  skipped: string[];
  /** Imported operations with something left out or renamed. */
  notes: string[];
  /** The OpenAPI document's digest, to tell an unchanged one on the next read (null: always re-read). */
  digest: string | null;
}

export interface ReadToolsOptions extends RetryingReadOptions {
  /** The digest of the OpenAPI document the current tools came from. */
  lastDigest?: string | null;
}

/**
 * Reads a downstream's tools once (retrying what may come right, as `options` say); `unchanged` when its OpenAPI
 * document is the one of `lastDigest`.
 */
export async function readDownstreamTools(
  source: SchemaSource,
  options: ReadToolsOptions,
): Promise<DownstreamTools | 'unchanged'> {
  if (!source.openApi)
    return {
      schema: await fetchToolSchema({ ...options, downstreamBaseUrl: source.baseUrl }),
      skipped: [],
      notes: [],
      digest: null,
    };
  const request: OpenApiRequest = {
    source: source.openApi,
    prefix: source.prefix ?? '',
    lastDigest: options.lastDigest,
  };
  const read = await retryingRead(() => loadOffThread(request, options.signal), options);
  return read === 'unchanged'
    ? read
    : { schema: read.tools, skipped: read.skipped, notes: read.notes, digest: read.digest };
}

/**
 * The import process's entry beside the built gateway; from sources
 * (unit tests) there is none, and the document is read here.
 */
const WORKER_FILE = fileURLToPath(new URL('./openapi-worker.js', import.meta.url));
/** A hostile document runs out of this much heap in the import process, never in the gateway. */
const WORKER_HEAP_MB = 1024;

/** The import running now: imports run one after another, so several large documents never add up their peaks. */
let running: Promise<unknown> = Promise.resolve();

function loadOffThread(request: OpenApiRequest, signal: AbortSignal | undefined): Promise<OpenApiTools | 'unchanged'> {
  const turn = running.then(() => loadInWorker(request, signal));
  running = turn.catch(() => undefined);
  return turn;
}

/**
 * One import in a short-lived child process rather than a worker thread: a
 * worker's heap pages stayed resident in the gateway after it ended (about
 * 160 MiB per import of GitHub's document, measured), a process's go back to
 * the system when it exits. Only the tool definitions come back.
 */
async function loadInWorker(
  request: OpenApiRequest,
  signal: AbortSignal | undefined,
): Promise<OpenApiTools | 'unchanged'> {
  if (!existsSync(WORKER_FILE)) return loadOpenApiTools(request, signal);
  // execArgv set, not inherited: the gateway's own flags (--inspect's port) must not start a second time.
  const child = fork(WORKER_FILE, [], {
    serialization: 'advanced',
    execArgv: [`--max-old-space-size=${WORKER_HEAP_MB}`],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const stop = () => void child.kill('SIGKILL');
  signal?.addEventListener('abort', stop, { once: true });
  try {
    const exited = once(child, 'exit').then(([code, killedBy]) =>
      Promise.reject(
        new Error(
          `the OpenAPI import process stopped ` +
            `(${killedBy ? `signal ${String(killedBy)}` : `exit code ${String(code)}`})`,
        ),
      ),
    );
    // Also once the reply is in and the process is ended below: nobody waits for it then.
    exited.catch(() => undefined);
    child.send(request);
    const [reply] = (await Promise.race([once(child, 'message'), exited])) as [OpenApiWorkerReply];
    if (reply.ok) return reply.result;
    throw reply.unusable ? new SchemaUnusableError(reply.message) : new Error(reply.message);
  } finally {
    signal?.removeEventListener('abort', stop);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
