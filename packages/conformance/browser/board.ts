// The browser suite's setup: a real zodexd (HTTP transport, Local mode) started with
// --liveboard 127.0.0.1:0 and a scratch --state-dir, MCP conversations with it through the SDK's
// client (the suite's Zodex helper), pages in their own browser contexts, and the operator CLI
// for the history. Everything a test starts is stopped after it. Without Chromium the tests
// skip, or fail under ZODEX_NO_SKIP=1.

import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page, TestInfo } from '@playwright/test';
import { expect, test } from '../harness/fixtures.js';
import { connectHttp, REPO_ROOT, resolveTarget, startHttpServer, stopServer, type ManagedServer } from '../harness/target.js';
import { Zodex } from '../harness/zodex.js';
import { chromiumMissing } from './chromium.js';

const ZODEX_CLI = path.join(REPO_ROOT, 'dist/cli/zodex.js');
const LIVEBOARD_LINE = /liveboard on (http:\/\/\S+\/)/;

// The history as `zodex history --json` prints it.
export interface HistoryJson {
  kind: 'invocation' | 'operator_action';
  actor: 'agent' | 'operator';
  agentId: string | null;
  tool: string;
  summary: string;
  sessionId: string | null;
  exitCode: number | null;
  terminationReason: string | null;
}

export interface Board {
  url: string; // the Liveboard: http://127.0.0.1:PORT/
  mcpUrl: string;
  stateDir: string;
  server: ManagedServer;
  // A new MCP conversation with this zodexd (a new Agent ID at its first call).
  conversation(): Promise<Zodex>;
  history(): Promise<HistoryJson[]>;
}

const cleanups: (() => Promise<unknown>)[] = [];

// Call at the top of each spec file: the Chromium rule, and the cleanup after every test.
export function useBoards(): void {
  const missing = chromiumMissing();
  if (missing && process.env.ZODEX_NO_SKIP === '1') {
    test.beforeEach(() => {
      throw new Error(`${missing}; ZODEX_NO_SKIP=1 turns this skip into a failure`);
    });
  } else if (missing) {
    test.skip(true, `skipped: ${missing}`);
  }
  test.afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  });
}

export function scratchStateDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-liveboard-'));
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'state');
}

export function zodexCli(args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [ZODEX_CLI, ...args], (error, stdout, stderr) =>
      error ? reject(new Error(`zodex ${args.join(' ')}: ${stderr}`)) : resolve(stdout),
    ),
  );
}

export async function conversationWith(mcpUrl: string): Promise<Zodex> {
  const { client } = await connectHttp(mcpUrl);
  const zodex = new Zodex(resolveTarget('http'), { client, server: undefined, endpoint: { url: mcpUrl, headers: {} }, close: () => client.close() });
  cleanups.push(() => zodex.close());
  return zodex;
}

function boardAt(url: string, mcpUrl: string, stateDir: string, server: ManagedServer): Board {
  return {
    url,
    mcpUrl,
    stateDir,
    server,
    conversation: () => conversationWith(mcpUrl),
    history: async () => JSON.parse(await zodexCli(['history', '--json', '--state-dir', stateDir])) as HistoryJson[],
  };
}

// zodexd --transport http --liveboard 127.0.0.1:0 --state-dir <scratch> [args]
export async function startBoard(args: string[] = [], stateDir = scratchStateDir()): Promise<Board> {
  const server = await startHttpServer(['--liveboard', '127.0.0.1:0', '--state-dir', stateDir, ...args]);
  cleanups.push(() => stopServer(server));
  const match = LIVEBOARD_LINE.exec(server.stderr());
  if (!match) throw new Error(`zodexd did not log "liveboard on http://…/"; stderr:\n${server.stderr()}`);
  return boardAt(match[1]!, server.url, stateDir, server);
}

// A zodexd without a Liveboard, sharing `stateDir` (another process of the same user).
export async function startPlainServer(stateDir: string): Promise<{ mcpUrl: string; server: ManagedServer }> {
  const server = await startHttpServer(['--state-dir', stateDir]);
  cleanups.push(() => stopServer(server));
  return { mcpUrl: server.url, server };
}

// `zodex liveboard --listen 127.0.0.1:0 --state-dir DIR`: the standalone board.
export async function startStandaloneBoard(stateDir: string): Promise<string> {
  const child = spawn(process.execPath, [ZODEX_CLI, 'liveboard', '--listen', '127.0.0.1:0', '--state-dir', stateDir], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  cleanups.push(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`zodex liveboard did not report its URL; stderr:\n${stderr}`)), 10_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = LIVEBOARD_LINE.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then(() => reject(new Error(`zodex liveboard exited; stderr:\n${stderr}`)));
  });
}

// A page in a browser context of its own (two of them are two operators, or two windows).
export async function openBoard(browser: Browser, url: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  cleanups.push(() => context.close());
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept()); // the Kill button's confirm()
  await page.goto(url);
  await expect(page.getByRole('status')).toHaveText('live');
  return { context, page };
}

// The conversation's Agent ID, as its commands see it (zodexd puts it in their environment).
export async function agentIdOf(zodex: Zodex, workdir = '/'): Promise<string> {
  const id = (await zodex.sh('printf "%s" "$ZODEX_AGENT_ID"', workdir)).trim();
  expect(id).toMatch(/^[a-z2-9]{4}$/);
  return id;
}

// The common start: a zodexd with its board, one conversation with a scratch workdir, a page.
export async function watchedConversation(browser: Browser): Promise<{ board: Board; zodex: Zodex; agentId: string; workdir: string; page: Page }> {
  const board = await startBoard();
  const zodex = await board.conversation();
  const agentId = await agentIdOf(zodex);
  const workdir = await zodex.scratch();
  const { page } = await openBoard(browser, board.url);
  return { board, zodex, agentId, workdir, page };
}

export async function attachScreenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const file = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
}
