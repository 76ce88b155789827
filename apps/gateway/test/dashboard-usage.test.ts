/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  collectConsoleErrors,
  launchChromium,
  screenshot,
  type Browser,
  type ConsoleErrors,
} from './support/browser.js';
import { createAgentWithToken, openRawSession, rawCall } from './support/mcp.js';
import { startPair, type Pair } from './support/pair.js';
import { TEST_ADMIN_KEY } from './support/processes.js';

const WIDE = { width: 1400, height: 900 };
const PHONE = { width: 390, height: 844 };

/** Bars the browser laid out with a visible size: what the screenshot of the chart shows. */
async function drawnBars(page: Page, chart: string): Promise<number> {
  return page
    .locator(`svg[data-chart="${chart}"] rect.bar`)
    .evaluateAll(
      (bars) =>
        bars.filter((bar) => bar.getBoundingClientRect().height >= 1 && bar.getBoundingClientRect().width > 0).length,
    );
}

/**
 * The overview's usage charts (issue 29) in Chromium after a few calls:
 * server-rendered SVG bars drawn at 1,400 px and at a 390 px phone width,
 * a range picker, the same figures in a table with JavaScript off, human
 * labels, and no console error on any of it.
 */
describe.runIf(chromiumAvailable('the dashboard usage charts'))('dashboard usage charts in Chromium', () => {
  let pair: Pair;
  let browser: Browser;
  let page: Page;
  let consoleErrors: ConsoleErrors;
  let agentId: string;

  beforeAll(async () => {
    pair = await startPair();
    const admin = await pair.adminToken();
    const agent = await createAgentWithToken(pair.api, admin, { label: 'Chart reader', dailyTokenBudget: 1_000_000 });
    agentId = agent.agentId;
    const { sessionId } = await openRawSession(pair.url, agent.token);
    for (let i = 0; i < 4; i++)
      await rawCall(
        pair.url,
        agent.token,
        sessionId,
        'tools/call',
        { name: 'get_order', arguments: { id: 1001 + i } },
        10 + i,
      );
    await rawCall(pair.url, agent.token, sessionId, 'tools/call', { name: 'no_such_tool', arguments: {} }, 20);
    // An agent mistake on a known tool: it counts against get_order and its downstream, in its class.
    await rawCall(pair.url, agent.token, sessionId, 'tools/call', { name: 'get_order', arguments: {} }, 21);
    browser = await launchChromium();
    page = await browser.context.newPage();
    consoleErrors = collectConsoleErrors(page);
    await page.goto(`${pair.url}/dashboard/sign-in`);
    await page.getByLabel('Admin API key').fill(TEST_ADMIN_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/dashboard\/?$/);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await pair?.stop();
  });

  it('draws the calls and tokens charts at 1,400 px and 390 px, with labels and no console error', async () => {
    for (const [size, name] of [
      [WIDE, 'usage-overview-1400'],
      [PHONE, 'usage-overview-390'],
    ] as const) {
      await page.setViewportSize(size);
      // The counters are written a moment after the calls: reload until they show.
      await expect
        .poll(async () => (await page.goto(`${pair.url}/dashboard?range=24h`), drawnBars(page, 'calls')), {
          timeout: 15_000,
        })
        .toBeGreaterThan(0);
      expect(await drawnBars(page, 'tokens')).toBeGreaterThan(0);
      expect(await drawnBars(page, 'errors')).toBeGreaterThan(0);
      const chart = page.locator('svg[data-chart="calls"]');
      const box = (await chart.boundingBox())!;
      expect(box.width).toBeLessThanOrEqual(size.width);
      expect(box.height).toBeGreaterThan(40);
      const shot = await chart.screenshot();
      expect(shot.length).toBeGreaterThan(500);
      await screenshot(page, name);
      const text = await page.locator('main').innerText();
      expect(text).toContain('Chart reader');
      expect(text).toContain('Agent mistakes (unknown tool, invalid arguments)');
      expect(text).toContain('get_order');
      expect(consoleErrors.take()).toEqual([]);
    }
  });

  it('switches range to 7 d and 30 d (by day), and explains a bad custom range instead of failing', async () => {
    await page.setViewportSize(WIDE);
    await page.getByRole('link', { name: '30 d' }).click();
    expect(await page.locator('svg[data-chart="calls"] rect.bar').count()).toBe(31);
    await page.getByRole('link', { name: '7 d' }).click();
    expect(await page.locator('svg[data-chart="calls"] rect.bar').count()).toBe(7 * 24 + 1);
    await page.goto(`${pair.url}/dashboard?range=custom&from=2030-01-02T00:00&to=2030-01-01T00:00`);
    await expect(page.locator('.alert').textContent()).resolves.toContain('cannot be shown');
    expect(consoleErrors.take()).toEqual([]);
  });

  it("shows an agent's spend against today's budget, its pace, history, last seen and tokens issued", async () => {
    await page.setViewportSize(WIDE);
    await page.goto(`${pair.url}/dashboard/agents/${agentId}`);
    const section = await page.locator('#agent-usage-heading').locator('..').innerText();
    expect(section).toContain('Runs out at today');
    expect(section).toContain('Not before the reset');
    expect(section).toMatch(/Last seen\s*hour of/);
    expect(section).toMatch(/Tokens issued\s*1/);
    expect(await drawnBars(page, 'agent-tokens')).toBeGreaterThan(0);
    await screenshot(page, 'usage-agent-1400');
    await page.setViewportSize(PHONE);
    await page.reload();
    expect(await drawnBars(page, 'agent-calls')).toBeGreaterThan(0);
    await screenshot(page, 'usage-agent-390');
    expect(consoleErrors.take()).toEqual([]);
  });

  /** The figure of one class of outcome in the page's "How calls ended" table. */
  const outcomeClassCount = (name: string) => page.locator(`tr[data-outcome-class="${name}"] td`).innerText();

  it("shows one tool's and one downstream's calls, errors by class and latency on pages of their own, at 1,400 px and 390 px", async () => {
    for (const [size, width] of [
      [WIDE, 1400],
      [PHONE, 390],
    ] as const) {
      await page.setViewportSize(size);
      // The tool library's card links to the tool's page.
      await page.goto(`${pair.url}/dashboard/tools`);
      await page.locator('article[data-tool="get_order"] a.usage-link').click();
      await page.waitForURL(/\/dashboard\/tools\/get_order$/);
      await expect
        .poll(async () => (await page.reload(), drawnBars(page, 'calls')), { timeout: 15_000 })
        .toBeGreaterThan(0);
      expect(await drawnBars(page, 'errors')).toBeGreaterThan(0);
      expect((await page.locator('svg[data-chart="calls"]').boundingBox())!.width).toBeLessThanOrEqual(width);
      expect(await page.locator('svg[data-chart="latency"]').screenshot()).toSatisfy(
        (shot: Buffer) => shot.length > 500,
      );
      expect([
        await outcomeClassCount('success'),
        await outcomeClassCount('agent-mistake'),
        await outcomeClassCount('refusal'),
      ]).toEqual(['4', '1', '0']);
      const tool = await page.locator('main').innerText();
      expect(tool).toContain('Tool get_order');
      expect(tool).toContain('Chart reader');
      expect(tool).toMatch(/Latency p50 \/ p95\s*[\d,.]+ ms \/ [\d,.]+ ms/);
      await screenshot(page, `usage-tool-${width}`);

      // The downstreams page: one row per downstream, errors split by class, each linking to its own page.
      await page.getByRole('link', { name: 'Downstreams', exact: true }).first().click();
      await page.waitForURL(/\/dashboard\/downstreams$/);
      const row = page.locator('tr[data-group="default"] td');
      // Name, calls, refused, agent mistakes, downstream failures, gateway failures, tokens, p50 / p95.
      expect((await row.allInnerTexts()).slice(1, 6)).toEqual(['5', '0', '1', '0', '0']);
      await screenshot(page, `usage-downstreams-${width}`);
      await row.first().getByRole('link', { name: 'default' }).click();
      await page.waitForURL(/\/dashboard\/downstreams\/default$/);
      expect(await drawnBars(page, 'calls')).toBeGreaterThan(0);
      const downstream = await page.locator('main').innerText();
      expect(downstream).toContain('Downstream default');
      expect(await page.locator('tr[data-group="get_order"] td').first().innerText()).toBe('get_order');
      expect(await outcomeClassCount('agent-mistake')).toBe('1');
      await screenshot(page, `usage-downstream-${width}`);
      expect(consoleErrors.take()).toEqual([]);
    }
    // A name that is no tool's or no configured downstream's is no page.
    expect((await page.goto(`${pair.url}/dashboard/downstreams/elsewhere`))!.status()).toBe(404);
    expect((await page.goto(`${pair.url}/dashboard/tools/${encodeURIComponent('<script>')}`))!.status()).toBe(404);
    consoleErrors.take();
  });

  it('shows the same figures as a table without the page script', async () => {
    const plain = await browser.context.newPage();
    const plainErrors = collectConsoleErrors(plain);
    await plain.route('**/dashboard/assets/*.js', (route) => route.abort());
    await plain.goto(`${pair.url}/dashboard?range=24h`);
    expect(await plain.locator('figure:has(svg[data-chart="calls"]) table tbody tr').count()).toBe(25);
    expect(await drawnBars(plain, 'calls')).toBeGreaterThan(0);
    // The tool and downstream pages too: server-rendered, nothing needs the script.
    for (const path of ['/dashboard/tools/get_order?range=24h', '/dashboard/downstreams/default?range=24h']) {
      await plain.goto(`${pair.url}${path}`);
      expect(await plain.locator('figure:has(svg[data-chart="calls"]) table tbody tr').count()).toBe(25);
      expect(await drawnBars(plain, 'calls')).toBeGreaterThan(0);
    }
    await plain.goto(`${pair.url}/dashboard/downstreams`);
    expect(await plain.locator('tr[data-group="default"]').count()).toBe(1);
    expect(plainErrors.take().filter((error) => !/\/dashboard\/assets\/dashboard\.\w+\.js\)$/.test(error))).toEqual([]);
    await plain.close();
  });
});
