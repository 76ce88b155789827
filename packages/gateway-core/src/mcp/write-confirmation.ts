import {
  ConfirmationDeclinedError,
  ConfirmationUnavailableError,
  InvalidRequestStateError,
  MissingClientCapabilityError,
} from '../errors.js';
import type { ConfirmationGate } from '../pipeline/tool-call-deps.js';
import { META_CLIENT_CAPABILITIES } from '../protocol/envelope.js';
import type { InputRequiredResult } from '../protocol/input-required.js';
import type { AgentRecord, SingleUseMarks } from '../store/ports.js';
import { isMutating } from '../tools/access.js';
import type { ToolDefinition } from '../tools/definition.js';
import { canonicalJson } from '../util/canonical-json.js';
import { RequestStates, type ConfirmedCall } from './request-state.js';

/**
 * Write confirmation (issue 26 item 6): a tool call the user must confirm
 * before it is forwarded. A tool needs it when its downstream marks it
 * (`confirm: true` in /gw/schema, from host-kit), or when it writes (a
 * mutating verb it is allowed to use) and the agent has `confirmWrites`.
 *
 * On MCP 2026-07-28 the first call is answered with an InputRequiredResult
 * (MRTR): a form elicitation describing the call, and a signed
 * `requestState` (see RequestStates). The retry carrying the user's
 * acceptance and that state, for the same agent, tool and arguments, goes
 * through the pipeline; its state is then used up. A decline is refused as
 * a tool error. Earlier revisions have no stateless way to ask (their
 * elicitation is a server-to-client request on the session's stream), so
 * such a call is refused there, saying why.
 */

/** How long the user has to answer: long enough to read the call, short enough that a leaked state soon lapses. */
export const DEFAULT_CONFIRMATION_TTL_MS = 5 * 60_000;

/** The key of the gateway's one input request, and the field of the form that confirms. */
export const CONFIRM_INPUT = 'tollgate/confirm';
export const CONFIRM_FIELD = 'confirm';

/** How much of the arguments the question shows, as JSON. */
const MAX_SUMMARY_CHARS = 500;

/** The parts of a tools/call that speak of confirmation. */
export type ConfirmationRequest =
  /** A 2025 (or earlier) session: `protocolVersion` is the session's. */
  | { era: 'session'; protocolVersion: string }
  /** A 2026-07-28 request: its params (`_meta` with the client's capabilities, `inputResponses`, `requestState`). */
  | { era: 'stateless'; params: Record<string, unknown> };

export interface WriteConfirmationOptions {
  /** At least 32 bytes, the same on every instance (derived from the signing key). */
  key: Uint8Array;
  /** Where used states are marked, so each confirms one call (the store's, shared by every instance). */
  redeemed: SingleUseMarks;
  ttlMs?: number;
  clock?: () => number;
}

export class WriteConfirmation {
  readonly #states: RequestStates;
  readonly #redeemed: SingleUseMarks;
  readonly #clock: () => number;

  constructor(options: WriteConfirmationOptions) {
    this.#clock = options.clock ?? Date.now;
    this.#states = new RequestStates(options.key, options.ttlMs ?? DEFAULT_CONFIRMATION_TTL_MS, this.#clock);
    this.#redeemed = options.redeemed;
  }

  /** The gate for one call of `agent`; the pipeline runs it once the tool is authorized and its arguments valid. */
  gate(agent: Pick<AgentRecord, 'agentId' | 'confirmWrites'>, request: ConfirmationRequest): ConfirmationGate {
    return (tool, args) => {
      if (!needsConfirmation(agent, tool)) return null;
      if (request.era === 'session') return Promise.reject(unavailable(tool, request.protocolVersion));
      return this.#confirmed(agent.agentId, tool, args, request.params);
    };
  }

  async #confirmed(
    agentId: string,
    tool: ToolDefinition,
    args: unknown,
    params: Record<string, unknown>,
  ): Promise<InputRequiredResult | null> {
    const call = { agentId, tool: tool.name, args };
    const answer = answerOf(params.inputResponses);
    // No state, or no answer to the question yet: (again) ask, as MRTR says to when an answer is missing.
    if (params.requestState === undefined || answer === undefined) return this.#ask(call, tool, params);
    const state = this.#states.verify(params.requestState, call);
    if (!accepted(answer))
      throw new ConfirmationDeclinedError(`The user did not confirm the call of ${tool.name}: nothing was sent`);
    // Single use on every instance: kept as long as the state could still be presented.
    const fresh = await this.#redeemed.redeem(`confirm:${state.nonce}`, state.expiresAt - this.#clock() + 1_000);
    if (!fresh) throw new InvalidRequestStateError('requestState was already used: each confirmation allows one call');
    return null;
  }

  #ask(call: ConfirmedCall, tool: ToolDefinition, params: Record<string, unknown>): InputRequiredResult {
    if (!canElicitForms(params)) {
      throw new MissingClientCapabilityError(
        `Tool ${tool.name} needs the user's confirmation, asked with a form elicitation: the client must declare ` +
          `the elicitation capability`,
        { elicitation: { form: {} } },
      );
    }
    return {
      resultType: 'input_required',
      inputRequests: { [CONFIRM_INPUT]: { method: 'elicitation/create', params: question(tool, call.args) } },
      requestState: this.#states.issue(call),
    };
  }
}

/** A marked tool always; any other when it writes and the agent asks for writes to be confirmed. */
export function needsConfirmation(
  agent: Pick<AgentRecord, 'confirmWrites'>,
  tool: Pick<ToolDefinition, 'confirm' | 'httpMethod' | 'allowWrite'>,
): boolean {
  return tool.confirm === true || (agent.confirmWrites === true && tool.allowWrite && isMutating(tool.httpMethod));
}

function unavailable(tool: ToolDefinition, protocolVersion: string): ConfirmationUnavailableError {
  return new ConfirmationUnavailableError(
    `Tool ${tool.name} needs the user's confirmation, which the gateway asks with MCP 2026-07-28 (multi ` +
      `round-trip elicitation); ` +
      `this session speaks ${protocolVersion}: connect with a client of 2026-07-28, or have an administrator ` +
      `turn off write confirmation for this agent`,
  );
}

/** The form the client shows the user: what would be called, where, and with what. */
function question(tool: ToolDefinition, args: unknown): Record<string, unknown> {
  const where = tool.downstream === undefined ? '' : ` on ${tool.downstream}`;
  return {
    mode: 'form',
    message:
      `Confirm this call before it is sent: ${tool.name}${where} (${tool.httpMethod} ${tool.routePattern}) with ` +
      `${summary(args)}`,
    requestedSchema: {
      type: 'object',
      properties: {
        [CONFIRM_FIELD]: {
          type: 'boolean',
          title: `Send ${tool.name}`,
          description: 'Tick to let the gateway send this call',
        },
      },
      required: [CONFIRM_FIELD],
    },
  };
}

function summary(args: unknown): string {
  const json = canonicalJson(args ?? {});
  return json.length <= MAX_SUMMARY_CHARS
    ? json
    : `${json.slice(0, MAX_SUMMARY_CHARS)}… (${json.length} characters in all)`;
}

/** The client's answer to the gateway's question, if the retry carries one. */
function answerOf(responses: unknown): unknown {
  if (typeof responses !== 'object' || responses === null || Array.isArray(responses)) return undefined;
  return Object.hasOwn(responses, CONFIRM_INPUT) ? (responses as Record<string, unknown>)[CONFIRM_INPUT] : undefined;
}

/** Accepted, with the box ticked; a decline, a cancel, an unticked box or anything else is no. */
function accepted(answer: unknown): boolean {
  if (typeof answer !== 'object' || answer === null) return false;
  const { action, content } = answer as { action?: unknown; content?: unknown };
  return (
    action === 'accept' &&
    typeof content === 'object' &&
    content !== null &&
    (content as Record<string, unknown>)[CONFIRM_FIELD] === true
  );
}

/** Form elicitation: declared as `elicitation: {}` (form implied) or with `form` among its modes. */
function canElicitForms(params: Record<string, unknown>): boolean {
  const meta = params._meta as Record<string, unknown> | undefined;
  const capabilities = meta?.[META_CLIENT_CAPABILITIES] as Record<string, unknown> | undefined;
  const elicitation = capabilities?.elicitation;
  if (typeof elicitation !== 'object' || elicitation === null) return false;
  const modes = elicitation as Record<string, unknown>;
  return (
    (modes.form === undefined && modes.url === undefined) || (typeof modes.form === 'object' && modes.form !== null)
  );
}
