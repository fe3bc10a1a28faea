// Where publications are recorded: one row per publish-pr or push request, whatever its outcome.
// The daemon takes a PublicationLog; `zodex publisher` passes one backed by the history store.
// Rows are built from redacted text only.

export type PublicationOutcome = 'published' | 'refused' | 'failed';

export interface PublicationRow {
  agentId?: string;
  // owner/repo when the remote was matched to one; otherwise the checkout path.
  repository: string;
  branch: string;
  commit: string;
  prUrl?: string;
  outcome: PublicationOutcome;
  // "CODE: message" for refused and failed rows.
  error?: string;
  // The write mode at the time, plus the op when it is not publish-pr: "direct (push)".
  mode: string;
}

export interface PublicationLog {
  record(row: PublicationRow): void | Promise<void>;
}

// For tests and for a daemon started without a state store.
export class MemoryPublicationLog implements PublicationLog {
  readonly rows: PublicationRow[] = [];

  record(row: PublicationRow): void {
    this.rows.push(row);
  }
}
