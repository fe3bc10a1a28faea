// Before the container targets run: the images, fresh from this tree (a no-op of about a second
// when nothing changed), and the Sprite sandbox that the `sandbox` project's specs drive.

import type { FullConfig } from '@playwright/test';
import { ensureImages, startSandbox } from '../harness/docker.js';

export default async function globalSetup(config: FullConfig): Promise<(() => Promise<void>) | undefined> {
  const names = new Set(config.projects.map((project) => project.name));
  if ((!names.has('container') && !names.has('sandbox')) || process.env.ZODEX_DOCKER_UNAVAILABLE !== undefined) return undefined;
  await ensureImages();
  if (!names.has('sandbox')) return undefined;
  const sandbox = await startSandbox();
  process.env.ZODEX_SANDBOX_URL = sandbox.url;
  process.env.ZODEX_SANDBOX_HEADERS = `Authorization: Bearer ${sandbox.token}`;
  process.env.ZODEX_SANDBOX_CONTAINER = sandbox.containerId;
  return () => sandbox.stop();
}
