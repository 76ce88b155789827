import type { AuditRecord } from '@tollgate/gateway-core/store';
import { Page } from './layout.js';
import { Badge, Time, type Health } from './parts.js';

export interface AuditFilters {
  agent: string;
  tool: string;
  outcome: string;
  /** datetime-local values (UTC) as typed; '' = no bound. */
  from: string;
  to: string;
}

export interface AuditPageProps {
  csrfToken: string;
  filters: AuditFilters;
  records: AuditRecord[];
  nextCursor: string | null;
  /** This page is not the newest one. */
  paged: boolean;
  agentIds: { agentId: string; label: string }[];
  toolNames: string[];
  outcomes: string[];
}

function outcomeHealth(record: AuditRecord): Health {
  if (record.kind === 'management' || record.outcome === 'ok' || record.outcome === 'cache-hit') return 'ok';
  return (record.httpStatus ?? 500) >= 500 ? 'danger' : 'warn';
}

function pageLink(filters: AuditFilters, before?: string): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value) query.set(key, value);
  if (before) query.set('before', before);
  const text = query.toString();
  return `/dashboard/audit${text ? `?${text}` : ''}`;
}

const FIELDS: [keyof AuditRecord, string][] = [
  ['id', 'Id'],
  ['time', 'Time'],
  ['kind', 'Kind'],
  ['agentId', 'Agent'],
  ['sessionId', 'Session'],
  ['tool', 'Tool'],
  ['downstream', 'Downstream'],
  ['outcome', 'Outcome'],
  ['httpStatus', 'HTTP status'],
  ['jsonRpcCode', 'JSON-RPC code'],
  ['tokensCharged', 'Tokens charged'],
  ['gatewayMs', 'Gateway ms'],
  ['downstreamMs', 'Downstream ms'],
  ['downstreamStatus', 'Downstream status'],
  ['cacheTier', 'Cache tier'],
  ['argsDigest', 'Arguments digest'],
  ['actor', 'Actor'],
  ['issuer', 'Signed in at'],
  ['subject', 'Identity'],
  ['callId', 'Call id'],
  ['detail', 'Detail'],
];

/** Durations are measured to the microsecond; a tenth of a millisecond is what a reader needs. */
function shown(value: AuditRecord[keyof AuditRecord]): string {
  // A field only some records have (`downstream`, `issuer`, `callId`…) is absent from the others.
  if (value === null || value === undefined) return '—';
  return typeof value === 'number' && !Number.isInteger(value) ? value.toFixed(1) : String(value);
}

export function AuditPage({
  csrfToken,
  filters,
  records,
  nextCursor,
  paged,
  agentIds,
  toolNames,
  outcomes,
}: AuditPageProps) {
  return (
    <Page title="Audit" session={{ section: 'audit', csrfToken }}>
      <form method="get" action="/dashboard/audit" class="card filters" aria-label="Filter the audit trail">
        <div class="field">
          <label for="filter-agent">Agent (label or id)</label>
          <input id="filter-agent" name="agent" type="text" list="agent-ids" value={filters.agent} />
          <datalist id="agent-ids">
            {agentIds.map(({ agentId, label }) => (
              <option value={agentId}>{label}</option>
            ))}
          </datalist>
        </div>
        <div class="field">
          <label for="filter-tool">Tool</label>
          <input id="filter-tool" name="tool" type="text" list="tool-names" value={filters.tool} />
          <datalist id="tool-names">
            {toolNames.map((name) => (
              <option value={name}></option>
            ))}
          </datalist>
        </div>
        <div class="field">
          <label for="filter-outcome">Outcome</label>
          <select id="filter-outcome" name="outcome">
            <option value="">any</option>
            {outcomes.map((outcome) => (
              <option value={outcome} selected={outcome === filters.outcome}>
                {outcome}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-from">From (UTC)</label>
          <input id="filter-from" name="from" type="datetime-local" value={filters.from} />
        </div>
        <div class="field">
          <label for="filter-to">To (UTC)</label>
          <input id="filter-to" name="to" type="datetime-local" value={filters.to} />
        </div>
        <div class="actions">
          <button type="submit">Apply</button>
          <a class="button secondary" href="/dashboard/audit">
            Clear
          </a>
        </div>
      </form>
      <form method="get" action="/dashboard/audit/export" class="card filters" aria-label="Export the audit trail">
        <input type="hidden" name="agent" value={filters.agent} />
        <input type="hidden" name="tool" value={filters.tool} />
        <input type="hidden" name="outcome" value={filters.outcome} />
        <input type="hidden" name="from" value={filters.from} />
        <input type="hidden" name="to" value={filters.to} />
        <div class="actions">
          <button type="submit" name="format" value="jsonl" class="secondary">
            Export JSON Lines
          </button>
          <button type="submit" name="format" value="csv" class="secondary">
            Export CSV
          </button>
        </div>
        <p class="hint">The records matching the filters above (time range included), newest first, at most 10,000.</p>
      </form>
      {records.length === 0 ? (
        <p class="muted">No audit records {paged ? 'on this page' : 'match'}.</p>
      ) : (
        <div aria-label="Audit records" role="region">
          {records.map((record) => (
            <details class="entry" data-audit-id={record.id}>
              <summary>
                <Time iso={record.time} />
                <span class="mono">{record.tool ?? record.kind}</span>
                <Badge health={outcomeHealth(record)}>{record.outcome}</Badge>
                <span class="mono muted">{record.agentId ?? '—'}</span>
                {record.kind === 'tool-call' && <span>{record.tokensCharged} tokens</span>}
              </summary>
              <dl>
                {FIELDS.map(([field, label]) => (
                  <>
                    <dt>{label}</dt>
                    <dd class="mono">{shown(record[field])}</dd>
                  </>
                ))}
              </dl>
            </details>
          ))}
        </div>
      )}
      <nav class="pager" aria-label="Audit pages">
        {paged && <a href={pageLink(filters)}>← Newest</a>}
        {nextCursor && (
          <a href={pageLink(filters, nextCursor)} rel="next">
            Older entries →
          </a>
        )}
      </nav>
    </Page>
  );
}
