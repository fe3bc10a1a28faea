// @ts-check
// The scripted conversations the tests replay, and the checks on what the model received.
// A script is a list of turns for the mock; a check reads the mock's recorded requests.

import assert from 'node:assert/strict';

/** One exec_command call that echoes `marker`, then a final text. @param {string} tool @param {string} marker @param {string} workdir */
export function echoScript(tool, marker, workdir) {
  return [{ tools: [{ name: tool, input: { cmd: `echo ${marker}`, workdir } }] }, { text: `saw ${marker}` }];
}

/**
 * The zodex result objects the model was given, in order, parsed from the tool results of
 * each main request (`results` extracts them in the client's wire format).
 * @param {{ main: { body: any }[] }} mock @param {(body: any) => { text: string }[]} results
 */
export function zodexResults(mock, results) {
  return mock.main
    .flatMap((request) => results(request.body))
    .map(({ text }) => {
      const start = text.indexOf('{');
      assert.ok(start >= 0, `a tool result without a JSON object: ${text.slice(0, 300)}`);
      return JSON.parse(text.slice(start));
    });
}

/** The model saw `marker` printed by a command that exited 0. @param {any[]} seen @param {string} marker */
export function assertEchoed(seen, marker) {
  assert.equal(seen.length, 1, `expected one tool result, got ${JSON.stringify(seen).slice(0, 500)}`);
  assert.equal(seen[0].output, `${marker}\n`);
  assert.equal(seen[0].exit_code, 0);
  assert.equal(seen[0].status, 'exited');
}

/** A marker no config or prompt contains by chance. */
export function marker() {
  return `zodex-interop-${Math.random().toString(36).slice(2, 10)}`;
}
