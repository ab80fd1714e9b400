import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { PlantStoreClient, StoreEvent } from '@plantstore/client'
import type { Me } from './session.js'

export interface Console {
  client: PlantStoreClient
  me: Me
  /** Follows the store's events while the caller is mounted; answers the unsubscribe. */
  onEvent: (listener: (event: StoreEvent) => void) => () => void
  /** Reports a failure: a refused token signs out, anything else is announced. */
  fail: (error: unknown) => void
  /** Shows a message (a success, or '' for none) in place of the last one. */
  announce: (message: string) => void
}

export const ConsoleContext = createContext<Console | null>(null)
export const useConsole = () => useContext(ConsoleContext)!
