// End-to-end browser tests of the dashboard against a live, seeded backend.
// node e2e/run.mjs  (needs frontend/dist built, the venv, PostgreSQL, /usr/bin/chromium)
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { FRONTEND, REPO, launchChromium, seed, startBackend } from './backend.mjs';

const SHOTS = path.join(FRONTEND, 'test-results', 'screenshots');
mkdirSync(SHOTS, { recursive: true });

const failures = [];
let passed = 0;
function check(cond, message) {
  if (cond) passed++;
  else failures.push(message);
  console.log(`${cond ? '  ok ' : '  FAIL'} ${message}`);
}

async function test(name, fn) {
  console.log(`# ${name}`);
  try {
    await fn();
  } catch (e) {
    failures.push(`${name}: ${e.stack ?? e}`);
    console.log(`  FAIL ${name}: ${e.message}`);
  }
}

/** A page that records console errors and uncaught exceptions. */
async function openPage(context) {
  const page = await context.newPage();
  page.errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') page.errors.push(m.text());
  });
  page.on('pageerror', (e) => page.errors.push(String(e)));
  return page;
}

const rendered = (id) => `[data-plot="${id}"][data-rendered="true"]`;

async function main() {
  const backend = await startBackend({ label: 'e2e' });
  let browser;
  try {
    const t0 = Date.now();
    const data = seed(backend);
    console.log(`seeded ${data.commits.length} commits x ${data.machines.length} machines x ${data.datasets.length} datasets x ${data.settings.length} settings in ${Date.now() - t0} ms`);
    const [nano] = data.datasets;
    const newest = data.commits.at(-1);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'light' });
    const url = (p) => backend.base + p;

    await test('trade-off page: one point per setting, Pareto line, PNG/CSV buttons', async () => {
      const page = await openPage(context);
      await page.goto(url(`/tradeoffs?commit=${newest}&machine=haswell-01&dataset=${nano}`));
      await page.waitForSelector(rendered('tradeoff-compress'), { timeout: 30_000 });
      await page.waitForSelector(rendered('tradeoff-decompress'), { timeout: 30_000 });
      for (const id of ['tradeoff-compress', 'tradeoff-decompress']) {
        const declared = await page.getAttribute(`[data-plot="${id}"]`, 'data-points');
        const drawn = await page.locator(`[data-plot="${id}"] .scatterlayer .trace .points path`).count();
        check(Number(declared) === data.settings.length, `${id}: ${declared} points declared, expected ${data.settings.length}`);
        check(drawn === data.settings.length, `${id}: ${drawn} markers drawn in the SVG, expected ${data.settings.length}`);
        const frontier = await page.locator(`[data-plot="${id}"] .scatterlayer .trace .lines path`).count();
        check(frontier >= 1, `${id}: Pareto frontier line drawn`);
      }
      const legend = await page.locator('[data-plot="tradeoff-compress"] .legend .traces').allTextContents();
      check(['ZLIB', 'LZMA', 'LZ4', 'ZSTD'].every((a) => legend.some((t) => t.includes(a))), `one legend entry per algorithm (${legend.join(', ')})`);
      const csv = page.waitForEvent('download');
      await page.locator('[data-plot="tradeoff-compress"] button', { hasText: 'CSV' }).click();
      const download = await csv;
      const text = await (await download.createReadStream()).toArray();
      const lines = Buffer.concat(text).toString('utf8').trim().split(/\r?\n/);
      check(lines.length === data.settings.length + 1, `CSV export has a header + ${data.settings.length} rows (got ${lines.length})`);
      const png = page.waitForEvent('download');
      await page.locator('[data-plot="tradeoff-compress"] button', { hasText: 'PNG' }).click();
      check((await png).suggestedFilename().endsWith('.png'), 'PNG export downloads a .png');
      await page.screenshot({ path: path.join(SHOTS, 'tradeoffs.png'), fullPage: true });
      copyFileSync(path.join(SHOTS, 'tradeoffs.png'), path.join(REPO, 'docs', 'screenshot.png'));
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('trade-off: shared URL restores the same view (machines, relative, baseline)', async () => {
      const page = await openPage(context);
      await page.goto(url('/tradeoffs'));
      // Bare URL: defaults resolved and pinned into the URL.
      await page.waitForSelector(rendered('tradeoff-compress'), { timeout: 30_000 });
      check(new URL(page.url()).searchParams.get('commit') === newest, 'bare /tradeoffs pins the newest commit in the URL');
      await page.locator('input[name="machine"][value="epyc-01"]').check();
      await page.locator('input[name="rel"]').check();
      await page.selectOption('select[name="ref"]', '404');
      await page.selectOption('select[name="base_commit"]', data.commits[0]);
      await page.waitForFunction(() => document.querySelectorAll('[data-plot="tradeoff-compress"] .annotation').length > 0, null, { timeout: 30_000 });
      await page.waitForSelector(rendered('tradeoff-compress'));
      const shared = page.url();
      const before = await page.getAttribute('[data-plot="tradeoff-compress"]', 'data-points');
      const title = await page.locator('[data-plot="tradeoff-compress"] .gtitle').textContent();
      const arrows = await page.locator('[data-plot="tradeoff-compress"] .annotation').count();
      await page.screenshot({ path: path.join(SHOTS, 'tradeoffs-baseline-relative.png'), fullPage: true });
      check(page.errors.length === 0, `no console errors while changing the view (${page.errors.join(' | ')})`);

      const other = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const again = await openPage(other);
      await again.goto(shared);
      await again.waitForSelector(rendered('tradeoff-compress'), { timeout: 30_000 });
      await again.waitForFunction(() => document.querySelectorAll('[data-plot="tradeoff-compress"] .annotation').length > 0, null, { timeout: 30_000 });
      check(again.url() === shared, 'the shared URL is not rewritten on load');
      check((await again.getAttribute('[data-plot="tradeoff-compress"]', 'data-points')) === before, `same number of points (${before})`);
      check(Number(before) === 2 * data.settings.length, `two machines give ${2 * data.settings.length} points`);
      check((await again.locator('[data-plot="tradeoff-compress"] .gtitle').textContent()) === title, `same title (${title})`);
      check((await again.locator('[data-plot="tradeoff-compress"] .annotation').count()) === arrows, `same baseline arrows (${arrows})`);
      check(await again.locator('input[name="rel"]').isChecked(), 'relative toggle restored');
      check((await again.inputValue('select[name="ref"]')) === '404', 'reference setting restored');
      check((await again.inputValue('select[name="base_commit"]')) === data.commits[0], 'baseline commit restored');
      check(await again.locator('input[name="machine"][value="epyc-01"]').isChecked(), 'machine selection restored');
      check(again.errors.length === 0, `no console errors on the shared link (${again.errors.join(' | ')})`);
      await other.close();
      await page.close();
    });

    let historyUrl = '';
    await test('history page: series, spread band, detected change, click opens compare', async () => {
      const page = await openPage(context);
      await page.goto(url(`/history?s=${encodeURIComponent(`101~${nano}~haswell-01~compress_mbps`)}&s=${encodeURIComponent(`505~${nano}~haswell-01~compress_mbps`)}`));
      await page.waitForSelector(rendered('history-compress_mbps'), { timeout: 30_000 });
      historyUrl = page.url();
      const declared = Number(await page.getAttribute('[data-plot="history-compress_mbps"]', 'data-points'));
      check(declared === 2 * data.commits.length, `history shows ${declared} points (2 series x ${data.commits.length} commits)`);
      const traces = await page.evaluate(() => {
        const gd = document.querySelector('[data-plot="history-compress_mbps"] .js-plotly-plot');
        return gd._fullData.map((t) => ({ name: t.name, type: t.type, fill: t.fill, n: t.x.length, x: [...t.x] }));
      });
      const change = traces.find((t) => t.name.startsWith('changes · ZLIB-1'));
      check(change !== undefined && change.n >= 1, `detected change marked on the ZLIB-1 series (${change?.n ?? 0} markers)`);
      check(change?.x.includes(5), `the change is at the vanilla-zlib commit, git order 5 (at ${change?.x.join(', ')})`);
      check(traces.some((t) => t.fill === 'tonexty'), 'sample spread drawn as a band');
      check(traces.filter((t) => !t.name.startsWith('changes')).every((t) => t.type === 'scattergl'), 'history traces use WebGL (scattergl)');
      await page.screenshot({ path: path.join(SHOTS, 'history.png'), fullPage: true });
      // Click the point of the vanilla-zlib commit (index 5) of the first series.
      const target = data.commits[5];
      const pos = await page.evaluate((sha) => {
        const gd = document.querySelector('[data-plot="history-compress_mbps"] .js-plotly-plot');
        const trace = gd._fullData.find((t) => t.customdata && t.customdata.some((c) => c[4] === sha));
        const i = trace.customdata.findIndex((c) => c[4] === sha);
        const { xaxis, yaxis, _size } = gd._fullLayout;
        const box = gd.getBoundingClientRect();
        return { x: box.left + _size.l + xaxis.l2p(trace.x[i]), y: box.top + _size.t + yaxis.l2p(trace.y[i]) };
      }, target);
      await page.mouse.move(pos.x, pos.y);
      await page.waitForTimeout(300);
      await page.mouse.click(pos.x, pos.y);
      await page.waitForURL(/\/compare\?/, { timeout: 10_000 });
      const params = new URL(page.url()).searchParams;
      check(params.get('head') === target, `compare opened for the clicked commit (${params.get('head')?.slice(0, 10)})`);
      await page.waitForFunction(() => new URL(location.href).searchParams.get('base'), null, { timeout: 10_000 });
      check(new URL(page.url()).searchParams.get('base') === data.commits[4], 'base = parent of the clicked commit');
      await page.waitForSelector('[data-testid="compare-table"]', { timeout: 30_000 });
      const regressions = await page.locator('[data-testid="compare-table"] tr.row-regression').count();
      check(regressions > 0, `vanilla zlib shows as regressions (${regressions} rows)`);
      const zlibRegressed = await page.locator('[data-testid="compare-table"] tr.row-regression', { hasText: 'ZLIB' }).count();
      check(zlibRegressed > 0, 'regressed rows are ZLIB rows');
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('compare page: sortable table, link back to history', async () => {
      const page = await openPage(context);
      await page.goto(url(`/compare?base=${data.commits[4]}&head=${data.commits[5]}&machine=haswell-01&dataset=${nano}&metric=compress_mbps`));
      await page.waitForSelector('[data-testid="compare-table"]', { timeout: 30_000 });
      await page.locator('th button', { hasText: 'Δ' }).click();
      await page.waitForFunction(() => new URL(location.href).searchParams.get('sort') === '-delta_pct');
      const firstDelta = await page.locator('[data-testid="compare-table"] tbody tr').first().locator('td').nth(5).textContent();
      check(firstDelta?.startsWith('+') || firstDelta === '—' || !firstDelta?.startsWith('-'), `descending sort puts the largest delta first (${firstDelta})`);
      await page.locator('th button', { hasText: 'Δ' }).click();
      const worst = await page.locator('[data-testid="compare-table"] tbody tr').first().locator('td').nth(5).textContent();
      check(worst?.startsWith('-'), `ascending sort puts the worst regression first (${worst})`);
      await page.screenshot({ path: path.join(SHOTS, 'compare.png'), fullPage: true });
      await page.locator('[data-testid="compare-table"] tbody tr').first().locator('a', { hasText: 'history' }).click();
      await page.waitForSelector(rendered('history-compress_mbps'), { timeout: 30_000 });
      check(page.url().includes('/history?'), 'history link opens the history page');
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('changes page: inbox by commit, commit links, status action', async () => {
      const page = await openPage(context);
      await page.goto(url('/changes'));
      await page.waitForSelector('[data-testid="changes-inbox"]', { timeout: 30_000 });
      const links = await page.locator('[data-testid="change-group"] h3 a.commit-link').evaluateAll((as) => as.map((a) => a.href));
      check(links.some((h) => h.endsWith(`/commit/${data.commits[5]}`)), `vanilla-zlib commit in the inbox, linked to its commit page (${links.length} groups)`);
      const order = links.map((h) => data.commits.indexOf(h.slice(-40)));
      check(order.every((o, k) => k === 0 || o <= order[k - 1]), `newest commit first (${order.join(', ')})`);
      const rows = await page.locator('[data-testid="change-row"]').count();
      check(rows >= 1, `${rows} change rows`);
      await page.locator('[data-testid="change-row"] button', { hasText: 'evidence' }).first().click();
      await page.waitForSelector('[data-testid="change-evidence"]', { timeout: 15_000 });
      const evidence = (await page.locator('[data-testid="change-evidence"]').textContent()) ?? '';
      check(/Exact metric|confirmation reruns/.test(evidence), `a change shows its evidence (${evidence.slice(0, 60)}…)`);
      await page.fill('input[name="token"]', backend.token);
      await page.locator('[data-testid="change-row"] button', { hasText: 'acknowledge' }).first().click();
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid="change-row"]').length === n - 1, rows, { timeout: 15_000 });
      check(true, 'an acknowledged change leaves the open inbox');
      await page.selectOption('select[name="status"]', 'acknowledged');
      await page.waitForSelector('[data-testid="change-row"]', { timeout: 15_000 });
      check((await page.locator('[data-testid="change-row"]').count()) === 1, 'and shows under "acknowledged"');
      await page.screenshot({ path: path.join(SHOTS, 'changes.png'), fullPage: true });
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('runs page: queues per tag, running progress, failure log tail', async () => {
      const page = await openPage(context);
      await page.goto(url('/runs'));
      await page.waitForSelector('[data-testid="runs-table"]', { timeout: 30_000 });
      const queues = await page.locator('[data-testid="queues"] .queue h3').allTextContents();
      check(data.tags.every((t) => queues.includes(t)), `one queue per tag (${queues.join(', ')})`);
      check((await page.locator('[data-testid="queues"] [role="progressbar"]').count()) >= 1, 'running run shows a progress bar');
      await page.locator('.failures details summary').first().click();
      const log = await page.locator('.failures .log-tail').first().textContent();
      check(log?.includes('zlib.h'), 'failure shows its log tail');
      // Trigger form without a token gives a clear message, no request.
      await page.locator('form[aria-label="trigger a run"] button[type="submit"]').click();
      check(await page.locator('form[aria-label="trigger a run"] [role="alert"]').isVisible(), 'trigger without token explains what is missing');
      await page.fill('input[name="commits"]', data.commits[0]);
      await page.fill('input[name="token"]', backend.token);
      await page.locator('form[aria-label="trigger a run"] button[type="submit"]').click();
      await page.waitForSelector('form[aria-label="trigger a run"] [role="status"]', { timeout: 10_000 });
      check((await page.locator('form[aria-label="trigger a run"] [role="status"]').textContent())?.includes('Queued'), 'trigger with a token queues runs');
      check((await page.evaluate(() => localStorage.getItem('basketbench.token'))) === null, 'token not stored without "remember"');
      await page.locator('input[name="remember"]').check();
      await page.locator('form[aria-label="trigger a run"] button[type="submit"]').click();
      await page.waitForFunction(() => localStorage.getItem('basketbench.token') !== null, null, { timeout: 10_000 });
      const stored = await page.evaluate(() => localStorage.getItem('basketbench.token'));
      check(stored === backend.token, 'token stored when "remember" is ticked');
      await page.locator('input[name="remember"]').uncheck();
      check((await page.evaluate(() => localStorage.getItem('basketbench.token'))) === null, 'unticking "remember" removes the stored token');
      await page.screenshot({ path: path.join(SHOTS, 'runs.png'), fullPage: true });
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('machines page: tags, fingerprints, heartbeat, results', async () => {
      const page = await openPage(context);
      await page.goto(url('/machines'));
      await page.waitForSelector('[data-testid="machines-table"]', { timeout: 30_000 });
      const rows = await page.locator('[data-testid="machines-table"] tbody tr').count();
      check(rows === data.machines.length, `${rows} machines listed`);
      const text = await page.locator('[data-testid="machines-table"]').textContent();
      check(data.tags.every((t) => text.includes(t)), 'every tag shown');
      check(text.includes('Neoverse'), 'fingerprint summary shown');
      await page.screenshot({ path: path.join(SHOTS, 'machines.png'), fullPage: true });
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('configurations page: filters and CSV export', async () => {
      const page = await openPage(context);
      await page.goto(url(`/configurations?machine=epyc-01&dataset=${nano}`));
      await page.waitForSelector('[data-testid="configurations-table"]', { timeout: 30_000 });
      const rows = await page.locator('[data-testid="configurations-table"] tbody tr').count();
      check(rows === data.settings.length, `${rows} configurations for one machine and dataset (expected ${data.settings.length})`);
      await page.screenshot({ path: path.join(SHOTS, 'configurations.png'), fullPage: true });
      await page.selectOption('select[name="setting"]', '505');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="configurations-table"] tbody tr').length === 1);
      check(new URL(page.url()).searchParams.get('setting') === '505', 'filter kept in the URL');
      const href = await page.getAttribute('[data-testid="csv-export"]', 'href');
      const csv = await fetch(backend.base + href);
      const body = await csv.text();
      check(csv.ok && (csv.headers.get('content-type') ?? '').includes('csv'), `CSV export answers text/csv (${csv.status})`);
      check(body.split(/\r?\n/).filter(Boolean).length === 2, 'CSV export has header + the one filtered row');
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('dark mode toggle and prefers-color-scheme', async () => {
      const dark = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'dark' });
      const page = await openPage(dark);
      await page.goto(historyUrl || url('/history'));
      await page.waitForSelector(rendered('history-compress_mbps'), { timeout: 30_000 });
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      check(bg === 'rgb(13, 17, 23)', `prefers-color-scheme: dark gives a dark page (${bg})`);
      await page.screenshot({ path: path.join(SHOTS, 'history-dark.png'), fullPage: true });
      await page.click('[data-testid="theme-toggle"]');
      const bg2 = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      check(bg2 === 'rgb(255, 255, 255)', `toggle switches to light (${bg2})`);
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await dark.close();
    });

    await test('empty and error states', async () => {
      const page = await openPage(context);
      await page.goto(url(`/tradeoffs?commit=${newest}&machine=haswell-01&dataset=${nano}&pre=bitshuffle`));
      await page.waitForSelector('[data-testid="empty-state"], [role="alert"]', { timeout: 30_000 });
      check(await page.locator('[data-testid="empty-state"]').isVisible(), 'a configuration without results shows an empty state that says what to do');
      await page.goto(url(`/tradeoffs?commit=ffffffffff&machine=haswell-01&dataset=${nano}`));
      await page.waitForSelector('[role="alert"]', { timeout: 30_000 });
      const msg = await page.locator('[role="alert"]').first().textContent();
      check(msg?.includes('404'), `unknown commit shows the API's error (${msg?.slice(0, 80)})`);
      await page.close();
    });

    await context.close();
  } finally {
    if (browser) await browser.close();
    await backend.stop();
  }
  console.log(`\n${passed} checks passed, ${failures.length} failed`);
  if (failures.length) {
    for (const f of failures) console.log(`FAIL: ${f}`);
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
