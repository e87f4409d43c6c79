import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

/** A fragment of the page: hono's escaped HTML (what `html` makes; every value put in it is escaped). */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * htmx swaps what a refused decision answers (400, 404, 409, 503: its card with why) as it swaps a
 * success, and never swaps a 204 ("nothing changed").
 */
const HTMX_CONFIG = JSON.stringify({
  // htmx would add a <style> element of its own, which the pages' Content-Security-Policy refuses.
  includeIndicatorStyles: false,
  responseHandling: [
    { code: '204', swap: false },
    { code: '[2345]..', swap: true },
  ],
});

/** The page around `body`: the header with the views and "Start a run", htmx and the style sheet. */
export function layout(title: string, body: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · waveloop</title>
        <meta name="htmx-config" content="${HTMX_CONFIG}" />
        <link rel="icon" href="/favicon.ico" type="image/svg+xml" />
        <link rel="stylesheet" href="/assets/inbox.css" />
        <script src="/assets/htmx.js"></script>
        <script src="/assets/sse.js"></script>
      </head>
      <body>
        <header>
          <strong>waveloop</strong>
          <nav>
            <a href="/">Waiting now</a><a href="/runs">Runs</a><a href="/decided">Decided</a
            ><a href="/start">Start a run</a>
          </nav>
        </header>
        <main>${body}</main>
      </body>
    </html>`;
}
