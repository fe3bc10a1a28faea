// The Kubernetes manifests under deploy/kubernetes/ (issue 24), checked as strictly as an API server
// with strict field validation would: each custom resource against the openAPIV3Schema of the
// served, non-deprecated version its apiVersion names, from agent-sandbox's CRDs
// (../shared/corpus/agent-sandbox-crds), every unknown field an error, list-map keys unique; the
// core kinds against kubernetes-models' schemas. Both the files and what `kubectl kustomize` builds
// of the base and the example overlay are checked; mutated copies prove the check can fail.
// Not evaluated: CEL rules (x-kubernetes-validations; none in the kinds used here).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DEPLOY = path.join(ROOT, 'deploy/kubernetes');
const CRDS = process.env.ZODEX_AGENT_SANDBOX_CRDS ?? path.resolve(ROOT, '../shared/corpus/agent-sandbox-crds');
if (!fs.existsSync(CRDS))
  throw new Error(`the agent-sandbox CRDs are not at ${CRDS}: the shared/ folder belongs beside the checkout, or set ZODEX_AGENT_SANDBOX_CRDS to their folder`);

type Json = Record<string, unknown>;
type Schema = Json & { properties?: Record<string, Schema>; items?: Schema; additionalProperties?: unknown };

// An OpenAPI v3 schema made strict as the API server prunes and rejects: an object that declares
// its properties admits no other, unless it says x-kubernetes-preserve-unknown-fields.
function strict(schema: Schema): Schema {
  const out: Schema = { ...schema };
  if (schema.properties) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([key, value]) => [key, strict(value)]));
    if (schema.additionalProperties === undefined && !schema['x-kubernetes-preserve-unknown-fields']) out.additionalProperties = false;
  }
  if (schema.items) out.items = strict(schema.items);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') out.additionalProperties = strict(schema.additionalProperties as Schema);
  for (const key of ['anyOf', 'allOf', 'oneOf'] as const) if (Array.isArray(schema[key])) out[key] = (schema[key] as Schema[]).map(strict);
  return out;
}

// What metadata of a manifest may hold (ObjectMeta fields a manifest writes).
const METADATA: Schema = {
  type: 'object',
  properties: {
    name: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$', maxLength: 253 },
    namespace: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 63 },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['name'],
  additionalProperties: false,
};

function newAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true });
  formats.default(ajv);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  // A list of type map: no two items with the same keys (container names, ports, volumes...).
  ajv.addKeyword({
    keyword: 'x-kubernetes-list-map-keys',
    type: 'array',
    validate: (keys: string[], data: Json[]) => new Set(data.map((item) => JSON.stringify(keys.map((key) => item?.[key])))).size === data.length,
  });
  return ajv;
}

interface Served {
  validate: ValidateFunction;
  deprecated: boolean;
}

// apiVersion/kind -> the validator of that served version.
function loadCrds(): Map<string, Served> {
  const ajv = newAjv();
  const served = new Map<string, Served>();
  for (const file of fs.readdirSync(CRDS).filter((name) => name.endsWith('.yaml'))) {
    const crd = parseAllDocuments(fs.readFileSync(path.join(CRDS, file), 'utf8'))[0]!.toJS() as Json;
    const spec = crd.spec as {
      group: string;
      names: { kind: string };
      versions: { name: string; served: boolean; deprecated?: boolean; schema: { openAPIV3Schema: Schema } }[];
    };
    for (const version of spec.versions) {
      if (!version.served) continue;
      const schema = strict(version.schema.openAPIV3Schema);
      schema.properties = { ...schema.properties, metadata: METADATA };
      schema.required = [...new Set([...((schema.required as string[]) ?? []), 'apiVersion', 'kind', 'metadata'])];
      served.set(`${spec.group}/${version.name}/${spec.names.kind}`, { validate: ajv.compile(schema), deprecated: version.deprecated === true });
    }
  }
  return served;
}

// The core kinds used, through kubernetes-models (types, enums, required fields of the Kubernetes
// OpenAPI; its schemas admit unknown fields, so those are checked against its own key list too).
async function coreProblems(doc: Json): Promise<string[]> {
  const models: Record<string, () => Promise<new (data: Json) => { validate(): void }>> = {
    'v1/Namespace': async () => (await import('kubernetes-models/v1/Namespace')).Namespace as never,
    'node.k8s.io/v1/RuntimeClass': async () => (await import('kubernetes-models/node.k8s.io/v1/RuntimeClass')).RuntimeClass as never,
  };
  const topLevel: Record<string, string[]> = {
    'v1/Namespace': ['apiVersion', 'kind', 'metadata', 'spec'],
    'node.k8s.io/v1/RuntimeClass': ['apiVersion', 'kind', 'metadata', 'handler', 'overhead', 'scheduling'],
  };
  const key = `${doc.apiVersion}/${doc.kind}`;
  const load = models[key];
  if (!load) return [`${key}: no schema for this kind (add it to the test, or use a kind it knows)`];
  const problems = Object.keys(doc)
    .filter((field) => !topLevel[key]!.includes(field))
    .map((field) => `${key}: unknown field ${field}`);
  const metadata = newAjv().compile(METADATA);
  if (!metadata(doc.metadata)) problems.push(`${key}: metadata ${JSON.stringify(metadata.errors)}`);
  try {
    new (await load())(doc).validate();
  } catch (error) {
    problems.push(`${key}: ${(error as Error).message}`);
  }
  return problems;
}

const crds = loadCrds();

// Every problem of one manifest document, or [] when a strict API server would take it.
async function problemsOf(doc: Json): Promise<string[]> {
  const [group, version] = String(doc.apiVersion).includes('/') ? String(doc.apiVersion).split('/') : ['', String(doc.apiVersion)];
  const entry = crds.get(`${group}/${version}/${doc.kind}`);
  if (!entry) return coreProblems(doc);
  if (entry.deprecated) return [`${doc.apiVersion} ${doc.kind} is deprecated: use the storage version`];
  const { kind, metadata } = doc;
  if (entry.validate(doc)) return [];
  return entry.validate.errors!.map(
    (error) =>
      `${String(kind)} ${String((metadata as Json | undefined)?.name)}: ${error.instancePath || '/'} ${error.message}${error.params && 'additionalProperty' in error.params ? ` (${String(error.params.additionalProperty)})` : ''}`,
  );
}

const docsOf = (text: string): Json[] =>
  parseAllDocuments(text)
    .map((doc) => doc.toJS() as Json)
    .filter((doc) => doc !== null);
const kustomize = (dir: string): string =>
  execFileSync('kubectl', ['kustomize', path.join(DEPLOY, dir)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

// Whole manifests (kustomization files and partial patches are not resources).
function manifestFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.yaml') && entry.name !== 'kustomization.yaml' && !isPatch(full)) files.push(full);
    }
  };
  walk(DEPLOY);
  return files;
}
function isPatch(file: string): boolean {
  const kustomization = path.join(path.dirname(file), 'kustomization.yaml');
  return fs.existsSync(kustomization) && new RegExp(`path: ${path.basename(file).replace('.', '\\.')}$`, 'm').test(fs.readFileSync(kustomization, 'utf8'));
}

function kubectlKustomize(): string | undefined {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
const noKubectl = kubectlKustomize();
if (noKubectl && process.env.ZODEX_NO_SKIP)
  throw new Error(`kubectl is not installed (${noKubectl}); .ci/install-deps.sh installs it; ZODEX_NO_SKIP=1 makes its absence a failure`);

describe('deploy/kubernetes, strictly against the agent-sandbox CRDs and the Kubernetes schemas', () => {
  it('loads the served versions of the four CRDs', () => {
    expect([...crds.keys()].sort()).toEqual([
      'agents.x-k8s.io/v1alpha1/Sandbox',
      'agents.x-k8s.io/v1beta1/Sandbox',
      'extensions.agents.x-k8s.io/v1alpha1/SandboxClaim',
      'extensions.agents.x-k8s.io/v1alpha1/SandboxTemplate',
      'extensions.agents.x-k8s.io/v1alpha1/SandboxWarmPool',
      'extensions.agents.x-k8s.io/v1beta1/SandboxClaim',
      'extensions.agents.x-k8s.io/v1beta1/SandboxTemplate',
      'extensions.agents.x-k8s.io/v1beta1/SandboxWarmPool',
    ]);
  });

  it('every manifest file is valid', async () => {
    const files = manifestFiles();
    expect(files.map((file) => path.relative(DEPLOY, file)).sort()).toEqual([
      'base/sandboxtemplate.yaml',
      'base/sandboxwarmpool.yaml',
      'overlays/example/namespace.yaml',
      'overlays/example/runtimeclass-gvisor.yaml',
      'overlays/example/sandboxclaim.yaml',
    ]);
    for (const file of files) for (const doc of docsOf(fs.readFileSync(file, 'utf8'))) expect(await problemsOf(doc), path.relative(DEPLOY, file)).toEqual([]);
  });

  it.skipIf(noKubectl !== undefined)('kubectl kustomize builds the base and the example overlay, and every object it builds is valid', async () => {
    const base = docsOf(kustomize('base'));
    expect(base.map((doc) => doc.kind).sort()).toEqual(['SandboxTemplate', 'SandboxWarmPool']);
    const overlay = docsOf(kustomize('overlays/example'));
    expect(overlay.map((doc) => `${doc.kind}/${(doc.metadata as Json).name}`).sort()).toEqual([
      'Namespace/zodex-agents',
      'RuntimeClass/gvisor',
      'SandboxClaim/agent-alice',
      'SandboxTemplate/zodex',
      'SandboxWarmPool/zodex',
    ]);
    for (const doc of [...base, ...overlay]) expect(await problemsOf(doc), `${doc.kind}`).toEqual([]);
    // What the overlay changes, as built.
    const template = overlay.find((doc) => doc.kind === 'SandboxTemplate') as {
      metadata: Json;
      spec: { podTemplate: { spec: { runtimeClassName: string; containers: { image: string }[] } } };
    };
    expect(template.metadata.namespace).toBe('zodex-agents');
    expect(template.spec.podTemplate.spec.runtimeClassName).toBe('gvisor');
    expect(template.spec.podTemplate.spec.containers[0]!.image).toBe('registry.example.com/zodex:0.1.0');
    expect((overlay.find((doc) => doc.kind === 'SandboxWarmPool') as { spec: { replicas: number } }).spec.replicas).toBe(5);
    expect((overlay.find((doc) => doc.kind === 'RuntimeClass') as { metadata: Json }).metadata.namespace).toBeUndefined();
  });

  it('says what a pod needs: zodexd on the pod IP, probes on the ops port, non-root, read-only root, the token a file, volumes for workspace and state', () => {
    const template = docsOf(fs.readFileSync(path.join(DEPLOY, 'base/sandboxtemplate.yaml'), 'utf8'))[0] as {
      spec: Json & { podTemplate: { spec: Json & { containers: Json[] } } };
    };
    const pod = template.spec.podTemplate.spec;
    const zodexd = pod.containers[0] as Json & { args: string[]; securityContext: Json; volumeMounts: { name: string; mountPath: string }[] };
    expect(zodexd.args.join(' ')).toContain('--mode sprite --listen $(POD_IP):7391 --ops-listen $(POD_IP):9464 --auth-token-file /var/run/secrets/zodex/token');
    expect(zodexd.env).toEqual([{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }]);
    expect(zodexd.readinessProbe).toMatchObject({ httpGet: { path: '/readyz', port: 'ops' } });
    expect(zodexd.livenessProbe).toMatchObject({ httpGet: { path: '/healthz', port: 'ops' } });
    expect(zodexd.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
    expect(pod.automountServiceAccountToken).toBe(false);
    const drainMs = Number(zodexd.args[zodexd.args.indexOf('--drain-ms') + 1]);
    expect(drainMs).toBeLessThan((pod.terminationGracePeriodSeconds as number) * 1000);
    expect(Object.fromEntries(zodexd.volumeMounts.map((mount) => [mount.mountPath, mount.name]))).toMatchObject({
      '/workspace': 'workspace',
      '/var/lib/zodex': 'state',
      '/tmp': 'tmp',
    });
    expect((template.spec.volumeClaimTemplates as { metadata: { name: string } }[]).map((claim) => claim.metadata.name)).toEqual(['workspace', 'state']);
  });

  it('fails a manifest with an unknown field, a wrong type, a duplicate list key, a missing required field or a deprecated version', async () => {
    const read = (file: string) => docsOf(fs.readFileSync(path.join(DEPLOY, file), 'utf8'))[0] as Json & { spec: Json };
    const template = () => read('base/sandboxtemplate.yaml') as Json & { spec: { podTemplate: { spec: { containers: Json[] } } } };
    const typo = template();
    typo.spec.podTemplate.spec.containers[0]!.readinesProbe = { httpGet: { path: '/readyz', port: 9464 } };
    expect((await problemsOf(typo)).join('\n')).toMatch(/additional properties \(readinesProbe\)/);
    const wrongType = template();
    (wrongType.spec.podTemplate.spec as Json).terminationGracePeriodSeconds = 'thirty';
    expect((await problemsOf(wrongType)).join('\n')).toMatch(/terminationGracePeriodSeconds must be integer/);
    const twice = template();
    twice.spec.podTemplate.spec.containers.push({ ...twice.spec.podTemplate.spec.containers[0]! });
    expect((await problemsOf(twice)).join('\n')).toMatch(/containers must pass "x-kubernetes-list-map-keys"/);
    const claim = read('overlays/example/sandboxclaim.yaml');
    delete claim.spec.warmPoolRef;
    expect((await problemsOf(claim)).join('\n')).toMatch(/must have required property 'warmPoolRef'/);
    const old = read('base/sandboxwarmpool.yaml');
    old.apiVersion = 'extensions.agents.x-k8s.io/v1alpha1';
    expect(await problemsOf(old)).toEqual([expect.stringMatching(/deprecated/)]);
    const runtimeClass = read('overlays/example/runtimeclass-gvisor.yaml');
    runtimeClass.handlr = 'runsc';
    expect((await problemsOf(runtimeClass)).join('\n')).toMatch(/unknown field handlr/);
    const unknownTop = read('base/sandboxwarmpool.yaml');
    (unknownTop.metadata as Json).labelz = {};
    expect((await problemsOf(unknownTop)).join('\n')).toMatch(/labelz/);
  });
});
