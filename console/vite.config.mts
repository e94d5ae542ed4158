import { defineConfig } from 'vite';

/**
 * Built by `npm run build` into console/dist, which the service serves at /console
 * (src/common/http/console-assets.ts). JSX goes through Preact (console/tsconfig.json).
 * No inline scripts or styles: the service's Content-Security-Policy allows only 'self'.
 */
export default defineConfig({
  base: '/console/',
  build: { outDir: 'dist', emptyOutDir: true, assetsInlineLimit: 0, modulePreload: { polyfill: false }, sourcemap: false },
  logLevel: 'warn',
});
