/// <reference types="vitest/config" />
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { defineConfig, type Plugin } from 'vite'
import { readdirSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'

/** The face of the UI font (src/app.css: Inter) that every screen uses, as the build names it. */
export const latinFace = /^assets\/inter-latin-wght-normal-[\w-]+\.woff2$/

/**
 * The UI font ships with the app: index.html preloads its Latin face, so the page has it by its
 * first layout (the fetch runs while the script is parsed) instead of drawing in a fallback and
 * again; and the font's licence (SIL OFL 1.1) goes beside its faces.
 */
function uiFont(): Plugin {
  return {
    name: 'tofu-ui-font',
    apply: 'build',
    generateBundle() {
      const licence = fileURLToPath(import.meta.resolve('@fontsource-variable/inter/LICENSE'))
      this.emitFile({ type: 'asset', fileName: 'assets/Inter-LICENSE.txt', source: readFileSync(licence) })
    },
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const face = Object.keys(ctx.bundle ?? {}).find((f) => latinFace.test(f))
        if (!face) throw new Error("vite build: the UI font's Latin face is not in the bundle")
        return [{ tag: 'link', attrs: { rel: 'preload', href: `./${face}`, as: 'font', type: 'font/woff2', crossorigin: '' }, injectTo: 'head' }]
      },
    },
  }
}

/**
 * The test files that need a module registry of their own: those of a first load
 * (*.lazy.test.ts: what a page shows before KaTeX or highlight.js has loaded) and those that
 * call vi.resetModules, which in a shared worker would reset the registry under the files run
 * after them (a catalogue imported twice is two objects).
 */
function freshFiles(): string[] {
  const src = fileURLToPath(new URL('./src', import.meta.url))
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .filter((f) => f.endsWith('.lazy.test.ts') || readFileSync(`${src}/${f}`, 'utf8').includes('vi.resetModules'))
    .map((f) => `src/${f}`)
}

export default defineConfig({
  plugins: [svelte(), uiFont()],
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
    // Vitest leaves one processor free by default: one worker on a 2-core machine, where the
    // suite waits on module loading about as much as it computes (56 -> 40 s with two).
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      {
        extends: true,
        // A worker runs file after file with the modules it loaded: each file loading Svelte,
        // the stores and jsdom's dependencies afresh was half the suite's CPU (59 -> ~35 s).
        // Each file sets what it reads (the transport, the app state, the language).
        test: { name: 'shared', include: ['src/**/*.test.ts'], exclude: freshFiles(), isolate: false },
      },
      { extends: true, test: { name: 'fresh', include: freshFiles(), isolate: true } },
    ],
  },
})
