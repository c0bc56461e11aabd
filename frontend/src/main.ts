import { mount } from 'svelte'
import './app.css'
// Math (lib/math.ts): KaTeX's fonts and layout, and copying a selection gives its LaTeX.
import 'katex/dist/katex.min.css'
import 'katex/contrib/copy-tex'
import App from './App.svelte'

const target = document.getElementById('app')
if (!target) throw new Error('no #app element')

export default mount(App, { target })
