import { mount } from 'svelte'
import { modulesEvaluated, shellMounted } from './lib/startup'
import { applyTheme, storedTheme } from './lib/theme'
import { i18n } from './lib/i18n/index.svelte'
// The UI font's faces (Latin, Latin Extended, Greek, Cyrillic, Vietnamese), each fetched only
// when text in its range is on screen; the Latin one is preloaded by index.html.
import '@fontsource-variable/inter/wght.css'
import './app.css'
// Math (lib/math.ts): copying a selection gives its LaTeX. KaTeX's stylesheet loads with KaTeX.
import 'katex/contrib/copy-tex'
import App from './App.svelte'

modulesEvaluated()

// The theme before the first frame, so a dark choice never flashes light.
applyTheme(storedTheme())
document.documentElement.lang = i18n.locale

const target = document.getElementById('app')
if (!target) throw new Error('no #app element')

// KaTeX and highlight.js are not loaded here: the first formula or code block on screen loads
// them (lib/math.ts, lib/highlight.ts), showing its source or plain text for the moment until
// then. A window that shows neither never pays for them (about 6 MB of the web process).
const app = mount(App, { target })
shellMounted()

export default app
