import { useState } from 'preact/hooks'
import { clientFor, describe, refused } from './session.js'
import type { Me } from './session.js'

/** The sign-in form: the token is checked with the service before it is kept for this tab. */
export function SignIn ({ notice, onSignedIn }: { notice: string, onSignedIn: (token: string, me: Me) => void }) {
  const [token, setToken] = useState('')
  const [error, setError] = useState(notice)
  const [busy, setBusy] = useState(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    try {
      onSignedIn(token.trim(), await clientFor(token.trim()).currentToken())
    } catch (failure) {
      setError(refused(failure) ? 'That token is unknown, expired or revoked.' : describe(failure))
    } finally {
      setBusy(false)
    }
  }

  return (
    <main class='sign-in'>
      <h1>Plant Store console</h1>
      <form onSubmit={submit}>
        <label for='token'>API token</label>
        <input
          id='token' name='token' type='password' autocomplete='off' required value={token}
          onInput={(e) => setToken(e.currentTarget.value)} aria-describedby='token-help'
        />
        <p id='token-help' class='help'>
          A token from <code>plantstore tokens create</code>. It stays in this tab only, and is forgotten when you sign out or close it.
        </p>
        <button type='submit' disabled={busy}>Sign in</button>
      </form>
      <p role='alert' class='error'>{error}</p>
    </main>
  )
}
