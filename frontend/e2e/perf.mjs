// Time to first rendered plot, cold load of the built app in Chromium, with
// 10 000 commits of history on one series (docs/perf/frontend.md).
//   node e2e/perf.mjs [commits=10000] [runs=5]
//   BB_PERF_URL=http://127.0.0.1:PORT node e2e/perf.mjs        reuse a seeded backend
//   BB_PERF_URL=http://A,http://B node e2e/perf.mjs            compare two backends (builds)
//     on the same data: their loads are interleaved (A B A B ...) so both see the same load.
import os from 'node:os';
import { performance as nodePerf } from 'node:perf_hooks';
import { launchChromium, seed, startBackend } from './backend.mjs';

const N = Number(process.argv[2] ?? 10_000);
const RUNS = Number(process.argv[3] ?? 5);
const GOAL_MS = 1000; // issue 12: first plot under 1.0 s on an idle machine

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
  // Wait for the mark through a bare CDP call: page.waitForFunction would first load
  // Playwright's ~330 kB injected script into the page, main-thread time that is ours to
  // measure, not the harness's (50-140 ms in a Chromium trace).
  const drawn = await cdp.send('Runtime.evaluate', {
    expression: `new Promise((resolve) => {
      const name = ${JSON.stringify(`plot-rendered:${plotId}`)};
      const seen = () => performance.getEntriesByName(name).length > 0;
      if (seen()) return resolve(true);
      new PerformanceObserver((list, observer) => { if (seen()) { observer.disconnect(); resolve(true); } }).observe({ type: 'mark', buffered: true });
      setTimeout(() => resolve(false), 60000);
    })`,
    awaitPromise: true,
    returnByValue: true,
  });
  if (drawn.result?.value !== true) throw new Error(`${url}: no plot-rendered:${plotId} mark within 60 s`);
  const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const r = await page.evaluate((id) => {
    const nav = performance.getEntriesByType('navigation')[0];
    const mark = performance.getEntriesByName(`plot-rendered:${id}`)[0];
    const plot = document.querySelector(`[data-plot="${id}"]`);
    const resources = performance.getEntriesByType('resource');
    const data = resources.filter((e) => /\/api\/v1\/(tradeoff|history)\?/.test(e.name));
    return {
      firstPlotMs: mark.startTime,
      // every plot of the page drawn (the trade-off page has two): nothing is deferred
      allPlotsMs: Math.max(...performance.getEntriesByType('mark').filter((m) => m.name.startsWith('plot-rendered:')).map((m) => m.startTime)),
      domContentLoadedMs: nav.domContentLoadedEventEnd,
      longTasksMs: window.__longTasks.reduce((a, b) => a + b, 0),
      longTasks: window.__longTasks.length,
      points: Number(plot?.getAttribute('data-points') ?? 0),
      transferKB: resources.reduce((a, e) => a + (e.transferSize || 0), 0) / 1024,
      // when the page's main data was asked for and had arrived, and Plotly's chunk had arrived (ms since navigation)
      dataStartMs: Math.min(...data.map((e) => e.startTime)),
      dataMs: Math.max(0, ...data.map((e) => e.responseEnd)),
      dataRequests: data.length,
      plotlyMs: Math.max(0, ...resources.filter((e) => /\/plotly.*\.js/.test(e.name)).map((e) => e.responseEnd)),
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
const load = () => os.loadavg().map((x) => x.toFixed(1)).join(' / ');

// BB_PERF_URL: reuse a backend already seeded by `node e2e/serve.mjs --history 10000`
// (seeding 10 000 commits through the API takes minutes); else start and seed one.
async function existing(url) {
  const get = async (p) => (await fetch(url + '/api/v1' + p)).json();
  const dims = await get('/configurations/dimensions');
  const newest = (await get('/commits?limit=1')).items[0];
  return { commits: [null, newest.sha], machine: dims.machines[0].name, dataset: dims.datasets[0] };
}

const reuse = process.env.BB_PERF_URL?.split(',').map((u) => u.trim().replace(/\/+$/, '')).filter(Boolean);
const backends = reuse?.length
  ? reuse.map((base) => ({ base, apiBase: base, stop: async () => {} }))
  : [await startBackend({ label: 'perf' })];
let browser;
try {
  console.log(`load average (1/5/15 min) at start: ${load()}`);
  const t0 = nodePerf.now();
  const data = reuse?.length ? await existing(backends[0].base) : seed(backends[0], ['--history', String(N)]);
  if (!reuse?.length) console.log(`seeded ${N} commits through the API in ${((nodePerf.now() - t0) / 1000).toFixed(1)} s`);
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
      const r = await fetch(`${backends[0].apiBase}/api/v1/history?machine=${data.machine}&dataset=${data.dataset}&metric=compress_mbps&setting=505&max_points=${max}`);
      const body = await r.json();
      times.push(nodePerf.now() - t);
      if (i === 0) console.log(`GET /history max_points=${max}: ${body.points.length} of ${body.total_points} points`);
    }
    console.log(`GET /history max_points=${max}: median ${fmt(median(times))} ms (${times.map(fmt).join(', ')})`);
  }
  browser = await launchChromium();
  const results = [];
  for (const [name, path, id] of pages) {
    for (const b of backends) await measure(browser, b.base + path, id); // warm the server side once (DB caches)
    const runs = backends.map(() => []);
    for (let i = 0; i < RUNS; i++) {
      for (const [k, b] of backends.entries()) runs[k].push(await measure(browser, b.base + path, id));
    }
    for (const [k, b] of backends.entries()) results.push({ name, backend: b.base, runs: runs[k] });
  }
  const which = (r) => (backends.length > 1 ? ` @ ${r.backend}` : '');

  console.log(`\nload average at end: ${load()}\n`);
  console.log('| page | points | first plot (median) | runs | all plots drawn | main-thread busy (CDP TaskDuration) | main-thread CPU (CDP ThreadTime) | script | layout+style | long tasks | data asked | data arrived | Plotly arrived | transfer |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  const warnings = [];
  for (const { name, runs, ...r } of results) {
    const m = (f) => fmt(median(runs.map(f)));
    console.log(
      `| ${name}${which(r)} | ${runs[0].points} | ${m((x) => x.firstPlotMs)} ms | ${runs.map((x) => fmt(x.firstPlotMs)).join(', ')} | ${m((x) => x.allPlotsMs)} ms | ` +
        `${m((x) => x.taskMs)} ms | ${m((x) => x.cpuMs)} ms | ${m((x) => x.scriptMs)} ms | ${m((x) => x.layoutMs)} ms | ` +
        `${median(runs.map((x) => x.longTasks))} (${m((x) => x.longTasksMs)} ms) | ` +
        `${m((x) => x.dataStartMs)} ms | ${m((x) => x.dataMs)} ms | ${m((x) => x.plotlyMs)} ms | ${m((x) => x.transferKB)} kB |`,
    );
    const errs = runs.flatMap((x) => x.errors);
    if (errs.length) warnings.push(`${name}${which(r)}: page errors: ${errs.join('; ')}`);
    // One series / one machine: one data request. More means the start-up prefetch
    // (src/app/prefetch.ts) and the page asked for different parameters.
    const extra = Math.max(...runs.map((x) => x.dataRequests));
    if (extra !== 1) warnings.push(`${name}${which(r)}: ${extra} data requests instead of 1 (prefetch and page disagree?)`);
  }
  console.log(`\nSummary (goal, issue 12: first plot < ${GOAL_MS} ms on an idle machine; load average at end ${load()}):\n`);
  console.log('| page | first plot (median) | main-thread CPU (median) | under the goal |');
  console.log('|---|---|---|---|');
  for (const { name, runs, ...r } of results) {
    const first = median(runs.map((x) => x.firstPlotMs));
    console.log(`| ${name}${which(r)} | ${fmt(first)} ms | ${fmt(median(runs.map((x) => x.cpuMs)))} ms | ${first < GOAL_MS ? 'yes' : 'no'} |`);
  }
  for (const w of warnings) console.log(`WARNING ${w}`);
} finally {
  if (browser) await browser.close();
  for (const b of backends) await b.stop();
}
