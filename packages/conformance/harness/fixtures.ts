// The suite's test API: `requirement(id, body)` registers a test for a manifest entry (an
// unknown id throws at registration, so a typo never drops coverage silently), tagged with
// what it needs so that each project runs exactly the requirements that apply to its target.

import { test as base } from '@playwright/test';
import { REQUIREMENTS, tagsFor, type RequirementId } from '../requirements.js';
import { resolveTarget, type Protocol, type ServerOptions, type Target, type TargetName } from './target.js';
import { Zodex } from './zodex.js';

export interface SuiteFixtures {
  // Opens a conversation (managed targets: with its own zodexd started with `options`).
  zodex: (options?: ServerOptions) => Promise<Zodex>;
}

export interface SuiteOptions {
  target: TargetName;
  protocol: Protocol;
}

export const test = base.extend<SuiteFixtures & { dockerGate: void }, SuiteOptions & { targetImpl: Target }>({
  target: ['stdio', { option: true, scope: 'worker' }],
  protocol: ['legacy', { option: true, scope: 'worker' }],
  // The container targets need Docker; without it (and without ZODEX_NO_SKIP) they skip, saying why.
  dockerGate: [
    async ({ target }, use, testInfo) => {
      const missing = process.env.ZODEX_DOCKER_UNAVAILABLE;
      if ((target === 'container' || target === 'sandbox') && missing !== undefined) testInfo.skip(true, `skipped: no Docker (${missing})`);
      await use();
    },
    { auto: true },
  ],
  targetImpl: [async ({ target, protocol }, use) => use(resolveTarget(target, protocol)), { scope: 'worker' }],
  zodex: async ({ targetImpl }, use, testInfo) => {
    const open: Zodex[] = [];
    await use(async (options) => {
      if (options && !targetImpl.managed) throw new Error('server options need a managed target');
      const zodex = new Zodex(targetImpl, await targetImpl.connect(options));
      open.push(zodex);
      return zodex;
    });
    // A failed test says how each zodexd it started ended and what it wrote to stderr (the
    // line reporter prints a failed test's output): a server that died is then told apart.
    if (testInfo.status !== testInfo.expectedStatus) {
      for (const [index, zodex] of open.entries()) {
        const server = zodex.managedServer;
        if (!server) continue;
        const ended =
          server.process.exitCode !== null || server.process.signalCode !== null
            ? `exited (code ${server.process.exitCode}, signal ${server.process.signalCode})`
            : 'still running';
        console.error(`zodexd #${index + 1} (pid ${server.pid}): ${ended}; stderr, last 4000 characters:\n${server.stderr().slice(-4000)}`);
      }
    }
    for (const zodex of open.reverse()) await zodex.close().catch(() => {});
  },
});

export { expect } from '@playwright/test';

type Body = Parameters<typeof test>[2];

export function requirement(id: RequirementId, body: Body): void {
  const entry = REQUIREMENTS[id];
  if (!entry) throw new Error(`unknown requirement id ${JSON.stringify(id)}: add it to conformance/requirements.ts`);
  test(`${id}: ${entry.behaviour}`, { tag: tagsFor(id), annotation: { type: 'requirement', description: id } }, body);
}
