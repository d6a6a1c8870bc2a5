// Screenshots of compare, changes and history on a seeded backend, for docs/ (issue 25):
//   node e2e/serve.mjs --commits 300        # prints {"url": ...}; keep it running
//   BB_SHOTS_URL=http://127.0.0.1:PORT node e2e/triage-shots.mjs
// Writes docs/triage-{compare,changes,history}.png. Not part of the test suite.
import path from 'node:path';
import { launchChromium, REPO } from './backend.mjs';

const base = process.env.BB_SHOTS_URL;
if (!base) throw new Error('set BB_SHOTS_URL to a seeded backend (node e2e/serve.mjs --commits 300)');
const get = async (p) => (await fetch(base + p)).json();
const dims = await get('/api/v1/configurations/dimensions');
const releases = (await get('/api/v1/commits?q=(release)&limit=10')).items.map((c) => c.sha).reverse();
const machine = process.env.BB_SHOTS_MACHINE ?? 'xeon-02'; // tests/e2e/seed.py's release machine
const nano = dims.datasets[0];
const out = (name) => path.join(REPO, 'docs', `triage-${name}.png`);

const browser = await launchChromium();
try {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, colorScheme: 'light' });
  const page = await context.newPage();
  await page.goto(`${base}/compare?base=${releases[0]}&head=${releases[1]}&machine=${machine}`);
  await page.waitForSelector('[data-testid="compare-table"] tbody tr', { timeout: 120_000 });
  await page.screenshot({ path: out('compare'), fullPage: false });
  await page.goto(`${base}/changes`);
  await page.waitForSelector('[data-testid="summary-line"]', { timeout: 120_000 });
  await page.locator('[data-testid="line-expand"]').first().click();
  await page.waitForSelector('[data-testid="change-row"]', { timeout: 60_000 });
  await page.screenshot({ path: out('changes'), fullPage: false });
  await page.goto(`${base}/history?s=${encodeURIComponent(`505~${nano}~haswell-01~compress_mbps`)}&s=${encodeURIComponent(`505~${nano}~haswell-01~compressed_bytes`)}`);
  for (const id of ['history-compress_mbps', 'history-compressed_bytes']) {
    await page.waitForSelector(`[data-plot="${id}"][data-rendered="true"]`, { timeout: 120_000 });
  }
  await page.screenshot({ path: out('history'), fullPage: true });
  console.log(JSON.stringify({ releases, machine, written: ['compare', 'changes', 'history'].map(out) }));
} finally {
  await browser.close();
}
