// The bounds of one zodexd, prepared at start from the operator's choices: the write mode, the sandbox and the
// network switch turned into the Confinement zodex-spawn applies to every command, the
// environment rule, apply_patch's rule and the words a result uses for a refusal. Flow:
// prepareBounds -> (confined) a private folder, the stores, pins, redacted startup files, the
// publisher's mode and token file -> probe (refuse to start when a step cannot be taken) ->
// commands; finish(setup) once the login shell's environment is known (its HOME, its tokens).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Confinement } from '../../bounds/confinement.js';
import { ZodexError } from '../../errors.js';
import { processExists } from '../../fsutil.js';
import { isGoverned, WRITE_MODE_ENV, type NetworkSetting, type SandboxMode, type WriteMode } from '../../bounds/modes.js';
import { loadReadCredentials, readCredentialEnv } from './readcreds.js';
import type { SecretRegistry } from '../../secrets.js';
import { UNBOUNDED_PATCHES, type PatchBounds } from './patch.js';
import { candidateFiles, redactedCopies, tokenValuesIn } from './startfiles.js';
import { AGENT_VARIABLES, credentialStores, MIN_TOKEN_CHARS, pinnedFolders, ROOT_SYSTEM_FOLDERS, TOKEN_VARIABLES } from './stores.js';
import { probeAdvice, probeConfinement, runConfinedShells } from './probe.js';
import type { EnvironmentPolicy, ShellSetup } from '../../exec/environment.js';
import type { RefusalNotes } from '../../exec/session.js';
import { CONFINE_ENV, encodeConfinement } from '../../exec/launch/wire.js';
import { sendPublisherRequest } from '../publisher/client.js';
import { defaultPublisherSocket, PUBLISHER_SECRET_ENV, PUBLISHER_SOCKET_ENV } from '../publisher/paths.js';
import { statusResultSchema } from '../publisher/protocol.js';

// The bounds the operator chose (zodexd's Config extends it).
export interface BoundsConfig {
  writeMode: WriteMode;
  writeModeSource: string; // --write-mode, ZODEX_WRITE_MODE or "the default": for messages
  sandbox: SandboxMode;
  writableRoots: string[]; // absolute, existing folders, symlinks resolved
  sandboxNetwork: NetworkSetting;
  gitReadCredentials: string | undefined; // --git-read-credentials FILE
  authTokenFile: string | undefined; // where the HTTP token was read from (masked from commands)
}

// zodexd's private folder (its copy of zodex-spawn, the redacted copies), masked from commands,
// and the sandbox's /tmp, which commands see at /tmp.
const FOLDER_PREFIX = 'zodex-bounds-';
const TMP_PREFIX = 'zodex-sandbox-tmp-';
// With the network off, the local services that would resolve or reach a name for a command:
// systemd-resolved's varlink sockets, nscd, and the system bus (resolved's D-Bus API).
const RESOLVER_SOCKETS = [
  '/run/systemd/resolve/io.systemd.Resolve',
  '/run/systemd/resolve/io.systemd.Resolve.Monitor',
  '/run/nscd/socket',
  '/var/run/nscd/socket',
  '/run/dbus/system_bus_socket',
  '/var/run/dbus/system_bus_socket',
];
// How long zodexd waits for a publisher's status at start (a daemon that answers at all answers at once).
const PUBLISHER_STATUS_TIMEOUT_MS = 2_000;

export class BoundsError extends Error {
  override name = 'BoundsError';
}

export interface Bounds {
  // The zodex-spawn to run: a copy in the private folder, out of every command's reach (a
  // command could otherwise replace the one in a checkout it owns, and the next standby would
  // start it unconfined); the built one when nothing is confined.
  spawnHelper: string;
  // What every command's environment loses and gets (the confinement entry included).
  environment: EnvironmentPolicy;
  // The login shell runs under zodex-spawn --exec with the same confinement, or undefined.
  runner: string[] | undefined;
  // The login shell's environment, completed: its stores and token values taken into account, and
  // checked (a confined login shell gives no token value back); rejects with SPAWN_FAILED when
  // one comes back, so that no command runs with it in reach.
  finish(setup: ShellSetup): Promise<ShellSetup>;
  patches: PatchBounds;
  refusals: RefusalNotes | undefined;
  // Lines for the start log: the write mode, the sandbox, what confines.
  describe: string[];
  close(): void;
}

// How long the check's login shells may take (a slow rc file: pyenv, nvm).
const CHECK_TIMEOUT_MS = 15_000;

// A confined login shell, and an interactive one, run the user's startup files as a command's
// `bash -lc` would: if a known token value is in what they print, a file zodexd did not find
// (read by `cat`, sourced through a variable) still hands it out, and no command may run.
async function checkNoTokenComesBack(
  spawnHelper: string,
  shell: string,
  env: Record<string, string>,
  values: string[],
  log: (message: string) => void,
): Promise<void> {
  const outputs = await runConfinedShells(spawnHelper, shell, 'env', env, CHECK_TIMEOUT_MS);
  if (outputs.some((output) => output === undefined)) {
    log(`warning: the check that no startup file hands a command a token did not finish within ${CHECK_TIMEOUT_MS} ms; commands run, unchecked`);
  }
  const leaked = outputs.some((output) => output !== undefined && values.some((value) => output.includes(value)));
  if (!leaked) return;
  const message =
    `your login shell gives commands a token (GH_TOKEN or the like) from a file zodexd could not find in your startup files or what they source, so commands would reach it through \`${shell} -lc\`. ` +
    'Keep tokens out of startup files (a credential helper, or the publisher, holds them), or export them there literally, or start zodexd with --write-mode direct. No command is run';
  log(`error: ${message}`);
  throw new ZodexError('SPAWN_FAILED', message);
}

// Where the sandbox lets a command write, in words.
export function writableWhere(config: Pick<BoundsConfig, 'sandbox' | 'writableRoots'>): string {
  return config.sandbox === 'workspace-write'
    ? `writes are allowed only under the workdir, /tmp (private to zodexd)${config.writableRoots.length > 0 ? ` and ${config.writableRoots.join(', ')}` : ''}`
    : 'writes are allowed only under /tmp (private to zodexd)';
}

// The server instructions' sentence on the bounds (the write mode; the sandbox and the network
// when confined): what a model needs to pick the route that can work.
export function boundsInstruction(config: Pick<BoundsConfig, 'writeMode' | 'sandbox' | 'writableRoots' | 'sandboxNetwork'>): string {
  const mode =
    config.writeMode === 'direct'
      ? "Write mode direct: commands push with the user's own credentials."
      : config.writeMode === 'publish-pr'
        ? 'Write mode publish-pr: commands cannot push; open pull requests with zodex-agent github publish-pr.'
        : 'Write mode read-only: commands cannot push or open pull requests.';
  return [
    mode,
    config.sandbox !== 'off' ? `Sandbox ${config.sandbox}: ${writableWhere(config)}.` : '',
    config.sandboxNetwork === 'off' ? 'The network is off for commands.' : '',
  ]
    .filter(Boolean)
    .join(' ');
}

function homesOf(env: Readonly<Record<string, string | undefined>>): string[] {
  const homes = [env.HOME, os.userInfo().homedir].filter((home): home is string => !!home && path.isAbsolute(home)).map((home) => path.normalize(home));
  return [...new Set(homes)];
}

function writableParent(dir: string): boolean {
  try {
    fs.accessSync(path.dirname(dir), fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

// The publisher's answer to `status`, if one listens at `socket` and answers within the timeout.
async function publisherStatus(socket: string): Promise<{ mode: string; tokenFile?: string | undefined; stateDir?: string | undefined } | undefined> {
  try {
    const response = await sendPublisherRequest(socket, { op: 'status' }, `zodexd-${process.pid}`, PUBLISHER_STATUS_TIMEOUT_MS);
    if (!response.ok) return undefined;
    const status = statusResultSchema.safeParse(response.result);
    return status.success ? status.data : undefined;
  } catch {
    return undefined;
  }
}

// Removes the folders of zodexd's that ended without removing theirs (their pid is gone).
function sweepStale(tmp: string): void {
  for (const name of fs.readdirSync(tmp, { withFileTypes: true })) {
    const match = new RegExp(`^(?:${FOLDER_PREFIX}|${TMP_PREFIX})(\\d+)-`).exec(name.name);
    if (!match || !name.isDirectory()) continue;
    if (!processExists(Number(match[1]))) fs.rmSync(path.join(tmp, name.name), { recursive: true, force: true });
  }
}

// built.secrets: the one registry of values no output shows (src/secrets.ts); the token values and
// read credentials found here join it.
// config.stateDir is masked from commands; config.spillDir stays readable inside the private /tmp.
export async function prepareBounds(
  config: BoundsConfig & { stateDir: string; spillDir: string },
  built: { spawnHelper: string; shell: string; log: (message: string) => void; secrets: SecretRegistry },
): Promise<Bounds> {
  const governed = isGoverned(config.writeMode);
  const networkOff = config.sandboxNetwork === 'off';
  const removed = ['ZODEX_AUTH_TOKEN', ...PUBLISHER_SECRET_ENV, ...(governed ? [...TOKEN_VARIABLES, ...AGENT_VARIABLES] : [])];
  const modeLine = `write mode: ${config.writeMode}${config.writeModeSource === 'the default' ? ' (the default)' : ''}`;
  if (!governed && config.sandbox === 'off' && !networkOff) {
    return {
      spawnHelper: built.spawnHelper,
      environment: { remove: removed, set: { [WRITE_MODE_ENV]: config.writeMode } },
      runner: undefined,
      finish: async (setup) => setup,
      patches: UNBOUNDED_PATCHES,
      refusals: undefined,
      describe: [`${modeLine}: commands run as this user, unconfined (credential stores, pushes and the network are theirs); sandbox: off`],
      close: () => {},
    };
  }
  if (process.platform !== 'linux') {
    throw new BoundsError(
      `${governed ? `--write-mode ${config.writeMode}` : `--sandbox ${config.sandbox}`} needs Linux (namespaces, Landlock, seccomp) to confine commands, and this is ${process.platform}; ` +
        'start zodexd with --write-mode direct --sandbox off --sandbox-network on to run commands unconfined, as your user',
    );
  }

  const tmp = os.tmpdir();
  try {
    sweepStale(tmp);
  } catch {
    // another zodexd sweeping at the same time, or an unreadable temp dir: nothing to do
  }
  const folder = fs.mkdtempSync(path.join(tmp, `${FOLDER_PREFIX}${process.pid}-`));
  const privateTmp = config.sandbox === 'off' ? undefined : fs.mkdtempSync(path.join(tmp, `${TMP_PREFIX}${process.pid}-`));
  const close = () => {
    fs.rmSync(folder, { recursive: true, force: true });
    if (privateTmp) fs.rmSync(privateTmp, { recursive: true, force: true });
  };
  try {
    if (privateTmp) fs.chmodSync(privateTmp, 0o1777);
    const spawnHelper = path.join(folder, 'zodex-spawn');
    fs.copyFileSync(built.spawnHelper, spawnHelper);
    fs.chmodSync(spawnHelper, 0o700);

    // The publisher: its socket stays reachable in publish-pr (and in direct mode), its folder is
    // masked in read-only; its mode must be ours; its token file is masked.
    const publisherSocket = path.resolve(process.env[PUBLISHER_SOCKET_ENV] || defaultPublisherSocket(process.env));
    // In read-only it is asked too: not for its mode (commands cannot reach it), for its token file.
    const publisher = await publisherStatus(publisherSocket);
    if (publisher && publisher.mode !== config.writeMode && config.writeMode !== 'read-only') {
      throw new BoundsError(
        `zodexd's write mode is ${config.writeMode} (${config.writeModeSource}) but the publisher at ${publisherSocket} runs in ${publisher.mode}; ` +
          `they must agree: start both with the same --write-mode (or ${WRITE_MODE_ENV})`,
      );
    }
    // zodexd's state (control sockets, history, OAuth grants, config) and the publisher's.
    const extraMasks = [config.stateDir, ...(publisher?.stateDir ? [publisher.stateDir] : [])];
    const networkMasks = networkOff ? RESOLVER_SOCKETS : [];
    if (config.authTokenFile) extraMasks.push(config.authTokenFile);
    if (publisher?.tokenFile) extraMasks.push(publisher.tokenFile);
    if (config.writeMode === 'read-only') extraMasks.push(path.dirname(publisherSocket));

    const secretsSeen = new Set<string>();
    let rawEnv: Readonly<Record<string, string | undefined>> = process.env;
    const learn = (env: Readonly<Record<string, string | undefined>>) => {
      for (const name of TOKEN_VARIABLES) {
        const value = env[name];
        if (value && value.length >= MIN_TOKEN_CHARS && !secretsSeen.has(value)) {
          secretsSeen.add(value);
          built.secrets.add(name, value);
        }
      }
    };
    learn(process.env);

    const readCredentials = config.gitReadCredentials === undefined ? undefined : loadReadCredentials(config.gitReadCredentials);
    const build = (env: Readonly<Record<string, string | undefined>>): Confinement => {
      const homes = homesOf(env);
      const stores = governed ? credentialStores(homes, env as Record<string, string>) : [];
      // the private folder in every confined mode: the zodex-spawn copy must stay zodexd's
      const masks = [...(governed ? [...stores.map((store) => store.path), ...extraMasks] : []), folder, ...networkMasks];
      const files = governed ? candidateFiles(homes) : [];
      for (const value of tokenValuesIn(files)) if (!secretsSeen.has(value)) secretsSeen.add(value), built.secrets.add('STARTUP_FILE_TOKEN', value);
      // masked anyway, or the read-only credential itself (commands read it as it is)
      const masked = (file: string) => file === readCredentials?.file || masks.some((mask) => file === mask || file.startsWith(`${mask}/`));
      const runtimeDir = env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR) ? path.normalize(env.XDG_RUNTIME_DIR) : undefined;
      const sshAgent = env.SSH_AUTH_SOCK && path.isAbsolute(env.SSH_AUTH_SOCK) ? env.SSH_AUTH_SOCK : undefined;
      const allowedSockets = [...(config.writeMode !== 'read-only' ? [publisherSocket] : []), ...(!governed && sshAgent ? [sshAgent] : [])];
      return {
        governed,
        sandbox: config.sandbox,
        networkOff,
        masks,
        // every zodexd's private folders, this one's included (their pool sockets fall under the
        // socket rule: a mask per folder would cost a mount each, for nothing)
        maskPrefixes: [FOLDER_PREFIX, TMP_PREFIX].map((prefix) => path.join(tmp, prefix)),
        pins: pinnedFolders(stores, writableParent),
        allowedSockets,
        binds: governed ? redactedCopies([...secretsSeen], files, folder, masked) : [],
        readOnly: governed && process.getuid?.() === 0 ? [...ROOT_SYSTEM_FOLDERS] : [],
        writableRoots: config.writableRoots,
        privateTmp,
        visible: privateTmp ? [config.spillDir] : [],
        runtimeDir,
        keep: config.writeMode !== 'read-only' ? [path.dirname(publisherSocket), ...(!governed && sshAgent ? [sshAgent] : [])] : [],
      };
    };

    let confinement = build(process.env);
    const probe = await probeConfinement(spawnHelper, encodeConfinement(confinement), privateTmp ?? tmp, built.shell);
    if (!probe.ok) {
      const asked = [
        governed ? `--write-mode ${config.writeMode}` : undefined,
        config.sandbox !== 'off' ? `--sandbox ${config.sandbox}` : undefined,
        networkOff ? '--sandbox-network off' : undefined,
      ]
        .filter(Boolean)
        .join(' ');
      throw new BoundsError(
        `cannot confine commands as ${asked} asks: ${probe.reason}. ${probeAdvice(probe.reason)}. ` +
          'zodexd does not run commands less confined than asked; to run them unconfined, as your user, start it with --write-mode direct --sandbox off --sandbox-network on',
      );
    }

    if (readCredentials && confinement.masks.some((mask) => readCredentials.file === mask || readCredentials.file.startsWith(`${mask}/`))) {
      throw new BoundsError(
        `--git-read-credentials ${readCredentials.file} is inside a credential store that commands cannot read; keep the read-only credential in a file of its own (e.g. ~/.config/git-read-credentials)`,
      );
    }
    for (const credential of readCredentials?.credentials ?? []) built.secrets.add('GIT_READ_CREDENTIAL', credential.password);

    const sandboxed = config.sandbox !== 'off';
    const where = writableWhere(config);
    const refusals: RefusalNotes | undefined =
      sandboxed || networkOff
        ? {
            ...(sandboxed ? { write: `the sandbox (${config.sandbox}) refused a write ("Read-only file system" in the output): ${where}` } : {}),
            ...(networkOff
              ? {
                  network: (count: number) =>
                    `the sandbox refused ${count} network connection${count === 1 ? '' : 's'} (socket() for anything but unix sockets): the network is off for commands`,
                }
              : {}),
          }
        : undefined;

    const confinedBy = [
      governed ? 'credential stores and same-user sockets masked, no access to other processes, no capabilities' : undefined,
      sandboxed ? `sandbox ${config.sandbox}: ${where}` : undefined,
      networkOff ? 'network off' : undefined,
    ].filter(Boolean);
    const route =
      config.writeMode === 'publish-pr'
        ? `the one route to GitHub is zodex-agent github publish-pr through the publisher at ${publisherSocket}${publisher ? '' : ' (none answers there now)'}`
        : config.writeMode === 'read-only'
          ? 'no route to GitHub writes (the publisher is masked too)'
          : 'commands push with your own credentials';
    const describe = [
      `${modeLine}: commands run confined (${confinedBy.join('; ')}); ${route}`,
      ...(readCredentials
        ? [
            `git read credentials: ${readCredentials.credentials.map((credential) => credential.url).join(', ')} (from ${readCredentials.file}) offered to commands' git`,
          ]
        : []),
      ...(confinement.binds.length > 0
        ? [`startup files holding a token are shown to commands without it: ${confinement.binds.map((bind) => bind.target).join(', ')}`]
        : []),
    ];

    const set = (current: Confinement): Record<string, string> => ({
      [WRITE_MODE_ENV]: config.writeMode,
      [CONFINE_ENV]: encodeConfinement(current),
      ...(governed ? { GIT_TERMINAL_PROMPT: '0' } : {}),
      ...(sandboxed ? { TMPDIR: '/tmp' } : {}),
    });
    const environment: EnvironmentPolicy = {
      remove: [...removed, 'DBUS_SESSION_BUS_ADDRESS'],
      set: set(confinement),
      seen: (env) => {
        rawEnv = env;
        learn(env);
      },
    };
    const patches: PatchBounds = { denied: confinement.masks, sandbox: config.sandbox, writableRoots: config.writableRoots, privateTmp };
    return {
      spawnHelper,
      environment,
      runner: [spawnHelper, '--exec'],
      finish: async (setup) => {
        confinement = build(rawEnv);
        patches.denied = confinement.masks;
        const env: Record<string, string> = { ...setup.env, ...set(confinement) };
        if (readCredentials) Object.assign(env, readCredentialEnv(readCredentials.file, env));
        if (governed && secretsSeen.size > 0) await checkNoTokenComesBack(spawnHelper, setup.shell, env, [...secretsSeen], built.log);
        return { ...setup, env };
      },
      patches,
      refusals,
      describe,
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}
