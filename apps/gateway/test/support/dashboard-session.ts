import { rawRequest } from './raw-http.js';
import { TEST_ADMIN_KEY, type RunningProcess } from './processes.js';

/** A browser-like exchange with the dashboard: no redirect followed, cookies passed by hand. */
export interface Exchange {
  status: number;
  location: string | null;
  cookies: string[];
  text: string;
}

export interface SendOptions {
  method?: string;
  cookie?: string;
  /** URLSearchParams where a name repeats (checkboxes). */
  form?: Record<string, string> | URLSearchParams;
  headers?: Record<string, string>;
}

/** Over node:http rather than fetch, which cannot set the Host header (the DNS-rebinding case needs it). */
export async function send(url: string, init: SendOptions = {}): Promise<Exchange> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.cookie) headers.Cookie = init.cookie;
  if (init.form) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  const reply = await rawRequest(url, {
    method: init.method ?? (init.form ? 'POST' : 'GET'),
    headers,
    ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
  });
  return {
    status: reply.status,
    location: reply.headers.location ?? null,
    cookies: reply.headers['set-cookie'] ?? [],
    text: reply.body,
  };
}

/** What a browser sends with a form posted from the dashboard's own page. */
export const sameOrigin = (gateway: RunningProcess) => ({ Origin: gateway.url, 'Sec-Fetch-Site': 'same-origin' });
export const cookieValue = (cookies: string[], name: string) =>
  cookies
    .find((cookie) => cookie.startsWith(`${name}=`))
    ?.split(';')[0]
    ?.slice(name.length + 1);
export const csrfField = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1];

/** Signs in to the dashboard with the admin API key; returns the session cookie and its CSRF token. */
export async function signInToDashboard(gateway: RunningProcess): Promise<{ cookie: string; csrf: string }> {
  const form = await send(`${gateway.url}/dashboard/sign-in`);
  const signedIn = await send(`${gateway.url}/dashboard/sign-in`, {
    cookie: `tollgate_sign_in=${cookieValue(form.cookies, 'tollgate_sign_in')}`,
    form: { _csrf: csrfField(form.text)!, apiKey: TEST_ADMIN_KEY },
    headers: sameOrigin(gateway),
  });
  if (signedIn.status !== 303) throw new Error(`dashboard sign-in: ${signedIn.status}`);
  const cookie = `tollgate_dashboard=${cookieValue(signedIn.cookies, 'tollgate_dashboard')}`;
  const page = await send(`${gateway.url}/dashboard/agents`, { cookie });
  return { cookie, csrf: csrfField(page.text)! };
}
