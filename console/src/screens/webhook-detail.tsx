import { useEffect, useState } from 'preact/hooks'
import type { WebhookSubscription } from '@plantstore/client'
import { useConsole } from '../context.js'
import { ConfirmButton, SecretOnce, when } from '../ui.js'
import { EventChoice, throttleOf } from './event-choice.js'
import { Deliveries } from './deliveries.js'

/** One subscription: its health, its settings, rotate, disable or enable, delete, and its delivery log. */
export function WebhookDetail ({ id, onChanged, onClose }: { id: number, onChanged: () => void, onClose: () => void }) {
  const { client, fail, announce } = useConsole()
  const [subscription, setSubscription] = useState<WebhookSubscription | null>(null)
  const [events, setEvents] = useState<string[] | null>(null)
  const [throttle, setThrottle] = useState('')
  const [secret, setSecret] = useState<string | null>(null)

  const show = (s: WebhookSubscription) => {
    setSubscription(s); setEvents(s.events ?? null); setThrottle(s.maxPerSecond === null ? '' : String(s.maxPerSecond))
  }
  useEffect(() => { client.getWebhook(id).then(show, fail) }, [id])
  const act = async (action: () => Promise<WebhookSubscription | void>, message: string) => {
    try {
      const changed = await action()
      if (changed !== undefined) show(changed)
      announce(message)
      onChanged()
    } catch (error) { fail(error) }
  }

  if (subscription === null) return <p role='status'>Loading subscription {id}…</p>
  const enabled = subscription.state === 'enabled'
  return (
    <section class='card detail' aria-labelledby='webhook-detail'>
      <h2 id='webhook-detail'>Subscription {id}: {subscription.url}</h2>
      <p>State <strong class={`state ${subscription.state}`}>{subscription.state}</strong> · last success {when(subscription.lastSuccessAt)} ·
        {' '}{subscription.consecutiveFailures} failures in a row · backlog {subscription.backlog ?? 0}
        {subscription.lastError !== null && <> · last error: {subscription.lastError}</>}
      </p>
      {secret !== null && <SecretOnce label='The new signing secret' value={secret} onDone={() => setSecret(null)} />}
      <form onSubmit={(e) => { e.preventDefault(); act(() => client.updateWebhook(id, { events: events as never, maxPerSecond: throttleOf(throttle) }), 'Saved the subscription.') }}>
        <EventChoice value={events} onChange={setEvents} />
        <label>Most per second <input name='detail-max-per-second' inputMode='numeric' placeholder='no limit' value={throttle} onInput={(e) => setThrottle(e.currentTarget.value)} /></label>
        <button type='submit'>Save</button>
      </form>
      <div class='actions'>
        <button type='button' class='secondary' onClick={() => act(async () => { setSecret((await client.rotateWebhookSecret(id)).secret) }, 'Rotated the secret: for 24 hours deliveries carry both signatures.')}>Rotate secret</button>
        <button type='button' class='secondary' onClick={() => act(() => client.updateWebhook(id, { state: enabled ? 'disabled' : 'enabled' }), enabled ? 'Disabled: nothing is sent, events are kept.' : 'Enabled: pending events are sent now.')}>
          {enabled ? 'Disable' : 'Enable'}
        </button>
        <ConfirmButton
          label='Delete' question={`Delete subscription ${id}? Its undelivered events are given up.`}
          onConfirm={() => act(async () => { await client.deleteWebhook(id); onClose() }, `Deleted subscription ${id}.`)}
        />
        <button type='button' class='secondary' onClick={onClose}>Close</button>
      </div>
      <Deliveries id={id} />
    </section>
  )
}
