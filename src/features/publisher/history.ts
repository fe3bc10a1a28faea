// Where publications are recorded: one row per publish-pr or push request, whatever its outcome.
// The daemon takes a PublicationLog; `zodex publisher` passes one backed by the history store.
// Rows are built from redacted text only.

import type { PublicationInput } from '../store/types.js';

// The store's own row: agent, repository (owner/repo when the remote was matched to one,
// otherwise the checkout path), branch, commit, PR URL, outcome, error ("CODE: message" for
// refused and failed rows) and mode (plus the op when it is not publish-pr: "direct (push)").
export type PublicationRow = PublicationInput;
export type { PublicationOutcome } from '../store/types.js';

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
