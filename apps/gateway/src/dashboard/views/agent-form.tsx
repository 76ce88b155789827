import { showInvisible } from '@tollgate/gateway-core/internal';
import { encodeIdentity, type FieldError } from '../agent-form.js';
import { Alert, CsrfField } from './layout.js';

const SEARCH_MODE_CHOICES: ReadonlyArray<[string, string]> = [
  ['', "The gateway's setting (Gw:Catalog:Search)"],
  ['on', 'On: search_tools and call_tool'],
  ['auto', 'Auto: search above the threshold'],
  ['off', 'Off: every tool'],
];

export interface AgentFormValues {
  label: string;
  dailyTokenBudget: string;
  /** null = every tool. */
  allowedTools: string[] | null;
  scopes: string[];
  /** The rate limit as typed; both blank = none. */
  callsPerMinute: string;
  burst: string;
  /** The agent's sign-in identities, each a box: kept when checked. */
  identities: Array<{ issuer: string; subject: string; kept: boolean }>;
  /** New sign-in identities as typed: one `issuer subject` per line. */
  externalSubjects: string;
  /** Search mode: '' for the gateway's setting, or on, off, auto (issue 28). */
  toolSearch?: string;
  /** Pinned tools, comma separated. */
  pinnedTools?: string;
  confirmWrites?: boolean;
}

export interface AgentFormProps {
  id: string;
  action: string;
  submitLabel: string;
  csrfToken: string;
  values: AgentFormValues;
  /** Tool names and scopes offered as boxes: the catalog's, plus any the agent already has. */
  toolNames: string[];
  knownScopes: string[];
  errors?: FieldError[];
  /** What blank rate-limit fields mean on this form. */
  blankRateLimit?: string;
}

const FIELD_NAMES: Record<string, string> = {
  label: 'Label',
  dailyTokenBudget: 'Daily token budget',
  allowedTools: 'Tools',
  scopes: 'Scopes',
  rateLimit: 'Rate limit',
  'rateLimit.callsPerMinute': 'Calls per minute',
  'rateLimit.burst': 'Burst',
  externalSubjects: 'Sign-in identities',
};

/** Create and edit share one form; what it submits is checked by the management API's schemas. */
export function AgentForm({
  id,
  action,
  submitLabel,
  csrfToken,
  values,
  toolNames,
  knownScopes,
  errors = [],
  blankRateLimit = 'no limit',
}: AgentFormProps) {
  const errorFor = (field: string) =>
    errors
      .filter((error) => error.field === field)
      .map((error) => error.message)
      .join('; ');
  const described = (field: string) => (errorFor(field) ? `${id}-${field}-error` : undefined);
  const tools = [...new Set([...toolNames, ...(values.allowedTools ?? [])])].sort();
  const scopes = [...new Set([...knownScopes, ...values.scopes])].sort();
  return (
    <form method="post" action={action} id={id} novalidate>
      <CsrfField token={csrfToken} />
      {errors.length > 0 && (
        <Alert>
          <p>The agent was not saved:</p>
          <ul>
            {errors.map((error) => (
              <li>
                {FIELD_NAMES[error.field] ?? error.field}: {error.message}
              </li>
            ))}
          </ul>
        </Alert>
      )}
      <div class="field">
        <label for={`${id}-label`}>Label</label>
        <input
          id={`${id}-label`}
          name="label"
          type="text"
          value={values.label}
          required
          maxlength={200}
          aria-invalid={errorFor('label') ? 'true' : undefined}
          aria-describedby={described('label')}
        />
        {errorFor('label') && (
          <p id={`${id}-label-error`} class="error">
            {errorFor('label')}
          </p>
        )}
      </div>
      <div class="field">
        <label for={`${id}-budget`}>Daily token budget</label>
        <input
          id={`${id}-budget`}
          name="dailyTokenBudget"
          type="number"
          min={0}
          step={1}
          inputmode="numeric"
          value={values.dailyTokenBudget}
          required
          aria-invalid={errorFor('dailyTokenBudget') ? 'true' : undefined}
          aria-describedby={described('dailyTokenBudget') ?? `${id}-budget-hint`}
        />
        <p id={`${id}-budget-hint`} class="hint">
          Tokens the agent may receive per UTC day.
        </p>
        {errorFor('dailyTokenBudget') && (
          <p id={`${id}-dailyTokenBudget-error`} class="error">
            {errorFor('dailyTokenBudget')}
          </p>
        )}
      </div>
      <fieldset aria-describedby={`${id}-rate-hint`}>
        <legend>Rate limit</legend>
        <div class="field">
          <label for={`${id}-calls-per-minute`}>Calls per minute</label>
          <input
            id={`${id}-calls-per-minute`}
            name="callsPerMinute"
            type="number"
            min={1}
            step={1}
            inputmode="numeric"
            value={values.callsPerMinute}
            aria-invalid={errorFor('rateLimit.callsPerMinute') ? 'true' : undefined}
            aria-describedby={described('rateLimit.callsPerMinute')}
          />
          {errorFor('rateLimit.callsPerMinute') && (
            <p id={`${id}-rateLimit.callsPerMinute-error`} class="error">
              {errorFor('rateLimit.callsPerMinute')}
            </p>
          )}
        </div>
        <div class="field">
          <label for={`${id}-burst`}>Burst</label>
          <input
            id={`${id}-burst`}
            name="burst"
            type="number"
            min={1}
            step={1}
            inputmode="numeric"
            value={values.burst}
            aria-invalid={errorFor('rateLimit.burst') ? 'true' : undefined}
            aria-describedby={described('rateLimit.burst')}
          />
          {errorFor('rateLimit.burst') && (
            <p id={`${id}-rateLimit.burst-error`} class="error">
              {errorFor('rateLimit.burst')}
            </p>
          )}
        </div>
        <p id={`${id}-rate-hint`} class="hint">
          tools/call requests, across every instance: the burst at once, then calls per minute. Both blank:{' '}
          {blankRateLimit}.
        </p>
        {errorFor('rateLimit') && <p class="error">{errorFor('rateLimit')}</p>}
      </fieldset>
      <fieldset>
        <legend>Tools</legend>
        <p class="check">
          <input
            type="radio"
            id={`${id}-all-tools`}
            name="toolAccess"
            value="all"
            checked={values.allowedTools === null}
          />{' '}
          <label for={`${id}-all-tools`}>
            All tools (scopes and the write rule still apply: a tool that writes without allowWrite is refused even when
            checked)
          </label>
        </p>
        <p class="check">
          <input
            type="radio"
            id={`${id}-some-tools`}
            name="toolAccess"
            value="selected"
            checked={values.allowedTools !== null}
          />{' '}
          <label for={`${id}-some-tools`}>Only the tools checked below</label>
        </p>
        <div class="checks">
          {tools.map((name) => (
            <span class="check">
              <input
                type="checkbox"
                id={`${id}-tool-${name}`}
                name="allowedTools"
                value={name}
                checked={values.allowedTools?.includes(name) ?? false}
              />{' '}
              <label for={`${id}-tool-${name}`} class="mono">
                {name}
              </label>
            </span>
          ))}
        </div>
        {errorFor('allowedTools') && <p class="error">{errorFor('allowedTools')}</p>}
      </fieldset>
      <fieldset>
        <legend>Tool search</legend>
        <div class="field">
          <label for={`${id}-tool-search`}>Search mode</label>
          <select id={`${id}-tool-search`} name="toolSearch" aria-describedby={`${id}-tool-search-hint`}>
            {SEARCH_MODE_CHOICES.map(([value, label]) => (
              <option value={value} selected={(values.toolSearch ?? '') === value}>
                {label}
              </option>
            ))}
          </select>
          <p id={`${id}-tool-search-hint`} class="hint">
            In search mode the agent lists search_tools and call_tool (and its pinned tools) instead of every tool.
          </p>
        </div>
        <div class="field">
          <label for={`${id}-pinned-tools`}>Pinned tools</label>
          <input
            id={`${id}-pinned-tools`}
            name="pinnedTools"
            type="text"
            class="mono"
            value={values.pinnedTools ?? ''}
            aria-invalid={errorFor('pinnedTools') ? 'true' : undefined}
          />
          {errorFor('pinnedTools') && <p class="error">{errorFor('pinnedTools')}</p>}
        </div>
      </fieldset>
      <fieldset>
        <legend>Write confirmation</legend>
        <div class="field">
          <span class="check">
            <input
              id={`${id}-confirm-writes`}
              name="confirmWrites"
              type="checkbox"
              value="on"
              checked={values.confirmWrites === true}
              aria-describedby={`${id}-confirm-writes-hint`}
            />
            <label for={`${id}-confirm-writes`}>Ask the user to confirm each write</label>
          </span>
          <p id={`${id}-confirm-writes-hint`} class="hint">
            Calls of write tools wait for the user's confirmation (MCP 2026-07-28 clients with elicitation); older
            clients are refused them.
          </p>
          {errorFor('confirmWrites') && <p class="error">{errorFor('confirmWrites')}</p>}
        </div>
      </fieldset>
      <fieldset>
        <legend>Scopes</legend>
        <div class="checks">
          {scopes.map((scope) => (
            <span class="check">
              <input
                type="checkbox"
                id={`${id}-scope-${scope}`}
                name="scopes"
                value={scope}
                checked={values.scopes.includes(scope)}
              />{' '}
              <label for={`${id}-scope-${scope}`} class="mono">
                {scope}
              </label>
            </span>
          ))}
        </div>
        <div class="field">
          <label for={`${id}-extra-scopes`}>Other scopes</label>
          <input
            id={`${id}-extra-scopes`}
            name="extraScopes"
            type="text"
            aria-describedby={`${id}-extra-scopes-hint`}
          />
          <p id={`${id}-extra-scopes-hint`} class="hint">
            Comma or space separated, for tools not loaded yet.
          </p>
        </div>
        {errorFor('scopes') && <p class="error">{errorFor('scopes')}</p>}
      </fieldset>
      <fieldset aria-describedby={`${id}-external-subjects-hint`}>
        <legend>Sign-in identities</legend>
        <p id={`${id}-external-subjects-hint`} class="hint">
          People or clients who sign in with a trusted identity provider as this agent: the issuer URL and the subject
          (the issuer's <code>SubjectClaim</code>, <code>sub</code> by default). Uncheck one to remove it.
        </p>
        {values.identities.length > 0 && (
          <div class="checks">
            {values.identities.map((identity, index) => (
              <span class="check">
                <input type="hidden" name="identityOffered" value={encodeIdentity(identity)} />
                <input
                  type="checkbox"
                  id={`${id}-identity-${index}`}
                  name="identity"
                  value={encodeIdentity(identity)}
                  checked={identity.kept}
                />{' '}
                <label for={`${id}-identity-${index}`} class="mono">
                  {identity.issuer} {showInvisible(identity.subject)}
                </label>
              </span>
            ))}
          </div>
        )}
        <div class="field">
          <label for={`${id}-external-subjects`}>Add identities</label>
          <textarea
            id={`${id}-external-subjects`}
            name="externalSubjects"
            rows={3}
            aria-invalid={errorFor('externalSubjects') ? 'true' : undefined}
            aria-describedby={described('externalSubjects') ?? `${id}-external-subjects-add-hint`}
          >
            {values.externalSubjects}
          </textarea>
          <p id={`${id}-external-subjects-add-hint`} class="hint">
            One per line: the issuer URL, a space, then the subject.
          </p>
        </div>
        {errorFor('externalSubjects') && (
          <p id={`${id}-externalSubjects-error`} class="error">
            {errorFor('externalSubjects')}
          </p>
        )}
      </fieldset>
      <button type="submit">{submitLabel}</button>
    </form>
  );
}
