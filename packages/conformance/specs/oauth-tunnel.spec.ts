// Issue 16 behind a tunnel or proxy: --public-url names the resource and issuer, and
// --listen unix: serves HTTP on a private socket; both checked at /mcp in the project's era.

import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, requirement, test } from '../harness/fixtures.js';
import { json, scratchDir, startOAuthServer, stopOAuthServers, withOAuth } from '../harness/oauth.js';
import { opening } from '../harness/oauth-era.js';
import { REPO_ROOT } from '../harness/target.js';

const run = promisify(execFile);

// Also after a test that timed out (its finally blocks never ran).
test.afterEach(stopOAuthServers);

requirement('oauth.public-url', async ({ protocol }) => {
  await withOAuth(['--public-url', 'https://zodex.example.com'], async (srv) => {
    const publicBase = 'https://zodex.example.com';
    const headers = { host: 'zodex.example.com' };
    const metadata = json(await srv.request('/.well-known/oauth-protected-resource/mcp', { headers }));
    expect(metadata).toMatchObject({ resource: `${publicBase}/mcp`, authorization_servers: [publicBase] });
    expect(json(await srv.request('/.well-known/oauth-authorization-server')).issuer).toBe(publicBase);
    expect((await srv.request('/mcp', opening(protocol, headers))).headers['www-authenticate']).toContain(
      `${publicBase}/.well-known/oauth-protected-resource/mcp`,
    );
    expect((await srv.request('/mcp', opening(protocol, { host: 'other.example.com' }))).status).toBe(403);
  });
});

requirement('oauth.unix-socket', async ({ protocol }) => {
  const dir = scratchDir('zodex-unix-');
  const socketPath = path.join(dir, 'private', 'mcp.sock');
  try {
    await withOAuth(
      ['--listen', `unix:${socketPath}`],
      async (srv) => {
        expect(fs.statSync(socketPath).mode & 0o777).toBe(0o600);
        expect(fs.statSync(path.dirname(socketPath)).mode & 0o777).toBe(0o700);
        const base = 'http://localhost';
        expect(json(await srv.request('/.well-known/oauth-protected-resource/mcp', { headers: { host: 'localhost' } })).resource).toBe(`${base}/mcp`);
        expect((await srv.request('/mcp', opening(protocol, { host: 'evil.example' }))).status).toBe(403);
        expect((await srv.request('/mcp', opening(protocol, { host: 'localhost', origin: 'http://evil.example' }))).status).toBe(403);
        // A second zodexd on the live socket is refused.
        const second = await run(process.execPath, [
          path.join(REPO_ROOT, 'dist/cli/zodexd.js'),
          '--transport',
          'http',
          '--listen',
          `unix:${socketPath}`,
          '--state-dir',
          srv.stateDir,
        ]).catch((error: { code: number; stderr: string }) => error);
        expect((second as { stderr: string }).stderr).toContain('another process is listening');
      },
      { base: 'http://localhost' },
    );
    expect(fs.existsSync(socketPath)).toBe(false);
    // A leftover socket nobody serves is replaced.
    const crashed = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(socketPath)}, () => console.log('up'))`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise((resolve) => crashed.stdout!.once('data', resolve));
    crashed.kill('SIGKILL'); // dies without removing its socket
    await new Promise((resolve) => crashed.once('exit', resolve));
    expect(fs.lstatSync(socketPath).isSocket()).toBe(true);
    await withOAuth(
      ['--listen', `unix:${socketPath}`],
      async (srv) => {
        expect((await srv.request('/mcp', opening(protocol, { host: 'localhost' }))).status).toBe(401);
      },
      { base: 'http://localhost' },
    );
    // A folder other users can write is refused.
    const open = path.join(dir, 'open');
    fs.mkdirSync(open, { mode: 0o777 });
    fs.chmodSync(open, 0o777);
    const refused = await run(process.execPath, [
      path.join(REPO_ROOT, 'dist/cli/zodexd.js'),
      '--transport',
      'http',
      '--listen',
      `unix:${open}/mcp.sock`,
      '--state-dir',
      path.join(dir, 'state'),
    ]).catch((error: { stderr: string }) => error);
    expect((refused as { stderr: string }).stderr).toContain(`the socket folder ${open} has mode 777`);
    expect(fs.existsSync(path.join(open, 'mcp.sock'))).toBe(false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

requirement('oauth.unix-socket-exit-own', async ({ protocol }) => {
  const dir = scratchDir('zodex-unix-');
  const socketPath = path.join(dir, 'mcp.sock');
  try {
    const older = await startOAuthServer(['--listen', `unix:${socketPath}`], { base: 'http://localhost' });
    // The older server's socket file goes (a cleaner, a hand); a newer server takes the path.
    fs.unlinkSync(socketPath);
    await withOAuth(
      ['--listen', `unix:${socketPath}`],
      async (newer) => {
        const inode = fs.lstatSync(socketPath).ino;
        await older.stop();
        // The older server's exit leaves the newer one's socket where it is, and it still answers.
        expect(fs.lstatSync(socketPath).ino).toBe(inode);
        expect((await newer.request('/mcp', opening(protocol, { host: 'localhost' }))).status).toBe(401);
      },
      { base: 'http://localhost', stateDir: older.stateDir },
    );
    // Its own socket a server still removes.
    expect(fs.existsSync(socketPath)).toBe(false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
