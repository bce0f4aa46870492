#!/usr/bin/env node
// Writes grafana/dashboards/*.json from the dashboards-as-code in src/dashboards (compiled
// to dist/ by `npm run build`). The JSON is committed because Grafana provisions files, not
// code; test/unit/dashboards.test.ts fails when the committed files and the code disagree.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist/src/dashboards/build.js');
if (!existsSync(compiled)) {
  process.stderr.write(`${compiled} missing: run npm run build first\n`);
  process.exit(1);
}
const { buildDashboards, renderDashboard } = await import(compiled);
const outDir = join(root, 'grafana/dashboards');
mkdirSync(outDir, { recursive: true });
for (const [file, dashboard] of Object.entries(buildDashboards())) {
  writeFileSync(join(outDir, file), renderDashboard(dashboard));
  process.stdout.write(`wrote grafana/dashboards/${file}\n`);
}
