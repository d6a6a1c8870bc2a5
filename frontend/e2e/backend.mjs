// Starts a throw-away basketbench backend for browser tests: a fresh, uniquely
// named PostgreSQL database (dropped at the end), a free port, a token, the
// built dashboard served from frontend/dist (one origin), runs left queued.
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const FRONTEND = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REPO = path.resolve(FRONTEND, '..');
const BIN = process.env.BASKETBENCH_BIN ?? path.join(REPO, '.venv/bin/basketbench');
export const PYTHON = process.env.PYTHON ?? path.join(REPO, '.venv/bin/python');
const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: process.env.PGPORT ?? '5432', user: process.env.PGUSER ?? 'postgres' };

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// CREATE/DROP DATABASE through the venv's psycopg (no psql client needed).
function psql(sql) {
  const code = [
    'import sys, psycopg',
    'with psycopg.connect(sys.argv[1], autocommit=True) as c: c.execute(sys.argv[2])',
  ].join('\n');
  execFileSync(PYTHON, ['-c', code, `postgresql://${PG.user}@${PG.host}:${PG.port}/postgres`, sql], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function waitHealthy(base, proc, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`basketbench serve exited with ${proc.exitCode}`);
    try {
      const r = await fetch(`${base}/api/v1/health`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`backend did not become healthy within ${timeoutMs} ms`);
}

// Serves frontend/dist and forwards /api and /docs to the backend: only used when
// BB_E2E_STATIC=node, to test the UI while `basketbench serve` cannot serve the dist.
async function startStaticProxy(apiBase) {
  const http = await import('node:http');
  const fs = await import('node:fs');
  const dist = path.join(FRONTEND, 'dist');
  const types = { '.js': 'text/javascript', '.css': 'text/css', '.html': 'text/html', '.png': 'image/png', '.svg': 'image/svg+xml' };
  const server = http.createServer(async (req, res) => {
    if (req.url.startsWith('/api/') || req.url.startsWith('/docs')) {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const r = await fetch(apiBase + req.url, {
        method: req.method,
        headers: Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'connection')),
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      res.writeHead(r.status, Object.fromEntries([...r.headers].filter(([k]) => k !== 'content-encoding' && k !== 'content-length')));
      res.end(Buffer.from(await r.arrayBuffer()));
      return;
    }
    const file = path.join(dist, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    const target = file.startsWith(dist) && fs.existsSync(file) && fs.statSync(file).isFile() ? file : path.join(dist, 'index.html');
    res.writeHead(200, { 'content-type': types[path.extname(target)] ?? 'application/octet-stream' });
    fs.createReadStream(target).pipe(res);
  });
  const port = await freePort();
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

export async function startBackend({ label = 'e2e', log = false } = {}) {
  const viaNode = process.env.BB_E2E_STATIC === 'node';
  const db = `bb_fe_${label}_${process.pid}_${randomBytes(3).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bb-fe-'));
  const port = await freePort();
  const secret = randomBytes(16).toString('hex');
  psql(`CREATE DATABASE ${db}`);
  const env = {
    ...process.env,
    BASKETBENCH_DATABASE_URL: `postgresql://${PG.user}@${PG.host}:${PG.port}/${db}`,
    BASKETBENCH_FRONTEND_DIST: viaNode ? path.join(dataDir, 'no-dist') : path.join(FRONTEND, 'dist'),
    BASKETBENCH_WEBHOOK_SECRET: secret,
    BASKETBENCH_DISPATCH: 'none',
    BASKETBENCH_DATA_DIR: dataDir,
    BASKETBENCH_LOG_LEVEL: 'warning',
  };
  delete env.BASKETBENCH_BROKER_URL;
  let proc;
  let proxy;
  const stop = async () => {
    if (proxy) await proxy.close();
    if (proc && proc.exitCode === null) {
      proc.kill('SIGTERM');
      await new Promise((r) => {
        const t = setTimeout(() => {
          proc.kill('SIGKILL');
          r();
        }, 5000);
        proc.once('exit', () => {
          clearTimeout(t);
          r();
        });
      });
    }
    try {
      psql(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    } catch (e) {
      console.error(`could not drop ${db}: ${e.message}`);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const token = execFileSync(BIN, ['token', 'create', '--name', 'e2e'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      .trim()
      .split('\n')
      .pop();
    proc = spawn(BIN, ['serve', '--host', '127.0.0.1', '--port', String(port)], {
      env,
      stdio: ['ignore', log ? 'inherit' : 'ignore', 'inherit'],
    });
    const apiBase = `http://127.0.0.1:${port}`;
    await waitHealthy(apiBase, proc);
    if (viaNode) proxy = await startStaticProxy(apiBase);
    const base = proxy ? proxy.base : apiBase;
    return { base, apiBase, token, secret, db, env, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

export function seed(backend, extra = []) {
  const out = execFileSync(
    PYTHON,
    [path.join(REPO, 'tests/e2e/seed.py'), '--url', backend.apiBase, '--token', backend.token, '--webhook-secret', backend.secret, ...extra],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 },
  );
  return JSON.parse(out.trim().split('\n').pop());
}

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
}
