// End-to-end browser tests of the dashboard against a live, seeded backend.
// node e2e/run.mjs  (needs frontend/dist built, the venv, PostgreSQL, /usr/bin/chromium)
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FRONTEND, PYTHON, REPO, launchChromium, seed, startBackend } from './backend.mjs';

const SHOTS = path.join(FRONTEND, 'test-results', 'screenshots');
mkdirSync(SHOTS, { recursive: true });

const failures = [];
let passed = 0;
function check(cond, message) {
  if (cond) passed++;
  else failures.push(message);
  console.log(`${cond ? '  ok ' : '  FAIL'} ${message}`);
}

// E2E_ONLY=REGEX runs only the tests whose names match (a developer's shortcut; make runs all)
const ONLY = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY) : null;

async function test(name, fn) {
  if (ONLY && !ONLY.test(name)) return;
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

/** Wait for a state in the page; false (not a throw) when it never comes, so the check says what was expected. */
async function until(page, fn, arg, timeout = 30_000) {
  try {
    await page.waitForFunction(fn, arg, { timeout, polling: 100 });
    return true;
  } catch {
    return false;
  }
}

/** Pixels of an element's screenshot within `tol` of the colour `rgb` (what is drawn, not what is declared). */
async function pixelsNear(page, selector, rgb, tol = 6) {
  const png = await page.locator(selector).screenshot();
  return page.evaluate(async ({ b64, rgb, tol }) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.width;
    canvas.height = img.height;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - rgb[0]) <= tol && Math.abs(d[i + 1] - rgb[1]) <= tol && Math.abs(d[i + 2] - rgb[2]) <= tol) n++;
    }
    return n;
  }, { b64: png.toString('base64'), rgb, tol });
}

/** `hex` at opacity `alpha` over a white background, as drawn. */
function over_white(hex, alpha) {
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return c.map((v) => Math.round(alpha * v + (1 - alpha) * 255));
}

/** Bounding boxes of the elements matching `selector` that overlap another one. */
async function overlapping(page, selector) {
  return page.evaluate((sel) => {
    const boxes = [...document.querySelectorAll(sel)].map((e) => ({ t: e.textContent, r: e.getBoundingClientRect() })).filter((b) => b.r.width > 0);
    const hits = [];
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].r;
        const b = boxes[j].r;
        if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) hits.push(`${boxes[i].t}/${boxes[j].t}`);
      }
    }
    return hits;
  }, selector);
}

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
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('trade-off: shared URL restores the same view (machines, relative, baseline)', async () => {
      const page = await openPage(context);
      await page.goto(url('/tradeoffs'));
      // Bare URL: defaults resolved and pinned into the URL.
      await page.waitForSelector(rendered('tradeoff-compress'), { timeout: 30_000 });
      check(new URL(page.url()).searchParams.get('commit') === newest, 'bare /tradeoffs pins the newest commit in the URL');
      // Four edits in quick succession, as a user makes them: none may undo another. Controls
      // show the URL, which a navigation renders later under load, so the test waits for states.
      await page.locator('input[name="machine"][value="epyc-01"]').click();
      await page.locator('input[name="rel"]').click();
      await page.selectOption('select[name="ref"]', '404');
      await page.selectOption('select[name="base_commit"]', data.commits[0]);
      check(
        await until(page, (base) => {
          const q = new URL(location.href).searchParams;
          return q.getAll('machine').includes('epyc-01') && q.get('rel') === '1' && q.get('ref') === '404' && q.get('base_commit') === base
            && document.querySelector('input[name="rel"]')?.checked === true
            && document.querySelector('input[name="machine"][value="epyc-01"]')?.checked === true;
        }, data.commits[0]),
        'four quick edits all reach the URL and the controls (machine, relative, reference, baseline)',
      );
      const twoMachines = String(2 * data.settings.length);
      check(
        await until(page, (n) => document.querySelector('[data-plot="tradeoff-compress"]')?.getAttribute('data-points') === n
          && document.querySelectorAll('[data-plot="tradeoff-compress"] .annotation').length > 0
          && new URL(location.href).searchParams.get('base_commit') !== null, twoMachines),
        'the view with two machines and baseline arrows is drawn',
      );
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
      await until(again, (n) => document.querySelector('[data-plot="tradeoff-compress"]')?.getAttribute('data-points') === n
        && document.querySelectorAll('[data-plot="tradeoff-compress"] .annotation').length > 0, twoMachines);
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
    await test('history page: series, spread band, detected change, a click shows the commit linked and opens compare', async () => {
      const page = await openPage(context);
      await page.goto(url(`/history?s=${encodeURIComponent(`101~${nano}~haswell-01~compress_mbps`)}&s=${encodeURIComponent(`505~${nano}~haswell-01~compress_mbps`)}`));
      await page.waitForSelector(rendered('history-compress_mbps'), { timeout: 30_000 });
      historyUrl = page.url();
      const declared = Number(await page.getAttribute('[data-plot="history-compress_mbps"]', 'data-points'));
      check(declared === 2 * data.commits.length, `history shows ${declared} points (2 series x ${data.commits.length} commits)`);
      const traces = await page.evaluate(() => {
        const gd = document.querySelector('[data-plot="history-compress_mbps"] .js-plotly-plot');
        return gd._fullData.map((t) => ({ name: t.name, type: t.type, fill: t.fill, n: t.x.length, x: [...t.x], legend: t.showlegend,
          codecs: (t.customdata ?? [])[0]?.[7] }));
      });
      const withCodecs = traces.filter((t) => typeof t.codecs === 'string' && /^host: zstd \d/.test(t.codecs));
      check(withCodecs.length === 2, `hover names the codec versions of each point (${traces.map((t) => t.codecs).filter(Boolean)[0]})`);
      const change = traces.find((t) => t.name.startsWith('changes · ZLIB-1'));
      check(change !== undefined && change.n >= 1, `detected change marked on the ZLIB-1 series (${change?.n ?? 0} markers)`);
      check(change?.x.includes(5), `the change is at the vanilla-zlib commit, git order 5 (at ${change?.x.join(', ')})`);
      check(traces.some((t) => t.fill === 'tonexty'), 'sample spread drawn as a band');
      // a short history is drawn as SVG (WebGL only above WEBGL_MIN_POINTS, src/lib/webgl.ts)
      check(traces.filter((t) => t.legend && !t.name.startsWith('changes')).every((t) => t.type === 'scatter'), 'short history lines are SVG (scatter)');
      // The band must be drawn, not only declared: its fill colour (series colour at 20 %) in the pixels.
      const band = await pixelsNear(page, '[data-plot="history-compress_mbps"] .js-plotly-plot', over_white('#1f77b4', 0.2));
      check(band > 300, `min..max band drawn: ${band} pixels of the band colour`);
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
      await page.waitForSelector('[data-plot="history-compress_mbps"] .hoverlayer .hovertext', { timeout: 10_000 });
      await page.mouse.click(pos.x, pos.y);
      // Plotly's hover holds no live link: the click shows the commit under the plot, linked
      await page.waitForSelector(`[data-testid="point-details"][data-sha="${target}"]`, { timeout: 10_000 });
      // The link's address comes with the commit's repository, from its own request.
      await page.waitForSelector('[data-testid="point-details"] a[data-testid="point-commit-link"]', { timeout: 15_000 }).catch(() => {});
      const link = await page.getAttribute('[data-testid="point-details"] [data-testid="point-commit-link"]', 'href');
      check(link === `https://github.com/root-project/root/commit/${target}`, `the clicked point's commit links to its repository's page (${link})`);
      check((await page.textContent('[data-testid="point-details"]')).includes('host: zstd'), 'the details name the codec versions of the point');
      await page.click('[data-testid="point-compare"]');
      await page.waitForURL(/\/compare\?/, { timeout: 10_000 });
      const params = new URL(page.url()).searchParams;
      check(params.get('head') === target, `compare opened for the clicked commit (${params.get('head')?.slice(0, 10)})`);
      check(params.get('base') === data.commits[4], 'base = the previous point of the line (the parent here)');
      check(params.get('codecs') === 'host', `compare stays in the line's codec series (${params.get('codecs')})`);
      await page.waitForSelector('[data-testid="compare-table"]', { timeout: 30_000 });
      // Vanilla zlib's slowdown between two runs measured at different times: the numbers, no
      // verdict without an A/B or instruction counts (issue 32), and the A/B offered.
      const zlib = await page.locator('[data-testid="compare-table"] tbody tr', { hasText: 'ZLIB' }).filter({ hasText: 'compression speed' }).evaluateAll((trs) =>
        trs.map((tr) => ({ delta: tr.querySelectorAll('td')[5]?.textContent ?? '', kind: tr.querySelector('[data-testid="evidence"]')?.dataset.kind, decided: tr.classList.contains('row-regression') || tr.classList.contains('row-improvement') })));
      check(zlib.length > 0 && zlib.some((r) => r.delta.startsWith('-')), `vanilla zlib's slowdown shows in the numbers (${zlib.map((r) => r.delta).join(', ')})`);
      check(zlib.every((r) => r.kind === 'none' && !r.decided), 'without a verdict: measured at different times');
      check(await page.locator('[data-testid="queue-ab"]').isVisible(), 'the page offers the interleaved A/B');
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('compare page: sortable table, link back to history', async () => {
      const page = await openPage(context);
      await page.goto(url(`/compare?base=${data.commits[4]}&head=${data.commits[5]}&machine=haswell-01&dataset=${nano}&metric=compress_mbps`));
      await page.waitForSelector('[data-testid="compare-table"]', { timeout: 30_000 });
      // the server's order is the default; a column sorts the page shown
      await page.locator('th button', { hasText: /^Δ/ }).click();
      await page.waitForFunction(() => new URL(location.href).searchParams.get('sort') === 'delta_pct');
      await page.locator('th button', { hasText: /^Δ/ }).click();
      await page.waitForFunction(() => new URL(location.href).searchParams.get('sort') === '-delta_pct');
      await page.waitForSelector('[data-testid="compare-table"][data-sort="-delta_pct"]');
      await until(page, () => !(document.querySelector('[data-testid="compare-table"] tbody tr td:nth-child(6)')?.textContent ?? '-').startsWith('-'), null, 10_000);
      const firstDelta = await page.locator('[data-testid="compare-table"] tbody tr').first().locator('td').nth(5).textContent();
      check(firstDelta?.startsWith('+') || firstDelta === '—' || !firstDelta?.startsWith('-'), `descending sort puts the largest delta first (${firstDelta})`);
      await page.locator('th button', { hasText: /^Δ/ }).click();
      await page.waitForSelector('[data-testid="compare-table"][data-sort="delta_pct"]');
      await until(page, () => (document.querySelector('[data-testid="compare-table"] tbody tr td:nth-child(6)')?.textContent ?? '').startsWith('-'), null, 10_000);
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
      // Links need the repositories' addresses (their own request): wait for the one expected.
      await until(page, (sha) => [...document.querySelectorAll('[data-testid="change-group"] h3 a.commit-link')]
        .some((a) => a.href.endsWith(`/commit/${sha}`)), data.commits[5], 15_000);
      const links = await page.locator('[data-testid="change-group"] h3 a.commit-link').evaluateAll((as) => as.map((a) => a.href));
      check(links.some((h) => h.endsWith(`/commit/${data.commits[5]}`)), `vanilla-zlib commit in the inbox, linked to its commit page (${links.length} groups)`);
      const order = links.map((h) => data.commits.indexOf(h.slice(-40)));
      check(order.every((o, k) => k === 0 || o <= order[k - 1]), `newest commit first (${order.join(', ')})`);
      await page.locator('[data-testid="change-group"]').first().locator('[data-testid="line-expand"]').first().click();
      await page.waitForSelector('[data-testid="change-row"]', { timeout: 15_000 });
      const rows = await page.locator('[data-testid="change-row"]').count();
      check(rows >= 1, `${rows} change rows behind the first line`);
      await page.locator('[data-testid="change-row"] button', { hasText: 'evidence' }).first().click();
      await page.waitForSelector('[data-testid="change-evidence"]', { timeout: 15_000 });
      const evidence = (await page.locator('[data-testid="change-evidence"]').textContent()) ?? '';
      check(/Exact metric|confirmation reruns/.test(evidence), `a change shows its evidence (${evidence.slice(0, 60)}…)`);
      await page.fill('input[name="token"]', backend.token);
      await page.locator('[data-testid="change-row"] button', { hasText: 'acknowledge' }).first().click();
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid="change-row"]').length === n - 1, rows, { timeout: 15_000 });
      check(true, 'an acknowledged change leaves the open inbox');
      await page.selectOption('select[name="status"]', 'acknowledged');
      await until(page, () => document.querySelectorAll('[data-testid="summary-line"]').length === 1, undefined, 15_000);
      await page.locator('[data-testid="line-expand"]').first().click();
      // The open list stays on screen until the filtered answer arrives: wait for its rows.
      const listed = await until(page, () => {
        const rows = [...document.querySelectorAll('[data-testid="change-row"]')];
        return rows.length > 0 && rows.every((r) => r.getAttribute('data-status') === 'acknowledged');
      }, undefined, 15_000);
      const shown = await page.locator('[data-testid="change-row"]').count();
      check(listed && shown === 1, `and shows under "acknowledged" (${shown} rows)`);
      await page.screenshot({ path: path.join(SHOTS, 'changes.png'), fullPage: true });
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('runs page: queues per tag, running progress, failure log tail', async () => {
      const page = await openPage(context);
      await page.goto(url('/runs'));
      await page.waitForSelector('[data-testid="runs-table"]', { timeout: 30_000 });
      // The queues come from their own request, which may answer after the table's.
      const queued = await until(page, (tags) => {
        const shown = [...document.querySelectorAll('[data-testid="queues"] .queue h3')].map((h) => h.textContent);
        return tags.every((t) => shown.includes(t));
      }, data.tags);
      const queues = await page.locator('[data-testid="queues"] .queue h3').allTextContents();
      check(queued, `one queue per tag (${queues.join(', ')})`);
      check(await until(page, () => document.querySelector('[data-testid="queues"] [role="progressbar"]') !== null),
        'running run shows a progress bar');
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
      await page.locator('[data-testid="machines-table"] tbody tr details[data-testid^="codec-sets-"] summary').first().click();
      await page.waitForFunction(() => /host: zstd/.test(document.querySelector('[data-testid^="codec-sets-"]')?.textContent ?? ''),
        null, { timeout: 30_000 });
      check(true, 'codec sets of a machine shown (host: zstd ...)');
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

    await test('trade-off: readable plot (labels apart, ticks with their decade, title clear, context in exports)', async () => {
      const page = await openPage(context);
      await page.goto(url(`/tradeoffs?commit=${newest}&machine=haswell-01&dataset=${nano}`));
      await page.waitForSelector(rendered('tradeoff-compress'), { timeout: 30_000 });
      const labels = await page.locator('[data-plot="tradeoff-compress"] .textpoint text').allTextContents();
      const named = labels.filter(Boolean);
      check(named.length >= data.settings.length / 2 && named.every((t) => /^[A-Z0-9]+-\d$/.test(t)), `points carry setting names (${named.length} of ${labels.length}, e.g. ${named.slice(0, 3).join(', ')})`);
      for (const id of ['tradeoff-compress', 'tradeoff-decompress']) {
        const hits = await overlapping(page, `[data-plot="${id}"] .textpoint text`);
        check(hits.length === 0, `${id}: no two point labels overlap (${hits.slice(0, 5).join('; ')})`);
      }
      const ticks = await page.evaluate(() => [...document.querySelectorAll('[data-plot="tradeoff-compress"] .ytick text')]
        .map((e) => ({ t: e.textContent, y: e.getBoundingClientRect().top })));
      const value = (t) => Number(t.replace('k', 'e3').replace('M', 'e6'));
      const upward = [...ticks].sort((a, b) => b.y - a.y).map((x) => value(x.t));
      check(upward.length >= 3 && upward.every((v, i) => i === 0 || v > upward[i - 1]), `log-axis tick labels carry their decade (bottom to top: ${ticks.map((x) => x.t).join(' ')})`);
      // hover to show Plotly's mode bar, then nothing may cover the title
      await page.hover('[data-plot="tradeoff-decompress"] .nsewdrag');
      await page.waitForSelector('[data-plot="tradeoff-decompress"] .modebar', { state: 'visible' });
      const covered = await page.evaluate(() => {
        const fig = document.querySelector('[data-plot="tradeoff-decompress"]');
        const title = fig.querySelector('.gtitle').getBoundingClientRect();
        return [...fig.querySelectorAll('.modebar, .plot-toolbar')].map((e) => e.getBoundingClientRect())
          .some((r) => r.left < title.right && title.left < r.right && r.top < title.bottom && title.top < r.bottom);
      });
      check(!covered, 'the right-hand plot title is not covered by the toolbar or the mode bar');
      const title = await page.locator('[data-plot="tradeoff-compress"] .gtitle').textContent();
      check(title.includes(newest.slice(0, 10)) && title.includes(nano) && title.includes('haswell-01'), `the plot (and so its PNG) names commit, dataset and machine (${title})`);
      check((await page.locator('.page-header').first().textContent()).includes('median'), 'the page says markers are medians');
      check((await page.textContent('[data-testid="dataset-kind"]')).includes('real'), 'the dataset is marked as real ROOT baskets');
      const csv = page.waitForEvent('download');
      await page.locator('[data-plot="tradeoff-compress"] button', { hasText: 'CSV' }).click();
      const head = Buffer.concat(await (await (await csv).createReadStream()).toArray()).toString('utf8').split(/\r?\n/);
      check(head[0].startsWith('commit,dataset,machine') && head[1].startsWith(`${newest},${nano},haswell-01`), `trade-off CSV carries commit and dataset (${head[0].slice(0, 40)})`);
      const table = await page.getAttribute('a:text("Table view")', 'href');
      check(table.includes(`commit=${newest}`) && table.includes('machine=haswell-01'), `"Table view" keeps commit and machine (${table})`);
      // the baseline picker searches the whole history on the server: the oldest commit by its message
      await page.fill('input[name="base_commit_search"]', 'reserve basket');
      await until(page, (sha) => [...document.querySelectorAll('select[name="base_commit"] option')].some((o) => o.value === sha), data.commits[0], 15_000);
      check(await page.locator(`select[name="base_commit"] option[value="${data.commits[0]}"]`).count() === 1, 'commit search by message finds the oldest commit');
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('history: selects show what is plotted, edited in place, stable colours, zoom in the URL, linked x axes', async () => {
      const page = await openPage(context);
      const s0 = `101~${nano}~haswell-01~compress_mbps`;
      const s1 = `505~${nano}~haswell-01~ratio`;
      await page.goto(url(`/history?s=${encodeURIComponent(s0)}&s=${encodeURIComponent(s1)}`));
      await page.waitForSelector(rendered('history-compress_mbps'), { timeout: 30_000 });
      await page.waitForSelector(rendered('history-ratio'), { timeout: 30_000 });
      check((await page.inputValue('select[name="s0_setting"]')) === '101' && (await page.inputValue('select[name="s1_setting"]')) === '505', 'the selects show the plotted series (ZLIB-1, ZSTD-5)');
      const colour = () => page.evaluate(() => document.querySelector('[data-plot="history-ratio"] .js-plotly-plot')._fullData.find((t) => t.showlegend).line.color);
      const before = await colour();
      await page.selectOption('select[name="s1_setting"]', '109');
      check(await until(page, () => new URL(location.href).searchParams.getAll('s')[1]?.startsWith('109~')), 'changing a select edits that series in place');
      check(new URL(page.url()).searchParams.getAll('s').length === 2, 'still two series (no add-then-remove)');
      await until(page, () => document.querySelector('[data-plot="history-ratio"] .js-plotly-plot')?._fullData?.some((t) => t.name?.startsWith('ZLIB-9')));
      check((await colour()) === before, `the edited series keeps its colour (${before})`);
      // zoom by dragging on the compress plot: the range goes to the URL and the ratio plot follows
      const box = await page.locator('[data-plot="history-compress_mbps"] .nsewdrag').boundingBox();
      await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
      check(await until(page, () => new URL(location.href).searchParams.get('x') !== null), `zoom kept in the URL (${new URL(page.url()).searchParams.get('x')})`);
      const ranges = () => page.evaluate(() => ['compress_mbps', 'ratio'].map((m) => document.querySelector(`[data-plot="history-${m}"] .js-plotly-plot`)._fullLayout.xaxis.range.map((v) => Math.round(v * 10) / 10).join('~')));
      await until(page, () => {
        const r = ['compress_mbps', 'ratio'].map((m) => document.querySelector(`[data-plot="history-${m}"] .js-plotly-plot`)?._fullLayout?.xaxis?.range?.join());
        return r[0] === r[1];
      }, null, 15_000);
      const [a, b] = await ranges();
      check(a === b, `the plots of both metrics show the same commits (${a} / ${b})`);
      const zoomed = page.url();
      const again = await openPage(context);
      await again.goto(zoomed);
      await again.waitForSelector(rendered('history-ratio'), { timeout: 30_000 });
      const restored = await again.evaluate(() => document.querySelector('[data-plot="history-ratio"] .js-plotly-plot')._fullLayout.xaxis.range.map((v) => Math.round(v * 10) / 10).join('~'));
      check(restored === a, `the zoomed link restores the range (${restored})`);
      await again.close();
      // a reversed commit range is named, not shown as "no results"
      await page.goto(url(`/history?s=${encodeURIComponent(s0)}&from=${data.commits[6]}&to=${data.commits[2]}`));
      await page.waitForSelector('[data-testid="reversed-range"]', { timeout: 30_000 });
      check((await page.textContent('[data-testid="reversed-range"]')).includes('comes after'), 'a reversed history range says so and offers to swap');
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    const rel = data.releases;
    const mainTraces = (page, plot) => page.evaluate((id) => {
      const gd = document.querySelector(`[data-plot="${id}"] .js-plotly-plot`);
      return (gd?._fullData ?? []).filter((t) => t.showlegend && !t.name.startsWith('changes'))
        .map((t) => ({ name: t.name, x: [...t.x], shas: t.customdata.map((c) => c[4]), dash: t.line.dash, text: t.text }));
    }, plot);

    await test('codec series: history draws each series as its own line, a picker kept in the URL', async () => {
      const page = await openPage(context);
      const plot = 'history-compressed_bytes';
      await page.goto(url(`/history?s=${encodeURIComponent(`505~${nano}~${rel.machine}~compressed_bytes`)}`));
      await page.waitForSelector(rendered(plot), { timeout: 30_000 });
      // the first answer names the other series, which then come as their own lines
      check(await until(page, (id) => document.querySelector(`[data-plot="${id}"]`)?.getAttribute('data-points') === '3', plot),
        'by default every codec series is drawn: 2 release points + the checkout');
      const lines = await mainTraces(page, plot);
      const builtin = lines.find((t) => t.name.endsWith('· builtin'));
      const host = lines.find((t) => t.name.endsWith('· host'));
      check(lines.length === 2, `one line per codec series (${lines.map((t) => t.name).join(' | ')})`);
      check(builtin && builtin.shas.join() === rel.commits.join() && builtin.x.join() === '1,3', `the builtin line holds the two releases (${builtin?.x})`);
      check(host && host.shas.join() === rel.checkout, `the host line holds the checkout alone (${host?.shas.length})`);
      check(!lines.some((t) => t.shas.includes(rel.checkout) && t.shas.some((x) => rel.commits.includes(x))), 'no line joins the two codec series');
      check(builtin?.dash !== host?.dash, `the series are told apart by their dash (${host?.dash} / ${builtin?.dash})`);
      check(rel.versions.every((v) => (builtin?.text ?? []).includes(`ROOT ${v}`)), `the release points are named on the plot (${builtin?.text})`);
      const options = await page.locator('select[name="codecs"] option').allTextContents();
      const builtinOption = options.find((o) => o.startsWith('builtin:'));
      const hostOption = options.find((o) => o.startsWith('host:'));
      check(builtinOption?.startsWith("builtin: ROOT's own copies, ROOT 6.38.00 → 6.40.00 (zstd 1.4.8 → 1.5.7"), `the picker names builtin with its versions (${builtinOption})`);
      check(/^host: .*zstd 1\.5\.4.*zlib 1\.2\.13/.test(hostOption ?? ''), `the picker names host with its versions (${hostOption})`);
      check((await page.textContent('[data-testid="codec-note"]')).includes('dashed = builtin'), 'the page says which line is which series');
      await page.screenshot({ path: path.join(SHOTS, 'history-codec-series.png'), fullPage: true });
      await page.selectOption('select[name="codecs"]', 'builtin');
      check(await until(page, () => new URL(location.href).searchParams.get('codecs') === 'builtin'), 'the chosen series goes to the URL');
      check(await until(page, (id) => document.querySelector(`[data-plot="${id}"]`)?.getAttribute('data-points') === '2', plot), 'only the builtin series is drawn');
      const shared = page.url();
      const again = await openPage(context);
      await again.goto(shared);
      await again.waitForSelector(rendered(plot), { timeout: 30_000 });
      check((await again.inputValue('select[name="codecs"]')) === 'builtin', 'the shared URL restores the picker');
      const restored = await mainTraces(again, plot);
      check(restored.length === 1 && restored[0].shas.join() === rel.commits.join(), `and draws the builtin line alone (${restored.map((t) => t.name)})`);
      check(again.url() === shared, 'the shared URL is not rewritten on load');
      await again.close();
      await page.selectOption('select[name="codecs"]', '');
      check(await until(page, () => !new URL(location.href).searchParams.has('codecs')), '"every codec series" is the default, left out of the URL');
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('codec series: compare defaults within one series, no common series named, pickers link their commits', async () => {
      const page = await openPage(context);
      await page.goto(url(`/compare?machine=${rel.machine}`));
      check(await until(page, () => new URL(location.href).searchParams.get('head') !== null), 'defaults are written into the URL');
      const params = new URL(page.url()).searchParams;
      check(params.get('base') === rel.commits[0] && params.get('head') === rel.commits[1],
        `base and head are the two releases of the builtin series, not the lone checkout (${params.get('base')?.slice(0, 8)}..${params.get('head')?.slice(0, 8)})`);
      await page.waitForSelector('[data-testid="compare-table"]', { timeout: 30_000 });
      const codecs = await page.textContent('[data-testid="compare-codecs"]');
      check(codecs.includes('ROOT 6.38.00') && codecs.includes('ROOT 6.40.00') && codecs.includes('zstd 1.4.8') && codecs.includes('zstd 1.5.7'),
        `the codec versions of both sides are named (${codecs.slice(0, 80)}…)`);
      await page.selectOption('select[name="dataset"]', nano);
      check(await until(page, (n) => new URL(location.href).searchParams.get('dataset') === n, nano), 'the chosen dataset goes to the URL');
      // One dataset, then one setting: a page holds 100 rows and the unchanged rows keep the
      // order the configurations were first stored in, so ZLIB-1 need not be on the first page.
      const sizeChange = async (setting, name) => {
        await page.goto(url(`/compare?base=${rel.commits[0]}&head=${rel.commits[1]}&machine=${rel.machine}&dataset=${nano}&setting=${setting}`));
        const shown = await until(page, (n) => {
          const rows = [...document.querySelectorAll('[data-testid="compare-table"] tbody tr')];
          return rows.length > 0 && rows.every((r) => r.querySelector('td')?.textContent === n[0] && r.textContent.includes(n[1]));
        }, [nano, name], 30_000);
        check(shown, `the table shows ${name} of ${nano} alone`);
        return page.locator('[data-testid="compare-table"] tbody tr', { hasText: name }).filter({ hasText: 'compressed size' }).first().locator('td').nth(5).textContent();
      };
      const zstd = await sizeChange(505, 'ZSTD-5');
      check(/^\+4\.(39|40) %$/.test(zstd ?? ''), `the ZSTD-5 size change of the zstd update shows (${zstd})`);
      const zlib = await sizeChange(101, 'ZLIB-1');
      check(zlib === '0.00 %', `ZLIB sizes unchanged (${zlib})`);
      const picker = await page.locator('select[name="codecs"] option').allTextContents();
      check(picker.length === 2 && picker[1].startsWith('builtin:'), `the compare picker offers the series both sides have (${picker.join(' | ')})`);
      for (const [side, sha] of [['base', rel.commits[0]], ['head', rel.commits[1]]]) {
        await page.waitForSelector(`a[data-testid="${side}-link"]`, { timeout: 15_000 }).catch(() => {});
        const href = await page.getAttribute(`[data-testid="${side}-link"]`, 'href');
        check(href === `https://github.com/root-project/root/commit/${sha}`, `the ${side} picker shows its commit, linked (${href})`);
      }
      check(await until(page, () => document.querySelectorAll('[data-testid="compare-summary"] a.commit-link').length === 2, undefined, 15_000),
        'the summary links base and head');
      // a release against the checkout: no codec series in common, said so, no table
      await page.goto(url(`/compare?base=${rel.commits[0]}&head=${rel.checkout}&machine=${rel.machine}`));
      await page.waitForSelector('[data-testid="no-common-series"]', { timeout: 30_000 });
      const said = await page.textContent('[data-testid="no-common-series"]');
      check(said.includes('No codec series in common') && said.includes('builtin') && said.includes('host'), `a pair without a common series says so (${said.slice(0, 60)}…)`);
      check((await page.locator('[data-testid="compare-table"]').count()) === 0, 'and shows no table mixing two series');
      await page.screenshot({ path: path.join(SHOTS, 'compare-no-common-series.png'), fullPage: true });
      await page.locator('[data-testid="no-common-series"] a', { hasText: 'builtin' }).click();
      check(await until(page, (h) => new URL(location.href).searchParams.get('head') === h, rel.commits[1]), 'its suggestion compares within one series');
      await page.waitForSelector('[data-testid="compare-table"]', { timeout: 30_000 });
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('trade-off: zoom kept in the URL and restored, a click shows the commit linked, codec series picker', async () => {
      const page = await openPage(context);
      const plot = '[data-plot="tradeoff-compress"] .js-plotly-plot';
      await page.goto(url(`/tradeoffs?commit=${newest}&machine=haswell-01&dataset=${nano}`));
      await page.waitForSelector(rendered('tradeoff-compress'), { timeout: 30_000 });
      const box = await page.locator('[data-plot="tradeoff-compress"] .nsewdrag').boundingBox();
      await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.7, box.y + box.height * 0.8, { steps: 5 });
      await page.mouse.up();
      check(await until(page, () => ['cx', 'cy'].every((k) => new URL(location.href).searchParams.has(k))), `zoom kept in the URL (cx=${new URL(page.url()).searchParams.get('cx')}, cy=${new URL(page.url()).searchParams.get('cy')})`);
      const ranges = (p) => p.evaluate((sel) => {
        const l = document.querySelector(sel)._fullLayout;
        return [l.xaxis.range, l.yaxis.range].map((r) => r.map((v) => Number(v.toPrecision(4))).join('~')).join(' ');
      }, plot);
      const zoomed = await ranges(page);
      const shared = page.url();
      check(!new URL(shared).searchParams.has('dx'), 'the other panel keeps its whole range');
      const other = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const again = await openPage(other);
      await again.goto(shared);
      await again.waitForSelector(rendered('tradeoff-compress'), { timeout: 30_000 });
      const restored = await ranges(again);
      check(restored === zoomed, `a shared URL restores the zoom (${restored} / ${zoomed})`);
      check(again.url() === shared, 'the zoomed link is not rewritten on load');
      await other.close();
      await page.dblclick('[data-plot="tradeoff-compress"] .nsewdrag', { position: { x: box.width / 2, y: box.height / 2 } });
      // The reset is done when the URL has no zoom and the plot drew it (autorange on both axes):
      // a render between the two would still carry the zoomed range.
      check(await until(page, (sel) => {
        const l = document.querySelector(sel)?._fullLayout;
        return !new URL(location.href).searchParams.has('cx') && l?.xaxis.autorange === true && l?.yaxis.autorange === true;
      }, plot), 'a double click resets the zoom and the URL');
      // click the ZSTD-5 point: its commit, linked, under the plots. Its position is read from the
      // drawn plot each time; a click that a late redraw swallowed is made again.
      const clickSetting = async () => {
        const pos = await page.evaluate((sel) => {
          const gd = document.querySelector(sel);
          const t = gd._fullData.find((d) => d.customdata?.some((c) => c[2] === 505 && c[3] === 0));
          const i = t.customdata.findIndex((c) => c[2] === 505);
          const { xaxis, yaxis, _size } = gd._fullLayout;
          const b = gd.getBoundingClientRect();
          return { x: b.left + _size.l + xaxis.l2p(t.x[i]), y: b.top + _size.t + yaxis.l2p(Math.log10(t.y[i])) };
        }, plot);
        await page.mouse.move(pos.x, pos.y);
        await page.waitForSelector('[data-plot="tradeoff-compress"] .hoverlayer .hovertext', { timeout: 10_000 });
        await page.mouse.click(pos.x, pos.y);
        return until(page, () => document.querySelector('[data-testid="point-details"][data-setting="505"]') !== null, undefined, 5_000);
      };
      let shown = false;
      for (let attempt = 0; attempt < 3 && !shown; attempt++) shown = await clickSetting();
      check(shown, 'a click on the ZSTD-5 point shows its details');
      await page.waitForSelector('[data-testid="point-details"] a[data-testid="point-commit-link"]', { timeout: 15_000 }).catch(() => {});
      const href = await page.getAttribute('[data-testid="point-details"] [data-testid="point-commit-link"]', 'href');
      check(href === `https://github.com/root-project/root/commit/${newest}`, `the clicked point's commit links to its page (${href})`);
      check((await page.textContent('[data-testid="point-details"]')).includes('ZSTD-5'), 'the details name the clicked setting');
      await page.waitForSelector('.page-header a.commit-link', { timeout: 15_000 }).catch(() => {});
      check((await page.getAttribute('.page-header a.commit-link', 'href'))?.endsWith(`/commit/${newest}`), 'the header links the commit');
      // a release commit: its codec series is named and offered
      await page.goto(url(`/tradeoffs?commit=${rel.commits[1]}&machine=${rel.machine}&dataset=${nano}`));
      await page.waitForSelector(rendered('tradeoff-compress'), { timeout: 30_000 });
      const options = await page.locator('select[name="codecs"] option').allTextContents();
      check(options.some((o) => o.startsWith('builtin:')), `the trade-off picker lists the commit's codec series (${options.join(' | ')})`);
      check((await page.textContent('.page-header')).includes('ROOT 6.40.00'), 'the header names the codec versions shown');
      await page.selectOption('select[name="codecs"]', 'builtin');
      check(await until(page, () => new URL(location.href).searchParams.get('codecs') === 'builtin'), 'the trade-off codec series goes to the URL');
      await page.waitForSelector(rendered('tradeoff-compress'), { timeout: 30_000 });
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('compare: summary within the setting filter, unknown and identical commits named', async () => {
      const page = await openPage(context);
      await page.goto(url(`/compare?base=${data.commits[4]}&head=${data.commits[5]}&machine=haswell-01&dataset=${nano}&setting=101`));
      await page.waitForSelector('[data-testid="compare-table"]', { timeout: 30_000 });
      const shown = await page.locator('[data-testid="compare-table"] tbody tr.row-regression').count();
      const summary = await page.textContent('[data-testid="compare-summary"]');
      check(summary.startsWith(`${shown} regressions`), `the summary counts the filtered rows (${summary.slice(0, 40)}; ${shown} rows)`);
      await page.goto(url(`/compare?base=${data.commits[4]}&head=deadbeef12&machine=haswell-01`));
      await page.waitForSelector('[data-testid="unknown-commit"]', { timeout: 30_000 });
      check((await page.textContent('[data-testid="unknown-commit"]')).includes('deadbeef12'), 'an unknown head sha is named');
      await page.goto(url(`/compare?base=${data.commits[4]}&head=${data.commits[4]}&machine=haswell-01`));
      await page.waitForSelector('[data-testid="empty-state"]', { timeout: 30_000 });
      check((await page.textContent('[data-testid="empty-state"]')).includes('same commit'), 'the same commit on both sides is named');
      await page.close();
    });

    await test('lists: server-side sort over every row, queue counts over every run', async () => {
      const page = await openPage(context);
      const all = await (await fetch(url('/api/v1/configurations/latest?limit=1000'))).json();
      const fastest = Math.max(...all.items.map((r) => r.compress_mbps ?? 0));
      await page.goto(url('/configurations?sort=-compress_mbps'));
      await page.waitForSelector('[data-testid="configurations-table"][data-sort="-compress_mbps"]', { timeout: 30_000 });
      const first = await page.locator('[data-testid="configurations-table"] tbody tr').first().locator('td').nth(12).textContent();
      check(Math.abs(Number(first.replace(/[^\d.]/g, '')) - fastest) / fastest < 0.01, `page 1 sorted by speed starts with the fastest of all ${all.total} rows (${first} vs ${fastest.toFixed(1)})`);
      check((await page.textContent('[data-testid="latest-count"]')).includes(`of ${all.total}`), 'the total of every row is shown');
      await page.goto(url('/runs'));
      await page.waitForSelector('[data-testid="queues"] [data-tag="haswell"]', { timeout: 30_000 });
      const queued = (await (await fetch(url('/api/v1/runs?tag=haswell&status=queued&limit=1'))).json()).total;
      await until(page, (n) => document.querySelector('[data-tag="haswell"] [data-count="queued"]')?.textContent?.startsWith(`${n} `), queued, 15_000);
      check((await page.textContent('[data-tag="haswell"] [data-count="queued"]')).startsWith(`${queued} `), `haswell's queued count is the server's (${queued})`);
      await page.close();
    });

    await test('800 px wide: key columns stay on screen', async () => {
      const narrow = await browser.newContext({ viewport: { width: 800, height: 900 } });
      const page = await openPage(narrow);
      await page.goto(url(`/compare?base=${data.commits[4]}&head=${data.commits[5]}&machine=haswell-01&dataset=${nano}`));
      await page.waitForSelector('[data-testid="compare-table"]', { timeout: 30_000 });
      const delta = await page.locator('[data-testid="compare-table"] th', { hasText: 'Δ' }).boundingBox();
      check(delta && delta.x + delta.width <= 800, `compare: the Δ column is visible at 800 px (right edge ${delta && Math.round(delta.x + delta.width)})`);
      await page.screenshot({ path: path.join(SHOTS, 'compare-800.png'), fullPage: true });
      await page.goto(url(`/configurations?dataset=${nano}`));
      await page.waitForSelector('[data-testid="configurations-table"]', { timeout: 30_000 });
      for (const h of ['compress MB/s', 'decompress MB/s']) {
        const b = await page.locator('[data-testid="configurations-table"] th', { hasText: new RegExp(`^${h}`) }).boundingBox();
        check(b && b.x + b.width <= 800, `configurations: "${h}" visible at 800 px (right edge ${b && Math.round(b.x + b.width)})`);
      }
      await narrow.close();
    });

    await test('recommend: sliders move the recommendation where the cost model says; an advise --json file ranks as the CLI did', async () => {
      const page = await openPage(context);
      await page.goto(url(`/recommend`));
      await page.waitForSelector('[data-testid="rank-row"]', { timeout: 30_000 });
      await page.waitForSelector(rendered('recommend'), { timeout: 30_000 });
      // React listens to 'input': set a range input's value as a user drag would.
      const slide = (key, value) => page.$eval(`[data-testid="slider-${key}"]`, (el, v) => {
        const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
        setter.call(el, String(v));
        el.dispatchEvent(new Event('input', { bubbles: true }));
      }, value);
      const settled = async (model) => {
        // The answer for exactly this model is on screen (not the previous one kept while fetching).
        await until(page, (m) => {
          const p = document.querySelector('[data-testid="recommendation"]');
          return p && p.dataset.fetching === 'false' &&
            Object.entries(m).every(([k, v]) => document.querySelector(`[data-testid="value-${k}"]`)?.textContent === String(v));
        }, model);
        return page.$$eval('[data-testid="rank-row"]', (rows) => rows.map((r) => ({
          label: r.dataset.label, raw: Number(r.dataset.raw), size: Number(r.dataset.compressed),
          c: Number(r.dataset.compress), d: Number(r.dataset.decompress) })));
      };
      const recommended = () => page.getAttribute('[data-testid="recommendation"]', 'data-recommended');
      // CPU free: only storage counts, so the smallest setting must win.
      await slide('cpu_per_core_hour', 0);
      let rows = await settled({ cpu_per_core_hour: 0 });
      const smallest = rows.reduce((a, b) => (b.size < a.size ? b : a));
      check(await recommended() === smallest.label, `free CPU: the smallest setting ${smallest.label} wins (got ${await recommended()})`);
      // Storage free, many reads, a fast network: the cost model's own arithmetic picks the winner.
      await slide('storage_per_tb_month', 0);
      await slide('cpu_per_core_hour', 2);
      await slide('reads_per_file', 1000);
      await slide('network_mb_per_s', 10000);
      rows = await settled({ storage_per_tb_month: 0, cpu_per_core_hour: 2, reads_per_file: 1000, network_mb_per_s: 10000 });
      const seconds = (r) => (r.raw / (r.c * 1e6) + r.size / 1e10) + 1000 * (r.raw / (r.d * 1e6) + r.size / 1e10);
      const fastest = rows.reduce((a, b) => (seconds(b) < seconds(a) ? b : a));
      check(await recommended() === fastest.label, `free storage, 1000 reads: ${fastest.label} wins as the cost model says (got ${await recommended()})`);
      check(fastest.label !== smallest.label, `the recommendation moved (${smallest.label} -> ${fastest.label})`);
      const legend = await page.locator('[data-plot="recommend"] .legend .traces').allTextContents();
      check(legend.some((t) => t.includes('recommended')), `the plot marks the chosen point (${legend.join(', ')})`);
      // The CLI's own output (tests/fixtures/advise-hzz-zlib.json): same inputs, same ranking.
      const advice = JSON.parse(readFileSync(path.join(FRONTEND, '..', 'tests', 'fixtures', 'advise-hzz-zlib.json'), 'utf8'));
      await page.setInputFiles('[data-testid="advice-file"]', path.join(FRONTEND, '..', 'tests', 'fixtures', 'advise-hzz-zlib.json'));
      rows = await settled({ reads_per_file: advice.model.reads_per_file, cpu_per_core_hour: advice.model.cpu_per_core_hour });
      const labels = rows.map((r) => r.label);
      const cli = advice.ranking.map((r) => r.label);
      check(JSON.stringify(labels) === JSON.stringify(cli), `page ranks the advise --json file as the CLI did (${labels.join(',')} vs ${cli.join(',')})`);
      check(await recommended() === advice.recommended, `page recommends ${advice.recommended} like the CLI`);
      await page.screenshot({ path: path.join(SHOTS, 'recommend.png'), fullPage: true });
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('compare triage: decided changes first, size and ratio in one row with exact bytes, paged with totals, the rule stated', async () => {
      const page = await openPage(context);
      const q = `base_commit=${rel.commits[0]}&head_commit=${rel.commits[1]}&machine=${rel.machine}`;
      const api = await (await fetch(url(`/api/v1/compare?${q}&merged=true&order=decided&limit=100`))).json();
      await page.goto(url(`/compare?base=${rel.commits[0]}&head=${rel.commits[1]}&machine=${rel.machine}`));
      await page.waitForSelector('[data-testid="compare-table"] tbody tr', { timeout: 30_000 });
      const rows = await page.locator('[data-testid="compare-table"] tbody tr').evaluateAll((trs) => trs.map((tr) => ({
        cells: [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''),
        decided: tr.classList.contains('row-regression') || tr.classList.contains('row-improvement'),
      })));
      check(rows.length === api.rows.length && rows.length <= 100, `one page of rows (${rows.length} of ${api.total})`);
      check(!rows.some((r) => r.cells[2].startsWith('compression ratio')), 'no separate ratio rows: size and ratio are one row per series');
      const firstRest = rows.findIndex((r) => !r.decided);
      check(firstRest > 0 && rows.slice(firstRest).every((r) => !r.decided), `decided changes first (${firstRest} of them), then the rest`);
      const lastSize = rows.findLastIndex((r) => r.decided && r.cells[2].startsWith('compressed size'));
      const firstSpeed = rows.findIndex((r) => r.decided && !r.cells[2].startsWith('compressed size'));
      check(firstSpeed === -1 || lastSize < firstSpeed, `exact size changes before speed changes (${lastSize} < ${firstSpeed})`);
      const top = rows[0]?.cells ?? [];
      check(top[2]?.startsWith('compressed size') && /^[\d,]+ B$/.test(top[3]) && /^[\d,]+ B$/.test(top[4]) && /^[+-][\d,]+ B$/.test(top[6]),
        `the top row has exact bytes and the byte delta (${top.slice(1, 8).join(' | ')})`);
      check(/^\d\.\d{4} → \d\.\d{4}$/.test(top[7] ?? ''), `and the ratios of both sides (${top[7]})`);
      const pager = await page.textContent('[data-testid="compare-pager"]');
      check(pager.startsWith(`1–${rows.length} of ${api.total}`), `the pager counts every row (${pager.slice(0, 30)})`);
      const summary = await page.textContent('[data-testid="compare-summary"]');
      check(summary.startsWith(`${api.counts.regressions} regressions`), `the summary counts every row, not the page (${summary.slice(0, 40)})`);
      const rule = await page.textContent('[data-testid="compare-rule"]');
      check(rule.includes('interleaved A/B') && rule.includes('instruction counts') && rule.includes(`below ${api.rule.min_effect_pct} %`) && rule.includes('different times'), `the header states the rule applied (${rule.slice(0, 90)}…)`);
      if (api.total > 100) {
        await page.locator('[data-testid="compare-pager"] button', { hasText: 'next' }).click();
        check(await until(page, (t) => document.querySelector('[data-testid="compare-pager"]')?.textContent?.startsWith(`101–`) && document.querySelector('[data-testid="compare-pager"]')?.textContent?.includes(`of ${t}`), api.total, 15_000), 'the next page comes from the server');
      }
      await page.screenshot({ path: path.join(SHOTS, 'compare-triage.png'), fullPage: true });
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('compare: no speed verdict without A/B or counts evidence; the A/B is queued from the page and its result shown when it lands', async () => {
      const page = await openPage(context);
      // The demo's two releases, measured at different times (6.40.00 while the load rose): the runs differ by up to -83 %.
      const q = `base_commit=${rel.commits[0]}&head_commit=${rel.commits[1]}&machine=${rel.machine}`;
      const api = await (await fetch(url(`/api/v1/compare?${q}&merged=true&order=decided`))).json();
      const speeds = api.rows.filter((r) => r.metric.endsWith('_mbps'));
      const unbacked = speeds.filter((r) => r.significant && !['ab', 'counts'].includes(r.evidence?.kind));
      const apart = speeds.filter((r) => r.delta_pct !== null && r.delta_pct < -50).length;
      check(speeds.length > 0 && unbacked.length === 0, `the API gives no speed verdict without evidence (${speeds.length} speed rows, ${unbacked.length} unbacked verdicts)`);
      check(apart > 0 && speeds.every((r) => r.evidence.kind !== 'none' || (!r.significant && !r.regression)), `rows the runs put ${apart}x below -50 % are shown without a verdict`);
      check(api.head.busy === true && api.ab === null, 'the head was measured busy; no A/B exists yet');
      await page.goto(url(`/compare?base=${rel.commits[0]}&head=${rel.commits[1]}&machine=${rel.machine}`));
      await page.waitForSelector('[data-testid="compare-table"] tbody tr', { timeout: 30_000 });
      const shown = () => page.locator('[data-testid="compare-table"] tbody tr').evaluateAll((trs) => trs.map((tr) => ({
        kind: tr.querySelector('[data-testid="evidence"]')?.dataset.kind ?? null,
        badge: tr.querySelector('[data-testid="evidence"]')?.textContent ?? '',
        text: tr.textContent ?? '',
        decided: tr.classList.contains('row-regression') || tr.classList.contains('row-improvement'),
      })));
      const before = (await shown()).filter((r) => r.kind !== null);
      check(before.length > 0 && before.every((r) => r.kind === 'none' && !r.decided && r.text.includes('no verdict') && r.badge === 'no verdict: measured at different times'),
        `every speed row on the page says "no verdict: measured at different times" (${before.length} rows)`);
      const busy = await page.textContent('[data-testid="compare-busy"]');
      check(busy.includes('busy machine: head'), `the busy context is shown (${busy.slice(0, 60)})`);
      check((await page.textContent('[data-testid="compare-no-ab"]')).includes('No interleaved A/B'), 'the page says no A/B exists');
      // Without a token the button says one is needed; with one it queues the A/B.
      const form = 'form[aria-label="queue an interleaved A/B"]';
      await page.fill(`${form} input[name="ab-token"]`, '');
      await page.click('[data-testid="queue-ab"]');
      check(await until(page, () => document.querySelector('[data-testid="ab-token-needed"]')?.textContent?.includes('token is needed')), 'without a token the button explains that one is needed');
      await page.fill(`${form} input[name="ab-token"]`, backend.token);
      const posted = page.waitForResponse((r) => r.url().endsWith('/api/v1/ab-requests') && r.request().method() === 'POST');
      await page.click('[data-testid="queue-ab"]');
      const response = await posted;
      const queued = await response.json();
      check(response.status() === 201 && queued.status === 'queued' && queued.reference_commit === rel.commits[0] && queued.commit === rel.commits[1],
        `an A/B of head against base is queued (run ${queued.run_id}, ${response.status()})`);
      check(await until(page, () => document.querySelector('[data-testid="ab-request"]')?.dataset.status === 'queued'), 'the page shows it pending');
      check(await page.locator('[data-testid="queue-ab"]').isDisabled(), 'and does not queue it twice');
      // The worker's A/B stage measures and uploads (tests/e2e/land_ab.py stores what it would).
      execFileSync(PYTHON, [path.join(REPO, 'tests/e2e/land_ab.py'), '--database-url', backend.env.BASKETBENCH_DATABASE_URL, '--run-id', String(queued.run_id)], { stdio: ['ignore', 'pipe', 'inherit'] });
      check(await until(page, () => !!document.querySelector('[data-testid="compare-ab"]'), null, 30_000), 'the page follows the run and shows the A/B once it lands');
      const after = (await shown()).filter((r) => r.kind !== null);
      const lzma = after.filter((r) => r.kind === 'ab' && r.decided && r.text.includes('LZMA'));
      check(after.every((r) => r.kind === 'ab' && r.badge.startsWith('A/B 30 pairs, 95 % CI')), `every speed row now states its A/B (${after.length} rows)`);
      check(lzma.length > 0 && lzma.every((r) => r.text.includes('improvement') && r.text.includes('decompression')), `LZMA decompression is decided faster by the A/B (${lzma.length} rows)`);
      check(after.filter((r) => r.decided).length === lzma.length, 'every other speed row is equal within its interval: no verdict from the runs');
      check((await page.textContent('[data-testid="ab-request"]')).includes('succeeded'), 'the request shows the run succeeded');
      await page.screenshot({ path: path.join(SHOTS, 'compare-evidence.png'), fullPage: true });
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('runs page: a tag without a live worker is named, with its queued runs', async () => {
      const auth = { Authorization: `Bearer ${backend.token}`, 'Content-Type': 'application/json' };
      const declared = await fetch(url('/api/v1/worker-tags/e2e-ghost'), { method: 'PUT', headers: auth });
      check(declared.status === 200, `an operator declares a tag (HTTP ${declared.status})`);
      const queued = await fetch(url('/api/v1/trigger'), {
        method: 'POST', headers: auth, body: JSON.stringify({ commits: [data.commits[0]], tags: ['e2e-ghost'] }),
      });
      check(queued.status === 202, `a run is queued on it (HTTP ${queued.status})`);
      const page = await openPage(context);
      await page.goto(url('/runs'));
      const note = page.locator('[data-testid="worker-tag-notes"] [data-worker-tag="e2e-ghost"]');
      await note.waitFor({ timeout: 30_000 });
      const text = (await note.textContent()) ?? '';
      check(text.startsWith('tag e2e-ghost: no worker seen, 0 runs expired, 1 queued'), `the runs page names it (${text})`);
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('changes triage: one line per commit and cause, rows behind it, a bulk action with one reason, filters', async () => {
      const page = await openPage(context);
      const api = await (await fetch(url('/api/v1/changes/summary?status=open'))).json();
      await page.goto(url('/changes'));
      await page.waitForSelector('[data-testid="summary-line"]', { timeout: 30_000 });
      const lines = await page.locator('[data-testid="summary-line"] .line-text').allTextContents();
      check(lines.length === api.items.length && lines[0] === api.items[0].line, `the server's lines are shown (${lines[0]})`);
      check(lines.every((l) => /^[A-Z0-9]+ (compression speed|decompression speed|compressed size|compression ratio) [+-]\d.*, \d+ series on \d+ datasets?, \S+$/.test(l)), 'each line names codec, metric, effect range, series, datasets and machine');
      check((await page.textContent('[data-testid="changes-total"]')).startsWith(`${api.changes} changes in ${api.total} lines`), 'the totals cover every line');
      const disabled = page.locator('[data-testid="commit-actions"] button', { hasText: 'ignore' }).first();
      check(await disabled.isDisabled() && (await disabled.getAttribute('title'))?.startsWith('needs a token'), 'without a token the actions are disabled and say why');
      check(await page.locator('[data-testid="commit-actions"] [data-testid="needs-token"]').first().isVisible(), '"needs a token" is written next to them');
      // the vanilla-zlib commit: its lines, the rows of one, then all of that line ignored at once
      const group = page.locator('[data-testid="change-group"]', { has: page.locator(`a.commit-link[href$="${data.commits[5]}"]`) });
      const line = group.locator('[data-testid="summary-line"]').first();
      const text = await line.locator('.line-text').textContent();
      const n = Number(/, (\d+) series on/.exec(text)?.[1]);
      await line.locator('[data-testid="line-expand"]').click();
      check(await until(page, (k) => document.querySelectorAll('[data-testid="line-rows"] [data-testid="change-row"]').length === k, n, 15_000), `the line expands to its ${n} rows`);
      await page.fill('input[name="token"]', backend.token);
      page.once('dialog', (d) => void d.accept('known: vanilla zlib build'));
      await line.locator('[data-testid="line-actions"] button', { hasText: 'ignore' }).click();
      check(await until(page, (t) => ![...document.querySelectorAll('[data-testid="summary-line"] .line-text')].some((e) => e.textContent === t), text, 15_000), 'the ignored line leaves the open inbox');
      const ignored = (await (await fetch(url(`/api/v1/changes?status=ignored&commit=${data.commits[5]}&limit=1000`))).json()).items;
      check(ignored.length === n && ignored.every((c) => c.status_reason === 'known: vanilla zlib build'), `all ${n} changes got the one reason (${ignored.length})`);
      await page.selectOption('select[name="codec"]', 'zlib');
      check(await until(page, () => new URL(location.href).searchParams.get('codec') === 'zlib'), 'the codec filter goes to the URL');
      check(await until(page, () => [...document.querySelectorAll('[data-testid="summary-line"] .line-text')].every((e) => e.textContent?.startsWith('ZLIB')), undefined, 15_000), 'and only ZLIB lines are left');
      await page.screenshot({ path: path.join(SHOTS, 'changes-triage.png'), fullPage: true });
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('end-to-end I/O page: codec vs rest stacked per setting, read scaling with threads', async () => {
      const page = await openPage(context);
      const io = data.io;
      await page.goto(url(`/io?commit=${io.commit}&machine=${io.machine}`));
      await page.waitForSelector(rendered('io-split'), { timeout: 30_000 });
      await page.waitForSelector(rendered('io-scaling'), { timeout: 30_000 });
      const bars = await page.locator('[data-plot="io-split"] .bars .point').count();
      check(bars === 4, `two stacked bars (codec, rest) for each of 2 settings (${bars} bar segments)`);
      const text = await page.locator('[data-plot="io-split"]').innerText();
      check(/\d+ %/.test(text), 'each bar names the codec share in %');
      const lines = await page.locator('[data-plot="io-scaling"] .scatterlayer .trace').count();
      check(lines === 2, `one read-scaling line per setting (${lines})`);
      await page.selectOption('select[name="form"]', 'rntuple');
      await until(page, () => new URL(location.href).searchParams.get('form') === 'rntuple');
      await page.selectOption('select[name="page"]', 'cold');
      await until(page, () => new URL(location.href).searchParams.get('page') === 'cold');
      await page.waitForSelector(rendered('io-split'), { timeout: 30_000 });
      await page.screenshot({ path: path.join(SHOTS, 'io.png'), fullPage: true });
      // The bare page opens on the newest commit with I/O results (only releases measure I/O)
      await page.goto(url(`/io?machine=${io.machine}`));
      await page.waitForSelector(rendered('io-split'), { timeout: 30_000 });
      const title = await page.locator('[data-plot="io-split"] .gtitle').textContent();
      check(title.includes(io.commit.slice(0, 7)), `the bare I/O page shows the commit that has I/O results (${title.slice(0, 80)})`);
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('lossy floats: a column\'s bytes against its error per representation, physics, history', async () => {
      const page = await openPage(context);
      const lossy = data.lossy;
      await page.goto(url('/lossy'));
      await page.waitForSelector(rendered('lossy-tradeoff'), { timeout: 30_000 });
      const traces = await page.evaluate(() => {
        const gd = document.querySelector('[data-plot="lossy-tradeoff"] .js-plotly-plot');
        return gd._fullData.map((t) => ({ name: t.name, n: t.x.length }));
      });
      const names = traces.map((t) => t.name).join(',');
      check(names === 'full,half,trunc,quant', `one trace per representation kind (${names})`);
      check(traces.find((t) => t.name === 'trunc')?.n === 3, 'trunc at the 3 seeded bit widths');
      const rows = await page.locator('[data-testid="lossy-table"] tbody tr').count();
      check(rows === 8, `table: full, half, 3 trunc and 3 quant (${rows} rows)`);
      const starred = await page.locator('[data-testid="lossy-table"] tbody tr', { hasText: '★' }).count();
      check(starred >= 2, `the representations nothing beats are starred (${starred})`);
      const physics = await page.locator('[data-testid="lossy-physics"]').innerText();
      check(physics.includes('dimuon mass'), 'the dimuon mass computed from the muon columns');
      const sweepOption = await page.locator('select[name="sweep"]').inputValue();
      check(sweepOption === String(lossy.sweep), `opens on the newest sweep (${sweepOption})`);
      await page.selectOption('select[name="rep"]', 'trunc16');
      await page.waitForSelector(rendered('lossy-history'), { timeout: 30_000 });
      const points = await page.evaluate(() => {
        const gd = document.querySelector('[data-plot="lossy-history"] .js-plotly-plot');
        return gd._fullData[0].x.length;
      });
      check(points === 2, `history over the two commits with a sweep (${points} points)`);
      await page.screenshot({ path: path.join(SHOTS, 'lossy.png'), fullPage: true });
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('codec arena: switch ROOT\'s X to Y, size vs speed, ZSTD level mapping around 505, a row\'s history', async () => {
      const page = await openPage(context);
      const arena = data.arena;
      await page.goto(url('/arena'));
      await page.waitForSelector(rendered('arena-scatter'), { timeout: 30_000 });
      const rows = await page.locator('[data-testid="arena-table"] tbody tr').count();
      check(rows === arena.rows, `one table row per whole-file result (${rows} of ${arena.rows})`);
      const ng = await page.locator('[data-testid="arena-table"] tbody tr', { hasText: 'zlib-ng 1' }).innerText();
      check(ng.includes('ZLIB-1 (101)') && ng.includes('+0.96 %') && ng.includes('1.550 ['), `zlib-ng 1 against 101 with its size change and interval (${ng.replace(/\s+/g, ' ')})`);
      check(ng.includes('readable') && ng.includes('byte-exact'), 'the ROOT-readable and round-trip badges');
      check((await page.locator('select[name="file"]').inputValue()) === arena.file, 'opens on the seeded file');
      check((await page.locator('select[name="machine"]').inputValue()) === arena.machine, 'and its machine');
      await page.waitForSelector(rendered('arena-mapping-zstd'), { timeout: 30_000 });
      const mapping = await page.evaluate(() => {
        const gd = document.querySelector('[data-plot="arena-mapping-zstd"] .js-plotly-plot');
        const size = gd._fullData[0];
        return { levels: size.x, ten: size.y[size.x.indexOf(10)], title: gd.layout.title.text };
      });
      check(mapping.levels.length === 17 && mapping.levels[0] === 3 && mapping.levels[16] === 19, `zstd levels 3..19 (${mapping.levels})`);
      check(mapping.ten === 0 && mapping.title.includes('ROOT runs level 10'), `505 is zstd 10, at no size change (${mapping.title})`);
      await page.locator('[data-testid="arena-table"] tbody tr', { hasText: 'zlib-ng 1' }).click();
      await page.waitForSelector(rendered('arena-history'), { timeout: 30_000 });
      const history = await page.evaluate(() => {
        const gd = document.querySelector('[data-plot="arena-history"] .js-plotly-plot');
        return { x: gd._fullData[0].x, y: gd._fullData[0].y };
      });
      check(history.x.length === arena.commits.length, `history over the commits measured (${history.x.length})`);
      check(history.y[0] < history.y[2], `zlib-ng's size change moves with the commits (${history.y})`);
      check(page.url().includes('row=candidate'), 'the chosen row is in the URL');
      await page.screenshot({ path: path.join(SHOTS, 'arena.png'), fullPage: true });
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('release names: commits of ROOT releases named in the pickers and the inbox', async () => {
      const page = await openPage(context);
      await page.goto(url(`/compare?base=${rel.commits[0]}&head=${rel.commits[1]}&machine=${rel.machine}`));
      await page.waitForSelector('[data-testid="compare-table"]', { timeout: 30_000 });
      for (const [name, version] of [['base', rel.versions[0]], ['head', rel.versions[1]]]) {
        const chosen = await page.locator(`select[name="${name}"] option:checked`).textContent();
        check(chosen?.includes(`ROOT ${version} (release)`), `the ${name} picker names the release (${chosen})`);
      }
      await page.fill('input[name="base_search"]', `ROOT ${rel.versions[1]}`);
      check(await until(page, (sha) => [...document.querySelectorAll('select[name="base"] option')].some((o) => o.value === sha), rel.commits[1], 15_000), 'a search by release name finds it');
      const commit = await (await fetch(url(`/api/v1/commits/${rel.commits[1]}`))).json();
      check(commit.message === `ROOT ${rel.versions[1]} (release)`, `the API names it too (${commit.message})`);
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('trade-off: a TTree dataset and its RNTuple form side by side, kinds named', async () => {
      const page = await openPage(context);
      await page.goto(url(`/tradeoffs?commit=${newest}&machine=haswell-01&dataset=uproot-HZZ-rntuple&base_dataset=uproot-HZZ`));
      await page.waitForSelector(rendered('tradeoff-compress'), { timeout: 30_000 });
      check((await page.textContent('[data-testid="dataset-kind"]')) === 'RNTuple pages', 'the RNTuple dataset is marked as RNTuple pages');
      check((await page.textContent('[data-testid="base-dataset-kind"]')) === 'TTree baskets', 'the dataset beside it is marked as TTree baskets');
      // the baseline comes from its own query: under load it lands after the plot is first drawn
      await until(page, () => document.querySelector('[data-plot="tradeoff-compress"] .js-plotly-plot')?.data?.some((t) => t.name?.includes('baseline')), undefined, 15_000);
      const names = await page.evaluate(() => document.querySelector('[data-plot="tradeoff-compress"] .js-plotly-plot').data.map((t) => t.name));
      check(names.some((n) => n?.includes('baseline') && n.includes('uproot-HZZ')), `the TTree form is drawn as the faded baseline (${names.join(' | ').slice(0, 120)})`);
      const option = await page.locator('select[name="dataset"] option[value="uproot-HZZ-rntuple"]').textContent();
      check(option.includes('RNTuple pages'), `the dataset picker names the kind (${option})`);
      await page.selectOption('select[name="base_dataset"]', '');
      check(await until(page, () => !new URL(location.href).searchParams.get('base_dataset')), 'clearing "Beside dataset" drops it from the URL');
      check(page.errors.length === 0, `no console errors (${page.errors.join('; ').slice(0, 200)})`);
      await page.close();
    });

    await test('history axis: commit dates or short shas, releases and the newest commit labelled, From/To pickers', async () => {
      const page = await openPage(context);
      const plot = 'history-compress_mbps';
      await page.goto(url(`/history?s=${encodeURIComponent(`505~${nano}~haswell-01~compress_mbps`)}`));
      await page.waitForSelector(rendered(plot), { timeout: 30_000 });
      const axis = () => page.evaluate((id) => {
        const gd = document.querySelector(`[data-plot="${id}"] .js-plotly-plot`);
        return { ticks: [...(gd?.layout?.xaxis?.ticktext ?? [])], title: gd?._fullLayout?.xaxis?.title?.text ?? '', notes: (gd?.layout?.annotations ?? []).map((a) => a.text) };
      }, plot);
      const byDate = await axis();
      check(byDate.ticks.length > 0 && byDate.ticks.every((t) => /^\d{4}-\d\d-\d\d$/.test(t)), `the x axis reads commit dates (${byDate.ticks.join(', ')})`);
      check(rel.versions.every((v) => byDate.notes.includes(`ROOT ${v}`)) && byDate.notes.some((t) => t.startsWith('newest ')), `releases and the newest commit are labelled (${byDate.notes.join(' | ')})`);
      await page.selectOption('select[name="xlabels"]', 'sha');
      check(await until(page, () => new URL(location.href).searchParams.get('xlabels') === 'sha'), 'the axis choice goes to the URL');
      check(await until(page, (id) => {
        const t = document.querySelector(`[data-plot="${id}"] .js-plotly-plot`)?.layout?.xaxis?.ticktext ?? [];
        return t.length > 0 && t.every((x) => /^[0-9a-f]{7}$/.test(x));
      }, plot, 15_000), 'and the ticks read short shas');
      // The pickers' commits come from their own query: on a busy machine they may land
      // after the plot, so wait for the release to be listed before reading the options.
      await until(page, (v) => [...document.querySelectorAll('select[name="from"] option')]
        .some((o) => (o.textContent ?? '').includes(`ROOT ${v} (release)`)), rel.versions[0], 15_000);
      const fromOptions = await page.locator('select[name="from"] option').allTextContents();
      check(fromOptions[0] === 'the oldest' && fromOptions.some((o) => o.includes(`ROOT ${rel.versions[0]} (release)`)), `From is a search picker listing named releases (${fromOptions.length} options)`);
      await page.selectOption('select[name="from"]', rel.commits[1]);
      check(await until(page, (sha) => new URL(location.href).searchParams.get('from') === sha, rel.commits[1]), 'a picked From commit narrows the range');
      const fromRelease = data.commits.length - data.commits.indexOf(rel.commits[1]);
      check(await until(page, ([id, n]) => Number(document.querySelector(`[data-plot="${id}"]`)?.getAttribute('data-points')) === n, [plot, fromRelease], 15_000), `to the ${fromRelease} commits from that release on`);
      await page.screenshot({ path: path.join(SHOTS, 'history-axis.png'), fullPage: true });
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('runs: a confirmation rerun links the changes it confirms', async () => {
      const page = await openPage(context);
      const confirm = (await (await fetch(url('/api/v1/runs?limit=1000'))).json()).items.filter((r) => r.trigger === 'confirm' && r.change_ids.length);
      await page.goto(url('/runs?sort=-id'));
      await page.waitForSelector('[data-testid="runs-table"]', { timeout: 30_000 });
      const link = page.locator('[data-testid="run-cause"]').first();
      check(confirm.length > 0 && (await link.count()) === 1, `confirm runs name their changes (${confirm.length} in the API)`);
      await link.click();
      await page.waitForSelector('[data-testid="summary-line"]', { timeout: 30_000 });
      const params = new URL(page.url()).searchParams;
      check(confirm.some((r) => r.change_commit === params.get('commit')) && params.get('status') === 'any', `the link opens the changes of that commit (${params.get('commit')?.slice(0, 10)})`);
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('trade-off: the speed axis shows instructions per MB, the choice kept in the URL', async () => {
      const page = await openPage(context);
      const counted = data.counts; // the seed counted one machine's newest commit on one dataset
      await page.goto(url(`/tradeoffs?commit=${counted.commit}&machine=${counted.machine}&dataset=${counted.dataset}`));
      await page.waitForSelector(rendered('tradeoff-compress'), { timeout: 30_000 });
      await page.selectOption('select[name="axis"]', 'instructions');
      check(await until(page, () => new URL(location.href).searchParams.get('axis') === 'instructions'), 'the axis choice goes to the URL');
      // every plotted point of each panel: its setting (customdata[2]) and its speed-axis value
      const plotted = (id) => page.evaluate((id) => {
        const gd = document.querySelector(`[data-plot="${id}"] .js-plotly-plot`);
        const out = {};
        for (const t of gd?.data ?? []) (t.customdata ?? []).forEach((c, i) => { if (c[3] === 0) out[c[2]] = t.y[i]; });
        return { points: out, title: gd?.layout?.yaxis?.title?.text ?? '' };
      }, id);
      for (const [id, op] of [['tradeoff-compress', 'compress'], ['tradeoff-decompress', 'decompress']]) {
        const want = counted[op];
        const same = (got) => Object.keys(want).length === data.settings.length && Object.keys(got).length === Object.keys(want).length
          && Object.entries(want).every(([s, v]) => got[s] === v);
        const shown = await until(page, ([id, want]) => {
          const gd = document.querySelector(`[data-plot="${id}"] .js-plotly-plot`);
          const ys = {};
          for (const t of gd?.data ?? []) (t.customdata ?? []).forEach((c, i) => { if (c[3] === 0) ys[c[2]] = t.y[i]; });
          return Object.entries(want).every(([s, v]) => ys[s] === v);
        }, [id, want], 15_000);
        const got = await plotted(id);
        check(shown && same(got.points), `${id}: every point sits at its counted instructions per MB (${Object.keys(got.points).length} points, e.g. ZSTD-5 ${got.points[505]} vs ${want[505]})`);
        check(got.title.includes('instructions per MB'), `${id}: the axis is titled in instructions per MB (${got.title})`);
      }
      await page.reload();
      await page.waitForSelector(rendered('tradeoff-compress'), { timeout: 30_000 });
      check((await page.inputValue('select[name="axis"]')) === 'instructions', 'a reload (a shared link) keeps the instructions axis');
      const again = await plotted('tradeoff-decompress');
      check(again.points[505] === counted.decompress[505], `and plots the counts again (${again.points[505]})`);
      await page.selectOption('select[name="axis"]', 'mbps');
      check(await until(page, () => new URL(location.href).searchParams.get('axis') !== 'instructions'), 'back to MB/s');
      const api = await (await fetch(url(`/api/v1/tradeoff?commit=${counted.commit}&machine=${counted.machine}&dataset=${counted.dataset}`))).json();
      const zstd = api.points.find((p) => p.setting === 505);
      check(await until(page, (v) => {
        const gd = document.querySelector('[data-plot="tradeoff-compress"] .js-plotly-plot');
        return (gd?.data ?? []).some((t) => (t.customdata ?? []).some((c, i) => c[2] === 505 && c[3] === 0 && t.y[i] === v));
      }, zstd.compress_mbps.median, 15_000), `MB/s again: ZSTD-5 at its median speed (${zstd.compress_mbps.median})`);
      await page.screenshot({ path: path.join(SHOTS, 'tradeoff-instructions.png'), fullPage: true });
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('recommend per type class and per branch: an advise --json file\'s groups win as the CLI said', async () => {
      const page = await openPage(context);
      await page.goto(url(`/recommend`));
      const fixture = path.join(FRONTEND, '..', 'tests', 'fixtures', 'advise-hzz-zlib.json');
      const advice = JSON.parse(readFileSync(fixture, 'utf8'));
      await page.waitForSelector('[data-testid="advice-file"]', { timeout: 30_000 });
      await page.setInputFiles('[data-testid="advice-file"]', fixture);
      // Settled: the advise file's model is on the sliders and both group tables are answered for it.
      check(await until(page, (m) => Object.entries(m).every(([k, v]) => document.querySelector(`[data-testid="value-${k}"]`)?.textContent === String(v)) &&
        ['type_class', 'branch'].every((k) => document.querySelector(`[data-testid="groups-${k}"]`)?.dataset.fetching === 'false'), advice.model), 'both group tables answered for the file\'s model');
      const winners = (kind) => page.$$eval(`[data-testid="groups-${kind}"] [data-testid="group-row"]`, (rows) => rows.map((r) => [r.dataset.key, r.dataset.recommended]));
      const byClass = Object.fromEntries(await winners('type_class'));
      const cliByClass = Object.fromEntries(advice.type_classes.map((g) => [g.key, g.recommended]));
      check(JSON.stringify(Object.keys(byClass).sort()) === JSON.stringify(Object.keys(cliByClass).sort()), `one row per type class (${Object.keys(byClass).join(',')})`);
      for (const [k, v] of Object.entries(cliByClass)) check(byClass[k] === v, `type class ${k}: page recommends ${byClass[k]}, the CLI ${v}`);
      // Branches: those preferring another setting than the file's first (largest saving first,
      // as the CLI lists them), the rest counted; each shown winner is the CLI's.
      const byBranch = await winners('branch');
      const cliByBranch = Object.fromEntries(advice.branches.map((g) => [g.key, g.recommended]));
      const first20 = advice.branches.slice(0, 20).map((g) => g.key);
      check(JSON.stringify(byBranch.map(([k]) => k)) === JSON.stringify(first20), `the CLI's order: differing branches first (${byBranch.length} rows)`);
      const differs = await page.$$eval('[data-testid="groups-branch"] [data-testid="group-row"]', (rows) => rows.map((r) => r.dataset.differs === 'true'));
      check(differs[0] === true && differs.every((d, i) => i === 0 || d <= differs[i - 1]), `the branches preferring another setting lead the table (${differs.filter(Boolean).length} of ${differs.length} shown)`);
      check(Number(await page.getAttribute('[data-testid="differing-branch"]', 'data-differing')) === advice.branches_differing, `${advice.branches_differing} branches prefer another setting, as the CLI counted`);
      check(byBranch.every(([k, v]) => cliByBranch[k] === v), 'every shown branch wins with the CLI\'s setting');
      // the user's language: units with the currency, provenance, the ROOT snippet
      check((await page.textContent('[data-testid="unit-storage_per_tb_month"]')) === 'USD per TB-month', 'storage price in USD per TB-month');
      await page.selectOption('[data-testid="currency"]', 'EUR');
      check(await until(page, () => document.querySelector('[data-testid="unit-cpu_per_core_hour"]')?.textContent === 'EUR per core-hour'), 'the currency setting relabels the prices');
      const prov = await page.textContent('[data-testid="provenance"]');
      check(prov.includes(advice.codecs.libraries.zstd) && prov.includes(advice.machine.cpu_model), `provenance: codec versions and machine (${prov.slice(0, 120)})`);
      const snippets = await page.locator('[data-testid="root-snippet"]').allTextContents();
      check(snippets.some((t) => t.includes(`SetCompressionSettings(${advice.recommended})`) && t.includes('fCompressionAlgorithm') && t.includes('SetCompression(')), 'a ROOT snippet for TFile, Snapshot and RNTuple');
      check(snippets.some((t) => t.includes('GetBranch(')), 'and one with the per-branch settings');
      await page.waitForSelector('[data-plot="recommend"][data-rendered="true"]', { timeout: 30_000 });
      const ticks = await page.locator('[data-plot="recommend"] .xtick text').allTextContents();
      check(ticks.length > 0 && ticks.every((t) => /^[\d,.]+$/.test(t)) && !ticks.some((t) => ['3', '4', '6', '7', '8', '9'].includes(t)), `readable log ticks, 1-2-5 in full (${ticks.join(' ')})`);
      await page.screenshot({ path: path.join(SHOTS, 'recommend-branches.png'), fullPage: true });
      // An unstable answer names its contenders, not one winner (the advice's own statement)
      const unstable = path.join(SHOTS, '..', 'advice-unstable.json');
      writeFileSync(unstable, JSON.stringify({ ...advice, stability: { statement: 'unstable: 201 wins in 55 % of 200 resamples of the speeds, 508 in 45 %: contenders 201, 508', stable: false, contenders: ['201', '508'] } }));
      await page.setInputFiles('[data-testid="advice-file"]', unstable);
      const contenders = page.locator('[data-testid="contenders"]');
      await contenders.waitFor({ timeout: 30_000 });
      const said = await contenders.textContent();
      check(said.includes('No stable winner') && said.includes('(201)') && said.includes('(508)'), `an unstable answer shows the contenders (${said.slice(0, 90)})`);
      check((await page.textContent('[data-testid="stability"]')).startsWith('unstable: 201 wins in 55 %'), 'and its stability statement');
      const rest = await page.textContent('[data-testid="groups-branch-rest"]');
      check(rest.includes(`${advice.branches.length - 20} more branches`), `the rest is counted (${rest})`);
      const fileBest = await page.getAttribute('[data-testid="groups-branch"]', 'data-file-recommended');
      check(fileBest === advice.recommended, `the file's single best setting is the CLI's ${advice.recommended} (got ${fileBest})`);
      const saving = Number(await page.getAttribute('[data-testid="saving-branch"]', 'data-saving-fraction'));
      check(saving >= 0 && saving < 1, `per-branch settings save a fraction of the cost (${saving})`);
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('recommend: an advise run on a worker\'s file is queued from the page, listed, and its advice loads like a file', async () => {
      const page = await openPage(context);
      await page.goto(url(`/recommend`));
      await page.waitForSelector('[data-testid="advise-runs"]', { timeout: 30_000 });
      await page.click('[data-testid="advise-runs"] summary');
      const form = 'form[aria-label="advise on a worker\'s file"]';
      await page.fill(`${form} input[name="advise-tag"]`, 'e2e-advise');
      await page.fill(`${form} input[name="advise-token"]`, backend.token);
      // A path out of the data root: refused on the page, and by the API (422 naming the field).
      await page.fill(`${form} input[name="advise-path"]`, '../etc/passwd');
      await page.click(`${form} button[type="submit"]`);
      check(await until(page, () => document.querySelector('[data-testid="advise-runs"] [role="alert"]')?.textContent?.includes('without')), 'the page refuses a path leaving the data root');
      const refused = await fetch(url('/api/v1/advise'), { method: 'POST', body: JSON.stringify({ tag: 'e2e-advise', path: '../etc/passwd' }), headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${backend.token}` } });
      check(refused.status === 422 && (await refused.text()).includes('path'), `so does the API (${refused.status})`);
      await page.fill(`${form} input[name="advise-path"]`, 'hzz/HZZ.root');
      const queued = page.waitForResponse((r) => r.url().endsWith('/api/v1/advise') && r.request().method() === 'POST');
      await page.click(`${form} button[type="submit"]`);
      const created = await (await queued).json();
      check(Number.isInteger(created.run_id), `an advise run is queued (run ${created.run_id})`);
      check(await until(page, (id) => !!document.querySelector(`[data-testid="advise-run"][data-run="${id}"]`), created.run_id), 'the page lists it');
      // The worker's upload (tests/workers/test_advise_run.py runs a real one): the CLI's fixture.
      const fixture = readFileSync(path.join(FRONTEND, '..', 'tests', 'fixtures', 'advise-hzz-zlib.json'), 'utf8');
      const advice = JSON.parse(fixture);
      // Only the worker that claimed the run may store its advice (issue 38): claim it as one.
      const runInfo = await (await fetch(url(`/api/v1/runs/${created.run_id}`))).json();
      const claimed = await fetch(url(`/api/v1/runs/${created.run_id}/claim`), { method: 'POST', body: JSON.stringify({ generation: runInfo.generation ?? 0 }), headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${backend.token}` } });
      check(claimed.status === 200, `a worker claims the run (${claimed.status})`);
      const put = await fetch(url(`/api/v1/advise/${created.run_id}`), { method: 'PUT', body: fixture, headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${backend.token}` } });
      check(put.status === 204, `the advice is stored (${put.status})`);
      await page.reload();
      await page.click('[data-testid="advise-runs"] summary');
      const load = page.locator(`[data-testid="advise-run"][data-run="${created.run_id}"] button`, { hasText: 'load' });
      await load.waitFor({ timeout: 30_000 });
      await load.click();
      check(await until(page, (want) => {
        const p = document.querySelector('[data-testid="recommendation"]');
        return p && p.dataset.fetching === 'false' && p.dataset.recommended === want &&
          document.querySelector('[data-testid="groups-type_class"]')?.dataset.fetching === 'false';
      }, advice.recommended), `the stored advice loads: ${advice.recommended} recommended, per type class shown`);
      const labels = await page.$$eval('[data-testid="rank-row"]', (rows) => rows.map((r) => r.dataset.label));
      check(JSON.stringify(labels) === JSON.stringify(advice.ranking.map((r) => r.label)), 'ranked as the CLI did');
      // A run that failed says why (the first line of its log, as the worker reports it)
      const auth = { 'Content-Type': 'application/json', Authorization: `Bearer ${backend.token}` };
      const doomed = await (await fetch(url('/api/v1/advise'), { method: 'POST', body: JSON.stringify({ tag: 'e2e-advise', path: 'hzz/missing.root' }), headers: auth })).json();
      const patched = await fetch(url(`/api/v1/runs/${doomed.run_id}`), { method: 'PATCH', headers: auth, body: JSON.stringify({
        status: 'failed', stage: 'failed', log_tail: "stage advise failed: path 'hzz/missing.root': no such file under the data root\n" }) });
      check(patched.ok, `the worker reports the run failed (${patched.status})`);
      await page.reload();
      await page.click('[data-testid="advise-runs"] summary');
      const reason = page.locator(`[data-testid="advise-run"][data-run="${doomed.run_id}"] [data-testid="advise-reason"]`);
      await reason.waitFor({ timeout: 30_000 });
      check((await reason.textContent()).includes('no such file under the data root'), 'the failed run shows its reason');
      check(page.errors.length === 0, `no console errors (${page.errors.join(' | ')})`);
      await page.close();
    });

    await test('/docs works offline (Swagger UI served by the API)', async () => {
      const page = await openPage(context);
      const outside = [];
      await page.route((u) => !u.href.startsWith(backend.base), (route) => {
        outside.push(route.request().url());
        return route.abort();
      });
      await page.goto(url('/docs'));
      await page.waitForSelector('.swagger-ui .opblock', { timeout: 30_000 });
      check((await page.locator('.swagger-ui .opblock').count()) > 10, 'Swagger UI lists the operations');
      check(outside.length === 0, `no request leaves the server (${outside.join(', ')})`);
      await page.close();
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
