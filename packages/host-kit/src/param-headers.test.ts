import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withAgentTool } from './endpoint/with-agent-tool.js';
import { markParamHeaders } from './param-headers.js';
import { mapAgentToolSchema } from './schema-endpoint.js';
import type { InputSchema, ToolDefinition } from './tool-definition.js';

const schema: InputSchema = {
  type: 'object',
  properties: {
    region: { type: 'string', description: null },
    limit: { type: 'integer', description: null },
    dryRun: { type: 'boolean', description: null },
    ratio: { type: 'number', description: null },
    note: { type: ['string', 'null'], description: null },
    tags: { type: 'array', items: { type: 'string' }, description: null },
  },
  required: ['region'],
};

describe('markParamHeaders (MCP 2026-07-28 x-mcp-header rules)', () => {
  it('marks string, integer and boolean inputs, leaving the others as they were', () => {
    const { inputSchema, problem } = markParamHeaders(schema, { region: 'Region', limit: 'Limit', dryRun: 'Dry-Run' });
    expect(problem).toBeNull();
    expect(inputSchema.properties.region).toEqual({ type: 'string', description: null, 'x-mcp-header': 'Region' });
    expect(inputSchema.properties.limit!['x-mcp-header']).toBe('Limit');
    expect(inputSchema.properties.dryRun!['x-mcp-header']).toBe('Dry-Run');
    expect(inputSchema.properties.ratio).toEqual(schema.properties.ratio);
    expect(schema.properties.region).not.toHaveProperty('x-mcp-header');
  });

  it.each([
    ['an empty name', { region: '' }, /must be a non-empty string/],
    ['a space', { region: 'My Region' }, /HTTP token/],
    ['a colon', { region: 'Region:1' }, /HTTP token/],
    ['CR LF', { region: 'Region\r\nX-Evil' }, /HTTP token/],
    ['a non-ASCII letter', { region: 'Régión' }, /HTTP token/],
    ['two names equal but for case', { region: 'Region', limit: 'REGION' }, /case-insensitive/],
    ['an unknown input', { zone: 'Zone' }, /no input "zone"/],
    ['a number', { ratio: 'Ratio' }, /number parameter/],
    ['a nullable string', { note: 'Note' }, /only a string, integer or boolean/],
    ['an array', { tags: 'Tags' }, /only a string, integer or boolean/],
  ])('refuses %s', (_label, headers, problem) => {
    expect(markParamHeaders(schema, headers).problem).toMatch(problem);
  });
});

describe('withAgentTool: confirm and paramHeaders in GET /gw/schema', () => {
  function app(paramHeaders: Record<string, string>) {
    const hono = new Hono();
    mapAgentToolSchema(hono, { includeMappedEndpoints: true });
    hono.post(
      '/regions/:region/runs',
      withAgentTool({
        name: 'run_query',
        description: 'Runs a query',
        allowWrite: true,
        confirm: true,
        paramHeaders,
        input: { body: z.object({ query: z.string(), priority: z.int() }) },
      }),
      () => new Response('ok'),
    );
    hono.get('/regions', withAgentTool({ name: 'list_regions', description: 'Regions' }), () => new Response('ok'));
    return hono;
  }

  it('carries confirm: true and the x-mcp-header marks; a tool without them has neither', async () => {
    const res = await app({ region: 'Region', priority: 'Priority' }).request('/gw/schema');
    expect(res.status).toBe(200);
    const [list, run] = (await res.json()) as ToolDefinition[];
    expect(run).toMatchObject({
      name: 'run_query',
      confirm: true,
      inputSchema: { properties: { region: { 'x-mcp-header': 'Region' }, priority: { 'x-mcp-header': 'Priority' } } },
    });
    expect(run!.inputSchema.properties.query).not.toHaveProperty('x-mcp-header');
    expect(list).not.toHaveProperty('confirm');
  });

  it('a mark the revision forbids makes the schema a misconfiguration naming the tool and the rule', async () => {
    const res = await app({ region: 'Region', query: 'REGION' }).request('/gw/schema');
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe('agent_tool_misconfigured');
    expect(body.message).toMatch(/run_query.*paramHeaders\.query: "REGION" is also the mark of region/);
  });

  it('refuses a paramHeaders that is not an object of names, and a confirm that is not a boolean, at registration', () => {
    expect(() => withAgentTool({ name: 't', description: 'd', paramHeaders: { region: 1 } as never })).toThrow(
      /paramHeaders must be an object/,
    );
    expect(() => withAgentTool({ name: 't', description: 'd', confirm: 'yes' as never })).toThrow(
      /confirm of tool "t" must be a boolean/,
    );
  });
});
