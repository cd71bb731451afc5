// Bundles the web console (console/src) into dist/console at build time: one script, one style
// sheet, no CDN, so the page works offline and inside the container. The admin server serves
// dist/console/index.html at `/` and the bundle under `/console/assets/` (src/admin/console-routes.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Inline nothing as data: URLs and keep the files few and predictable for the static routes.
    assetsInlineLimit: 0,
    modulePreload: false,
    sourcemap: false,
    target: 'es2022',
  },
});
