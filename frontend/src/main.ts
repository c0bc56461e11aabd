import { mount } from 'svelte'
import { shellMounted } from './lib/startup'
import './app.css'
// Math (lib/math.ts): copying a selection gives its LaTeX. KaTeX's stylesheet loads with KaTeX.
import 'katex/contrib/copy-tex'
import App from './App.svelte'

const target = document.getElementById('app')
if (!target) throw new Error('no #app element')

// KaTeX and highlight.js are not loaded here: the first formula or code block on screen loads
// them (lib/math.ts, lib/highlight.ts), showing its source or plain text for the moment until
// then. A window that shows neither never pays for them (about 6 MB of the web process).
const app = mount(App, { target })
shellMounted()

export default app
