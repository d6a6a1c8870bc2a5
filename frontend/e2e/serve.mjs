// Development helper: start a seeded throw-away backend and keep it up until Ctrl-C
// (prints the URL and token). Same setup as the browser tests.
import { seed, startBackend } from './backend.mjs';

const backend = await startBackend({ label: 'dev' });
const data = seed(backend, process.argv.slice(2));
console.log(JSON.stringify({ url: backend.base, api: backend.apiBase, token: backend.token, commits: data.commits }));
const shutdown = async () => {
  await backend.stop();
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
setInterval(() => {}, 1 << 30);
