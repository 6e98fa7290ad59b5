export type PtyErrorCode =
  | 'invalid_input'
  | 'limit'
  | 'not_found'
  | 'not_running'
  | 'permission_denied'
  | 'closing'
  | 'owner_deleted'
  | 'spawn_failed'
  | 'search_failed'
  | 'pattern_too_expensive'
  | 'busy'
  | 'timeout'
  | 'write_failed';

export class PtyError extends Error {
  constructor(
    readonly code: PtyErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'PtyError';
  }
}
