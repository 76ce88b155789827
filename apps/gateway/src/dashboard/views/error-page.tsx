import { Page, type Section } from './layout.js';

export interface ErrorPageProps {
  title: string;
  detail: string;
  session?: { section: Section | null; csrfToken: string };
}

export function ErrorPage({ title, detail, session }: ErrorPageProps) {
  return (
    <Page title={title} {...(session ? { session } : {})}>
      <div class="alert" role="alert">
        <p>{detail}</p>
      </div>
      <p>
        <a href="/dashboard">Back to the overview</a>
      </p>
    </Page>
  );
}
