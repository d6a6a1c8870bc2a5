/// <reference types="vitest/config" />
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import ts from 'typescript';

// In development the API runs elsewhere (`basketbench serve`); the built app is
// served by the backend itself, so production needs no proxy (one origin).
const apiTarget = process.env.BASKETBENCH_API ?? 'http://127.0.0.1:8000';

// The chunk of each Plotly bundle (src/lib/plotly-*.ts); early-data.ts's pagePlotly names the
// one the page at the URL draws with, as app/prefetch.ts does at start-up.
const PLOTLY_CHUNK_OF_FLAVOUR: Record<string, string> = {
  basic: 'plotly-basic',
  gl: 'plotly-gl',
};

/** src/app/early-data.ts as a classic script that starts the page's main API request. */
function earlyDataScript(): string {
  const source = readFileSync(fileURLToPath(new URL('./src/app/early-data.ts', import.meta.url)), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020, removeComments: true },
  });
  return `(function(exports){${outputText}\nexports.startEarlyData();})({});`;
}

// index.html starts what the page will wait for while the app's own code is still
// arriving, instead of after it has run: the page's main API request and its Plotly chunks.
function startPageLoads(): Plugin {
  return {
    name: 'basketbench:start-page-loads',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        if (!ctx.bundle) return html;
        // the chunk the app imports (lib/plotly-*.ts) and the chunks it imports in turn
        const chunks = Object.values(ctx.bundle).flatMap((out) => (out.type === 'chunk' ? [out] : []));
        const files = Object.fromEntries(
          chunks
            .filter((c) => c.isDynamicEntry && c.name.startsWith('plotly-'))
            .map((c) => [c.name, [c.fileName, ...c.imports].map((f) => `/${f}`)]),
        );
        const byFlavour = Object.fromEntries(
          Object.entries(PLOTLY_CHUNK_OF_FLAVOUR).map(([flavour, chunk]) => {
            if (!files[chunk]) throw new Error(`no chunk ${chunk} in the build`);
            return [flavour, files[chunk]];
          }),
        );
        // after the early-data script, which sets window.__basketbenchPlotly (EARLY_PLOTLY)
        const preload =
          `(function(){var f=${JSON.stringify(byFlavour)}[window.__basketbenchPlotly]||[];` +
          `f.forEach(function(u){var l=document.createElement('link');l.rel='modulepreload';l.crossOrigin='';l.href=u;document.head.appendChild(l);});})();`;
        // Before the stylesheet (an inline script after it would wait for it) and the module
        // scripts. The backend allows both by their CSP hashes.
        if (!html.includes('<script')) throw new Error('index.html has no <script> to put these before');
        return html.replace('<script', () => `<script>${earlyDataScript()}</script>\n    <script>${preload}</script>\n    <script`);
      },
    },
  };
}

// Plotly's module code runs almost entirely while the first plot is drawn: V8's explicit
// compile hint (Chrome >= 136) compiles all of it on a background thread as it streams in,
// instead of function by function on the main thread when each is first called.
function eagerCompilePlotly(): Plugin {
  return {
    name: 'basketbench:eager-compile-plotly',
    apply: 'build',
    generateBundle(_options, bundle) {
      for (const out of Object.values(bundle)) {
        if (out.type === 'chunk' && out.name.startsWith('plotlyjs-')) out.code = `//# allFunctionsCalledOnLoad\n${out.code}`;
      }
    },
  };
}

// The backend serves x.js.br / x.js.gz when the browser accepts them
// (backend/basketbench/web/static_assets.py): compressed once here, not per request.
function precompressAssets(): Plugin {
  const brotli = promisify(brotliCompress);
  const gz = promisify(gzip);
  return {
    name: 'basketbench:precompress-assets',
    apply: 'build',
    async writeBundle(options, bundle) {
      const dir = options.dir ?? 'dist';
      const files = Object.keys(bundle).filter((f) => f.startsWith('assets/') && /\.(js|css|svg|json)$/.test(f));
      await Promise.all(
        files.map(async (file) => {
          const full = path.join(dir, file);
          const raw = await readFile(full);
          if (raw.length < 1024) return;
          const params = { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length };
          await writeFile(`${full}.br`, await brotli(raw, { params }));
          await writeFile(`${full}.gz`, await gz(raw, { level: 9 }));
        }),
      );
    },
  };
}

export default defineConfig({
  plugins: [react(), startPageLoads(), eagerCompilePlotly(), precompressAssets()],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  server: { proxy: { '/api': apiTarget } },
  build: {
    outDir: 'dist',
    sourcemap: false,
    chunkSizeWarningLimit: 5000,
    rollupOptions: {
      output: {
        // Each Plotly bundle (1.1 and 1.6 MB min) in its own long-cached chunk; the small
        // modules binding them to React (lib/plotly-*.ts) are the chunks the app imports.
        manualChunks(id: string) {
          if (id.includes('plotly.js-basic-dist-min')) return 'plotlyjs-basic';
          if (id.includes('plotly.js-gl2d-dist-min')) return 'plotlyjs-gl';
          if (id.includes('node_modules')) return 'vendor';
          return undefined;
        },
      },
    },
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
