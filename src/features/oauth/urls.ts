// Where this server's OAuth documents and endpoints live, and what they say. Every URL derives
// from one base: --public-url's origin when given (behind a tunnel or proxy), otherwise
// http://<Host header> (already admitted by the Host rule). The resource (RFC 8707 audience of
// every token) is <base>/mcp; the issuer is <base> itself.

export const MCP_PATH = '/mcp';
export const SCOPE = 'zodex'; // the one scope: use of the MCP tools
export const PATHS = {
  resourceMetadata: '/.well-known/oauth-protected-resource',
  resourceMetadataForMcp: `/.well-known/oauth-protected-resource${MCP_PATH}`,
  serverMetadata: '/.well-known/oauth-authorization-server',
  authorize: '/oauth/authorize',
  decision: '/oauth/authorize/decision',
  token: '/oauth/token',
  register: '/oauth/register',
} as const;

export interface Endpoints {
  base: string; // scheme://host[:port], lower case, no trailing slash
  issuer: string;
  resource: string;
  resourceMetadata: string;
}

const HOST_HEADER = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

// The base URL of a request, or undefined when its Host header cannot name one.
export function baseOf(hostHeader: string | undefined, publicOrigin: string | undefined): string | undefined {
  if (publicOrigin !== undefined) return publicOrigin;
  const host = hostHeader?.trim().toLowerCase();
  return host && HOST_HEADER.test(host) ? `http://${host}` : undefined;
}

export function endpoints(base: string): Endpoints {
  return { base, issuer: base, resource: `${base}${MCP_PATH}`, resourceMetadata: `${base}${PATHS.resourceMetadataForMcp}` };
}

// Why a grant of `audience` is not for this zodexd (`own`), or undefined when it is. Every zodexd
// of a user shares one state dir, so a token must name the server that issued it: its listener,
// never what a request's Host header says (RFC 8707 §2; MCP: accept only tokens issued for itself).
export function audienceProblem(audience: string | null, own: string | undefined): string | undefined {
  if (audience === null) return 'was issued before zodexd bound each token to the server that issued it';
  return own !== undefined && audience === own ? undefined : 'was issued by another zodexd sharing this state directory, not by this one';
}

// RFC 9728 §2.
export function protectedResourceMetadata(at: Endpoints): Record<string, unknown> {
  return {
    resource: at.resource,
    authorization_servers: [at.issuer],
    scopes_supported: [SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'zodex',
  };
}

// RFC 8414 §2, with RFC 9207's iss flag and client ID metadata documents.
export function authorizationServerMetadata(at: Endpoints): Record<string, unknown> {
  return {
    issuer: at.issuer,
    authorization_endpoint: `${at.base}${PATHS.authorize}`,
    token_endpoint: `${at.base}${PATHS.token}`,
    registration_endpoint: `${at.base}${PATHS.register}`,
    scopes_supported: [SCOPE],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
}

// The WWW-Authenticate value of a 401 (RFC 6750 §3, RFC 9728 §5.1): where the metadata is, the
// scope to ask for, and, when a token was presented, why it was refused.
export function bearerChallenge(at: Endpoints, refusal?: { error: string; description: string }): string {
  const parts = [`resource_metadata="${at.resourceMetadata}"`, `scope="${SCOPE}"`];
  if (refusal) parts.push(`error="${refusal.error}"`, `error_description="${refusal.description.replace(/["\\]/g, '')}"`);
  return `Bearer ${parts.join(', ')}`;
}
