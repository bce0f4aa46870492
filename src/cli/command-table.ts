/**
 * Every command of the CLI with its flags: the one list both the parser (args.ts parse) and the
 * usage text (usage.ts) read, so that a flag `--help` shows is a flag the command takes.
 */

export interface FlagSpec {
  readonly type: 'string' | 'boolean';
  /** Repeatable: `--sink A --sink B`. */
  readonly multiple?: true;
  /** The value's placeholder in the usage text (FILE, N, URL); string flags only. */
  readonly value?: string;
  readonly help: string;
}

export interface CommandSpec {
  /** The words that name it: `crawl`, `dlq list`. */
  readonly name: string;
  /** Its positional arguments as the usage line shows them (`URL...`), or ''. */
  readonly operands: string;
  readonly summary: string;
  readonly flags: Readonly<Record<string, FlagSpec>>;
  /** Paragraphs printed after the flags. */
  readonly notes?: string;
}

const DAEMON_FLAGS = {
  'data-dir': {
    type: 'string',
    value: 'DIR',
    help: 'where the frontier, results.jsonl and the rest of the state live (default ./data); the same dir again resumes',
  },
  'http-port': {
    type: 'string',
    value: 'P',
    help: 'serve the status page, /metrics, /healthz, /readyz and the admin API on 127.0.0.1:P (0: any free port)',
  },
  once: {
    type: 'boolean',
    help: 'exit 0 when every task has ended (fetched, dead-lettered, skipped) and print a summary; without it crawld waits for more work',
  },
  'allow-private-networks': {
    type: 'boolean',
    help: 'allow loopback, private, link-local and CGNAT addresses (refused by default: the SSRF guard)',
  },
  'max-concurrency': {
    type: 'string',
    value: 'N',
    help: 'at most N requests in flight per host, 1-10000 (concurrency.maxPerHost; the limit adapts below it)',
  },
  rate: {
    type: 'string',
    value: 'R',
    help: 'at most R requests per second to each host, 0.001-1000000 (a rateLimits.hosts rule for every host)',
  },
  'log-level': {
    type: 'string',
    value: 'L',
    help: 'error, warn, info or debug (log.level)',
  },
  'no-progress': {
    type: 'boolean',
    help: 'no live progress line on stderr (drawn only when stderr is a terminal)',
  },
  frontier: {
    type: 'string',
    value: 'URL',
    help: 'share the frontier and rate limits with every daemon on one Redis, redis://HOST:PORT/DB, or Redis Cluster, redis-cluster://HOST:PORT,HOST:PORT,... (docs/redis.md; a password in the URL shows in ps: prefer a config file)',
  },
  sink: {
    type: 'string',
    multiple: true,
    value: 'URL',
    help: 'also write the records to PostgreSQL, postgres://USER@HOST:PORT/DB (repeatable; docs/sinks.md)',
  },
} as const satisfies Record<string, FlagSpec>;

const SITE_FLAGS = {
  pages: { type: 'string', value: 'N', help: 'pages of the site, 1-10000000 (default 1000)' },
  'latency-ms': { type: 'string', value: 'MS', help: 'delay before each answer, in ms (default 0)' },
  'error-rate': {
    type: 'string',
    value: 'R',
    help: 'share of answers that are a 500 error, 0-1 (default 0)',
  },
  capacity: {
    type: 'string',
    value: 'K',
    help: 'requests in flight it answers at --latency-ms; beyond K each answer slows in proportion, as a queueing server (default unlimited)',
  },
  js: {
    type: 'boolean',
    help: 'the shop renders its products with JavaScript (the page fetches /api/p/N.json)',
  },
} as const satisfies Record<string, FlagSpec>;

const API_FLAG = {
  type: 'string',
  value: 'URL',
  help: "the daemon's HTTP server (default $CRAWLD_API, else http://127.0.0.1:9464)",
} as const satisfies FlagSpec;

const TOKEN_FILE_FLAG = {
  type: 'string',
  value: 'FILE',
  help: 'a file holding the admin token (default $CRAWLD_ADMIN_TOKEN; never the token itself: it would show in ps)',
} as const satisfies FlagSpec;

/** Where `dlq` finds the dead letters: give one (or --config). */
const DLQ_SOURCE_FLAGS = {
  api: API_FLAG,
  config: {
    type: 'string',
    value: 'FILE',
    help: 'work on the frontier a config names (frontier.path, or its Redis); a local one only while no daemon holds it',
  },
  'data-dir': {
    type: 'string',
    value: 'DIR',
    help: "work on a stopped daemon's data dir directly (refused while a daemon holds it)",
  },
  frontier: {
    type: 'string',
    value: 'URL',
    help: 'work on a shared Redis frontier, redis://HOST:PORT/DB or redis-cluster://HOST:PORT,... (safe while its daemons run)',
  },
  'key-prefix': {
    type: 'string',
    value: 'P',
    help: "the Redis frontier's frontier.keyPrefix, with --frontier (default crawld)",
  },
  job: { type: 'string', value: 'ID', help: "only this job's dead letters" },
} as const satisfies Record<string, FlagSpec>;

const DLQ_NOTES = `Without --config, --data-dir or --frontier, dlq talks to a running daemon's admin API.`;

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'crawl',
    operands: 'URL...',
    summary:
      "Crawls from the seed URLs, following links on the seeds' hosts, and writes a record per page to DATA_DIR/results.jsonl. Logs go to stderr (level warn), the --once summary to stdout.",
    flags: {
      config: {
        type: 'string',
        value: 'FILE',
        help: "a config file (YAML or JSON): its first job's rules apply and the seeds are added to it; SIGHUP reloads it",
      },
      ...DAEMON_FLAGS,
    },
  },
  {
    name: 'run',
    operands: '',
    summary:
      'The daemon on a config file: every job of it, logs as JSON lines on stdout (journald, containers). SIGHUP reloads the config, SIGTERM drains.',
    flags: {
      config: {
        type: 'string',
        value: 'FILE',
        help: 'the config file, YAML or JSON (required; every option: docs/config.md)',
      },
      ...DAEMON_FLAGS,
    },
  },
  {
    name: 'demo',
    operands: '',
    summary:
      "Starts the bundled demo site on 127.0.0.1 and crawls it, extracting each product's title and price into ./data/demo (a second run resumes).",
    flags: {
      ...SITE_FLAGS,
      'site-port': {
        type: 'string',
        value: 'P',
        help: "the demo site's port (default 8931, so that a second run on the same data dir finds the same URLs)",
      },
      ...DAEMON_FLAGS,
      'data-dir': {
        ...DAEMON_FLAGS['data-dir'],
        help: 'where the crawl keeps its state (default ./data/demo)',
      },
    },
    notes: 'With --js the demo renders each page in headless Chromium (docs/browser.md).',
  },
  {
    name: 'site',
    operands: '',
    summary:
      'Serves the deterministic demo site alone until SIGTERM or SIGINT: page 0 at /, page i at /p/i, all reachable from /.',
    flags: {
      port: { type: 'string', value: 'P', help: 'the port (default 8300; 0: any free port)' },
      host: { type: 'string', value: 'H', help: 'the address to listen on (default 127.0.0.1)' },
      ...SITE_FLAGS,
      'change-rate': {
        type: 'string',
        value: 'R',
        help: 'share of the pages whose price changes each cycle, 0-1 (for recrawls)',
      },
      'cycle-ms': {
        type: 'string',
        value: 'MS',
        help: 'length of a price cycle, in ms (default 60000)',
      },
    },
  },
  {
    name: 'check-config',
    operands: 'FILE',
    summary: 'Validates a config file: exit 0 if it is valid, exit 2 naming each bad field.',
    flags: {},
  },
  {
    name: 'submit',
    operands: 'URL...',
    summary: "Adds URLs to a running daemon's frontier through its admin API (POST /api/urls).",
    flags: {
      api: API_FLAG,
      'token-file': TOKEN_FILE_FLAG,
      priority: {
        type: 'string',
        value: 'N',
        help: "their priority, an integer, lower is sooner (default the job's seedPriority)",
      },
      job: { type: 'string', value: 'ID', help: 'the job they belong to (default the first job)' },
    },
  },
  {
    name: 'dlq list',
    operands: '',
    summary: 'Lists the dead letters: the tasks that ended without a page, with their reason and attempts.',
    flags: {
      ...DLQ_SOURCE_FLAGS,
      json: { type: 'boolean', help: 'one JSON object per line instead of a table' },
      limit: { type: 'string', value: 'N', help: 'at most N of them (default 100)' },
      offset: { type: 'string', value: 'N', help: 'skip the first N (default 0)' },
    },
    notes: DLQ_NOTES,
  },
  {
    name: 'dlq redrive',
    operands: '',
    summary: 'Puts dead letters back in the queue, to be fetched again (all of them unless --id or --job).',
    flags: {
      ...DLQ_SOURCE_FLAGS,
      id: {
        type: 'string',
        multiple: true,
        value: 'ID',
        help: 'only this dead letter (repeatable; ids from dlq list)',
      },
      'token-file': TOKEN_FILE_FLAG,
    },
    notes: `${DLQ_NOTES} Through the API, redrive needs the admin token.`,
  },
  {
    name: 'help',
    operands: '[COMMAND]',
    summary: "Prints the commands, or one command's usage (as COMMAND --help does).",
    flags: {},
  },
];

/** The command `words` name (the longest match: `dlq list` before `dlq`), and the words after it. */
export function findCommand(words: readonly string[]): { spec: CommandSpec; rest: string[] } | undefined {
  for (const n of [2, 1]) {
    const name = words.slice(0, n).join(' ');
    const spec = COMMANDS.find((c) => c.name === name);
    if (spec && words.length >= n) return { spec, rest: words.slice(n) };
  }
  return undefined;
}

/** The commands whose name starts with `group` (`dlq` has `dlq list` and `dlq redrive`). */
export function commandsOf(group: string): CommandSpec[] {
  return COMMANDS.filter((c) => c.name.startsWith(`${group} `));
}

/** A command of the table by name (a name missing from it is a bug, not bad input). */
export function commandSpec(name: string): CommandSpec {
  const spec = COMMANDS.find((c) => c.name === name);
  if (spec === undefined) throw new Error(`no command '${name}' in the command table`);
  return spec;
}
