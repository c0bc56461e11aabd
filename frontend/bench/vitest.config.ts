// The front end's benchmarks (`make bench`, backend/bench): the app's plugins (Svelte runes in
// .svelte.ts) and jsdom (DOMPurify), with only bench/*.measure.ts, so `make test` never runs
// them and they never assert on time. Run from frontend/.
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  plugins: [svelte()],
  test: { environment: 'jsdom', include: ['bench/**/*.measure.ts'], testTimeout: 600_000 },
})
