// A command line zodex cannot honour: one line naming the flag and the fix (exit 2). Address
// rules live in net/ and throw their own AddressError; `setting` turns it into a ConfigUsageError.

import { AddressError } from '../../net/address.js';

export class ConfigUsageError extends Error {
  override name = 'ConfigUsageError';
}

// Runs a net/ parser, its AddressError becoming a ConfigUsageError with the same message.
export function setting<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof AddressError) throw new ConfigUsageError(error.message);
    throw error;
  }
}
