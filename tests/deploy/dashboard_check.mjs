// Opens the dashboard in Chromium and prints, as JSON, what a newcomer's pages show.
//   node tests/deploy/dashboard_check.mjs FRONTEND_DIR URL SCREENSHOT.png
//     the landing page: the trade-off plot -> {url, points, console_errors} (tests/deploy/test_demo.py)
//   node tests/deploy/dashboard_check.mjs FRONTEND_DIR URL SCREENSHOT.png releases
//     the bare history and compare pages after a demo with ROOT releases
//     -> {history: {url, lines, codec_options, note}, compare: {url, base, head, codecs, sizes, speeds, offers_ab, links},
//         console_errors} (tests/deploy/test_demo_releases.py); SCREENSHOT is the history page.
import { createRequire } from 'node:module';
import path from 'node:path';

const [frontendDir, url, screenshot, mode = 'tradeoff'] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(frontendDir), 'package.json'));
const { chromium } = require('playwright-core');
const base = url.replace(/\/+$/, '');

async function landing(page) {
  await page.goto(`${base}/`);
  const plot = '[data-plot="tradeoff-compress"]';
  await page.waitForSelector(`${plot}[data-rendered="true"]`, { timeout: 60_000 });
  const points = Number(await page.getAttribute(plot, 'data-points'));
  await page.screenshot({ path: screenshot });
  return { url: page.url(), points };
}

async function history(page) {
  await page.goto(`${base}/history`);
  const plot = '[data-plot="history-compress_mbps"]';
  await page.waitForSelector(`${plot}[data-rendered="true"]`, { timeout: 60_000 });
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
  await page.waitForFunction(() => new URL(location.href).searchParams.get('head'), null, { timeout: 60_000 });
  await page.waitForSelector('[data-testid="compare-table"], [data-testid="no-common-series"], [data-testid="empty-state"], [role="alert"]', { timeout: 60_000 });
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

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  const seen = mode === 'releases'
    ? { history: await history(page), compare: await compare(page) }
    : await landing(page);
  console.log(JSON.stringify({ ...seen, console_errors: errors }));
} finally {
  await browser.close();
}
