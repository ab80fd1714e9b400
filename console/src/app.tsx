import { useEffect, useMemo, useState } from 'preact/hooks'
import type { StoreEvent } from '@plantstore/client'
import { ConsoleContext } from './context.js'
import type { Console } from './context.js'
import { clientFor, describe, forgetToken, holds, refused, savedToken, saveToken } from './session.js'
import type { Me } from './session.js'
import { SignIn } from './sign-in.js'
import { useEventHub } from './event-hub.js'
import { PlantsScreen } from './screens/plants.js'
import { LiveScreen } from './screens/live.js'
import { WebhooksScreen } from './screens/webhooks.js'
import { TokensScreen } from './screens/tokens.js'

const SCREENS = [
  { id: 'plants', title: 'Plants', scope: 'plants:read', view: PlantsScreen },
  { id: 'live', title: 'Live', scope: 'plants:read', view: LiveScreen },
  { id: 'webhooks', title: 'Webhooks', scope: 'webhooks:manage', view: WebhooksScreen },
  { id: 'tokens', title: 'Tokens', scope: 'tokens:manage', view: TokensScreen }
] as const

const screenFromHash = () => SCREENS.find((screen) => `#${screen.id}` === location.hash) ?? SCREENS[0]

/** The console: sign-in, then the screens the token's scopes allow, and one event stream for all of them. */
export function App () {
  const [token, setToken] = useState(savedToken)
  const [me, setMe] = useState<Me | null>(null)
  const [notice, setNotice] = useState('')

  useEffect(() => {
    if (token === null || me !== null) return
    clientFor(token).currentToken().then(setMe, (error: unknown) => {
      forgetToken()
      setToken(null)
      setNotice(refused(error) ? 'The saved token was refused; sign in again.' : describe(error))
    })
  }, [token])

  const signOut = (message = '') => {
    forgetToken()
    setToken(null)
    setMe(null)
    setNotice(message)
  }

  if (token === null) {
    return <SignIn notice={notice} onSignedIn={(value, who) => { saveToken(value); setNotice(''); setToken(value); setMe(who) }} />
  }
  if (me === null) return <main class='loading'><p role='status'>Signing in…</p></main>
  return <Signed token={token} me={me} signOut={signOut} />
}

function Signed ({ token, me, signOut }: { token: string, me: Me, signOut: (message?: string) => void }) {
  const [screen, setScreen] = useState(screenFromHash)
  // One message at a time: the newest replaces the last, an error shown as one.
  const [announcement, setAnnouncement] = useState({ text: '', error: false })
  const client = useMemo(() => clientFor(token), [token])
  const fail = (error: unknown) => {
    if (refused(error)) signOut('Your token was refused (revoked or expired): sign in again.')
    else setAnnouncement({ text: describe(error), error: true })
  }
  const hub = useEventHub(client, holds(me, 'plants:read'), fail)
  const value: Console = { client, me, onEvent: hub.subscribe, fail, announce: (text: string) => setAnnouncement({ text, error: false }) }

  useEffect(() => {
    const follow = () => { setScreen(screenFromHash()); setAnnouncement({ text: '', error: false }) }
    addEventListener('hashchange', follow)
    return () => removeEventListener('hashchange', follow)
  }, [])
  useEffect(() => { document.title = `${screen.title} · Plant Store console` }, [screen])

  const View = screen.view
  return (
    <ConsoleContext.Provider value={value}>
      <header class='top'>
        <span class='brand'>Plant Store</span>
        <nav aria-label='Screens'>
          {SCREENS.map((s) => <a key={s.id} href={`#${s.id}`} aria-current={s.id === screen.id ? 'page' : undefined}>{s.title}</a>)}
        </nav>
        <span class='who'>Signed in as <strong>{me.name}</strong></span>
        <button type='button' class='secondary' onClick={() => signOut()}>Sign out</button>
      </header>
      {!hub.connected && holds(me, 'plants:read') && (
        <p class='banner' role='status'>Live updates are disconnected; reconnecting…</p>
      )}
      <main>
        <h1>{screen.title}</h1>
        <p class={`announcement${announcement.error ? ' error' : ''}`} role={announcement.error ? 'alert' : 'status'} aria-live='polite'>{announcement.text}</p>
        {holds(me, screen.scope)
          ? <View events={hub.events} />
          : <p class='needs-scope'>This screen needs a token with the <code>{screen.scope}</code> scope. Yours has: {me.scopes.join(', ')}.</p>}
      </main>
    </ConsoleContext.Provider>
  )
}

export type ScreenProps = { events: StoreEvent[] }
