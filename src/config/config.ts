import { readFileSync } from 'node:fs';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { ConfigError } from '../core/errors.js';
import { type ConfigInput, type CrawldConfig, configSchema } from './config-schema.js';
import { formatIssues } from './issues.js';
import { seedAddressIssues } from './seed-guard.js';

export type { ConfigInput, CrawldConfig, JobConfig } from './config-schema.js';
export { formatPath } from './issues.js';

export function validateConfig(input: unknown): CrawldConfig {
  const result = configSchema.safeParse(input ?? {});
  if (!result.success) throw new ConfigError(formatIssues(result.error.issues));
  const config = result.data;
  const ids = new Set<string>();
  const issues: string[] = seedAddressIssues(config);
  config.jobs.forEach((job, i) => {
    if (ids.has(job.id)) issues.push(`jobs[${i}].id: duplicate job id '${job.id}'`);
    ids.add(job.id);
  });
  const warcFiles = new Map<string, number>();
  config.sinks.forEach((sink, i) => {
    sink.jobs?.forEach((id, k) => {
      if (!ids.has(id)) issues.push(`sinks[${i}].jobs[${k}]: no job with id '${id}'`);
    });
    if (sink.kind !== 'warc') return;
    // Two warc sinks of one daemon writing the same names would refuse each other's files.
    const where = `${sink.dir ?? ''}\n${sink.prefix}`;
    const other = warcFiles.get(where);
    if (other !== undefined)
      issues.push(`sinks[${i}].prefix: sinks[${other}] writes the same files (same dir and prefix)`);
    else warcFiles.set(where, i);
  });
  if (issues.length > 0) throw new ConfigError(issues);
  return config;
}

/**
 * `${NAME}` (environment) and `${file:PATH}` (trimmed contents) keep secrets out of the file;
 * applied to parsed values, so comments are never expanded.
 */
export function expandSecrets(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{(file:)?([^}]+)\}/g, (_m, isFile: string | undefined, name: string) => {
    if (isFile) {
      try {
        return readFileSync(name, 'utf8').trim();
      } catch {
        throw new ConfigError([`\${file:${name}}: cannot read file`]);
      }
    }
    const value = env[name];
    if (value === undefined) throw new ConfigError([`\${${name}}: environment variable is not set`]);
    return value;
  });
}

export function parseConfigInput(text: string, env: NodeJS.ProcessEnv = {}): unknown {
  let raw: unknown;
  try {
    raw = parseYaml(text, { prettyErrors: true });
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const msg = err instanceof YAMLParseError ? err.message.split('\n')[0] : String(err);
    throw new ConfigError([`(file): not valid YAML or JSON: ${msg}`]);
  }
  if (raw !== null && raw !== undefined && (typeof raw !== 'object' || Array.isArray(raw))) {
    throw new ConfigError(['(root): must be a mapping of options']);
  }
  return expandDeep(raw ?? {}, env);
}

function expandDeep(value: unknown, env: NodeJS.ProcessEnv): unknown {
  if (typeof value === 'string') return value.includes('${') ? expandSecrets(value, env) : value;
  if (Array.isArray(value)) return value.map((v) => expandDeep(v, env));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandDeep(v, env)]));
  }
  return value;
}

export function parseConfigText(text: string, env: NodeJS.ProcessEnv = {}): CrawldConfig {
  return validateConfig(parseConfigInput(text, env));
}

export function loadConfigFile(path: string, env: NodeJS.ProcessEnv): CrawldConfig {
  return validateConfig(loadConfigInput(path, env));
}

export function loadConfigInput(path: string, env: NodeJS.ProcessEnv): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([
      `${path}: cannot read config file (${(err as NodeJS.ErrnoException).code ?? err})`,
    ]);
  }
  return parseConfigInput(text, env);
}

export function defaultConfig(overrides: ConfigInput = {}): CrawldConfig {
  return validateConfig(overrides);
}
