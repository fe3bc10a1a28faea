// Memory per open HTTP conversation (issue 12): zodexd's RSS before and after N initialize calls
// (each followed by notifications/initialized, no tool call), with --max-conversations above N so
// that nothing is evicted. The floor is the same server's RSS after 50 warm-up conversations.
// Usage: node bench/conversations.mjs [N=1000]

import { httpZodex, requireBuild, round, rssKiB, rawHttp, writeResult } from './lib.mjs';

requireBuild();
const count = Number(process.argv[2] ?? 1000);
const server = await httpZodex(['--max-conversations', String(count + 100), '--mode', 'sprite']);
const open = [];
const openMany = async (n) => {
  for (let i = 0; i < n; i++) open.push(await rawHttp(server.url));
};
const settle = async () => {
  global.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  return rssKiB(server.pid);
};
await openMany(50); // warm up: code paths compiled, heap grown past its start
const before = await settle();
const started = Date.now();
await openMany(count);
const after = await settle();
const perKiB = (after - before) / count;
const result = {
  conversations: count,
  rssBeforeKiB: before,
  rssAfterKiB: after,
  perConversationKiB: round(perKiB, 1),
  seconds: round((Date.now() - started) / 1000, 1),
};
console.log(JSON.stringify(result));
console.log(`wrote ${writeResult('conversations', result)}`);
for (const conversation of open) conversation.close();
await server.close();
