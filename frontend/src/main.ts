import { mount } from 'svelte'
import './app.css'
// Math (lib/math.ts): copying a selection gives its LaTeX. KaTeX's stylesheet loads with KaTeX.
import 'katex/contrib/copy-tex'
import App from './App.svelte'
import { loadHighlight } from './lib/highlight'
import { loadMath } from './lib/math'

const target = document.getElementById('app')
if (!target) throw new Error('no #app element')

const app = mount(App, { target })
// KaTeX and highlight.js are fetched and parsed after the first frame, not before it (a formula
// met earlier shows its source, code its plain text, until then).
requestAnimationFrame(() =>
  setTimeout(() => {
    void loadHighlight().catch(() => {})
    void loadMath().catch(() => {})
  }, 0),
)

export default app
