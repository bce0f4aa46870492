#!/usr/bin/env node
import { dlqCommand, submitCommand } from './cli/admin-commands.js';
import { checkConfigCommand, crawlCommand, demoCommand, runCommand, siteCommand } from './cli/commands.js';
import { exitStatusOf } from './cli/exit-status.js';
import { USAGE } from './cli/usage.js';
import { CrawldError } from './core/errors.js';

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
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
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    default:
      process.stderr.write(`crawld: unknown command '${command ?? ''}'\n\n${USAGE}\n`);
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
