import { render } from 'preact'
import { App } from './app.js'

const root = document.getElementById('app')!
// The page's "Loading…" placeholder is replaced, not diffed into.
root.replaceChildren()
render(<App />, root)
