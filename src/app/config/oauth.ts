// zodexd's flags for OAuth and for serving behind a tunnel: --oauth, --public-url,
// --oauth-token-ttl-ms (the unix: form of --listen is net/address.ts's). parse.ts merges them
// into the Config; every rule about which of them go together is checked here, before anything starts.

import { ConfigUsageError } from './errors.js';

export const DEFAULT_ACCESS_TOKEN_TTL_MS = 3_600_000; // one hour; refresh tokens renew it
const MIN_ACCESS_TOKEN_TTL_MS = 1_000;

export const OAUTH_FLAG_OPTIONS = {
  oauth: { type: 'boolean' },
  'public-url': { type: 'string' },
  'oauth-token-ttl-ms': { type: 'string' },
} as const;

export const OAUTH_USAGE = `OAuth and tunnels (HTTP only):
  --oauth                     built-in OAuth 2.1 authorization server: clients register (or name a
                              metadata document), the operator approves each with a pairing code
                              printed here; --auth-token-file's token keeps working beside it
  --public-url https://HOST   the URL clients reach this server at (a tunnel, a proxy): OAuth's
                              issuer and resource (HOST/mcp); its host passes the Host rule
  --oauth-token-ttl-ms N      lifetime of an access token (default ${DEFAULT_ACCESS_TOKEN_TTL_MS})
  --listen unix:/PATH         HTTP on a Unix socket (0600; its folder made 0700, refused when
                              others can write it); Host and Origin rules as on loopback
`;

export interface OAuthFlags {
  oauth?: boolean;
  'public-url'?: string;
  'oauth-token-ttl-ms'?: string;
}

export interface OAuthConfig {
  enabled: boolean;
  publicOrigin: string | undefined; // scheme://host[:port], lower case
  publicHost: string | undefined; // the hostname the Host rule admits
  accessTokenTtlMs: number;
}

function parsePublicUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigUsageError(`--public-url ${JSON.stringify(value.slice(0, 200))} is not a URL; write e.g. --public-url https://zodex.example.com`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigUsageError(`--public-url must be an https:// URL; got ${url.protocol}`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigUsageError(
      `--public-url takes an origin only (https://HOST[:PORT]), no path, query or credentials: the MCP endpoint is always its /mcp; got ${JSON.stringify(value.slice(0, 200))}`,
    );
  }
  return url;
}

export function oauthConfigFrom(flags: OAuthFlags, transport: string): OAuthConfig {
  const given = flags.oauth || flags['public-url'] !== undefined || flags['oauth-token-ttl-ms'] !== undefined;
  if (given && transport !== 'http')
    throw new ConfigUsageError('--oauth, --public-url and --oauth-token-ttl-ms only apply to --transport http; add --transport http');
  if (flags['oauth-token-ttl-ms'] !== undefined && !flags.oauth) throw new ConfigUsageError('--oauth-token-ttl-ms needs --oauth');
  const publicUrl = flags['public-url'] === undefined ? undefined : parsePublicUrl(flags['public-url']);
  if (publicUrl?.protocol === 'http:' && flags.oauth)
    throw new ConfigUsageError('--public-url must be https:// with --oauth: tokens and codes must not cross the network in the clear');
  let accessTokenTtlMs = DEFAULT_ACCESS_TOKEN_TTL_MS;
  const ttl = flags['oauth-token-ttl-ms'];
  if (ttl !== undefined) {
    accessTokenTtlMs = /^[0-9]+$/.test(ttl.trim()) ? Number(ttl) : NaN;
    if (!Number.isSafeInteger(accessTokenTtlMs) || accessTokenTtlMs < MIN_ACCESS_TOKEN_TTL_MS) {
      throw new ConfigUsageError(`--oauth-token-ttl-ms must be a whole number of at least ${MIN_ACCESS_TOKEN_TTL_MS}; got ${JSON.stringify(ttl.slice(0, 40))}`);
    }
  }
  return {
    enabled: flags.oauth ?? false,
    publicOrigin: publicUrl?.origin.toLowerCase(),
    publicHost: publicUrl?.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase(),
    accessTokenTtlMs,
  };
}
