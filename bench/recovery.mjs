#!/usr/bin/env node
// Recovery, all of it in one run: the three figures of a crawl's recovery, each from its own
// bench, one after the other, output as they print it.
//
//   npm run build && node bench/recovery.mjs [--runs 1] [--lease-ms default,20000] [--quick]
//
// 1. A host down for 6 s (bench/outage.mjs, 500s, connection resets, and requests accepted and
//    never answered): the pre-outage rate, the rate 5-10 s after recovery, and the end of the
//    crawl.
// 2. A daemon SIGKILLed, of three on one Redis (bench/cluster-recovery.mjs --scenarios kill):
//    the seconds from the kill to the end of the crawl, with the default leaseMs (120 s) and
//    with 20 s. --quick: 20 s only (the default costs two minutes a run).
// 3. A daemon that joins late (bench/cluster-recovery.mjs --scenarios newcomer): its share of
//    what was left, where the site sets the pace (--capacity 16: 1,000 and 400 pages left of
//    3,000) and where this machine's CPU does (three daemons, the site and Redis on its cores;
//    10,000 of 30,000 left, a few seconds' worth: of 3,000 the rest is gone within a second).
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1' },
    'lease-ms': { type: 'string', default: 'default,20000' },
    quick: { type: 'boolean', default: false },
  },
});
const dir = import.meta.dirname;

/** Runs one bench as a child, its output to ours; rejects on a non-zero exit. */
function bench(script, args) {
  console.log(`\n$ node bench/${script} ${args.join(' ')}`);
  const child = spawn(process.execPath, [resolve(dir, script), ...args], { stdio: 'inherit' });
  return new Promise((res, rej) =>
    child.on('exit', (code) => (code === 0 ? res() : rej(new Error(`bench/${script} exited ${code}`)))),
  );
}

const runs = ['--runs', values.runs];
await bench('outage.mjs', [...runs, '--kinds', '5xx,reset,hang']);
await bench('cluster-recovery.mjs', [
  ...runs,
  '--scenarios',
  'kill',
  '--lease-ms',
  values.quick ? '20000' : values['lease-ms'],
]);
await bench('cluster-recovery.mjs', [
  ...runs,
  '--scenarios',
  'newcomer',
  '--left',
  '1000,400',
  '--capacity',
  '16',
]);
await bench('cluster-recovery.mjs', [
  ...runs,
  '--scenarios',
  'newcomer',
  '--pages',
  '30000',
  '--left',
  '10000',
]);
