// Opens the dashboard in Chromium and prints, as JSON, what a newcomer's pages show.
//   node tests/deploy/dashboard_check.mjs FRONTEND_DIR URL SCREENSHOT.png
//     the landing page: the trade-off plot -> {url, points, console_errors} (tests/deploy/test_demo.py)
//   node tests/deploy/dashboard_check.mjs FRONTEND_DIR URL SCREENSHOT.png releases
//     the bare history and compare pages after a demo with ROOT releases
//     -> {history: {url, lines, codec_options, note}, compare: {url, base, head, codecs, sizes, speeds, offers_ab, links},
//         console_errors} (tests/deploy/test_demo_releases.py); SCREENSHOT is the history page.
//   node tests/deploy/dashboard_check.mjs FRONTEND_DIR URL SHOTS_DIR newcomer
//     every page after a demo with ROOT releases and without shared data, one PNG each in
//     SHOTS_DIR -> {tradeoff: {kind, base_kind, option, traces}, io: {title, write_bars, read_bars},
//         recommend: {units, provenance, snippet, differs}, shots, console_errors}
import { createRequire } from 'node:module';
import path from 'node:path';

const [frontendDir, url, screenshot, mode = 'tradeoff'] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(frontendDir), 'package.json'));
const { chromium } = require('playwright-core');
const base = url.replace(/\/+$/, '');

async function landing(page) {
  await page.goto(`${base}/`);
  const plot = '[data-plot="tradeoff-compress"]';
  await page.waitForSelector(`${plot}[data-rendered="true"]`, { timeout: 120_000 });
  const points = Number(await page.getAttribute(plot, 'data-points'));
  await page.screenshot({ path: screenshot });
  return { url: page.url(), points };
}

async function history(page) {
  await page.goto(`${base}/history`);
  const plot = '[data-plot="history-compress_mbps"]';
  await page.waitForSelector(`${plot}[data-rendered="true"]`, { timeout: 120_000 });
  // every codec series is fetched once the first answer names them: wait for their lines
  const lines = () => page.evaluate((sel) => {
    const gd = document.querySelector(`${sel} .js-plotly-plot`);
    return (gd?._fullData ?? []).filter((t) => t.showlegend && !String(t.name).startsWith('changes'))
      .map((t) => ({ name: t.name, shas: t.customdata.map((c) => c[4]), text: t.text ?? null, dash: t.line?.dash ?? null }));
  }, plot);
  const expected = await page.locator('select[name="codecs"] option').count() - 1;
  await page.waitForFunction(([sel, n]) => {
    const gd = document.querySelector(`${sel} .js-plotly-plot`);
    return (gd?._fullData ?? []).filter((t) => t.showlegend && !String(t.name).startsWith('changes')).length >= n;
  }, [plot, expected], { timeout: 60_000, polling: 200 }).catch(() => {});
  const out = {
    url: page.url(),
    lines: await lines(),
    codec_options: await page.locator('select[name="codecs"] option').allTextContents(),
    note: await page.locator('[data-testid="codec-note"]').textContent().catch(() => null),
  };
  await page.screenshot({ path: screenshot, fullPage: true });
  return out;
}

async function compare(page) {
  await page.goto(`${base}/compare`);
  await page.waitForFunction(() => new URL(location.href).searchParams.get('head'), null, { timeout: 120_000 });
  await page.waitForSelector('[data-testid="compare-table"], [data-testid="no-common-series"], [data-testid="empty-state"], [role="alert"]', { timeout: 120_000 });
  const params = new URL(page.url()).searchParams;
  const sizes = await page.evaluate(() => [...document.querySelectorAll('[data-testid="compare-table"] tbody tr')]
    .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent))
    .filter((cells) => cells[2] === 'compressed size [B]')
    .map((cells) => ({ dataset: cells[0], configuration: cells[1], delta: cells[5] })));
  // Speed rows (those with an evidence badge): a verdict only with A/B or counts (issue 32).
  const speeds = await page.evaluate(() => [...document.querySelectorAll('[data-testid="compare-table"] tbody tr')]
    .filter((tr) => tr.querySelector('[data-testid="evidence"]'))
    .map((tr) => ({ kind: tr.querySelector('[data-testid="evidence"]').dataset.kind,
      decided: tr.classList.contains('row-regression') || tr.classList.contains('row-improvement') })));
  return {
    url: page.url(),
    base: params.get('base'),
    head: params.get('head'),
    codecs: await page.locator('[data-testid="compare-codecs"]').textContent().catch(() => null),
    no_common_series: await page.locator('[data-testid="no-common-series"]').count() > 0,
    sizes,
    speeds,
    offers_ab: await page.locator('[data-testid="queue-ab"]').count() > 0,
    links: await page.locator('[data-testid="base-link"], [data-testid="head-link"]').evaluateAll((es) => es.map((e) => e.textContent)),
  };
}

const rendered = (id) => `[data-plot="${id}"][data-rendered="true"]`;

async function shot(page, name) {
  const file = path.join(screenshot, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** A newcomer's every page on the demo's own data; a screenshot of each. */
async function newcomer(page) {
  const shots = [];
  const out = {};
  // Trade-offs: HZZ's RNTuple (converted by ROOT 6.40.00) beside its TTree
  await page.goto(`${base}/tradeoffs?dataset=hzz-rntuple&base_dataset=hzz`);
  await page.waitForSelector(rendered('tradeoff-compress'), { timeout: 120_000 });
  // The base dataset's points come from a query of their own: the plot renders the
  // dataset's traces first and adds the baseline's when that answer arrives (on a loaded
  // machine, after the check had read the traces). Wait for it; the caller's assertion
  // names the traces if it never comes.
  await page.waitForFunction(() => {
    const gd = document.querySelector('[data-plot="tradeoff-compress"] .js-plotly-plot');
    return (gd?.data ?? []).some((t) => String(t.name ?? '').includes('baseline'));
  }, null, { timeout: 60_000, polling: 200 }).catch(() => {});
  out.tradeoff = {
    kind: await page.textContent('[data-testid="dataset-kind"]'),
    base_kind: await page.textContent('[data-testid="base-dataset-kind"]'),
    option: await page.locator('select[name="dataset"] option[value="hzz-rntuple"]').textContent(),
    traces: await page.evaluate(() => document.querySelector('[data-plot="tradeoff-compress"] .js-plotly-plot').data.map((t) => t.name)),
  };
  shots.push(await shot(page, 'tradeoffs'));
  // End-to-end I/O: write and read bars of the release that measured them
  await page.goto(`${base}/io`);
  await page.waitForSelector(rendered('io-split'), { timeout: 120_000 });
  const bars = () => page.locator('[data-plot="io-split"] .bars .point').count();
  const readBars = await bars();
  const title = await page.locator('[data-plot="io-split"] .gtitle').textContent();
  shots.push(await shot(page, 'io'));
  await page.selectOption('select[name="dir"]', 'write');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('dir') === 'write');
  await page.waitForSelector(rendered('io-split'), { timeout: 120_000 });
  out.io = { title, read_bars: readBars, write_bars: await bars(),
             write_title: await page.locator('[data-plot="io-split"] .gtitle').textContent() };
  // Recommend: the checkout's HZZ, units, provenance, stability, ROOT snippet, branches
  await page.goto(`${base}/recommend?dataset=hzz`);
  await page.waitForSelector('[data-testid="recommendation"][data-fetching="false"]', { timeout: 120_000 });
  await page.waitForSelector('[data-testid="groups-branch"][data-fetching="false"] [data-testid="group-row"]', { timeout: 120_000 });
  await page.waitForSelector(rendered('recommend'), { timeout: 120_000 });
  out.recommend = {
    headline: await page.textContent('[data-testid="recommendation"]'),
    units: await page.locator('[data-testid^="unit-"]').allTextContents(),
    provenance: await page.textContent('[data-testid="provenance"]'),
    snippet: (await page.locator('[data-testid="root-snippet"]').allTextContents()).join('\n'),
    differs: await page.$$eval('[data-testid="groups-branch"] [data-testid="group-row"]', (rows) => rows.map((r) => r.dataset.differs === 'true')),
    differing: Number(await page.getAttribute('[data-testid="differing-branch"]', 'data-differing')),
    ticks: await page.locator('[data-plot="recommend"] .xtick text').allTextContents(),
  };
  shots.push(await shot(page, 'recommend'));
  // below the fold: the per-branch table (differing branches first; its top) and the ROOT
  // snippet, without the sticky navigation bar over them
  await page.addStyleTag({ content: 'header, nav, .topbar { position: static !important; }' });
  for (const [name, selector] of [['recommend-branches', '[data-testid="groups-branch"]'], ['recommend-snippet', '[data-testid="root-snippet-card"]']]) {
    const file = path.join(screenshot, `${name}.png`);
    const box = await page.locator(selector).first().evaluate((e) => {
      const r = e.getBoundingClientRect();
      return { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height };
    });
    await page.screenshot({ path: file, fullPage: true, clip: { ...box, height: Math.min(box.height, 760) } });
    shots.push(file);
  }
  // The other pages, as a newcomer opens them
  for (const [name, selector] of [['history', rendered('history-compress_mbps')], ['compare', '[data-testid="compare-table"], [data-testid="empty-state"]'],
    ['changes', 'main h1'], ['runs', 'main table'], ['machines', 'main table'], ['configurations', 'main table']]) {
    await page.goto(`${base}/${name}`);
    await page.waitForSelector(selector, { timeout: 120_000 }).catch(() => {});
    await page.waitForTimeout(500); // let the last plot or table paint before the picture
    shots.push(await shot(page, name));
  }
  return { ...out, shots };
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage({ viewport: mode === 'newcomer' ? { width: 1280, height: 860 } : { width: 1440, height: 900 } });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  const seen = mode === 'releases'
    ? { history: await history(page), compare: await compare(page) }
    : mode === 'newcomer' ? await newcomer(page) : await landing(page);
  console.log(JSON.stringify({ ...seen, console_errors: errors }));
} finally {
  await browser.close();
}
