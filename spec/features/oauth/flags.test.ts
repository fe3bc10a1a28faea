import { describe, expect, it } from 'vitest';
import type { Config } from '../../../src/app/config/defaults.js';
import { ConfigUsageError } from '../../../src/app/config/errors.js';
import { configFor, parseCli } from '../../../src/app/config/parse.js';

const http = ['--transport', 'http'];

const config = configFor;

function refusal(argv: string[]): string {
  try {
    parseCli(argv, {});
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigUsageError);
    return (error as Error).message;
  }
  throw new Error(`zodexd ${argv.join(' ')} was accepted`);
}

describe('--oauth and --public-url', () => {
  it('are off by default and HTTP-only', () => {
    expect(config(http).oauth).toEqual({ enabled: false, publicOrigin: undefined, publicHost: undefined, accessTokenTtlMs: 3_600_000 });
    expect(refusal(['--oauth'])).toContain('only apply to --transport http');
    expect(refusal(['--public-url', 'https://x.example'])).toContain('only apply to --transport http');
  });
  it('take an https origin only, and admit its host by the Host rule', () => {
    const parsed = config([...http, '--oauth', '--public-url', 'https://Zodex.Example.com:8443']);
    expect(parsed.oauth).toMatchObject({ enabled: true, publicOrigin: 'https://zodex.example.com:8443', publicHost: 'zodex.example.com' });
    expect(parsed.allowHosts).toContain('zodex.example.com');
    expect(refusal([...http, '--public-url', 'https://x.example/prefix'])).toContain('origin only');
    expect(refusal([...http, '--public-url', 'not a url'])).toContain('is not a URL');
    expect(refusal([...http, '--oauth', '--public-url', 'http://x.example'])).toContain('must be https:// with --oauth');
    expect(config([...http, '--public-url', 'http://x.example']).oauth.publicOrigin).toBe('http://x.example');
  });
  it('checks --oauth-token-ttl-ms', () => {
    expect(config([...http, '--oauth', '--oauth-token-ttl-ms', '1500']).oauth.accessTokenTtlMs).toBe(1500);
    expect(refusal([...http, '--oauth', '--oauth-token-ttl-ms', '999'])).toContain('at least 1000');
    expect(refusal([...http, '--oauth-token-ttl-ms', '5000'])).toContain('needs --oauth');
  });
  it('lets a non-loopback bind go without a static token when OAuth guards it', () => {
    expect(refusal([...http, '--listen', '10.0.0.5:7391'])).toContain('a token is required');
    expect(config([...http, '--listen', '10.0.0.5:7391', '--oauth']).oauth.enabled).toBe(true);
  });
});

describe('--listen unix:PATH', () => {
  it('takes an absolute path that fits a socket address', () => {
    const parsed = config([...http, '--listen', 'unix:/run/zodex//mcp.sock']);
    expect(parsed.listen).toEqual({ host: 'localhost', port: 0, socketPath: '/run/zodex/mcp.sock' });
    expect(refusal([...http, '--listen', 'unix:relative.sock'])).toContain('is not an absolute path');
    expect(refusal([...http, '--listen', `unix:/${'x'.repeat(120)}.sock`])).toContain('longer than');
    expect(refusal(['--listen', 'unix:/run/zodex/mcp.sock'])).toContain('only applies to --transport http');
  });
});

describe('zodex oauth', () => {
  it('pair makes a code that the store takes once; clients and revoke speak of a missing database plainly', async () => {
    const { runZodex } = await import('../../../src/cli/zodex.js');
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-oauth-cli-'));
    try {
      const out: string[] = [];
      const err: string[] = [];
      const io = { stdout: (text: string) => void out.push(text), stderr: (text: string) => void err.push(text), env: {}, now: () => 1_000 };
      const stateDir = path.join(dir, 'state');
      expect(await runZodex(['oauth', 'clients', '--json', '--state-dir', stateDir], io)).toBe(0);
      expect(out.join('')).toBe('[]\n');
      expect(await runZodex(['oauth', 'revoke', 'zg_x', '--state-dir', stateDir], io)).toBe(1);
      expect(await runZodex(['oauth', 'pair', '--state-dir', stateDir], io)).toBe(0);
      expect(out.at(-1)).toMatch(/^[0-9A-Z]{5}-[0-9A-Z]{5}\n$/);
      expect(await runZodex(['oauth', 'revoke', 'zg_nothing', '--state-dir', stateDir], io)).toBe(1);
      expect(err.at(-1)).toContain('no grant "zg_nothing"');
      expect(await runZodex(['oauth', 'dance', '--state-dir', stateDir], io)).toBe(2);
      expect(await runZodex(['oauth', 'revoke', '--state-dir', stateDir], io)).toBe(2);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
