#!/usr/bin/env node
import { dlqCommand, submitCommand } from './cli/admin-commands.js';
import { asksHelp } from './cli/args.js';
import { findCommand } from './cli/command-table.js';
import { checkConfigCommand, crawlCommand, demoCommand, runCommand, siteCommand } from './cli/commands.js';
import { exitStatusOf } from './cli/exit-status.js';
import { commandUsage, groupUsage, mainUsage } from './cli/usage.js';
import { CrawldError } from './core/errors.js';

/** The usage `crawld help WORDS` asks for: the main usage, a command's or a group's. */
function helpFor(words: readonly string[]): string | undefined {
  if (words.length === 0) return mainUsage();
  const found = findCommand(words);
  if (found !== undefined && found.rest.length === 0) return commandUsage(found.spec);
  return words.length === 1 ? groupUsage(words[0] ?? '') : undefined;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    // `crawld help --help` is help's own usage, `crawld help crawl -h` crawl's.
    const named = command === 'help' ? rest.filter((w) => w !== '--help' && w !== '-h') : [];
    const words = named.length === 0 && command === 'help' && asksHelp(rest) ? ['help'] : named;
    const usage = helpFor(words);
    if (usage === undefined) {
      process.stderr.write(`crawld: unknown command '${words.join(' ')}'\n\n${mainUsage()}\n`);
      return 2;
    }
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  // COMMAND --help or -h: its usage, whatever else the line holds (git, npm and docker do so).
  if (asksHelp(rest)) {
    const found = findCommand(argv);
    const usage = found !== undefined ? commandUsage(found.spec) : groupUsage(command);
    if (usage !== undefined) {
      process.stdout.write(`${usage}\n`);
      return 0;
    }
  }
  switch (command) {
    case 'crawl':
      return crawlCommand(rest);
    case 'run':
      return runCommand(rest);
    case 'demo':
      return demoCommand(rest);
    case 'site':
      return siteCommand(rest);
    case 'check-config':
      return checkConfigCommand(rest);
    case 'submit':
      return submitCommand(rest);
    case 'dlq':
      return dlqCommand(rest);
    default:
      process.stderr.write(`crawld: unknown command '${command}'\n\n${mainUsage()}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // Our own errors: the message only, no stack; bad input from the operator exits 2.
    if (err instanceof CrawldError) {
      process.stderr.write(`crawld: ${err.message}\n`);
      process.exitCode = exitStatusOf(err.code);
      return;
    }
    process.stderr.write(
      `crawld: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = 1;
  },
);
