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

export async function startBackend({ label = 'e2e', log = false } = {}) {
  const db = `bb_fe_${label}_${process.pid}_${randomBytes(3).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bb-fe-'));
  const port = await freePort();
  const secret = randomBytes(16).toString('hex');
  psql(`CREATE DATABASE ${db}`);
  const env = {
    ...process.env,
    BASKETBENCH_DATABASE_URL: `postgresql://${PG.user}@${PG.host}:${PG.port}/${db}`,
    BASKETBENCH_FRONTEND_DIST: process.env.BB_E2E_DIST ?? path.join(FRONTEND, 'dist'),
    BASKETBENCH_WEBHOOK_SECRET: secret,
    BASKETBENCH_DISPATCH: 'none',
    BASKETBENCH_DATA_DIR: dataDir,
    BASKETBENCH_LOG_LEVEL: 'warning',
  };
  delete env.BASKETBENCH_BROKER_URL;
  let proc;
  const stop = async () => {
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
    const token = execFileSync(BIN, ['token', 'create', '--name', 'e2e', '--scope', 'admin'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      .trim()
      .split('\n')
      .pop();
    proc = spawn(BIN, ['serve', '--host', '127.0.0.1', '--port', String(port)], {
      env,
      stdio: ['ignore', log ? 'inherit' : 'ignore', 'inherit'],
    });
    const base = `http://127.0.0.1:${port}`;
    await waitHealthy(base, proc);
    // One origin: the backend serves the API and the built dashboard.
    return { base, apiBase: base, token, secret, db, env, stop };
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
