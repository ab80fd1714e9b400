import { useEffect, useState } from 'preact/hooks'
import type { Token } from '@plantstore/client'
import { useConsole } from '../context.js'
import { holds } from '../session.js'
import { ConfirmButton, SecretOnce, TableRegion, when } from '../ui.js'

const SCOPES = ['plants:read', 'plants:write', 'webhooks:manage', 'webhooks:admin', 'tokens:manage'] as const
const LIFETIMES = [['', 'never'], ['1h', '1 hour'], ['1d', '1 day'], ['30d', '30 days'], ['90d', '90 days']] as const

/** Tokens: who may call the service; create (the token shown once) and revoke, within the caller's own scopes. */
export function TokensScreen () {
  const { client, me, fail, announce } = useConsole()
  const [tokens, setTokens] = useState<Token[] | null>(null)
  const [name, setName] = useState('')
  const [scopes, setScopes] = useState<Set<string>>(new Set(['plants:read']))
  const [expiresIn, setExpiresIn] = useState('')
  const [created, setCreated] = useState<string | null>(null)

  const load = () => client.listTokens().then(setTokens, fail)
  useEffect(() => { load() }, [])

  const create = async (event: Event) => {
    event.preventDefault()
    try {
      const token = await client.createToken({ name, scopes: [...scopes] as Token['scopes'], ...(expiresIn !== '' && { expiresIn }) })
      setCreated(token.token)
      setName('')
      await load()
    } catch (error) { fail(error) }
  }
  const revoke = async (token: Token) => {
    try {
      await client.revokeToken(token.id)
      announce(`Revoked ${token.name}.`)
      await load()
    } catch (error) { fail(error) }
  }
  const toggle = (scope: string) => {
    const next = new Set(scopes)
    if (!next.delete(scope)) next.add(scope)
    setScopes(next)
  }

  return (
    <>
      {created !== null && <SecretOnce label='The new token' value={created} onDone={() => setCreated(null)} />}
      <form class='card' onSubmit={create} aria-labelledby='new-token'>
        <h2 id='new-token'>New token</h2>
        <div class='fields'>
          <label>Name <input name='token-name' required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
          <label>Expires in
            <select name='expires-in' value={expiresIn} onChange={(e) => setExpiresIn(e.currentTarget.value)}>
              {LIFETIMES.map(([value, label]) => <option key={value} value={value}>{label}</option>)}
            </select>
          </label>
        </div>
        <fieldset class='row'>
          <legend>Scopes (only those your token holds)</legend>
          {SCOPES.map((scope) => (
            <label key={scope} class='check'>
              <input type='checkbox' checked={scopes.has(scope)} disabled={!holds(me, scope)} onChange={() => toggle(scope)} /> {scope}
            </label>
          ))}
        </fieldset>
        <button type='submit' disabled={scopes.size === 0}>Create token</button>
      </form>
      <TableRegion label='Tokens'>
        <table>
          <caption>{tokens === null ? 'Loading tokens…' : `${tokens.length} tokens`}</caption>
          <thead><tr><th scope='col'>Name</th><th scope='col'>Scopes</th><th scope='col'>State</th><th scope='col'>Created</th><th scope='col'>Expires</th><th scope='col'>Last used</th><th scope='col'>Actions</th></tr></thead>
          <tbody>
            {tokens?.map((token) => (
              <tr key={token.id} data-name={token.name}>
                <td>{token.name}</td>
                <td>{token.scopes.join(', ')}</td>
                <td class={`state ${token.state}`}>{token.state}</td>
                <td>{when(token.createdAt)}</td>
                <td>{when(token.expiresAt)}</td>
                <td>{when(token.lastUsedAt)}</td>
                <td>{token.state === 'active' && <ConfirmButton label='Revoke' question={`Revoke ${token.name}?`} onConfirm={() => revoke(token)} />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableRegion>
    </>
  )
}
