// Preloaded into a CLI process (NODE_OPTIONS=--require …) to run its clock CLOCK_AHEAD_MS ahead of
// the machine's: the process sees the time it would be that much later (`Date.now()`, `new Date()`),
// while the Temporal server and everything else keep the real time. A test uses it to look at the
// server's state as a command started a minute from now would, without waiting that minute.
'use strict';
const ahead = Number(process.env.CLOCK_AHEAD_MS || 0);
const RealDate = Date;
const now = () => RealDate.now() + ahead;
globalThis.Date = new Proxy(RealDate, {
  construct: (target, args, newTarget) => Reflect.construct(target, args.length ? args : [now()], newTarget),
  apply: () => new RealDate(now()).toString(),
  get: (target, key, receiver) => (key === 'now' ? now : Reflect.get(target, key, receiver)),
});
