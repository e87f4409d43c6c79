import { lookup } from 'node:dns/promises';
import type { ResolveHost } from '../../contract/webhooks/allow';

/** Every address the system's resolver gives for `hostname` (as fetch would connect to one of them). */
export const resolveHost: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((answer) => answer.address);
