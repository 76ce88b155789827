import { describe, expect, it } from 'vitest';
import { buildToolRegistry } from '../../tools/registry.js';
import { ToolSearchIndex } from './tool-search-index.js';

/** A tool without inputs: the route's placeholders are left out, as the ranking reads only its literal segments. */
function tool(name: string, description: string, httpMethod: string, route: string) {
  const routePattern = route.replace(/\/\{[^}]*\}/g, '');
  return {
    name,
    description,
    httpMethod,
    routePattern,
    parameterSources: {},
    allowWrite: httpMethod !== 'GET',
    category: name.split('_')[0],
    inputSchema: { type: 'object', properties: {} },
  };
}

/** A few tools whose words overlap the way an imported API's do. */
const TOOLS = [
  tool('pulls_merge', 'Merge a pull request.', 'PUT', '/repos/{owner}/{repo}/pulls/{pull_number}/merge'),
  tool('pulls_create', 'Create a pull request.', 'POST', '/repos/{owner}/{repo}/pulls'),
  tool(
    'pulls_update-branch',
    'Update a pull request branch.',
    'PUT',
    '/repos/{owner}/{repo}/pulls/{pull_number}/update-branch',
  ),
  tool('repos_merge', 'Merge a branch.', 'POST', '/repos/{owner}/{repo}/merges'),
  tool(
    'reactions_create-for-issue-comment',
    'Create reaction for an issue comment.',
    'POST',
    '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
  ),
  tool(
    'issues_create-comment',
    'Create an issue comment.',
    'POST',
    '/repos/{owner}/{repo}/issues/{issue_number}/comments',
  ),
  tool(
    'issues_update-comment',
    'Update an issue comment.',
    'PATCH',
    '/repos/{owner}/{repo}/issues/comments/{comment_id}',
  ),
  tool('issues_list-comments', 'List issue comments.', 'GET', '/repos/{owner}/{repo}/issues/{issue_number}/comments'),
  tool(
    'issues_add-assignees',
    'Add assignees to an issue.',
    'POST',
    '/repos/{owner}/{repo}/issues/{issue_number}/assignees',
  ),
  tool('issues_update', 'Update an issue.', 'PATCH', '/repos/{owner}/{repo}/issues/{issue_number}'),
];

const built = buildToolRegistry(TOOLS);
const index = new ToolSearchIndex();
index.sync(built.registry.list());
const first = (query: string) => index.searchLexical(query, { limit: 3 })[0]?.tool.definition.name;

describe('ToolSearchIndex ranking', () => {
  it('indexes every tool', () => {
    expect(built.problems).toEqual([]);
    expect(index.size).toBe(TOOLS.length);
  });

  it('does not rank first the tools a query says it does not want', () => {
    expect(first('Merge one branch into another without a pull request')).toBe('repos_merge');
  });

  it('matches a verb to the noun a summary uses for it (react: reaction, assign: assignees)', () => {
    expect(first('React with a thumbs up to an issue comment')).toBe('reactions_create-for-issue-comment');
    expect(first('Assign an issue to a teammate')).toBe('issues_add-assignees');
  });

  it('still ranks by the negated words when a query says nothing else', () => {
    expect(first('without a pull request')).toBeDefined();
  });
});
