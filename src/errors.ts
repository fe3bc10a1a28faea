// Typed errors with stable codes. Every layer throws these; server/results.ts is the one place
// that turns them into MCP tool results ("CODE: message", isError: true).

export type ErrorCode =
  | 'WORKDIR_REQUIRED'
  | 'WORKDIR_NOT_ABSOLUTE'
  | 'WORKDIR_NOT_FOUND'
  | 'WORKDIR_NOT_A_DIRECTORY'
  | 'UNKNOWN_SESSION'
  | 'SESSION_LIMIT'
  | 'SESSION_EXITED'
  | 'SPAWN_FAILED'
  | 'INVALID_ARGUMENT'
  | 'SINCE_OFFSET_AHEAD'
  | 'SINCE_OFFSET_NOT_RETAINED'
  | 'SHUTTING_DOWN'
  | 'FILE_CHANGED_DURING_PATCH';

export class ZodexError extends Error {
  constructor(
    readonly code: ErrorCode | (string & {}),
    message: string,
  ) {
    super(message);
    this.name = 'ZodexError';
  }
}

export function errorCode(error: unknown): string | undefined {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string') return error.code;
  return undefined;
}
