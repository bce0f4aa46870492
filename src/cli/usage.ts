import { COMMANDS, type CommandSpec, commandsOf, type FlagSpec } from './command-table.js';

const WIDTH = 100;

const EXIT_CODES = `Exit codes: 0 success; 1 runtime failure; 2 invalid arguments or configuration
(nothing is written); 3 forced exit on a second signal.`;

/** `text` wrapped at WIDTH, each line after the first indented by `indent` spaces. */
function wrap(text: string, first: number, indent: number): string {
  const lines: string[] = [];
  let line = '';
  let room = WIDTH - first;
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
      room = WIDTH - indent;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

function flagLabel(name: string, flag: FlagSpec): string {
  return flag.type === 'string' ? `--${name} ${flag.value ?? 'VALUE'}` : `--${name}`;
}

/** Two columns: labels padded to one width; a label too wide for it gets its own line. */
function columns(rows: readonly (readonly [string, string])[]): string {
  const col = Math.min(32, Math.max(...rows.map(([label]) => label.length)) + 2);
  return rows
    .map(([label, text]) => {
      const head = label.length + 2 <= col ? `  ${label.padEnd(col)}` : `  ${label}\n  ${' '.repeat(col)}`;
      return `${head}${wrap(text, col + 2, col + 2)}`;
    })
    .join('\n');
}

function synopsis(spec: CommandSpec): string {
  const flags = Object.keys(spec.flags).length > 0 ? ' [FLAGS]' : '';
  return `crawld ${spec.name}${spec.operands ? ` ${spec.operands}` : ''}${flags}`;
}

/** What `crawld COMMAND --help` prints: the command, what it does, each flag explained. */
export function commandUsage(spec: CommandSpec): string {
  const rows = Object.entries(spec.flags).map(([name, flag]) => [flagLabel(name, flag), flag.help] as const);
  rows.push(['-h, --help', 'print this usage and exit']);
  const parts = [
    `Usage: ${synopsis(spec)}`,
    wrap(spec.summary, 0, 0),
    `Flags:\n${columns(rows)}`,
    ...(spec.notes ? [wrap(spec.notes, 0, 0)] : []),
    EXIT_CODES,
  ];
  return parts.join('\n\n');
}

/** `crawld dlq --help`: the usage of each of the group's commands. */
export function groupUsage(group: string): string | undefined {
  const specs = commandsOf(group);
  if (specs.length === 0) return undefined;
  return specs.map(commandUsage).join(`\n\n${'-'.repeat(40)}\n\n`);
}

/** What `crawld help` (and `crawld --help`) prints: every command in a line or two. */
export function mainUsage(): string {
  const rows = COMMANDS.map((c) => [`${c.name}${c.operands ? ` ${c.operands}` : ''}`, c.summary] as const);
  return [
    'crawld — an observable web-crawler daemon',
    'Usage: crawld COMMAND [ARGS] [FLAGS]',
    `Commands:\n${columns(rows)}`,
    "crawld COMMAND --help (or -h, or crawld help COMMAND) prints a command's flags, each explained.",
    EXIT_CODES,
  ].join('\n\n');
}
