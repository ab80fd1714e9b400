import { useEffect, useState } from 'preact/hooks'
import type { WebhookSubscription } from '@plantstore/client'
import { useConsole } from '../context.js'
import { count, SecretOnce, TableRegion, when } from '../ui.js'
import { WebhookDetail } from './webhook-detail.js'
import { EventChoice, throttleOf } from './event-choice.js'

/** Webhooks: every subscription with its health; subscribe (the secret shown once); one opened in detail. */
export function WebhooksScreen () {
  const { client, fail, announce } = useConsole()
  const [subscriptions, setSubscriptions] = useState<WebhookSubscription[] | null>(null)
  const [open, setOpen] = useState<number | null>(null)
  const [secret, setSecret] = useState<string | null>(null)
  const [url, setUrl] = useState('')
  const [description, setDescription] = useState('')
  const [events, setEvents] = useState<string[] | null>(null)
  const [throttle, setThrottle] = useState('')

  const load = () => client.listWebhooks().then(setSubscriptions, fail)
  useEffect(() => { load() }, [])

  const create = async (event: Event) => {
    event.preventDefault()
    try {
      const made = await client.createWebhook({
        url, ...(description !== '' && { description }), events: events as never, maxPerSecond: throttleOf(throttle)
      })
      setSecret(made.secret)
      announce(`Subscribed ${made.url}.`)
      // The form starts over: no field, box or throttle of the last subscription stays.
      setUrl(''); setDescription(''); setEvents(null); setThrottle('')
      await load()
    } catch (error) { fail(error) }
  }

  return (
    <>
      {secret !== null && <SecretOnce label='The signing secret' value={secret} onDone={() => setSecret(null)} />}
      <form class='card' onSubmit={create} aria-labelledby='new-webhook'>
        <h2 id='new-webhook'>New subscription</h2>
        <div class='fields'>
          <label>URL <input name='url' type='url' required maxLength={2048} value={url} onInput={(e) => setUrl(e.currentTarget.value)} /></label>
          <label>Description <input name='description' maxLength={256} value={description} onInput={(e) => setDescription(e.currentTarget.value)} /></label>
          <label>Most per second <input name='max-per-second' inputMode='numeric' placeholder='no limit' value={throttle} onInput={(e) => setThrottle(e.currentTarget.value)} /></label>
        </div>
        <EventChoice value={events} onChange={setEvents} />
        <button type='submit'>Subscribe</button>
      </form>
      {open !== null && <WebhookDetail id={open} onChanged={load} onClose={() => { setOpen(null); load() }} />}
      <TableRegion label='Webhook subscriptions'>
        <table>
          <caption>{subscriptions === null ? 'Loading subscriptions…' : count(subscriptions.length, 'subscription')}</caption>
          <thead>
            <tr><th scope='col'>URL</th><th scope='col'>Events</th><th scope='col'>State</th><th scope='col'>Last success</th>
              <th scope='col'>Failures in a row</th><th scope='col'>Backlog</th><th scope='col'>Last error</th><th scope='col'>Actions</th>
            </tr>
          </thead>
          <tbody>
            {subscriptions?.map((s) => (
              <tr key={s.id} data-id={s.id}>
                <td class='url'>{s.url}{s.description !== null && <div class='help'>{s.description}</div>}</td>
                <td>{s.events === null ? 'newPlant body' : s.events.join(', ')}</td>
                <td class={`state ${s.state}`}>{s.state}</td>
                <td>{when(s.lastSuccessAt)}</td>
                <td>{s.consecutiveFailures}</td>
                <td>{s.backlog ?? 0}</td>
                <td>{s.lastError ?? '—'}</td>
                <td><button type='button' class='secondary' onClick={() => setOpen(s.id)} aria-label={`Open subscription ${s.id}`}>Open</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableRegion>
    </>
  )
}
