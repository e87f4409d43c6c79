import * as fs from 'node:fs';

/**
 * What the inbox page loads besides its HTML, all served by `waveloop serve` itself (no CDN): htmx
 * and its Server-Sent Events extension from their npm packages, and the page's style sheet.
 */

/** An asset's path under `/assets/`, its content type and where its text comes from. */
const ASSETS: Record<string, { type: string; text: () => string }> = {
  'htmx.js': { type: 'text/javascript', text: () => packageFile('htmx.org/dist/htmx.min.js') },
  'sse.js': { type: 'text/javascript', text: () => packageFile('htmx-ext-sse/dist/sse.min.js') },
  'inbox.css': { type: 'text/css', text: () => STYLE },
};

/** The asset named `name` (read once), or undefined when there is none (only the table's own names are found). */
export function asset(name: string): { type: string; text: string } | undefined {
  if (!Object.hasOwn(ASSETS, name)) return undefined;
  const found = ASSETS[name]!;
  cache.set(name, cache.get(name) ?? found.text());
  return { type: found.type, text: cache.get(name)! };
}

const cache = new Map<string, string>();

function packageFile(specifier: string): string {
  return fs.readFileSync(require.resolve(specifier), 'utf8');
}

const STYLE = `
:root { color-scheme: light dark; --line: #8884; --muted: #595959; --ok: #2a7d3b; --bad: #b3261e; --wait: #a15c00; }
@media (prefers-color-scheme: dark) { :root { --muted: #a6a6a6; } }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; }
header { display: flex; gap: 1.5rem; align-items: baseline; padding: .7rem 1.5rem; border-bottom: 1px solid var(--line); }
header strong { font-size: 1.1rem; }
header nav a { margin-right: 1rem; }
main { max-width: 68rem; margin: 0 auto; padding: 1rem 1.5rem 4rem; }
h1 { font-size: 1.35rem; margin: .6rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .6rem; }
a { color: inherit; }
pre { white-space: pre-wrap; word-break: break-word; background: #8881; padding: .5rem .7rem; border-radius: 4px; margin: .3rem 0; max-height: 24rem; overflow: auto; }
.muted { color: var(--muted); }
.empty { color: var(--muted); font-style: italic; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: .8rem 1rem; margin: .7rem 0; }
.card h3 { margin: 0 0 .3rem; font-size: 1rem; }
.reason { color: var(--wait); }
.description { margin: .3rem 0; font-size: .92rem; }
.needs { font-weight: 600; margin: .3rem 0; }
.note { margin: .4rem 0; color: var(--wait); }
.preview { border-left: 3px solid var(--wait); padding: .1rem .7rem; margin: .4rem 0; }
.preview ul.changes { margin: .2rem 0; padding-left: 1.1rem; font-family: ui-monospace, monospace; font-size: .9rem; }
.preview-error { border-left-color: var(--bad); color: var(--bad); font-style: italic; }
.edited .badge { font-size: .8rem; padding: .05rem .45rem; border-radius: 999px; border: 1px solid var(--wait); color: var(--wait); }
.error { color: var(--bad); font-weight: 600; }
.done { color: var(--ok); font-weight: 600; }
.status { font-size: .8rem; padding: .05rem .45rem; border-radius: 999px; border: 1px solid var(--line); white-space: nowrap; }
.status.completed { color: var(--ok); } .status.failed, .status.invalid_output, .status.terminated { color: var(--bad); }
.status.waiting_for_approval, .status.waiting_for_input, .status.waiting_for_message { color: var(--wait); }
form { margin: .4rem 0 0; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
input[type=text], input[type=password], input[type=search], textarea, select { font: inherit; padding: .3rem .45rem; border: 1px solid var(--line); border-radius: 4px; background: transparent; color: inherit; }
input[type=text] { min-width: 18rem; }
form.search input[type=search] { min-width: 12rem; }
.verdict { font-weight: 600; } .verdict.approve { color: var(--ok); } .verdict.deny, .verdict.refused { color: var(--bad); }
tr.refused td { background: #b3261e0d; }
.badge { font-size: .8rem; padding: .05rem .45rem; border-radius: 999px; border: 1px solid var(--wait); color: var(--wait); }
ul.recent { padding-left: 1.1rem; margin: .3rem 0; }
label.goal { display: block; }
textarea { width: 100%; min-height: 6rem; font-family: ui-monospace, monospace; font-size: .9rem; }
button { font: inherit; padding: .3rem .8rem; border-radius: 4px; border: 1px solid var(--line); cursor: pointer; background: #8882; color: inherit; }
button.primary { background: #2a7d3b; color: white; border-color: #2a7d3b; }
button.danger { color: var(--bad); }
details summary { cursor: pointer; margin: .3rem 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td.goal { max-width: 34rem; }
.call { border-left: 3px solid var(--line); padding: .2rem .8rem; margin: .5rem 0; }
.call.failed { border-left-color: var(--bad); }
.effects td { word-break: break-word; }
ul.tree { list-style: none; padding-left: 1.2rem; border-left: 1px dotted var(--line); }
.pager { display: flex; gap: 1rem; margin: 1rem 0; }
`;
