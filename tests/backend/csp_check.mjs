// Opens the dashboard's landing page (trade-off plots) and /docs in Chromium under the
// API's real headers and prints JSON: CSP violations, console errors, what rendered, and
// whether hostile text in the plots became markup. Used by test_security_headers.py.
//   node tests/backend/csp_check.mjs FRONTEND_DIR BASE_URL [DASHBOARD_PATH]
import { createRequire } from 'node:module';
import path from 'node:path';

const [frontendDir, base, dashboardPath = '/'] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(frontendDir), 'package.json'));
const { chromium } = require('playwright-core');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const out = { violations: [], errors: [] };
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
  });
  page.on('console', (m) => { if (m.type() === 'error') out.errors.push(m.text()); });
  page.on('pageerror', (e) => out.errors.push(String(e)));

  await page.goto(base + dashboardPath);
  const plot = '[data-plot="tradeoff-compress"]';
  await page.waitForSelector(`${plot}[data-rendered="true"]`, { timeout: 90_000 });
  out.points = Number(await page.getAttribute(plot, 'data-points'));
  out.legend = await page.$$eval(`${plot} .legendtext`, (els) => els.map((e) => e.textContent));
  out.links_in_plot = await page.$$eval(`${plot} a`, (els) => els.map((e) => e.outerHTML));
  out.violations.push(...(await page.evaluate(() => window.__csp)));

  // History draws with WebGL (scattergl) where the browser has it: its shaders and
  // point picking must work under the CSP too.
  await page.goto(base + '/history?s=' + encodeURIComponent('101~nanoaod~bench-01~compress_mbps'));
  const history = '[data-plot="history-compress_mbps"]';
  await page.waitForSelector(`${history}[data-rendered="true"]`, { timeout: 90_000 });
  out.history_trace_types = await page.evaluate((sel) =>
    document.querySelector(`${sel} .js-plotly-plot`)._fullData.map((t) => t.type), history);
  const box = await page.locator(`${history} .js-plotly-plot`).boundingBox();
  if (box) await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  out.violations.push(...(await page.evaluate(() => window.__csp)));

  await page.goto(base + '/docs');
  await page.waitForSelector('.swagger-ui .opblock', { timeout: 90_000 });
  out.docs_operations = await page.$$eval('.swagger-ui .opblock', (els) => els.length);
  out.violations.push(...(await page.evaluate(() => window.__csp)));
} catch (e) {
  out.failure = String(e);
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
