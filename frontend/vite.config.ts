/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// In development the API runs elsewhere (`basketbench serve`); the built app is
// served by the backend itself, so production needs no proxy (one origin).
const apiTarget = process.env.BASKETBENCH_API ?? 'http://127.0.0.1:8000';

export default defineConfig({
  plugins: [react()],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  server: { proxy: { '/api': apiTarget } },
  build: {
    outDir: 'dist',
    sourcemap: false,
    chunkSizeWarningLimit: 5000,
    rollupOptions: {
      output: {
        // Plotly is ~1 MB min: keep it in its own long-cached chunk.
        manualChunks(id: string) {
          if (id.includes('plotly.js-gl2d-dist-min')) return 'plotly';
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
