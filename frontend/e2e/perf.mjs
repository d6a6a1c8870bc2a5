// Time to first rendered plot, cold load of the built app in Chromium, with
// 10 000 commits of history on one series (docs/perf/frontend.md).
// node e2e/perf.mjs [commits=10000] [runs=5]
import { performance as nodePerf } from 'node:perf_hooks';
import { launchChromium, seed, startBackend } from './backend.mjs';

const N = Number(process.argv[2] ?? 10_000);
const RUNS = Number(process.argv[3] ?? 5);

// Long tasks observed from the very start of the page (before the app's code runs).
const INIT = `
  window.__longTasks = [];
  try {
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); })
      .observe({ type: 'longtask', buffered: true });
  } catch (e) {}
`;

async function measure(browser, url, plotId) {
  // A fresh context per run: empty HTTP cache and storage = cold load.
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(INIT);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'timeTicks' });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction((id) => performance.getEntriesByName(`plot-rendered:${id}`).length > 0, plotId, { timeout: 60_000, polling: 50 });
  const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const r = await page.evaluate((id) => {
    const nav = performance.getEntriesByType('navigation')[0];
    const mark = performance.getEntriesByName(`plot-rendered:${id}`)[0];
    const plot = document.querySelector(`[data-plot="${id}"]`);
    return {
      firstPlotMs: mark.startTime,
      domContentLoadedMs: nav.domContentLoadedEventEnd,
      longTasksMs: window.__longTasks.reduce((a, b) => a + b, 0),
      longTasks: window.__longTasks.length,
      points: Number(plot?.getAttribute('data-points') ?? 0),
      transferKB: performance.getEntriesByType('resource').reduce((a, e) => a + (e.transferSize || 0), 0) / 1024,
      // when the page's main data and Plotly's chunk had arrived (ms since navigation)
      dataMs: Math.max(0, ...performance.getEntriesByType('resource').filter((e) => /\/api\/v1\/(tradeoff|history)/.test(e.name)).map((e) => e.responseEnd)),
      plotlyMs: Math.max(0, ...performance.getEntriesByType('resource').filter((e) => /plotly-.*\.js/.test(e.name)).map((e) => e.responseEnd)),
    };
  }, plotId);
  await context.close();
  return {
    ...r,
    // CDP: main-thread busy time (all tasks) and its script/layout/style parts, since navigation.
    taskMs: metrics.TaskDuration * 1000,
    scriptMs: metrics.ScriptDuration * 1000,
    layoutMs: (metrics.LayoutDuration + metrics.RecalcStyleDuration) * 1000,
    // CPU time of the renderer's main thread: robust to other processes competing for the cores
    cpuMs: metrics.ThreadTime * 1000,
    errors,
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x) => x.toFixed(0);

// BB_PERF_URL: reuse a backend already seeded by `node e2e/serve.mjs --history 10000`
// (seeding 10 000 commits through the API takes minutes); else start and seed one.
async function existing(url) {
  const get = async (p) => (await fetch(url + '/api/v1' + p)).json();
  const dims = await get('/configurations/dimensions');
  const commits = (await get('/commits?limit=1000')).items;
  const newest = commits.reduce((a, c) => (c.order > a.order ? c : a));
  return { commits: [null, newest.sha], machine: dims.machines[0].name, dataset: dims.datasets[0] };
}

const reuse = process.env.BB_PERF_URL;
const backend = reuse ? { base: reuse, apiBase: reuse, stop: async () => {} } : await startBackend({ label: 'perf' });
let browser;
try {
  const t0 = nodePerf.now();
  const data = reuse ? await existing(reuse) : seed(backend, ['--history', String(N)]);
  if (!reuse) console.log(`seeded ${N} commits through the API in ${((nodePerf.now() - t0) / 1000).toFixed(1)} s`);
  const series = encodeURIComponent(`505~${data.dataset}~${data.machine}~compress_mbps`);
  const pages = [
    ['trade-off', `/tradeoffs?commit=${data.commits[1]}&machine=${data.machine}&dataset=${data.dataset}`, 'tradeoff-compress'],
    ['history (server downsampled to 2000)', `/history?s=${series}`, 'history-compress_mbps'],
    ['history (all 10 000 points, max=10000)', `/history?s=${series}&max=10000`, 'history-compress_mbps'],
  ];
  // Server-side time of the history query alone (what the page waits for).
  for (const max of [2000, 10000]) {
    const times = [];
    for (let i = 0; i < 5; i++) {
      const t = nodePerf.now();
      const r = await fetch(`${backend.apiBase}/api/v1/history?machine=${data.machine}&dataset=${data.dataset}&metric=compress_mbps&setting=505&max_points=${max}`);
      const body = await r.json();
      times.push(nodePerf.now() - t);
      if (i === 0) console.log(`GET /history max_points=${max}: ${body.points.length} of ${body.total_points} points`);
    }
    console.log(`GET /history max_points=${max}: median ${fmt(median(times))} ms (${times.map(fmt).join(', ')})`);
  }
  browser = await launchChromium();
  console.log('\n| page | points | first plot (median) | runs | main-thread busy (CDP TaskDuration) | main-thread CPU (CDP ThreadTime) | script | layout+style | long tasks | data arrived | Plotly arrived | transfer |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [name, path, id] of pages) {
    await measure(browser, backend.base + path, id); // warm the server side once (DB caches)
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await measure(browser, backend.base + path, id));
    const errs = runs.flatMap((r) => r.errors);
    console.log(
      `| ${name} | ${runs[0].points} | ${fmt(median(runs.map((r) => r.firstPlotMs)))} ms | ${runs.map((r) => fmt(r.firstPlotMs)).join(', ')} | ` +
        `${fmt(median(runs.map((r) => r.taskMs)))} ms | ${fmt(median(runs.map((r) => r.cpuMs)))} ms | ${fmt(median(runs.map((r) => r.scriptMs)))} ms | ${fmt(median(runs.map((r) => r.layoutMs)))} ms | ` +
        `${median(runs.map((r) => r.longTasks))} (${fmt(median(runs.map((r) => r.longTasksMs)))} ms) | ` +
        `${fmt(median(runs.map((r) => r.dataMs)))} ms | ${fmt(median(runs.map((r) => r.plotlyMs)))} ms | ${fmt(median(runs.map((r) => r.transferKB)))} kB |` +
        (errs.length ? ` errors: ${errs.join('; ')}` : ''),
    );
  }
} finally {
  if (browser) await browser.close();
  await backend.stop();
}
