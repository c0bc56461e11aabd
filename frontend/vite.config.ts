/// <reference types="vitest/config" />
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { defineConfig } from 'vite'
import { availableParallelism } from 'node:os'

export default defineConfig({
  plugins: [svelte()],
  // Relative asset paths: the same build is embedded in the Wails binary and served by `tofu serve`.
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true, // the postbuild script re-creates dist/.gitkeep
    target: 'es2022',
    chunkSizeWarningLimit: 600,
    rollupOptions: {
      // A build warning is a mistake to fix, not noise every build prints: it fails the build.
      // PLUGIN_TIMINGS is not a warning about the code: rolldown's note that plugins took most
      // of the build time, which a busy machine makes true.
      onwarn(warning) {
        if (warning.code === 'PLUGIN_TIMINGS') return
        throw new Error(`vite build: ${warning.code ?? 'warning'}: ${warning.message}`)
      },
    },
  },
  server: {
    // `npm run dev` against a running `tofu serve`: TOFU_URL=http://127.0.0.1:PORT npm run dev
    proxy: process.env.TOFU_URL ? { '/api': { target: process.env.TOFU_URL, changeOrigin: false } } : undefined,
  },
  test: {
    // Most tests are logic: node. A file that needs a DOM says so (// @vitest-environment jsdom);
    // jsdom for every file cost ~1 s each, 52 of the suite's 90 s.
    environment: 'node',
    include: ['src/**/*.test.ts'],
    // Vitest leaves one processor free by default: one worker on a 2-core machine, where the
    // suite waits on module loading about as much as it computes (56 -> 40 s with two).
    maxWorkers: Math.max(2, availableParallelism()),
  },
})
