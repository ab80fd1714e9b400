import { useEffect, useState } from 'preact/hooks'
import type { DeliveryPage } from '@plantstore/client'
import { useConsole } from '../context.js'
import { count, TableRegion, when } from '../ui.js'

const PAGE_SIZE = 20

/** A subscription's delivery log, newest first and paged, with redeliver and "recover since…". */
export function Deliveries ({ id }: { id: number }) {
  const { client, fail, announce } = useConsole()
  const [after, setAfter] = useState<string[]>([])
  const [page, setPage] = useState<DeliveryPage | null>(null)
  const [since, setSince] = useState('')

  const load = () => client.listWebhookDeliveries(id, { limit: PAGE_SIZE, ...(after.length > 0 && { after: after.at(-1) }) }).then(setPage, fail)
  useEffect(() => { load() }, [id, after])

  const redeliver = async (eventId: string) => {
    try {
      await client.redeliverWebhookEvent(id, eventId)
      announce(`Sending ${eventId} again.`)
      await load()
    } catch (error) { fail(error) }
  }
  const recover = async (event: Event) => {
    event.preventDefault()
    try {
      const count = await client.recoverWebhook(id, new Date(since))
      announce(`${count} failed or given-up events since ${new Date(since).toLocaleString()} will be sent again, in order.`)
      await load()
    } catch (error) { fail(error) }
  }

  return (
    <>
      <h3>Deliveries</h3>
      <form class='row' onSubmit={recover}>
        <label>Recover since <input name='since' type='datetime-local' required value={since} onInput={(e) => setSince(e.currentTarget.value)} /></label>
        <button type='submit'>Recover</button>
        <button type='button' class='secondary' onClick={() => load()}>Refresh</button>
      </form>
      <TableRegion label='Deliveries'>
        <table>
          <caption>{page === null ? 'Loading deliveries…' : `${count(page.deliveries.length, 'delivery', 'deliveries')} on this page, newest first`}</caption>
          <thead>
            <tr>
              <th scope='col'>Event</th><th scope='col'>Type</th><th scope='col'>State</th><th scope='col'>Attempts</th>
              <th scope='col'>Last status</th><th scope='col'>Last error</th><th scope='col'>Next attempt</th><th scope='col'>Actions</th>
            </tr>
          </thead>
          <tbody>
            {page?.deliveries.map((d) => (
              <tr key={d.id} data-event={d.id}>
                <td class='id'>{d.id}{d.plantId !== undefined && <div class='help'>plant {String(d.plantId)}</div>}</td>
                <td>{d.type}</td>
                <td class={`state ${d.state}`}>{d.state}</td>
                <td>{d.attempts}</td>
                <td>{d.lastStatus ?? '—'}</td>
                <td class='error-text'>{d.lastError ?? '—'}</td>
                <td>{when(d.nextAttemptAt)}</td>
                <td><button type='button' class='secondary' onClick={() => redeliver(d.id)} aria-label={`Redeliver ${d.id}`}>Redeliver</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableRegion>
      <nav class='pager' aria-label='Pages of deliveries'>
        <button type='button' class='secondary' disabled={after.length === 0} onClick={() => setAfter(after.slice(0, -1))}>Newer</button>
        <button type='button' class='secondary' disabled={page?.next?.after === undefined} onClick={() => setAfter([...after, page!.next!.after!])}>Older</button>
      </nav>
    </>
  )
}
