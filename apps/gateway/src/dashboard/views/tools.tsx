import type { ToolDefinition } from '@tollgate/gateway-core';
import { matchesToolFilter, toolParameters, toolSearchText, writeGuardOf, type ToolGroup } from '../tool-library.js';
import { DownstreamRows, type DownstreamView } from './downstreams.js';
import { Alert, CsrfField, Notice, Page } from './layout.js';
import { Badge, formatNumber } from './parts.js';
import { toolUsageHref } from './usage-overview.js';

export interface ToolsPageProps {
  csrfToken: string;
  groups: ToolGroup[];
  /** Each downstream's breaker, tools served and last load. */
  downstreams: DownstreamView[];
  filter: string;
  /** A need typed in the ranked search box, and the tools found for it (null before a search). */
  ranked?: { need: string; names: string[] | null };
  /** Whether the ranked search is offered. */
  searchable?: boolean;
  loaded: boolean;
  notice: string | null;
  /** Why the last reload from the downstream failed. */
  refreshError?: string;
}

const categoryId = (category: string | null) =>
  `category-${category ?? 'uncategorised'}`.replaceAll(/[^A-Za-z0-9_-]/g, '-');

/**
 * Every tool is rendered; the ones the filter does not match are `hidden`,
 * so the no-JS form (`?q=`) and the live filter show exactly the same thing.
 */
export function ToolsPage({
  csrfToken,
  groups,
  downstreams,
  filter,
  loaded,
  notice,
  refreshError,
  ranked,
  searchable,
}: ToolsPageProps) {
  const shown = groups.flatMap((group) => group.tools).filter((tool) => matchesToolFilter(tool, filter)).length;
  return (
    <Page title="Tool library" session={{ section: 'tools', csrfToken }}>
      {searchable ? <RankedSearch need={ranked?.need ?? ''} names={ranked?.names ?? null} /> : null}
      <form method="get" action="/dashboard/tools" role="search" class="card">
        <label for="tool-filter">Filter tools</label>
        <div class="actions">
          <input
            id="tool-filter"
            name="q"
            type="search"
            value={filter}
            data-filter
            aria-describedby="tool-count"
            class="grow"
          />
          <button type="submit">Filter</button>
        </div>
        <p class="hint">
          Matches name, description, category, verb, route, scopes and downstream.{' '}
          <span id="tool-count" role="status" aria-live="polite">
            {shown === 1 ? '1 tool' : `${shown} tools`}
          </span>
        </p>
      </form>
      <Notice message={notice} />
      {refreshError && <Alert>{refreshError}</Alert>}
      {!loaded && <p class="alert">The downstream's tools are not loaded yet.</p>}
      {/* A table, not a section: the sections below are the categories. */}
      <div class="card table-wrap">
        <table aria-label="Downstreams">
          <tbody>
            <DownstreamRows downstreams={downstreams} />
          </tbody>
        </table>
      </div>
      <form method="post" action="/dashboard/tools/refresh" class="actions">
        <CsrfField token={csrfToken} />
        <button type="submit" class="secondary">
          Reload tools from the downstream
        </button>
      </form>
      {groups.map((group) => (
        <section
          aria-labelledby={categoryId(group.category)}
          data-category={group.category ?? ''}
          hidden={!group.tools.some((tool) => matchesToolFilter(tool, filter))}
        >
          <h2 id={categoryId(group.category)}>{group.category ?? 'Uncategorised'}</h2>
          {group.tools.map((tool) => (
            <ToolCard tool={tool} hidden={!matchesToolFilter(tool, filter)} />
          ))}
        </section>
      ))}
    </Page>
  );
}

function ToolCard({ tool, hidden }: { tool: ToolDefinition; hidden: boolean }) {
  const parameters = toolParameters(tool);
  return (
    <article
      class="card tool"
      data-tool={tool.name}
      data-search={toolSearchText(tool)}
      hidden={hidden}
      aria-labelledby={`tool-${tool.name}`}
    >
      <header>
        <h3 id={`tool-${tool.name}`} class="mono">
          {tool.name}
        </h3>
        <span class="verb">{tool.httpMethod}</span>
        <code>{tool.routePattern}</code>
        <WriteBadge tool={tool} />
        <a class="usage-link" href={toolUsageHref(tool.name)}>
          Calls, errors, latency
        </a>
      </header>
      <p>{tool.description}</p>
      <dl class="facts">
        <div>
          <dt>Scopes</dt>
          <dd>{tool.requiredScopes.length ? tool.requiredScopes.join(', ') : 'none'}</dd>
        </div>
        <div>
          <dt>Max response tokens</dt>
          <dd>{formatNumber(tool.maxResponseTokens)}</dd>
        </div>
        {tool.downstream !== undefined && (
          <div>
            <dt>Downstream</dt>
            <dd>
              {tool.downstream}
              {tool.declaredName !== undefined && (
                <>
                  {' '}
                  (as <span class="mono">{tool.declaredName}</span>)
                </>
              )}
            </dd>
          </div>
        )}
      </dl>
      {parameters.length === 0 ? (
        <p class="hint">No input parameters.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="hint">Input parameters</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">In</th>
                <th scope="col">Required</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {parameters.map((parameter) => (
                <tr>
                  <td class="mono">{parameter.name}</td>
                  <td class="mono">{parameter.type}</td>
                  <td>{parameter.source}</td>
                  <td>{parameter.required ? 'yes' : 'no'}</td>
                  <td>{parameter.description ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </article>
  );
}

/** The search agents in search mode get (search_tools' ranking), for finding a tool by what it should do. */
export function RankedSearch({ need, names }: { need: string; names: string[] | null }) {
  return (
    <form method="get" action="/dashboard/tools" role="search" class="card" aria-labelledby="ranked-heading">
      <label id="ranked-heading" for="tool-find">
        Find a tool for a task
      </label>
      <div class="actions">
        <input
          id="tool-find"
          name="find"
          type="search"
          value={need}
          class="grow"
          placeholder="e.g. list the open orders of a customer"
        />
        <button type="submit">Search</button>
      </div>
      <p class="hint">Ranked as search_tools ranks them for agents in search mode.</p>
      {names === null ? null : names.length === 0 ? (
        <p role="status">No tool matches.</p>
      ) : (
        <ol aria-label="Best matching tools" data-ranked>
          {names.map((name) => (
            <li>
              <a href={`#tool-${name}`}>{name}</a>
            </li>
          ))}
        </ol>
      )}
    </form>
  );
}

/** The write guard as it acts: a POST without allowWrite is blocked for everyone, not read-only. */
function WriteBadge({ tool }: { tool: ToolDefinition }) {
  const guard = writeGuardOf(tool);
  if (guard === 'read-only') return <Badge health="ok">read-only</Badge>;
  if (guard === 'writes') return <Badge health="warn">writes</Badge>;
  return (
    <>
      <Badge health="danger">write, blocked</Badge>
      <span class="hint"> {tool.httpMethod} without allowWrite: refused for every agent and not listed to them</span>
    </>
  );
}
