// A command line zodex cannot honour: one line naming the flag and the fix (exit 2). Address
// rules live in net/ and throw their own AddressError; `setting` turns it into a UsageError.

import { AddressError } from '../../net/address.js';

export class UsageError extends Error {
  override name = 'UsageError';
}

// Runs a net/ parser, its AddressError becoming a UsageError with the same message.
export function setting<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof AddressError) throw new UsageError(error.message);
    throw error;
  }
}
