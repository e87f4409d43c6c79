import { html } from 'hono/html';
import type { Html } from './layout';

/** What a browser without a known token sees: how to get in. */
export function signInView(wrongToken: boolean): Html {
  return html`<h1>Sign in</h1>
    ${wrongToken ? html`<p class="error" role="alert">That token is not one this server knows.</p>` : ''}
    <p>
      Open the address <code>waveloop serve</code> printed when it started (it carries a token), or paste a token of
      <code>WAVELOOP_HTTP_TOKENS</code>:
    </p>
    <form method="get" class="actions">
      <input type="password" name="token" aria-label="Token" autocomplete="off" required />
      <button class="primary">Sign in</button>
    </form>`;
}
