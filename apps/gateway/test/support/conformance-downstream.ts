import { serve, type ServerType } from '@hono/node-server';
import { mapAgentToolSchema, withAgentTool } from '@tollgate/host-kit';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

/**
 * The downstream API behind the gateway in the conformance test: a Hono app
 * whose routes, marked with host-kit's `withAgentTool`, are the tools the
 * `@modelcontextprotocol/conformance` server scenarios call, each answering
 * what its scenario expects wherever a gateway can deliver it. A gateway
 * forwards an HTTP call and hands the JSON answer back as text (and
 * `structuredContent`), so the tools here answer JSON; the scenarios that need
 * image, audio or embedded-resource content, progress or logging
 * notifications, sampling or elicitation have no tool here (the test lists
 * them as not applicable, with the reason).
 */

/** The tool names the conformance scenarios call (conformance 0.2.0-alpha.12). */
export const CONFORMANCE_TOOLS = {
  /** tools-call-simple-text: a text answer. */
  simpleText: 'test_simple_text',
  /** tools-call-error: a tool that fails; MCP wants a result with `isError: true` and a text. */
  error: 'test_error_handling',
  /** server-sse-polling: a call the scenario makes on a raw POST stream. */
  reconnection: 'test_reconnection',
  /** json-schema-2020-12: its `inputSchema` must keep `$schema`, `$defs` and `additionalProperties`. */
  jsonSchema202012: 'json_schema_2020_12_tool',
} as const;

export const SIMPLE_TEXT = 'This is a simple text response for testing.';
export const ERROR_TEXT = 'This tool intentionally returns an error for testing';

/**
 * The input schema the json-schema-2020-12 scenario expects, verbatim. zod
 * (and so host-kit) derives one property at a time and has no way to emit a
 * top-level `$defs` with a `$ref` into it, so the schema endpoint serves this
 * one by hand: exactly what a downstream whose schemas are written in JSON
 * Schema 2020-12 publishes.
 */
export const JSON_SCHEMA_2020_12_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      // SEP-2106 (conformance 0.2): reference, composition and conditional keywords must reach the client too.
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  required: [],
  additionalProperties: false,
} as const;

const addressBody = z.object({
  name: z.string().optional(),
  address: z.object({ street: z.string().optional(), city: z.string().optional() }).optional(),
  contactMethod: z.enum(['phone', 'email']).optional(),
  phone: z.string().optional(),
  email: z.string().optional(),
});

export function conformanceApp(): Hono {
  const app = new Hono();

  // The one tool whose schema is written by hand (see JSON_SCHEMA_2020_12_INPUT):
  // host-kit serves the definition, this replaces its inputSchema on the way out.
  app.use('/gw/schema', async (c, next) => {
    await next();
    if (c.res.status !== 200) return;
    const tools = (await c.res.json()) as Array<{ name: string; inputSchema: unknown }>;
    for (const tool of tools)
      if (tool.name === CONFORMANCE_TOOLS.jsonSchema202012) tool.inputSchema = JSON_SCHEMA_2020_12_INPUT;
    c.res = Response.json(tools);
  });

  app.get(
    '/conformance/simple-text',
    withAgentTool({
      name: CONFORMANCE_TOOLS.simpleText,
      description: 'Returns a simple text for the conformance suite.',
      category: 'conformance',
    }),
    (c) => c.json({ text: SIMPLE_TEXT }),
  );

  app.get(
    '/conformance/error',
    withAgentTool({
      name: CONFORMANCE_TOOLS.error,
      description: 'Always fails, for the conformance suite.',
      category: 'conformance',
    }),
    (c) => {
      // An API's usual way to fail: a problem document (RFC 9457) with a 500.
      c.header('Content-Type', 'application/problem+json');
      return c.body(
        JSON.stringify({ type: 'about:blank', title: 'Tool failed', status: 500, detail: ERROR_TEXT }),
        500,
      );
    },
  );

  app.get(
    '/conformance/reconnection',
    withAgentTool({
      name: CONFORMANCE_TOOLS.reconnection,
      description: 'Answers a call made on a raw POST stream, for the conformance suite.',
      category: 'conformance',
    }),
    (c) => c.json({ reconnected: true }),
  );

  app.post(
    '/conformance/json-schema-2020-12',
    withAgentTool({
      name: CONFORMANCE_TOOLS.jsonSchema202012,
      description: 'Tool with JSON Schema 2020-12 features',
      category: 'conformance',
      allowWrite: true,
      input: { body: addressBody },
    }),
    async (c) => c.json({ received: addressBody.parse(await c.req.json()) }),
  );

  mapAgentToolSchema(app, { includeMappedEndpoints: true });
  return app;
}

export interface ConformanceDownstream {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves {@link conformanceApp} in this process on a free loopback port. */
export async function startConformanceDownstream(): Promise<ConformanceDownstream> {
  const server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: conformanceApp().fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
