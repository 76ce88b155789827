import { TEST_ADMIN_KEY } from './processes.js';

/** Small HTTP helpers for the management API of a running gateway. */
export class GatewayClient {
  constructor(readonly url: string) {}

  async adminToken(apiKey = TEST_ADMIN_KEY): Promise<string> {
    const response = await fetch(`${this.url}/auth/admin/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ apiKey }),
    });
    if (response.status !== 200) throw new Error(`admin token: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { token: string }).token;
  }

  async request(
    method: string,
    path: string,
    token: string | undefined,
    body?: unknown,
  ): Promise<{ status: number; body: any; headers: Headers }> {
    const headers: Record<string, string> = {};
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // keep the text
    }
    return { status: response.status, body: parsed, headers: response.headers };
  }

  async createAgent(admin: string, agent: Record<string, unknown>): Promise<{ agentId: string }> {
    const created = await this.request('POST', '/management/agents', admin, agent);
    if (created.status !== 201) throw new Error(`create agent: ${created.status} ${JSON.stringify(created.body)}`);
    return created.body;
  }

  async agentToken(admin: string, agentId: string, body?: unknown): Promise<string> {
    const issued = await this.request('POST', `/management/agents/${agentId}/token`, admin, body);
    if (issued.status !== 200) throw new Error(`agent token: ${issued.status} ${JSON.stringify(issued.body)}`);
    return issued.body.token;
  }
}
