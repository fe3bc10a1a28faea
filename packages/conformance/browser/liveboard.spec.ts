// The Liveboard in a real browser (Debian's Chromium) watching a real zodexd driven by the MCP
// SDK's client: aliases across two pages, timelines and live tails, a human typing into and
// killing a session, and every zodexd of the user on one board.

import { expect, requirement } from '../harness/fixtures.js';
import { stopServer } from '../harness/target.js';
import type { Zodex } from '../harness/zodex.js';
import {
  agentIdOf,
  attachScreenshot,
  conversationWith,
  openBoard,
  scratchStateDir,
  startBoard,
  startPlainServer,
  startStandaloneBoard,
  useBoards,
  watchedConversation,
  zodexCli,
} from './board.js';
import type { Page } from '@playwright/test';

useBoards();

const LIVE_MS = 1_000; // the issue: a change reaches every open page within one second

const aliasOf = (page: Page, agentId: string) => page.getByTestId(`agent-${agentId}`).getByTestId('alias');
const sessionCard = (page: Page, text: string) => page.getByRole('article', { name: /^Session / }).filter({ hasText: text });
const timeline = (page: Page, agentId: string) => page.getByRole('table', { name: `Timeline of agent ${agentId}` });

async function rename(page: Page, agentId: string, alias: string): Promise<void> {
  await page.getByRole('button', { name: `Rename agent ${agentId}` }).click();
  const box = page.getByRole('textbox', { name: `New alias for agent ${agentId}` });
  await box.fill(alias);
  await box.press('Enter');
}

async function storedAlias(stateDir: string, agentId: string): Promise<{ alias: string; aliasSetBy: string | null }> {
  const agents = JSON.parse(await zodexCli(['agents', '--json', '--state-dir', stateDir])) as { agentId: string; alias: string; aliasSetBy: string | null }[];
  return agents.find((agent) => agent.agentId === agentId)!;
}

requirement('liveboard.own-listener', async ({ browser }) => {
  const board = await startBoard();
  expect(board.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  expect(board.url).not.toContain(':0/');
  expect(board.server.stderr()).toContain(`zodexd: liveboard on ${board.url}\n`);
  // The MCP listener still serves /mcp only; the board is elsewhere.
  expect((await fetch(new URL('/', board.mcpUrl))).status).toBe(404);
  expect((await fetch(new URL('/events', board.mcpUrl))).status).toBe(404);
  expect((await fetch(new URL('/mcp', board.url))).status).toBe(404);
  const { page } = await openBoard(browser, board.url);
  await expect(page).toHaveTitle('zodex Liveboard');
  await expect(page.getByRole('table', { name: 'Servers' }).getByRole('cell', { name: String(board.server.pid), exact: true })).toBeVisible();
});

requirement('liveboard.rename-pencil', async ({ browser }) => {
  const board = await startBoard();
  const agentId = await agentIdOf(await board.conversation());
  const one = await openBoard(browser, board.url);
  const two = await openBoard(browser, board.url);
  // Unnamed, the board shows the Agent ID.
  for (const { page } of [one, two]) {
    await expect(page.getByTestId(`agent-${agentId}`).getByText(agentId, { exact: true })).toBeVisible();
    await expect(aliasOf(page, agentId)).toHaveText('unnamed');
  }

  await rename(one.page, agentId, 'Renamed in page one');
  await expect(aliasOf(two.page, agentId)).toHaveText('Renamed in page one', { timeout: LIVE_MS });
  await expect(aliasOf(one.page, agentId)).toHaveText('Renamed in page one');
  expect(await storedAlias(board.stateDir, agentId)).toMatchObject({ alias: 'Renamed in page one', aliasSetBy: 'operator' });

  // The other page edits next; its write is the last, so it wins everywhere.
  await rename(two.page, agentId, 'Then page two');
  await expect(aliasOf(one.page, agentId)).toHaveText('Then page two', { timeout: LIVE_MS });
  expect(await storedAlias(board.stateDir, agentId)).toMatchObject({ alias: 'Then page two', aliasSetBy: 'operator' });
});

requirement('liveboard.alias-tool', async ({ browser }) => {
  const stateDir = scratchStateDir();
  const board = await startBoard([], stateDir);
  const zodex = await board.conversation();
  const named = await zodex.call('set_agent_alias', { alias: 'Rindle implementation' });
  const agentId = (named.structuredContent as { agent_id: string }).agent_id;
  const one = await openBoard(browser, board.url);
  const two = await openBoard(browser, board.url);
  for (const { page } of [one, two]) await expect(aliasOf(page, agentId)).toHaveText('Rindle implementation');

  await zodex.call('set_agent_alias', { alias: 'Rindle review' });
  await expect(aliasOf(one.page, agentId)).toHaveText('Rindle review', { timeout: LIVE_MS });
  await expect(aliasOf(two.page, agentId)).toHaveText('Rindle review', { timeout: LIVE_MS });

  // Last write wins, whoever writes: the pencil, then the agent again.
  await rename(one.page, agentId, 'Operator label');
  await expect(aliasOf(two.page, agentId)).toHaveText('Operator label', { timeout: LIVE_MS });
  await zodex.call('set_agent_alias', { alias: 'Agent label' });
  for (const { page } of [one, two]) await expect(aliasOf(page, agentId)).toHaveText('Agent label', { timeout: LIVE_MS });
  expect(await storedAlias(stateDir, agentId)).toMatchObject({ alias: 'Agent label', aliasSetBy: 'agent' });

  // Persistent: the alias outlives the server; a new zodexd's board shows the ended agent with it.
  await stopServer(board.server);
  const again = await startBoard([], stateDir);
  const { page } = await openBoard(browser, again.url);
  await expect(aliasOf(page, agentId)).toHaveText('Agent label');
  await expect(page.getByTestId(`agent-${agentId}`).getByText('ended', { exact: true })).toBeVisible();
});

requirement('liveboard.timeline-tail', async ({ browser }, testInfo) => {
  const board = await startBoard();
  const [first, second] = [await board.conversation(), await board.conversation()];
  const [firstId, secondId] = [await agentIdOf(first), await agentIdOf(second)];
  const workdir = await first.scratch();
  const { page } = await openBoard(browser, board.url);
  await first.call('set_agent_alias', { alias: 'Counter watcher' });

  const counter = await first.exec({ cmd: 'for i in $(seq 1 30); do echo "tick $i"; sleep 0.2; done', workdir, yield_time_ms: 300 });
  expect(counter.status).toBe('running');
  const quick = await second.exec({ cmd: 'echo from the second conversation', workdir });
  expect(quick.exit_code).toBe(0);

  // Each command on its own agent's timeline: tool, summary, duration, result.
  const counterRow = timeline(page, firstId).getByTestId('timeline-row').filter({ hasText: 'seq 1 30' });
  await expect(counterRow).toContainText('exec_command', { timeout: LIVE_MS });
  await expect(counterRow.locator('td.duration')).toHaveText(/^\d+\.\ds$/);
  const quickRow = timeline(page, secondId).getByTestId('timeline-row').filter({ hasText: 'echo from the second conversation' });
  await expect(quickRow).toContainText('exit 0', { timeout: LIVE_MS });
  await expect(timeline(page, secondId).getByTestId('timeline-row').filter({ hasText: 'seq 1 30' })).toHaveCount(0);

  // The running session's tail keeps moving.
  const tail = sessionCard(page, 'seq 1 30').getByTestId('tail');
  await expect(tail).toContainText('tick 3');
  const lastTick = async () => Math.max(...[...(await tail.textContent())!.matchAll(/tick (\d+)/g)].map((m) => Number(m[1])));
  const before = await lastTick();
  await expect.poll(lastTick, { timeout: 3_000 }).toBeGreaterThanOrEqual(before + 3);
  await expect(sessionCard(page, 'seq 1 30').getByText('running', { exact: true })).toBeVisible();
  await attachScreenshot(page, testInfo, 'liveboard-running');

  const { result } = await first.finish(counter, 5_000);
  expect(result.exit_code).toBe(0);
  await expect(tail).toContainText('tick 30');
  await expect(sessionCard(page, 'seq 1 30').getByText('exited 0', { exact: true })).toBeVisible({ timeout: LIVE_MS * 2 });
  await expect(timeline(page, firstId).getByTestId('timeline-row').filter({ hasText: 'write_stdin' }).filter({ hasText: 'exit 0' })).toHaveCount(1, {
    timeout: LIVE_MS * 2,
  });
  await attachScreenshot(page, testInfo, 'liveboard-finished');
  await page.emulateMedia({ colorScheme: 'dark' });
  await attachScreenshot(page, testInfo, 'liveboard-finished-dark');
});

requirement('liveboard.input', async ({ browser }) => {
  const { board, zodex, agentId, workdir, page } = await watchedConversation(browser);

  const prompt = await zodex.exec({ cmd: 'read -r line; echo "got $line"', workdir, yield_time_ms: 300 });
  expect(prompt.status).toBe('running');
  const card = sessionCard(page, 'read -r line');
  await card.getByRole('textbox', { name: /^Input for session / }).fill('hello from the operator');
  await expect(card.getByRole('checkbox', { name: 'Append Enter' })).toBeChecked();
  await card.getByRole('button', { name: /^Send input to session / }).click();

  await expect(card.getByTestId('tail')).toContainText('got hello from the operator');
  const { result, output } = await zodex.finish(prompt);
  expect(output).toContain('got hello from the operator');
  expect(result).toMatchObject({ status: 'exited', exit_code: 0, termination_reason: 'exit' });

  // Recorded as the operator's, with the character count only (typed input may be a password).
  const history = await board.history();
  expect(history.filter((row) => row.actor === 'operator')).toMatchObject([{ tool: 'operator.input', agentId, summary: '24 characters, ending with Enter' }]);
  expect(JSON.stringify(history.filter((row) => row.actor === 'operator'))).not.toContain('hello from the operator');
  await expect(timeline(page, agentId).getByTestId('timeline-row').filter({ hasText: 'operator' }).filter({ hasText: 'input' })).toHaveCount(1, {
    timeout: LIVE_MS,
  });
});

requirement('liveboard.kill', async ({ browser }) => {
  const { board, zodex, agentId, workdir, page } = await watchedConversation(browser);

  const sleeper = await zodex.exec({ cmd: 'echo sleeping; sleep 60', workdir, yield_time_ms: 300 });
  expect(sleeper.status).toBe('running');
  const card = sessionCard(page, 'sleep 60');
  await expect(card.getByTestId('tail')).toContainText('sleeping');
  await card.getByRole('button', { name: /^Kill session / }).click(); // confirm() is accepted

  const killed = await zodex.write({ session_handle: sleeper.session_handle!, yield_time_ms: 5_000 });
  expect(killed).toMatchObject({ status: 'exited', termination_reason: 'killed' });
  expect(killed.summary).toMatch(/^killed after \d+\.\ds$/);
  await expect(card.getByText('killed', { exact: true })).toBeVisible({ timeout: LIVE_MS });
  await expect(card.getByRole('button', { name: /^Kill session / })).toBeHidden();

  const history = await board.history();
  expect(history.filter((row) => row.actor === 'operator')).toMatchObject([{ tool: 'operator.kill', agentId }]);
  await expect(timeline(page, agentId).getByTestId('timeline-row').filter({ hasText: 'operator' }).filter({ hasText: 'kill' })).toHaveCount(1, {
    timeout: LIVE_MS,
  });
});

requirement('liveboard.every-zodexd', async ({ browser }) => {
  const stateDir = scratchStateDir();
  const servers = [await startPlainServer(stateDir), await startPlainServer(stateDir)];
  const url = await startStandaloneBoard(stateDir);
  const conversations: Zodex[] = [];
  for (const server of servers) conversations.push(await conversationWith(server.mcpUrl));
  const ids = [await agentIdOf(conversations[0]!), await agentIdOf(conversations[1]!)];
  const { page } = await openBoard(browser, url);

  const serverTable = page.getByRole('table', { name: 'Servers' });
  for (const server of servers) {
    await expect(serverTable.getByRole('row').filter({ has: page.getByRole('cell', { name: String(server.server.pid), exact: true }) })).toContainText('live');
  }
  for (const id of ids) await expect(page.getByTestId(`agent-${id}`)).toBeVisible();

  // Each session is owned by a different zodexd; the board reaches both through their control sockets.
  const workdir = await conversations[0]!.scratch();
  const prompts = await Promise.all(
    conversations.map((zodex, n) => zodex.exec({ cmd: `read -r line; echo "server ${n} got $line"`, workdir, yield_time_ms: 300 })),
  );
  for (const [n] of prompts.entries()) {
    const card = sessionCard(page, `server ${n} got`);
    await card.getByRole('textbox', { name: /^Input for session / }).fill(`note ${n}`);
    await card.getByRole('button', { name: /^Send input to session / }).click();
    await expect(card.getByTestId('tail')).toContainText(`server ${n} got note ${n}`);
  }
  for (const [n, prompt] of prompts.entries()) {
    const { output } = await conversations[n]!.finish(prompt);
    expect(output).toContain(`server ${n} got note ${n}`);
  }
});
