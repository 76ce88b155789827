import { describe, expect, it } from 'vitest';
import { toolSearchText } from './agents.js';
import { RankedSearch } from './tools.js';

describe("the tool library's ranked search (issue 28)", () => {
  it('lists the tools found in rank order, each linking to its card', () => {
    const html = String(RankedSearch({ need: 'list orders', names: ['list_orders', 'get_order'] }));
    expect(html).toContain('value="list orders"');
    expect(html.indexOf('href="#tool-list_orders"')).toBeLessThan(html.indexOf('href="#tool-get_order"'));
  });

  it('says when nothing matches, and shows no list before a search', () => {
    expect(String(RankedSearch({ need: 'zzz', names: [] }))).toContain('No tool matches.');
    expect(String(RankedSearch({ need: '', names: null }))).not.toContain('data-ranked');
  });
});

describe("the agent page's search mode", () => {
  it("names the agent's own setting, or the gateway's", () => {
    const agent = {
      agentId: 'agt_1',
      label: 'a',
      dailyTokenBudget: 1,
      isActive: true,
      allowedTools: null,
      scopes: [],
      externalSubjects: [],
      rateLimit: null,
      createdAt: 'a',
      updatedAt: 'a',
    };
    expect(toolSearchText({ ...agent, toolSearch: 'on' })).toMatch(/^on/);
    expect(toolSearchText(agent)).toMatch(/gateway's setting/);
  });
});
