import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import { ENHANCEMENT_SCRIPT, STYLESHEET } from '../assets.js';
import { FAVICON_PATH } from '../favicon.js';

export type Section = 'overview' | 'agents' | 'tools' | 'downstreams' | 'audit';

const SECTIONS: { id: Section; label: string; href: string }[] = [
  { id: 'overview', label: 'Overview', href: '/dashboard' },
  { id: 'agents', label: 'Agents', href: '/dashboard/agents' },
  { id: 'tools', label: 'Tool library', href: '/dashboard/tools' },
  { id: 'downstreams', label: 'Downstreams', href: '/dashboard/downstreams' },
  { id: 'audit', label: 'Audit', href: '/dashboard/audit' },
];

export interface PageProps {
  title: string;
  /** Absent on pages shown without a session (sign-in, errors before sign-in). */
  session?: { section: Section | null; csrfToken: string };
  children?: Child;
}

/** Every dashboard page: landmarks, a skip link, the navigation and sign-out. */
export function Page({ title, session, children }: PageProps) {
  return (
    <>
      {raw('<!DOCTYPE html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{`${title} · Tollgate`}</title>
          <link rel="icon" type="image/svg+xml" href={FAVICON_PATH} />
          <link rel="stylesheet" href={`/dashboard${STYLESHEET.path}`} />
          <script src={`/dashboard${ENHANCEMENT_SCRIPT.path}`} defer></script>
        </head>
        <body>
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="top">
            <div class="top-inner">
              <a class="brand" href="/dashboard">
                Tollgate
              </a>
              {session && (
                <>
                  <nav aria-label="Dashboard">
                    <ul>
                      {SECTIONS.map((section) => (
                        <li>
                          <a href={section.href} aria-current={section.id === session.section ? 'page' : undefined}>
                            {section.label}
                          </a>
                        </li>
                      ))}
                    </ul>
                  </nav>
                  <form method="post" action="/dashboard/sign-out">
                    <input type="hidden" name="_csrf" value={session.csrfToken} />
                    <button type="submit" class="button">
                      Sign out
                    </button>
                  </form>
                </>
              )}
            </div>
          </header>
          <main id="main" tabindex={-1}>
            <h1>{title}</h1>
            {children}
          </main>
        </body>
      </html>
    </>
  );
}

/** The hidden field every state-changing form carries. */
export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

export function Notice({ message }: { message: string | null }) {
  return message ? (
    <p class="notice" role="status">
      {message}
    </p>
  ) : null;
}

export function Alert({ children }: { children?: Child }) {
  return (
    <div class="alert" role="alert">
      {children}
    </div>
  );
}
