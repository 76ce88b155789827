import { Alert, Page } from './layout.js';

export interface SignInProps {
  csrfValue: string;
  /** The admin API key is configured; without it only the development sign-in can exist. */
  keySignIn: boolean;
  /** Development mode and a loopback request: one click signs in. */
  devSignIn: boolean;
  error?: string;
}

export function SignInPage({ csrfValue, keySignIn, devSignIn, error }: SignInProps) {
  return (
    <Page title="Sign in">
      <div class="card sign-in">
        {error && <Alert>{error}</Alert>}
        {keySignIn ? (
          <form method="post" action="/dashboard/sign-in">
            <input type="hidden" name="_csrf" value={csrfValue} />
            <div class="field">
              <label for="apiKey">Admin API key</label>
              <input id="apiKey" name="apiKey" type="password" autocomplete="current-password" required autofocus />
              <p class="hint">
                The value of Gw:Admin:ApiKey. It is exchanged for an admin session of at most 12 hours.
              </p>
            </div>
            <button type="submit">Sign in</button>
          </form>
        ) : (
          <p>
            Signing in needs an admin API key: set <code>Gw:Admin:ApiKey</code> in the gateway's configuration.
          </p>
        )}
        {devSignIn && (
          <form method="post" action="/dashboard/sign-in/dev">
            <h2>Development mode</h2>
            <p class="hint">This browser is on the gateway's machine, so it may sign in without the key.</p>
            <input type="hidden" name="_csrf" value={csrfValue} />
            <button type="submit" class="secondary">
              Sign in as local developer
            </button>
          </form>
        )}
      </div>
    </Page>
  );
}
