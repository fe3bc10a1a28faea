import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/app/config/defaults.js';
import { ConfigUsageError } from '../../src/app/config/errors.js';
import { configFor, logFormatOf, parseCli } from '../../src/app/config/parse.js';

const config = configFor;

function refusal(argv: string[], env: NodeJS.ProcessEnv = {}): string {
  try {
    parseCli(argv, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigUsageError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message;
  }
  throw new Error(`zodexd ${argv.join(' ')} was accepted`);
}

describe('--annotations', () => {
  it('defaults to all-read-only, takes truthful from the flag or ZODEX_ANNOTATIONS, and refuses anything else', () => {
    expect(config([]).annotations).toBe('all-read-only');
    expect(config(['--annotations', 'truthful']).annotations).toBe('truthful');
    expect(config([], { ZODEX_ANNOTATIONS: 'truthful' }).annotations).toBe('truthful');
    expect(config(['--annotations', 'all-read-only'], { ZODEX_ANNOTATIONS: 'truthful' }).annotations).toBe('all-read-only');
    expect(refusal(['--annotations', 'honest'])).toBe('--annotations "honest" is not one of all-read-only, truthful; write e.g. --annotations all-read-only');
    expect(refusal([], { ZODEX_ANNOTATIONS: 'honest' })).toBe(
      'ZODEX_ANNOTATIONS="honest" is not one of all-read-only, truthful; write e.g. ZODEX_ANNOTATIONS=all-read-only',
    );
  });

  it('still takes seed, the old name of all-read-only, and says so once (issue 23)', () => {
    const flagged = config(['--annotations', 'seed']);
    expect(flagged.annotations).toBe('all-read-only');
    expect(flagged.notices).toEqual([
      '--annotations seed is now called --annotations all-read-only (every tool announced read-only and not destructive); seed still works, the same way',
    ]);
    const fromEnv = config([], { ZODEX_ANNOTATIONS: 'seed' });
    expect(fromEnv.annotations).toBe('all-read-only');
    expect(fromEnv.notices).toEqual([
      'ZODEX_ANNOTATIONS=seed is now called ZODEX_ANNOTATIONS=all-read-only (every tool announced read-only and not destructive); seed still works, the same way',
    ]);
    expect(config([]).notices).toEqual([]);
  });

  it('takes --shell or ZODEX_SHELL, an absolute executable, and refuses anything else', () => {
    expect(config(['--shell', '/bin/sh']).shell).toBe('/bin/sh');
    expect(config([], { ZODEX_SHELL: '/bin/sh' }).shell).toBe('/bin/sh');
    expect(config([]).shell).toBeUndefined();
    expect(refusal(['--shell', 'zsh'])).toBe('--shell "zsh" is not an absolute path; write e.g. --shell /bin/zsh');
    expect(refusal([], { ZODEX_SHELL: '/no/such/shell' })).toMatch(/^ZODEX_SHELL=\/no\/such\/shell is not an executable file/);
    expect(refusal(['--shell', '/tmp'])).toMatch(/^--shell \/tmp is not an executable file/);
  });

  it('names the environment variable a refused transport or mode came from', () => {
    expect(refusal([], { ZODEX_TRANSPORT: 'ftp' })).toBe('ZODEX_TRANSPORT="ftp" is not one of stdio, http; write e.g. ZODEX_TRANSPORT=stdio');
    expect(refusal([], { ZODEX_MODE: 'cloud' })).toBe('ZODEX_MODE="cloud" is not one of local, sprite; write e.g. ZODEX_MODE=local');
  });
  it('records the directory zodexd was started in', () => {
    expect(config([]).startDir).toBe(process.cwd());
  });
});

describe('CLI defaults and precedence', () => {
  it('defaults to stdio, 127.0.0.1:7391, local mode', () => {
    const c = config([]);
    expect(c.transport).toBe('stdio');
    expect(c.listen).toEqual({ host: '127.0.0.1', port: 7391 });
    expect(c.mode).toBe('local');
    expect(c.maxExecTimeoutMs).toBe(7_200_000);
    expect(c.maxYieldMs).toBe(30_000);
    expect(c.allowHosts).toEqual([]);
  });

  it('sizes the preview head and the tail file: defaults, the head at most half the preview', () => {
    expect(config([])).toMatchObject({ previewBytes: 4096, headBytes: 1024, tailFileBytes: 1024 * 1024 });
    expect(config(['--preview-bytes', '1000', '--head-bytes', '900'])).toMatchObject({ previewBytes: 1000, headBytes: 500 });
    expect(config(['--tail-file-bytes', '65536'])).toMatchObject({ tailFileBytes: 65536 });
    expect(refusal(['--tail-file-bytes', '10'])).toMatch(/--tail-file-bytes must be at least 1024/);
    expect(refusal(['--head-bytes', 'lots'])).toMatch(/--head-bytes "lots" is not a whole number/);
  });

  it('takes --max-yield-ms from 0 to one hour', () => {
    expect(config(['--max-yield-ms', '0']).maxYieldMs).toBe(0);
    expect(config(['--max-yield-ms', '3600000']).maxYieldMs).toBe(3_600_000);
  });

  it('reads ZODEX_TRANSPORT, ZODEX_LISTEN and ZODEX_ALLOW_HOST, and flags win', () => {
    const env = { ZODEX_TRANSPORT: 'http', ZODEX_LISTEN: '127.0.0.1:9000', ZODEX_ALLOW_HOST: 'a.example, B.example' };
    const fromEnv = config([], env);
    expect(fromEnv.transport).toBe('http');
    expect(fromEnv.listen.port).toBe(9000);
    expect(fromEnv.allowHosts).toEqual(['a.example', 'b.example']);
    const fromFlags = config(['--listen', '127.0.0.1:9001', '--allow-host', 'c.example', '--allow-host', 'd.example'], env);
    expect(fromFlags.listen.port).toBe(9001);
    expect(fromFlags.allowHosts).toEqual(['c.example', 'd.example']);
    expect(config(['--transport', 'stdio'], env).transport).toBe('stdio');
  });

  it('has limits for HTTP abuse, each with its flag', () => {
    const c = config(['--transport', 'http']);
    expect([c.maxBodyBytes, c.maxConversations, c.headersTimeoutMs, c.bodyTimeoutMs]).toEqual([16 * 1024 * 1024, 128, 10_000, 30_000]);
    const set = config(['--transport', 'http', '--max-conversations', '3', '--headers-timeout-ms', '2000', '--body-timeout-ms', '1500']);
    expect([set.maxConversations, set.headersTimeoutMs, set.bodyTimeoutMs]).toEqual([3, 2000, 1500]);
    expect(refusal(['--max-conversations', '0'])).toMatch(/--max-conversations must be at least 1/);
    expect(refusal(['--body-timeout-ms', '10'])).toMatch(/--body-timeout-ms must be at least 100/);
  });

  it('ignores HTTP-only environment variables on stdio, saying so', () => {
    const c = config([], { ZODEX_LISTEN: '127.0.0.1:1' });
    expect(c.notices.join()).toMatch(/ignoring ZODEX_LISTEN/);
  });

  it('answers --help and --version', () => {
    expect(parseCli(['--help']).kind).toBe('help');
    expect(parseCli(['-V']).kind).toBe('version');
  });
});

describe('CLI refusals (seed 003)', () => {
  it.each([
    [['--listen', '127.0.0.1:7391'], /--listen only applies to --transport http/],
    [['--allow-host', 'x'], /--allow-host only applies to --transport http/],
    [['--transport', 'http', '--listen', '0.0.0.0:7391'], /wildcard bind.*e\.g\. --listen 127\.0\.0\.1:7391/],
    [['--transport', 'http', '--listen', '[::]:7391'], /wildcard/],
    [['--transport', 'http', '--listen', '::'], /not HOST:PORT/],
    [['--transport', 'http', '--listen', ':7391'], /wildcard/],
    [['--transport', 'http', '--listen', 'localhost'], /not HOST:PORT/],
    [['--transport', 'http', '--listen', '127.0.0.1:99999'], /port must be 0-65535/],
    [['--transport', 'http', '--allow-host', 'host.docker.internal:80'], /without a port; write --allow-host host\.docker\.internal/],
    [['--transport', 'http', '--allow-host', '[::1]:80'], /without a port/],
    [['--transport', 'udp'], /--transport "udp" is not one of stdio, http/],
    [['--mode', 'cloud'], /--mode "cloud" is not one of local, sprite/],
    [['--max-exec-timeout-ms', '1e3'], /--max-exec-timeout-ms "1e3" is not a whole number/],
    [['--max-exec-timeout-ms', '0'], /at least 1/],
    [['--max-yield-ms', '3600001'], /--max-yield-ms must be at most 3600000/],
    [['--max-yield-ms', '1.5'], /--max-yield-ms "1.5" is not a whole number/],
    [['--default-workdir', 'relative'], /--default-workdir must be an absolute path/],
    [['--default-workdir', '/definitely/not/here'], /does not exist/],
    [['--transport', 'http', '--listen', '10.1.2.3:7391'], /token is required.*--auth-token-file/],
    [['--bogus'], /Unknown option '--bogus'.*zodexd --help/],
    [['positional'], /positional/i],
  ])('zodexd %j', (argv, pattern) => {
    expect(refusal(argv)).toMatch(pattern);
  });

  it('names the environment variable a refused value came from, not the flag (issue 23)', () => {
    expect(refusal(['--transport', 'http'], { ZODEX_LISTEN: '0.0.0.0:7391' })).toMatch(
      /^ZODEX_LISTEN=0\.0\.0\.0:7391 is a wildcard bind.*e\.g\. ZODEX_LISTEN=127\.0\.0\.1:7391$/,
    );
    expect(refusal(['--transport', 'http'], { ZODEX_LISTEN: 'localhost' })).toMatch(
      /^ZODEX_LISTEN="localhost" is not HOST:PORT; write e\.g\. ZODEX_LISTEN=127\.0\.0\.1:7391/,
    );
    expect(refusal(['--transport', 'http'], { ZODEX_LISTEN: '10.1.2.3:7391' })).toMatch(
      /^ZODEX_LISTEN=10\.1\.2\.3 is not a loopback address, so a token is required/,
    );
    expect(refusal(['--transport', 'http'], { ZODEX_ALLOW_HOST: 'a.example,h.example:80' })).toMatch(
      /^ZODEX_ALLOW_HOST takes a hostname without a port; write ZODEX_ALLOW_HOST=h\.example/,
    );
    // a flag still wins, and is what a refusal names
    expect(refusal(['--transport', 'http', '--listen', '0.0.0.0:1'], { ZODEX_LISTEN: '127.0.0.1:2' })).toMatch(/^--listen 0\.0\.0\.0:1 is a wildcard bind/);
  });

  it('allows a non-loopback bind with a token or --insecure-no-auth', () => {
    const token = 'x'.repeat(32);
    expect(config(['--transport', 'http', '--listen', '10.1.2.3:7391'], { ZODEX_AUTH_TOKEN: token }).authToken).toBe(token);
    expect(config(['--transport', 'http', '--listen', '10.1.2.3:7391', '--insecure-no-auth']).insecureNoAuth).toBe(true);
  });
});

describe('--handle-idle-ms', () => {
  it('defaults to the HTTP idle time (30 minutes), takes a whole number, and refuses anything else', () => {
    expect(config([]).handleIdleMs).toBe(30 * 60_000);
    expect(config([]).handleIdleMs).toBe(config([]).httpIdleMs);
    expect(config(['--handle-idle-ms', '1500']).handleIdleMs).toBe(1500);
    expect(refusal(['--handle-idle-ms', 'soon'])).toMatch(/^--handle-idle-ms "soon" is not a whole number/);
  });
});

describe('--ops-listen and --log-format (issue 24)', () => {
  it('leave the ops listener off and logs as text by default', () => {
    expect(config([]).opsListen).toBeUndefined();
    expect(config([]).logFormat).toBe('text');
  });

  it('take HOST:PORT (flag or ZODEX_OPS_LISTEN, the flag wins) with the wildcard refusal of --listen', () => {
    expect(config(['--ops-listen', '10.1.2.3:9464']).opsListen).toEqual({ host: '10.1.2.3', port: 9464 });
    expect(config([], { ZODEX_OPS_LISTEN: '127.0.0.1:0' }).opsListen).toEqual({ host: '127.0.0.1', port: 0 });
    expect(config(['--ops-listen', '[::1]:9'], { ZODEX_OPS_LISTEN: '127.0.0.1:0' }).opsListen).toEqual({ host: '::1', port: 9 });
    for (const wildcard of ['0.0.0.0:9464', '[::]:9464', ':9464']) expect(refusal(['--ops-listen', wildcard])).toMatch(/^--ops-listen /);
    expect(refusal([], { ZODEX_OPS_LISTEN: '0.0.0.0:1' })).toMatch(/^ZODEX_OPS_LISTEN=0\.0\.0\.0:1 is a wildcard bind/);
  });

  it('take text or json (flag or ZODEX_LOG_FORMAT) and refuse anything else; the early read never throws', () => {
    expect(config(['--log-format', 'json']).logFormat).toBe('json');
    expect(config([], { ZODEX_LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(config(['--log-format', 'text'], { ZODEX_LOG_FORMAT: 'json' }).logFormat).toBe('text');
    expect(refusal(['--log-format', 'xml'])).toMatch(/^--log-format "xml" is not one of text, json/);
    expect(logFormatOf(['--log-format=json'], {})).toBe('json');
    expect(logFormatOf(['--log-format', 'text'], { ZODEX_LOG_FORMAT: 'json' })).toBe('text');
    expect(logFormatOf(['--log-format'], {})).toBe('text');
  });
});

describe('--redact-env', () => {
  it('takes names and trailing-* patterns from the flag (repeatable) or ZODEX_REDACT_ENV (comma list); flags win', () => {
    expect(config([]).redactEnv).toEqual([]);
    expect(config(['--redact-env', 'AWS_SECRET_ACCESS_KEY', '--redact-env', 'OPENAI_*']).redactEnv).toEqual(['AWS_SECRET_ACCESS_KEY', 'OPENAI_*']);
    expect(config([], { ZODEX_REDACT_ENV: 'A_KEY, B_*,' }).redactEnv).toEqual(['A_KEY', 'B_*']);
    expect(config(['--redact-env', 'C'], { ZODEX_REDACT_ENV: 'A_KEY' }).redactEnv).toEqual(['C']);
  });
  it('refuses what is not a variable name with at most a trailing *, a bare * included', () => {
    for (const bad of ['*', 'A*B', '1ABC', 'A-B', '*_TOKEN']) {
      expect(refusal(['--redact-env', bad])).toBe(
        `--redact-env ${JSON.stringify(bad)} is not a variable name (letters, digits, _) with at most a trailing *; write e.g. --redact-env AWS_SECRET_ACCESS_KEY or --redact-env 'OPENAI_*'`,
      );
    }
  });
});
