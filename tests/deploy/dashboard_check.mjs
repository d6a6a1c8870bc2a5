// Opens the dashboard's landing page in Chromium and prints what the trade-off plot shows,
// as JSON: {url, points, console_errors}. Used by tests/deploy/test_demo.py.
//   node tests/deploy/dashboard_check.mjs FRONTEND_DIR URL SCREENSHOT.png
import { createRequire } from 'node:module';
import path from 'node:path';

const [frontendDir, url, screenshot] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(frontendDir), 'package.json'));
const { chromium } = require('playwright-core');

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
  await page.goto(url);
  const plot = '[data-plot="tradeoff-compress"]';
  await page.waitForSelector(`${plot}[data-rendered="true"]`, { timeout: 60_000 });
  const points = Number(await page.getAttribute(plot, 'data-points'));
  await page.screenshot({ path: screenshot });
  console.log(JSON.stringify({ url: page.url(), points, console_errors: errors }));
} finally {
  await browser.close();
}
